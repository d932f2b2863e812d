// Package gmlab is the Go binding of libgmlab, a GPU memory laboratory: it
// measures on the local GPU what the CUDA C++ Best Practices Guide says about
// memory (coalescing, misaligned and strided access, attainable bandwidth), and
// offers the same kernels as operations on device buffers.
//
// # Adding it to a module
//
// The module path is gmlab.invalid/gmlab. The module comes with each gmlab
// release, in the release's go/ folder, laid out as a Go module proxy; the
// release's tarball (or .deb) provides libgmlab and its pkg-config file, which
// cgo reads (pkg-config gmlab). From an empty folder, with the release folder
// in /opt/gmlab-release:
//
//	mkdir gmlab
//	tar -xzf /opt/gmlab-release/gmlab-*-Linux-*.tar.gz -C gmlab --strip-components=1
//	export PKG_CONFIG_PATH=$PWD/gmlab/lib/pkgconfig
//	go mod init example.com/first
//	GOPROXY=file:///opt/gmlab-release/go GONOSUMDB=gmlab.invalid go get gmlab.invalid/gmlab@latest
//
// The wrapper SWIG generates is part of the module: building needs Go with cgo,
// a C++ compiler and pkg-config, not SWIG. A program finds libgmlab at run time
// beside itself ($ORIGIN: copy lib/libgmlab.so.0 next to the program to deploy
// it), else in the unpacked tarball's lib/ (both rpaths come from pkg-config),
// or in the system's library folder where the .deb is installed. The CUDA
// runtime is inside libgmlab, so only the NVIDIA driver is needed.
//
// # Use
//
//	ctx, err := gmlab.Open(0)
//	if err != nil {
//		log.Fatal(err) // "gmlab: no CUDA device (...)" where there is none
//	}
//	defer ctx.Close()
//	result, err := ctx.Run("stride_copy", `{"strides": "1..4", "word_sizes": [4]}`)
//
// Saved runs need no GPU: LoadRun reads the documents gmlab run --json writes
// (plain or gzip-compressed), and Run.Result their results by experiment name.
//
// # Errors, handles and threads
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
//
// # ABI
//
// The package is made for one ABI of libgmlab (BindingABIVersion, the number in
// libgmlab.so.N). When a program starts, the package checks the libgmlab it
// loaded and panics if its ABI differs, naming both versions and the file
// (LibraryPath).
package gmlab
