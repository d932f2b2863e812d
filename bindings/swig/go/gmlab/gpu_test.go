package gmlab

// Tests that need a CUDA device; each skips itself where there is none.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// newBuffer allocates a buffer closed when the test ends.
func newBuffer(t *testing.T, ctx *Context, size int64) *Buffer {
	t.Helper()
	buf, err := NewBuffer(ctx, size)
	requireNoError(t, err)
	t.Cleanup(func() { buf.Close() })
	return buf
}

func TestGPUBufferRoundTrip(t *testing.T) {
	ctx := openDevice(t)
	buf := newBuffer(t, ctx, 4096)
	size, err := buf.Size()
	requireNoError(t, err)
	if size != 4096 {
		t.Fatalf("Size() = %d, want 4096", size)
	}

	f32 := []float32{1.5, -2.25, 3e7, float32(math.Inf(1)), 0}
	requireNoError(t, buf.UploadFloat32(0, f32))
	gotF32 := make([]float32, len(f32))
	requireNoError(t, buf.DownloadFloat32(0, gotF32))
	if !reflect.DeepEqual(gotF32, f32) {
		t.Errorf("float32: got %v, want %v", gotF32, f32)
	}
	// The same bytes seen as raw little-endian words: offsets and sizes are in bytes.
	raw := make([]byte, 4*len(f32))
	requireNoError(t, buf.DownloadBytes(0, raw))
	for i, want := range f32 {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])); got != want {
			t.Errorf("byte view of float32 %d: %v, want %v", i, got, want)
		}
	}

	f64 := []float64{math.Pi, -1e-300, 42}
	requireNoError(t, buf.UploadFloat64(64, f64))
	gotF64 := make([]float64, len(f64))
	requireNoError(t, buf.DownloadFloat64(64, gotF64))
	if !reflect.DeepEqual(gotF64, f64) {
		t.Errorf("float64: got %v, want %v", gotF64, f64)
	}

	i32 := []int32{1, -2, math.MaxInt32, math.MinInt32}
	requireNoError(t, buf.UploadInt32(256, i32))
	tail := make([]int32, 2)
	requireNoError(t, buf.DownloadInt32(256+8, tail))
	if !reflect.DeepEqual(tail, i32[2:]) {
		t.Errorf("int32 tail: got %v, want %v", tail, i32[2:])
	}

	data := []byte("gmlab buffers hold bytes too")
	requireNoError(t, buf.UploadBytes(4096-int64(len(data)), data))
	gotData := make([]byte, len(data))
	requireNoError(t, buf.DownloadBytes(4096-int64(len(data)), gotData))
	if !bytes.Equal(gotData, data) {
		t.Errorf("bytes: got %q, want %q", gotData, data)
	}

	requireNoError(t, buf.Fill(0xAB))
	all := make([]byte, 4096)
	requireNoError(t, buf.DownloadBytes(0, all))
	if !bytes.Equal(all, bytes.Repeat([]byte{0xAB}, 4096)) {
		t.Errorf("Fill(0xAB) left other bytes in the buffer")
	}
}

func TestGPUEmptyTransfersMoveNothing(t *testing.T) {
	ctx := openDevice(t)
	buf := newBuffer(t, ctx, 64)
	requireNoError(t, buf.Fill(7))
	requireNoError(t, buf.UploadFloat32(0, nil))
	requireNoError(t, buf.UploadInt32(64, []int32{}))
	requireNoError(t, buf.DownloadFloat64(64, nil))
	all := make([]byte, 64)
	requireNoError(t, buf.DownloadBytes(0, all))
	if !bytes.Equal(all, bytes.Repeat([]byte{7}, 64)) {
		t.Errorf("an empty upload changed the buffer")
	}
	// Even an empty transfer must start inside the buffer.
	requireError(t, buf.UploadFloat32(65, nil), StatusInvalidArgument, "must not exceed the buffer size 64")
}

func TestGPUBufferRefusesWrongRanges(t *testing.T) {
	ctx := openDevice(t)
	buf := newBuffer(t, ctx, 64)
	requireError(t, buf.UploadFloat32(60, []float32{1, 2}), StatusInvalidArgument,
		"upload: offset 60 + bytes 8 must not exceed the buffer size 64")
	requireError(t, buf.DownloadFloat64(0, make([]float64, 9)), StatusInvalidArgument,
		"download: offset 0 + bytes 72 must not exceed the buffer size 64")
	requireError(t, buf.UploadInt32(-4, []int32{1}), StatusInvalidArgument, "offset must be >= 0, got -4")
	requireError(t, buf.DownloadBytes(-1, make([]byte, 1)), StatusInvalidArgument, "offset must be >= 0, got -1")

	_, err := NewBuffer(ctx, 0)
	requireError(t, err, StatusInvalidArgument, "bytes must be at least 1, got 0")
	_, err = NewBuffer(ctx, -1)
	requireError(t, err, StatusInvalidArgument, "bytes must be >= 0, got -1")
}

