package gmlab

// Transpose, Matmul and the L2 controls on a device; each test skips itself
// where there is none.

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// transposeModel is Transpose on host bytes: out (cols x rows) from in (rows x cols).
func transposeModel(in []byte, rows, cols, size int) []byte {
	out := make([]byte, len(in))
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			from, to := (r*cols+c)*size, (c*rows+r)*size
			copy(out[to:to+size], in[from:from+size])
		}
	}
	return out
}

func TestGPUTransposeMatchesTheModel(t *testing.T) {
	ctx := openDevice(t)
	random := rand.New(rand.NewSource(1))
	const guard = 64 // bytes after the output that must stay untouched
	cases := []struct {
		rows, cols, size int
		variant          TransposeVariant
	}{
		{37, 53, 4, TransposeNaive},
		{37, 53, 4, TransposeShared},
		{37, 53, 4, TransposeSharedPadded},
		{64, 128, 4, TransposeWide},
		{64, 36, 4, TransposeAuto},
		{33, 70, 1, TransposeAuto},
		{33, 70, 2, TransposeSharedPadded},
		{19, 40, 8, TransposeShared},
		{17, 9, 16, TransposeNaive},
	}
	for _, tc := range cases {
		size := tc.rows * tc.cols * tc.size
		input := make([]byte, size)
		random.Read(input)
		in, out := newBuffer(t, ctx, int64(size)), newBuffer(t, ctx, int64(size+guard))
		requireNoError(t, in.UploadBytes(0, input))
		requireNoError(t, out.Fill(0xEE))
		requireNoError(t, ctx.Transpose(in, out, int64(tc.rows), int64(tc.cols), int64(tc.size), tc.variant))
		got := make([]byte, size+guard)
		requireNoError(t, out.DownloadBytes(0, got))
		if !bytes.Equal(got[:size], transposeModel(input, tc.rows, tc.cols, tc.size)) {
			t.Errorf("%d x %d of %d bytes, variant %d: the device's transpose differs from the model",
				tc.rows, tc.cols, tc.size, tc.variant)
		}
		if !bytes.Equal(got[size:], bytes.Repeat([]byte{0xEE}, guard)) {
			t.Errorf("%d x %d of %d bytes, variant %d: wrote past the matrix", tc.rows, tc.cols, tc.size, tc.variant)
		}
	}
}

func TestGPUTransposeRefusesBadArguments(t *testing.T) {
	ctx := openDevice(t)
	in, out := newBuffer(t, ctx, 64), newBuffer(t, ctx, 64)
	requireError(t, ctx.Transpose(in, in, 4, 4, 4, TransposeAuto), StatusInvalidArgument, "in and out must be different buffers")
	requireError(t, ctx.Transpose(in, out, 4, 4, 3, TransposeAuto), StatusInvalidArgument,
		"element_size must be one of 1, 2, 4, 8, 16, got 3")
	requireError(t, ctx.Transpose(in, out, 3, 5, 4, TransposeWide), StatusInvalidArgument,
		"GM_TRANSPOSE_WIDE needs 4-byte elements and rows and cols that are multiples of 4, got 3 x 5 of 4 bytes")
	requireError(t, ctx.Transpose(in, out, 0, 5, 4, TransposeAuto), StatusInvalidArgument,
		"rows and cols must be at least 1, got 0 x 5")
	requireError(t, ctx.Transpose(in, out, 5, 5, 4, TransposeAuto), StatusInvalidArgument,
		"in (5 x 5 x 4) needs 100 bytes, the buffer holds 64")
	requireError(t, ctx.Transpose(in, out, 4, 4, 4, TransposeVariant(9)), StatusInvalidArgument,
		"variant must be 0..4 (gm_transpose_variant), got 9")
	requireError(t, ctx.Transpose(in, out, -1, 4, 4, TransposeAuto), StatusInvalidArgument, "rows must be >= 0, got -1")
}

// matmulModel is C = A B on the host, in float64.
func matmulModel(a, b []float32, m, n, k int) []float32 {
	c := make([]float32, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var sum float64
			for p := 0; p < k; p++ {
				sum += float64(a[i*k+p]) * float64(b[p*n+j])
			}
			c[i*n+j] = float32(sum)
		}
	}
	return c
}

