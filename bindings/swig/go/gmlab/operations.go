package gmlab

import "strconv"

// TransposeVariant chooses the kernel of Context.Transpose; the values are
// gm_transpose_variant's in gmlab.h.
type TransposeVariant int

const (
	TransposeNaive        TransposeVariant = 0 // reads coalesced, writes strided
	TransposeShared       TransposeVariant = 1 // 32x32 shared-memory tile, bank conflicts on the way out
	TransposeSharedPadded TransposeVariant = 2 // the tile padded to 33 columns: conflict-free
	TransposeWide         TransposeVariant = 3 // 64x64 swizzled tile, 16-byte accesses
	TransposeAuto         TransposeVariant = 4 // the fastest that fits the shape
)

// MatmulVariant chooses the kernel of Context.Matmul; the values are
// gm_matmul_variant's in gmlab.h.
type MatmulVariant int

const (
	MatmulSimple     MatmulVariant = 0 // A and B from global memory
	MatmulCoalescedA MatmulVariant = 1 // a tile of A in shared memory
	MatmulSharedAB   MatmulVariant = 2 // tiles of A and B in shared memory
)

// Transpose writes the transpose of in (rows x cols, row-major, elements of
// elementSize bytes: 1, 2, 4, 8 or 16) to out (cols x rows), waiting until done.
// TransposeWide needs 4-byte elements and rows and cols that are multiples of 4;
// TransposeAuto takes it where it fits. in and out belong to this context and
// differ.
func (c *Context) Transpose(in, out *Buffer, rows, cols, elementSize int64, variant TransposeVariant) error {
	if err := checkOperands(operand{"in", in}, operand{"out", out}); err != nil {
		return err
	}
	return do([]any{c, in, out}, func() {
		c.ptr().Transpose(in.ptr(), out.ptr(), rows, cols, elementSize, int(variant))
	})
}

// Matmul computes C (m x n) = A (m x k) B (k x n) on float32 matrices in
// row-major order, waiting until done. a, b and result belong to this context;
// result differs from a and b.
func (c *Context) Matmul(a, b, result *Buffer, m, n, k int64, variant MatmulVariant) error {
	if err := checkOperands(operand{"a", a}, operand{"b", b}, operand{"c", result}); err != nil {
		return err
	}
	return do([]any{c, a, b, result}, func() {
		c.ptr().Matmul(a.ptr(), b.ptr(), result.ptr(), m, n, k, int(variant))
	})
}

// stencilRadius is the number of coefficients of the stencil operations.
const stencilRadius = 4

// StencilConstant computes the nine-point 1D stencil on n float32 values,
//
//	out[i] = c[0](in[i+1]-in[i-1]) + c[1](in[i+2]-in[i-2]) + c[2](in[i+3]-in[i-3]) + c[3](in[i+4]-in[i-4])
//
// with in taken as 0 outside [0, n), keeping the four coefficients in
// __constant__ memory (shared by the process: concurrent calls take turns).
// in and out belong to this context, differ and hold n floats.
func (c *Context) StencilConstant(in, out *Buffer, n int64, coefficients []float32) error {
	return c.stencil(in, out, n, coefficients, func() { c.ptr().StencilConstant(in.ptr(), out.ptr(), n, coefficients) })
}

// StencilReadonly is StencilConstant with the coefficients read from global
// memory through the read-only cache.
func (c *Context) StencilReadonly(in, out *Buffer, n int64, coefficients []float32) error {
	return c.stencil(in, out, n, coefficients, func() { c.ptr().StencilReadonly(in.ptr(), out.ptr(), n, coefficients) })
}

func (c *Context) stencil(in, out *Buffer, n int64, coefficients []float32, run func()) error {
	if len(coefficients) != stencilRadius {
		return invalidArgument("coefficients must hold 4 values, got " + strconv.Itoa(len(coefficients)))
	}
	if err := checkOperands(operand{"in", in}, operand{"out", out}); err != nil {
		return err
	}
	return do([]any{c, in, out}, run)
}
