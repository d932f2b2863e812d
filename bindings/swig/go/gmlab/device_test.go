package gmlab

import "testing"

func TestDeviceCountIsNotAnError(t *testing.T) {
	count, err := DeviceCount()
	requireNoError(t, err)
	if count < 0 {
		t.Fatalf("DeviceCount() = %d", count)
	}
}

func TestOpenWithoutDeviceReportsNoDevice(t *testing.T) {
	count, err := DeviceCount()
	requireNoError(t, err)
	if count > 0 {
		t.Skipf("there are %d CUDA devices", count)
	}
	ctx, err := Open(0)
	requireError(t, err, StatusNoDevice, "no CUDA device")
	if ctx != nil {
		t.Errorf("Open failed but returned a context")
	}
}

// errorOnly drops the value of a (value, error) pair.
func errorOnly[T any](_ T, err error) error {
	return err
}

func TestEveryMethodOfAClosedHandleSaysSo(t *testing.T) {
	// A nil pointer and a zero value act as closed handles, so every method
	// can be tried without a device.
	for _, ctx := range []*Context{nil, {}} {
		calls := map[string]error{
			"Device":              errorOnly(ctx.Device()),
			"DeviceInfoJSON":      errorOnly(ctx.DeviceInfoJSON()),
			"Set":                 ctx.Set("warmup", 1),
			"Get":                 errorOnly(ctx.Get("warmup")),
			"Synchronize":         ctx.Synchronize(),
			"Run":                 errorOnly(ctx.Run("stride_copy", "{}")),
			"SetL2PersistingSize": errorOnly(ctx.SetL2PersistingSize(1 << 20)),
			"ResetL2Window":       ctx.ResetL2Window(),
			"L2StateJSON":         errorOnly(ctx.L2StateJSON()),
		}
		for name, err := range calls {
			t.Run("Context."+name, func(t *testing.T) {
				requireError(t, err, StatusInvalidArgument, "this Context is closed")
			})
		}
		requireNoError(t, ctx.Close())
	}
	for _, buf := range []*Buffer{nil, {}} {
		calls := map[string]error{
			"Size":            errorOnly(buf.Size()),
			"Fill":            buf.Fill(0),
			"UploadBytes":     buf.UploadBytes(0, []byte{1}),
			"DownloadBytes":   buf.DownloadBytes(0, make([]byte, 1)),
			"UploadInt32":     buf.UploadInt32(0, []int32{1}),
			"DownloadInt32":   buf.DownloadInt32(0, make([]int32, 1)),
			"UploadFloat32":   buf.UploadFloat32(0, []float32{1}),
			"DownloadFloat32": buf.DownloadFloat32(0, make([]float32, 1)),
			"UploadFloat64":   buf.UploadFloat64(0, []float64{1}),
			"DownloadFloat64": buf.DownloadFloat64(0, make([]float64, 1)),
		}
		for name, err := range calls {
			t.Run("Buffer."+name, func(t *testing.T) {
				requireError(t, err, StatusInvalidArgument, "this Buffer is closed")
			})
		}
		requireNoError(t, buf.Close())
	}
	for _, r := range []*Result{nil, {}} {
		calls := map[string]error{
			"ToJSON":       errorOnly(r.ToJSON()),
			"Experiment":   errorOnly(r.Experiment()),
			"SeriesCount":  errorOnly(r.SeriesCount()),
			"SeriesName":   errorOnly(r.SeriesName(0)),
			"PointCount":   errorOnly(r.PointCount(0)),
			"PointValue":   errorOnly(r.PointValue(0, 0, "x")),
			"SeriesInfo":   errorOnly(r.SeriesInfo(0, "x.name")),
			"SummaryValue": errorOnly(r.SummaryValue("x")),
		}
		for name, err := range calls {
			t.Run("Result."+name, func(t *testing.T) {
				requireError(t, err, StatusInvalidArgument, "this Result is closed")
			})
		}
		requireNoError(t, r.Close())
	}
}

func TestNewBufferRefusesAMissingContext(t *testing.T) {
	_, err := NewBuffer(nil, 16)
	requireError(t, err, StatusInvalidArgument, "ctx must not be nil")
	_, err = NewBuffer(&Context{}, 16)
	requireError(t, err, StatusInvalidArgument, "this Context is closed")
}

func TestOperationsRefuseMissingBuffersInGo(t *testing.T) {
	var ctx *Context
	closed := &Buffer{}
	requireError(t, ctx.CopyStrided(nil, 0, 1, closed, 0, 1, 1, 4), StatusInvalidArgument, "dst must not be nil")
	requireError(t, ctx.CopyStrided(closed, 0, 1, nil, 0, 1, 1, 4), StatusInvalidArgument, "dst: this Buffer is closed")
	requireError(t, ctx.Transpose(nil, closed, 1, 1, 4, TransposeAuto), StatusInvalidArgument, "in must not be nil")
	requireError(t, ctx.Matmul(closed, nil, nil, 1, 1, 1, MatmulSharedAB), StatusInvalidArgument, "a: this Buffer is closed")
	requireError(t, ctx.SetL2Window(nil, 0, 1, 1, AccessPersisting, AccessStreaming), StatusInvalidArgument,
		"buf must not be nil")
	requireError(t, ctx.StencilConstant(nil, nil, 8, []float32{1, 2, 3}), StatusInvalidArgument,
		"coefficients must hold 4 values, got 3")
	requireError(t, ctx.StencilReadonly(nil, nil, 8, nil), StatusInvalidArgument, "coefficients must hold 4 values, got 0")
	requireError(t, ctx.StencilReadonly(closed, nil, 8, make([]float32, 4)), StatusInvalidArgument,
		"in: this Buffer is closed")
}