func TestGPUMatmulMatchesTheModel(t *testing.T) {
	ctx := openDevice(t)
	for _, shape := range [][3]int{{33, 45, 29}, {64, 64, 64}, {1, 1, 1}} {
		m, n, k := shape[0], shape[1], shape[2]
		// Small integers: every product and sum is exact in float32, so the
		// kernels must match the model exactly whatever their order of sums.
		a, b := make([]float32, m*k), make([]float32, k*n)
		for i := range a {
			a[i] = float32(i*7%11 - 5)
		}
		for i := range b {
			b[i] = float32(i*5%13 - 6)
		}
		want := matmulModel(a, b, m, n, k)
		bufA, bufB, bufC := newBuffer(t, ctx, int64(4*len(a))), newBuffer(t, ctx, int64(4*len(b))), newBuffer(t, ctx, int64(4*m*n))
		requireNoError(t, bufA.UploadFloat32(0, a))
		requireNoError(t, bufB.UploadFloat32(0, b))
		for _, variant := range []MatmulVariant{MatmulSimple, MatmulCoalescedA, MatmulSharedAB} {
			requireNoError(t, bufC.Fill(0xFF)) // NaN everywhere
			requireNoError(t, ctx.Matmul(bufA, bufB, bufC, int64(m), int64(n), int64(k), variant))
			got := make([]float32, m*n)
			requireNoError(t, bufC.DownloadFloat32(0, got))
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("%dx%dx%d, variant %d: C[%d] = %v, the model says %v", m, n, k, variant, i, got[i], want[i])
					break
				}
			}
		}
	}
}

func TestGPUMatmulRefusesBadArguments(t *testing.T) {
	ctx := openDevice(t)
	a, b, c := newBuffer(t, ctx, 8192), newBuffer(t, ctx, 8192), newBuffer(t, ctx, 64)
	requireError(t, ctx.Matmul(a, b, a, 4, 4, 4, MatmulSharedAB), StatusInvalidArgument, "c must differ from a and b")
	requireError(t, ctx.Matmul(a, b, c, 0, 4, 4, MatmulSharedAB), StatusInvalidArgument, "m, n and k must be at least 1, got 0, 4, 4")
	requireError(t, ctx.Matmul(a, b, c, 4, 4, 4, MatmulVariant(7)), StatusInvalidArgument,
		"variant must be 0..2 (gm_matmul_variant), got 7")
	requireError(t, ctx.Matmul(a, b, c, 33, 45, 29, MatmulSharedAB), StatusInvalidArgument,
		"C (33 x 45 floats) needs 5940 bytes, the buffer holds 64")
	requireError(t, ctx.Matmul(a, b, c, 4, -4, 4, MatmulSimple), StatusInvalidArgument, "n must be >= 0, got -4")
	requireError(t, ctx.Matmul(a, b, nil, 4, 4, 4, MatmulSimple), StatusInvalidArgument, "c must not be nil")
}

// l2State is L2StateJSON's document.
type l2State struct {
	SetAside  int64 `json:"persisting_set_aside_bytes"`
	MaxSize   int64 `json:"persisting_max_bytes"`
	MaxWindow int64 `json:"max_window_bytes"`
	Window    *struct {
		NumBytes     int64   `json:"num_bytes"`
		HitRatio     float64 `json:"hit_ratio"`
		HitProperty  string  `json:"hit_property"`
		MissProperty string  `json:"miss_property"`
	} `json:"window"`
}

func readL2State(t *testing.T, ctx *Context) l2State {
	t.Helper()
	text, err := ctx.L2StateJSON()
	requireNoError(t, err)
	var state l2State
	requireNoError(t, json.Unmarshal([]byte(text), &state))
	return state
}

// computeCapabilityMajor reads the device's compute capability ("9.0") from DeviceInfoJSON.
func computeCapabilityMajor(t *testing.T, ctx *Context) int {
	t.Helper()
	text, err := ctx.DeviceInfoJSON()
	requireNoError(t, err)
	var info struct {
		ComputeCapability string `json:"compute_capability"`
	}
	requireNoError(t, json.Unmarshal([]byte(text), &info))
	major, err := strconv.Atoi(strings.SplitN(info.ComputeCapability, ".", 2)[0])
	requireNoError(t, err)
	return major
}

