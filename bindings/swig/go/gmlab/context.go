package gmlab

import (
	"runtime"

	"gmlab.invalid/gmlab/internal/swiggmlab"
)

// Context is one CUDA device with its own stream and measurement settings.
type Context struct {
	// handle is the null handle once closed, so that the wrapper answers
	// "this Context is closed".
	handle swiggmlab.Context
}

// Open opens device (an ordinal from 0 to DeviceCount()-1). Without a usable
// device the error has StatusNoDevice.
func Open(device int) (*Context, error) {
	handle, err := call(nil, func() swiggmlab.Context { return swiggmlab.NewContext(device) })
	if err != nil {
		return nil, err
	}
	c := &Context{handle: handle}
	runtime.SetFinalizer(c, (*Context).Close)
	return c, nil
}

// Close releases the context. Its buffers and results stay usable. Closing
// again does nothing.
func (c *Context) Close() error {
	if c.isClosed() {
		return nil
	}
	runtime.SetFinalizer(c, nil)
	swiggmlab.DeleteContext(c.handle)
	c.handle = swiggmlab.SwigcptrContext(0)
	return nil
}

// ptr is the handle to pass to the wrapper; a nil or zero Context acts closed.
func (c *Context) ptr() swiggmlab.Context {
	if c == nil || c.handle == nil {
		return swiggmlab.SwigcptrContext(0)
	}
	return c.handle
}

func (c *Context) isClosed() bool {
	return c.ptr().Swigcptr() == 0
}

// Device is the device ordinal the context was opened on.
func (c *Context) Device() (int, error) {
	return call(c, c.ptr().Device)
}

// DeviceInfoJSON describes the device's memory spaces as JSON (the "device"
// block of docs/result-schema.md).
func (c *Context) DeviceInfoJSON() (string, error) {
	return call(c, c.ptr().DeviceInfoJson)
}

// CountersUnavailableReason says why hardware counters cannot be read on this
// device and how to enable them; "" when they can (gmlab info says the same).
func (c *Context) CountersUnavailableReason() (string, error) {
	return call(c, c.ptr().CountersUnavailableReason)
}

// KernelResourcesJSON lists the kernels of an experiment with the resources
// the compiler gave each on this device (registers, static shared, local and
// constant bytes, largest block), as JSON; "" lists every kernel of the
// library, "support" the kernels the experiments share.
func (c *Context) KernelResourcesJSON(experiment string) (string, error) {
	return call(c, func() string { return c.ptr().KernelResourcesJson(experiment) })
}

// Set changes a measurement setting used by every run on this context:
// "warmup", "min_repetitions", "max_repetitions", "min_time_ms", "flush_l2"
// (0 or 1), "memory_fraction" or "counters" (0 off, 1 on, 2 auto).
func (c *Context) Set(setting string, value float64) error {
	return do(c, func() { c.ptr().Set(setting, value) })
}

// Get reads a measurement setting by name (see Set).
func (c *Context) Get(setting string) (float64, error) {
	return call(c, func() float64 { return c.ptr().Get(setting) })
}

// Synchronize waits for all work queued on the context's stream.
func (c *Context) Synchronize() error {
	return do(c, c.ptr().Synchronize)
}

// Run runs one experiment through the measurement harness. paramsJSON is a JSON
// object of parameters ("" or "{}" for the defaults); ResolveParams shows what
// they resolve to.
func (c *Context) Run(experiment, paramsJSON string) (*Result, error) {
	handle, err := call(c, func() swiggmlab.Result { return c.ptr().Run(experiment, paramsJSON) })
	if err != nil {
		return nil, err
	}
	return newResult(handle), nil
}

// CopyStrided copies count words of wordSize bytes (1, 2, 4, 8 or 16) on the
// device, waiting until done:
//
//	dst[dstOffset + i*dstStride] = src[srcOffset + i*srcStride]
//
// Offsets and strides count words; strides are at least 1. Both buffers belong
// to this context, differ, and hold every word touched.
func (c *Context) CopyStrided(dst *Buffer, dstOffset, dstStride int64, src *Buffer, srcOffset, srcStride, count, wordSize int64) error {
	if err := checkOperands(operand{"dst", dst}, operand{"src", src}); err != nil {
		return err
	}
	return do([]any{c, dst, src}, func() {
		c.ptr().CopyStrided(dst.ptr(), dstOffset, dstStride, src.ptr(), srcOffset, srcStride, count, wordSize)
	})
}
