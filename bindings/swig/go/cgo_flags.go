package swiggmlab

// cgo finds gmlab.h and libgmlab through pkg-config (gmlab.pc, which the
// release tarball and the .deb install): with the tarball unpacked elsewhere
// than /usr, PKG_CONFIG_PATH names its lib/pkgconfig. The flags it gives carry
// an rpath to the library, so programs run without LD_LIBRARY_PATH.

// #cgo pkg-config: gmlab
// #cgo CXXFLAGS: -std=c++17
import "C"