// copyStridedModel is CopyStrided on host bytes:
// dst[dstOffset + i*dstStride] = src[srcOffset + i*srcStride], in words of wordSize bytes.
func copyStridedModel(dst, src []byte, dstOffset, dstStride, srcOffset, srcStride, count, wordSize int) {
	for i := 0; i < count; i++ {
		d := (dstOffset + i*dstStride) * wordSize
		s := (srcOffset + i*srcStride) * wordSize
		copy(dst[d:d+wordSize], src[s:s+wordSize])
	}
}

func TestGPUCopyStridedMatchesTheModel(t *testing.T) {
	ctx := openDevice(t)
	const size = 4096
	src, dst := newBuffer(t, ctx, size), newBuffer(t, ctx, size)
	pattern := make([]byte, size)
	for i := range pattern {
		pattern[i] = byte(i*7 + 3)
	}
	requireNoError(t, src.UploadBytes(0, pattern))

	const dstOffset, dstStride, srcOffset, srcStride = 3, 2, 1, 3
	for _, wordSize := range []int{1, 2, 4, 8, 16} {
		words := size / wordSize
		// As many words as fit in both buffers.
		count := (words-1-srcOffset)/srcStride + 1
		if fit := (words-1-dstOffset)/dstStride + 1; fit < count {
			count = fit
		}
		requireNoError(t, dst.Fill(0xEE))
		requireNoError(t, ctx.CopyStrided(dst, dstOffset, dstStride, src, srcOffset, srcStride, int64(count), int64(wordSize)))
		got := make([]byte, size)
		requireNoError(t, dst.DownloadBytes(0, got))
		want := bytes.Repeat([]byte{0xEE}, size)
		copyStridedModel(want, pattern, dstOffset, dstStride, srcOffset, srcStride, count, wordSize)
		if !bytes.Equal(got, want) {
			t.Errorf("%d-byte words, %d of them: the device copy differs from the model", wordSize, count)
		}
	}

	// No words: nothing changes.
	requireNoError(t, dst.Fill(0x11))
	requireNoError(t, ctx.CopyStrided(dst, 0, 1, src, 0, 1, 0, 4))
	got := make([]byte, size)
	requireNoError(t, dst.DownloadBytes(0, got))
	if !bytes.Equal(got, bytes.Repeat([]byte{0x11}, size)) {
		t.Errorf("a copy of 0 words changed the destination")
	}
}

func TestGPUCopyStridedRefusesBadArguments(t *testing.T) {
	ctx := openDevice(t)
	src, dst := newBuffer(t, ctx, 4096), newBuffer(t, ctx, 4096)
	requireError(t, ctx.CopyStrided(src, 0, 1, src, 0, 1, 1, 4), StatusInvalidArgument, "dst and src must be different buffers")
	requireError(t, ctx.CopyStrided(dst, 0, 1, src, 0, 1, 1, 3), StatusInvalidArgument, "word_size must be one of 1, 2, 4, 8, 16, got 3")
	requireError(t, ctx.CopyStrided(dst, 0, 0, src, 0, 1, 1, 4), StatusInvalidArgument, "dst_stride must be at least 1, got 0")
	requireError(t, ctx.CopyStrided(dst, 0, 1, src, 0, 1, 1025, 4), StatusInvalidArgument,
		"dst: offset 0 + (count 1025 - 1) x stride 1 must be below the buffer's 1024 words of 4 bytes")
	requireError(t, ctx.CopyStrided(dst, 0, 1, src, 0, 2, 513, 4), StatusInvalidArgument, "src: offset 0 + (count 513 - 1) x stride 2")
	requireError(t, ctx.CopyStrided(dst, 0, 1, src, 0, 1, -1, 4), StatusInvalidArgument, "count must be >= 0, got -1")
	requireError(t, ctx.CopyStrided(dst, 0, 1, nil, 0, 1, 1, 4), StatusInvalidArgument, "src must not be nil")

	other, err := Open(0)
	requireNoError(t, err)
	defer other.Close()
	foreign := newBuffer(t, other, 4096)
	requireError(t, ctx.CopyStrided(dst, 0, 1, foreign, 0, 1, 1, 4), StatusInvalidArgument,
		"dst and src must belong to the context the copy runs on")

	closed := newBuffer(t, ctx, 4096)
	requireNoError(t, closed.Close())
	requireError(t, ctx.CopyStrided(dst, 0, 1, closed, 0, 1, 1, 4), StatusInvalidArgument, "src: this Buffer is closed")
}

