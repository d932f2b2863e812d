// Package gmlab is the Go binding of libgmlab, a GPU memory laboratory: it
// measures on the local GPU what the CUDA C++ Best Practices Guide says about
// memory (coalescing, misaligned and strided access, attainable bandwidth), and
// offers the same kernels as operations on device buffers.
//
// Every call that can fail returns an error, which is a *Error carrying the
// library's status code (StatusInvalidArgument, StatusNoDevice, ...) and its
// message, for example "strides must be in 1..32, got 0".
//
// Contexts, buffers and results hold native resources: release them with Close
// when done (closing twice is harmless, and a call on a closed handle returns an
// error). They may be closed in any order: a result or a buffer stays valid
// after its context is closed. A finalizer releases what is forgotten, but only
// whenever the garbage collector runs, so Close is the way to free device
// memory on time.
//
// A Context, and the buffers made from it, are used by one goroutine at a time;
// different contexts may be used from different goroutines at once.
package gmlab
