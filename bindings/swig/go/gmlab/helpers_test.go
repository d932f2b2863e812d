package gmlab

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// requireError checks that err is a *Error with the status and a message
// containing want.
func requireError(t *testing.T, err error, status Status, want string) {
	t.Helper()
	var gmErr *Error
	if !errors.As(err, &gmErr) {
		t.Fatalf("want a *gmlab.Error (%v, %q), got %v (%T)", status, want, err, err)
	}
	if gmErr.Status != status {
		t.Fatalf("want %v (%s), got %v: %s", status, StatusString(status), gmErr.Status, gmErr.Message)
	}
	if !strings.Contains(gmErr.Message, want) {
		t.Fatalf("want a message containing %q, got %q", want, gmErr.Message)
	}
}

// requireNoError stops the test on an unexpected error.
func requireNoError(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

// sourceFile reads a file of the source tree, found through GMLAB_SOURCE_DIR
// (set by CTest). Without it, as in a user's `go test` of the released
// module, the test is skipped: the module does not carry the source tree.
func sourceFile(t *testing.T, relative string) string {
	t.Helper()
	root := os.Getenv("GMLAB_SOURCE_DIR")
	if root == "" {
		t.Skip("reads " + relative + " of the gmlab source tree: set GMLAB_SOURCE_DIR to run it")
	}
	data, err := os.ReadFile(filepath.Join(root, relative))
	requireNoError(t, err)
	return string(data)
}

// requireDevice skips the test where there is no CUDA device.
func requireDevice(t *testing.T) {
	t.Helper()
	count, err := DeviceCount()
	requireNoError(t, err)
	if count == 0 {
		t.Skip("needs a CUDA device; there is none")
	}
}

// openDevice opens device 0, closed when the test ends; it skips the test
// where there is no CUDA device.
func openDevice(t *testing.T) *Context {
	t.Helper()
	requireDevice(t)
	ctx, err := Open(0)
	requireNoError(t, err)
	t.Cleanup(func() { ctx.Close() })
	return ctx
}

// sectorsPerRequest is the guide's model of one warp request, written
// independently of the library: the distinct 32-byte sectors touched when
// thread t of 32 reads word t*stride of wordBytes from an aligned base.
func sectorsPerRequest(wordBytes, stride int) int {
	sectors := map[int]bool{}
	for thread := 0; thread < 32; thread++ {
		first := thread * stride * wordBytes
		for s := first / 32; s <= (first+wordBytes-1)/32; s++ {
			sectors[s] = true
		}
	}
	return len(sectors)
}