func TestGPUSettings(t *testing.T) {
	ctx := openDevice(t)
	defaults := map[string]float64{"warmup": 2, "min_repetitions": 5, "max_repetitions": 100,
		"min_time_ms": 10, "flush_l2": 1, "memory_fraction": 0.5}
	for name, want := range defaults {
		got, err := ctx.Get(name)
		requireNoError(t, err)
		if got != want {
			t.Errorf("default %s = %v, want %v", name, got, want)
		}
	}
	requireNoError(t, ctx.Set("warmup", 0))
	requireNoError(t, ctx.Set("memory_fraction", 0.25))
	for name, want := range map[string]float64{"warmup": 0, "memory_fraction": 0.25} {
		got, err := ctx.Get(name)
		requireNoError(t, err)
		if got != want {
			t.Errorf("%s = %v after Set(%v)", name, got, want)
		}
	}
	requireError(t, ctx.Set("memory_fraction", 2), StatusInvalidArgument, "memory_fraction must be in 0.01..0.95, got 2")
	requireError(t, ctx.Set("warmup", 1.5), StatusInvalidArgument, "warmup must be an integer in 0..1000, got 1.5")
	requireError(t, ctx.Set("no_such_setting", 1), StatusInvalidArgument, "unknown setting 'no_such_setting'")
	requireError(t, ctx.Set("", 1), StatusInvalidArgument, "setting must not be empty")
	_, err := ctx.Get("no_such_setting")
	requireError(t, err, StatusInvalidArgument, "unknown setting 'no_such_setting'")
	// A refused value leaves the setting as it was.
	got, err := ctx.Get("memory_fraction")
	requireNoError(t, err)
	if got != 0.25 {
		t.Errorf("memory_fraction = %v after a refused Set, want 0.25", got)
	}
}

func TestGPUDeviceInfo(t *testing.T) {
	ctx := openDevice(t)
	device, err := ctx.Device()
	requireNoError(t, err)
	if device != 0 {
		t.Errorf("Device() = %d, want 0", device)
	}
	text, err := ctx.DeviceInfoJSON()
	requireNoError(t, err)
	var info struct {
		Name              string  `json:"name"`
		Ordinal           int     `json:"ordinal"`
		GlobalMemoryBytes float64 `json:"global_memory_bytes"`
		WarpSize          int     `json:"warp_size"`
	}
	requireNoError(t, json.Unmarshal([]byte(text), &info))
	if info.Name == "" || info.Ordinal != 0 || !(info.GlobalMemoryBytes > 0) || info.WarpSize != 32 {
		t.Errorf("device info: %+v\n%s", info, text)
	}
	requireNoError(t, ctx.Synchronize())
}

// runSmallStrideCopy runs a quick stride_copy: strides 1..4 of 4-byte words.
func runSmallStrideCopy(t *testing.T, ctx *Context) *Result {
	t.Helper()
	requireNoError(t, ctx.Set("min_repetitions", 3))
	requireNoError(t, ctx.Set("max_repetitions", 20))
	requireNoError(t, ctx.Set("min_time_ms", 1))
	r, err := ctx.Run("stride_copy", `{"elements": 100000, "strides": "1..4", "word_sizes": [4]}`)
	requireNoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}

func TestGPURunStrideCopy(t *testing.T) {
	ctx := openDevice(t)
	r := runSmallStrideCopy(t, ctx)
	name, err := r.Experiment()
	requireNoError(t, err)
	if name != "stride_copy" {
		t.Errorf("Experiment() = %q", name)
	}
	names := seriesNames(t, r)
	if want := []string{"guide, 4-byte words", "ilp4, 4-byte words"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("series %q, want %q", names, want)
	}
	value := func(s, p int, field string) float64 {
		t.Helper()
		v, err := r.PointValue(s, p, field)
		requireNoError(t, err)
		return v
	}
	for s := range names {
		points, err := r.PointCount(s)
		requireNoError(t, err)
		if points != 4 {
			t.Fatalf("%s: %d points, want 4", names[s], points)
		}
		for p := 0; p < points; p++ {
			stride := p + 1
			if x := value(s, p, "x"); x != float64(stride) {
				t.Errorf("%s point %d: x = %v", names[s], p, x)
			}
			if b := value(s, p, "bytes"); b != 2*100000*4 {
				t.Errorf("%s stride %d: bytes = %v, want 800000", names[s], stride, b)
			}
			if gbs := value(s, p, "bandwidth_gbs"); !(gbs > 0) || math.IsInf(gbs, 0) {
				t.Errorf("%s stride %d: bandwidth_gbs = %v", names[s], stride, gbs)
			}
			if n := value(s, p, "repetitions"); n < 3 || n > 20 {
				t.Errorf("%s stride %d: %v repetitions, settings allow 3..20", names[s], stride, n)
			}
			low, median, high := value(s, p, "min_ms"), value(s, p, "median_ms"), value(s, p, "max_ms")
			if !(0 < low && low <= median && median <= high) {
				t.Errorf("%s stride %d: min %v, median %v, max %v ms", names[s], stride, low, median, high)
			}
			if got, model := value(s, p, "predicted.sectors_per_request"), sectorsPerRequest(4, stride); got != float64(model) {
				t.Errorf("%s stride %d: predicted %v sectors per request, the model says %d", names[s], stride, got, model)
			}
		}
	}
	if doc := decodeResult(t, r); doc.Schema != "gmlab.result/1.3" || doc.Experiment.Name != "stride_copy" || len(doc.Series) != 2 {
		t.Errorf("ToJSON: schema %q, experiment %q, %d series", doc.Schema, doc.Experiment.Name, len(doc.Series))
	}
}

