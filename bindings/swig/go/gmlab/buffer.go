package gmlab

import (
	"runtime"

	"gmlab.invalid/gmlab/internal/swiggmlab"
)

// Buffer is device memory on a context's device. Offsets of transfers count
// bytes into the buffer; the slice's length says how many values move, and a
// nil or empty slice is an empty transfer.
type Buffer struct {
	// handle is the null handle once closed, so that the wrapper answers
	// "this Buffer is closed".
	handle swiggmlab.Buffer
}

// NewBuffer allocates bytes (at least 1) of device memory on ctx's device.
func NewBuffer(ctx *Context, bytes int64) (*Buffer, error) {
	if ctx == nil {
		return nil, invalidArgument("ctx must not be nil")
	}
	if ctx.isClosed() {
		return nil, invalidArgument("this Context is closed")
	}
	handle, err := call(ctx, func() swiggmlab.Buffer { return swiggmlab.NewBuffer(ctx.ptr(), bytes) })
	if err != nil {
		return nil, err
	}
	b := &Buffer{handle: handle}
	runtime.SetFinalizer(b, (*Buffer).Close)
	return b, nil
}

// Close frees the device memory. Closing again does nothing.
func (b *Buffer) Close() error {
	if b.isClosed() {
		return nil
	}
	runtime.SetFinalizer(b, nil)
	swiggmlab.DeleteBuffer(b.handle)
	b.handle = swiggmlab.SwigcptrBuffer(0)
	return nil
}

// ptr is the handle to pass to the wrapper; a nil or zero Buffer acts closed.
func (b *Buffer) ptr() swiggmlab.Buffer {
	if b == nil || b.handle == nil {
		return swiggmlab.SwigcptrBuffer(0)
	}
	return b.handle
}

func (b *Buffer) isClosed() bool {
	return b.ptr().Swigcptr() == 0
}

// operand is a buffer given to an operation, with its parameter's name.
type operand struct {
	name   string
	buffer *Buffer
}

// checkOperands refuses nil or closed buffers, naming the parameter.
func checkOperands(operands ...operand) error {
	for _, o := range operands {
		if o.buffer == nil {
			return invalidArgument(o.name + " must not be nil")
		}
		if o.buffer.isClosed() {
			return invalidArgument(o.name + ": this Buffer is closed")
		}
	}
	return nil
}

// Size is the buffer's size in bytes.
func (b *Buffer) Size() (int64, error) {
	return call(b, b.ptr().Size)
}

// Fill sets every byte of the buffer to value.
func (b *Buffer) Fill(value byte) error {
	return do(b, func() { b.ptr().Fill(int(value)) })
}

// UploadBytes copies data into the buffer at offset bytes.
func (b *Buffer) UploadBytes(offset int64, data []byte) error {
	return do(b, func() { b.ptr().UploadBytes(offset, data) })
}

// DownloadBytes fills data from the buffer, starting offset bytes in.
func (b *Buffer) DownloadBytes(offset int64, data []byte) error {
	return do(b, func() { b.ptr().DownloadBytes(offset, data) })
}

// UploadInt32 copies values into the buffer at offset bytes.
func (b *Buffer) UploadInt32(offset int64, values []int32) error {
	return do(b, func() { b.ptr().UploadInts(offset, values) })
}

// DownloadInt32 fills values from the buffer, starting offset bytes in.
func (b *Buffer) DownloadInt32(offset int64, values []int32) error {
	return do(b, func() { b.ptr().DownloadInts(offset, values) })
}

// UploadFloat32 copies values into the buffer at offset bytes.
func (b *Buffer) UploadFloat32(offset int64, values []float32) error {
	return do(b, func() { b.ptr().UploadFloats(offset, values) })
}

// DownloadFloat32 fills values from the buffer, starting offset bytes in.
func (b *Buffer) DownloadFloat32(offset int64, values []float32) error {
	return do(b, func() { b.ptr().DownloadFloats(offset, values) })
}

// UploadFloat64 copies values into the buffer at offset bytes.
func (b *Buffer) UploadFloat64(offset int64, values []float64) error {
	return do(b, func() { b.ptr().UploadDoubles(offset, values) })
}

// DownloadFloat64 fills values from the buffer, starting offset bytes in.
func (b *Buffer) DownloadFloat64(offset int64, values []float64) error {
	return do(b, func() { b.ptr().DownloadDoubles(offset, values) })
}