func TestGPUL2Controls(t *testing.T) {
	ctx := openDevice(t)
	if computeCapabilityMajor(t, ctx) < 8 {
		_, err := ctx.SetL2PersistingSize(1 << 20)
		requireError(t, err, StatusNotSupported, "")
		t.Skip("the L2 persisting controls need compute capability 8.0")
	}
	before := readL2State(t, ctx)
	if before.MaxSize <= 0 || before.MaxWindow <= 0 || before.Window != nil {
		t.Fatalf("L2 state before: %+v", before)
	}
	// The set-aside belongs to the device: put it back for whoever comes next.
	t.Cleanup(func() { ctx.SetL2PersistingSize(before.SetAside) })

	// The device grants whole units of its own choosing, up to its maximum.
	granted, err := ctx.SetL2PersistingSize(1 << 20)
	requireNoError(t, err)
	if granted <= 0 || granted > before.MaxSize || readL2State(t, ctx).SetAside != granted {
		t.Errorf("asked for 1 MiB of set-aside, granted %d, in force %d", granted, readL2State(t, ctx).SetAside)
	}
	granted, err = ctx.SetL2PersistingSize(math.MaxInt64)
	requireNoError(t, err)
	if granted <= 0 || granted > before.MaxSize {
		t.Errorf("asked for everything, granted %d of at most %d", granted, before.MaxSize)
	}
	granted, err = ctx.SetL2PersistingSize(0)
	requireNoError(t, err)
	if granted != 0 || readL2State(t, ctx).SetAside != 0 {
		t.Errorf("asked for no set-aside, granted %d, in force %d", granted, readL2State(t, ctx).SetAside)
	}

	buf := newBuffer(t, ctx, 1<<20)
	requireNoError(t, ctx.SetL2Window(buf, 4096, 65536, 0.75, AccessPersisting, AccessStreaming))
	window := readL2State(t, ctx).Window
	if window == nil || window.NumBytes != 65536 || window.HitRatio != 0.75 ||
		window.HitProperty != "persisting" || window.MissProperty != "streaming" {
		t.Errorf("window in force: %+v", window)
	}
	requireNoError(t, ctx.ResetL2Window())
	if window := readL2State(t, ctx).Window; window != nil {
		t.Errorf("window after ResetL2Window: %+v", window)
	}

	requireError(t, ctx.SetL2Window(buf, 0, 4096, 1.5, AccessPersisting, AccessStreaming), StatusInvalidArgument,
		"hit_ratio must be in 0..1, got 1.5")
	requireError(t, ctx.SetL2Window(buf, 0, 4096, 1, AccessPersisting, AccessPersisting), StatusInvalidArgument,
		"miss_property must be 0 (normal) or 1 (streaming), got 2")
	requireError(t, ctx.SetL2Window(buf, 1<<20-100, 4096, 1, AccessPersisting, AccessStreaming), StatusInvalidArgument,
		"must lie inside the buffer of 1048576 bytes")
	requireError(t, ctx.SetL2Window(buf, 0, 0, 1, AccessPersisting, AccessStreaming), StatusInvalidArgument,
		"num_bytes must be in 1..")
	requireError(t, ctx.SetL2Window(buf, -1, 4096, 1, AccessPersisting, AccessStreaming), StatusInvalidArgument,
		"offset must be >= 0, got -1")
	_, err = ctx.SetL2PersistingSize(-1)
	requireError(t, err, StatusInvalidArgument, "bytes must be >= 0, got -1")

	other, err := Open(0)
	requireNoError(t, err)
	defer other.Close()
	foreign := newBuffer(t, other, 4096)
	requireError(t, ctx.SetL2Window(foreign, 0, 4096, 1, AccessPersisting, AccessStreaming), StatusInvalidArgument,
		"buf must belong to the context the window is set on")
}

// stencilModel is the nine-point stencil on the host, in float64.
func stencilModel(in []float32, c [4]float32) []float32 {
	at := func(i int) float64 {
		if i < 0 || i >= len(in) {
			return 0
		}
		return float64(in[i])
	}
	out := make([]float32, len(in))
	for i := range in {
		var sum float64
		for r := 1; r <= 4; r++ {
			sum += float64(c[r-1]) * (at(i+r) - at(i-r))
		}
		out[i] = float32(sum)
	}
	return out
}

func TestGPUStencilsMatchTheModel(t *testing.T) {
	ctx := openDevice(t)
	const n = 5000 // not a multiple of any block size
	// Small integers: the sums are exact in float32, whatever their order.
	input := make([]float32, n)
	for i := range input {
		input[i] = float32(i*7%23 - 11)
	}
	coefficients := [4]float32{1, -2, 3, -1}
	want := stencilModel(input, coefficients)
	in, out := newBuffer(t, ctx, 4*n), newBuffer(t, ctx, 4*n)
	requireNoError(t, in.UploadFloat32(0, input))
	stencils := map[string]func(in, out *Buffer, n int64, c []float32) error{
		"StencilConstant": ctx.StencilConstant,
		"StencilReadonly": ctx.StencilReadonly,
	}
	for name, stencil := range stencils {
		requireNoError(t, out.Fill(0xFF))
		requireNoError(t, stencil(in, out, n, coefficients[:]))
		got := make([]float32, n)
		requireNoError(t, out.DownloadFloat32(0, got))
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: out[%d] = %v, the model says %v", name, i, got[i], want[i])
				break
			}
		}
		requireError(t, stencil(in, in, n, coefficients[:]), StatusInvalidArgument, "in and out must be different buffers")
		requireError(t, stencil(in, out, n+1, coefficients[:]), StatusInvalidArgument, "in holds 5000 floats, n is 5001")
		requireError(t, stencil(in, out, 0, coefficients[:]), StatusInvalidArgument, "n must be at least 1, got 0")
		requireError(t, stencil(in, out, n, []float32{1, 2, float32(math.NaN()), 4}), StatusInvalidArgument,
			"coefficients[2] must be finite")
	}
}