func TestGPURunRefusesBadRequestsAndStaysUsable(t *testing.T) {
	ctx := openDevice(t)
	_, err := ctx.Run("nope", "{}")
	requireError(t, err, StatusUnknownExperiment, "unknown experiment 'nope'")
	_, err = ctx.Run("stride_copy", `{"strides":[0]}`)
	requireError(t, err, StatusInvalidArgument, "strides must be in 1..32, got 0")
	_, err = ctx.Run("", "{}")
	requireError(t, err, StatusInvalidArgument, "experiment must not be empty")
	_, err = ctx.Run("stride_copy", "{")
	requireError(t, err, StatusInvalidArgument, "not valid JSON")
	r := runSmallStrideCopy(t, ctx)
	if count, err := r.SeriesCount(); err != nil || count != 2 {
		t.Errorf("the run after the refused ones: %d series, %v", count, err)
	}
}

func TestGPUResultAndBufferOutliveTheirContext(t *testing.T) {
	requireDevice(t)
	ctx, err := Open(0)
	requireNoError(t, err)
	r := runSmallStrideCopy(t, ctx)
	buf := newBuffer(t, ctx, 256)
	requireNoError(t, ctx.Close())

	gbs, err := r.PointValue(1, 3, "bandwidth_gbs")
	requireNoError(t, err)
	if !(gbs > 0) {
		t.Errorf("bandwidth_gbs after the context closed: %v", gbs)
	}
	_, err = r.ToJSON()
	requireNoError(t, err)

	values := []float64{1, 2, 3}
	requireNoError(t, buf.UploadFloat64(8, values))
	got := make([]float64, 3)
	requireNoError(t, buf.DownloadFloat64(8, got))
	if !reflect.DeepEqual(got, values) {
		t.Errorf("buffer after the context closed: got %v, want %v", got, values)
	}
}

func TestGPUCloseTwiceThenUse(t *testing.T) {
	ctx := openDevice(t)
	buf := newBuffer(t, ctx, 64)
	requireNoError(t, buf.Close())
	requireNoError(t, buf.Close())
	requireError(t, buf.UploadFloat32(0, []float32{1}), StatusInvalidArgument, "this Buffer is closed")
	requireError(t, buf.DownloadInt32(0, make([]int32, 1)), StatusInvalidArgument, "this Buffer is closed")
	_, err := buf.Size()
	requireError(t, err, StatusInvalidArgument, "this Buffer is closed")

	requireNoError(t, ctx.Close())
	requireNoError(t, ctx.Close())
	_, err = ctx.Run("stride_copy", "{}")
	requireError(t, err, StatusInvalidArgument, "this Context is closed")
	_, err = ctx.Get("warmup")
	requireError(t, err, StatusInvalidArgument, "this Context is closed")
	requireError(t, ctx.Synchronize(), StatusInvalidArgument, "this Context is closed")
	_, err = NewBuffer(ctx, 64)
	requireError(t, err, StatusInvalidArgument, "this Context is closed")
}

func TestGPUKernelResourcesComeFromTheDevice(t *testing.T) {
	ctx := openDevice(t)
	text, err := ctx.KernelResourcesJSON("local_memory")
	requireNoError(t, err)
	var doc struct {
		Kernels []struct {
			Name       string `json:"name"`
			Registers  int    `json:"registers"`
			LocalBytes int    `json:"local_bytes"`
		} `json:"kernels"`
	}
	requireNoError(t, json.Unmarshal([]byte(text), &doc))
	if len(doc.Kernels) != 3 || doc.Kernels[0].LocalBytes != 0 || doc.Kernels[1].LocalBytes < 256 {
		t.Errorf("local_memory kernels: %+v", doc.Kernels)
	}
	_, err = ctx.KernelResourcesJSON("nope")
	requireError(t, err, StatusUnknownExperiment, "unknown experiment 'nope'")
	var closed *Context
	_, err = closed.KernelResourcesJSON("stream")
	if err == nil {
		t.Error("a nil context must fail")
	}
}
