package gmlab

import (
	"runtime"
	"strconv"
	"strings"
)

// panicPrefix starts the text that the wrapper panics with when a call fails:
// "gmlab-status:<status>:<message>" (GMB_RAISE in gmlab_lang.i).
const panicPrefix = "gmlab-status:"

// call runs f, which calls into the generated wrapper, and turns the wrapper's
// panic for a failed call into a *Error. Any other panic is a bug and goes on.
//
// owner is the Go object whose handle f uses (nil for none). It stays reachable
// until f is done: otherwise the garbage collector could finalize it, and free
// the handle, while C is still using it.
func call[T any](owner any, f func() T) (value T, err error) {
	defer func() {
		runtime.KeepAlive(owner)
		if recovered := recover(); recovered != nil {
			e, ok := errorFromPanic(recovered)
			if !ok {
				panic(recovered)
			}
			err = e
		}
	}()
	return f(), nil
}

// do is call for functions without a value.
func do(owner any, f func()) error {
	_, err := call(owner, func() struct{} {
		f()
		return struct{}{}
	})
	return err
}

// errorFromPanic reads the status and message back out of the wrapper's panic.
func errorFromPanic(recovered any) (*Error, bool) {
	text, ok := recovered.(string)
	if !ok || !strings.HasPrefix(text, panicPrefix) {
		return nil, false
	}
	code, message, ok := strings.Cut(text[len(panicPrefix):], ":")
	if !ok {
		return nil, false
	}
	status, err := strconv.Atoi(code)
	if err != nil {
		return nil, false
	}
	return &Error{Status: Status(status), Message: message}, true
}
