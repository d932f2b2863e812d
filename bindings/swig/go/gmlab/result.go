package gmlab

import (
	"runtime"

	"gmlab.invalid/gmlab/internal/swiggmlab"
)

// Result holds the measurements of one experiment run: series of points, each
// with its timing, bandwidth and the guide's predictions, plus summary values.
// It stays valid after the context that ran it is closed.
type Result struct {
	// handle is the null handle once closed, so that the wrapper answers
	// "this Result is closed".
	handle swiggmlab.Result
}

func newResult(handle swiggmlab.Result) *Result {
	r := &Result{handle: handle}
	runtime.SetFinalizer(r, (*Result).Close)
	return r
}

// ResultFromJSON reads a gmlab.result/1 document, such as ToJSON writes.
func ResultFromJSON(resultJSON string) (*Result, error) {
	handle, err := call(nil, func() swiggmlab.Result { return swiggmlab.ResultFromJson(resultJSON) })
	if err != nil {
		return nil, err
	}
	return newResult(handle), nil
}

// ResultFromRunJSON reads result index of a gmlab.run/1 document (what
// `gmlab run --json` writes), with the run's device block.
func ResultFromRunJSON(runDocument string, index int) (*Result, error) {
	handle, err := call(nil, func() swiggmlab.Result { return swiggmlab.ResultFromRunJson(runDocument, index) })
	if err != nil {
		return nil, err
	}
	return newResult(handle), nil
}

// RunResultCount is the number of results in a gmlab.run/1 document.
func RunResultCount(runJSON string) (int, error) {
	return call(nil, func() int { return swiggmlab.ResultRunResultCount(runJSON) })
}

// Close releases the result. Closing again does nothing.
func (r *Result) Close() error {
	if r.isClosed() {
		return nil
	}
	runtime.SetFinalizer(r, nil)
	swiggmlab.DeleteResult(r.handle)
	r.handle = swiggmlab.SwigcptrResult(0)
	return nil
}

// ptr is the handle to pass to the wrapper; a nil or zero Result acts closed.
func (r *Result) ptr() swiggmlab.Result {
	if r == nil || r.handle == nil {
		return swiggmlab.SwigcptrResult(0)
	}
	return r.handle
}

func (r *Result) isClosed() bool {
	return r.ptr().Swigcptr() == 0
}

// ToJSON serialises the result as a gmlab.result/1 document.
func (r *Result) ToJSON() (string, error) {
	return call(r, r.ptr().ToJson)
}

// Experiment is the name of the experiment that made the result.
func (r *Result) Experiment() (string, error) {
	return call(r, r.ptr().Experiment)
}

// SeriesCount is the number of series (one per kernel variant and word size, ...).
func (r *Result) SeriesCount() (int, error) {
	return call(r, r.ptr().SeriesCount)
}

// SeriesName is the name of a series, such as "guide, 4-byte words".
func (r *Result) SeriesName(series int) (string, error) {
	return call(r, func() string { return r.ptr().SeriesName(series) })
}

// SeriesInfo describes a series' axes: key is "variant", "x.name", "x.unit",
// "y.field" (the point field that is the series' headline, such as
// "bandwidth_gbs"), "y.name" or "y.unit".
func (r *Result) SeriesInfo(series int, key string) (string, error) {
	return call(r, func() string { return r.ptr().SeriesInfo(series, key) })
}

// PointCount is the number of points of a series.
func (r *Result) PointCount(series int) (int, error) {
	return call(r, func() int { return r.ptr().PointCount(series) })
}

// PointValue is one number of one point. field is "x", "bytes", "median_ms",
// "min_ms", "max_ms", "mean_ms", "stddev_ms", "repetitions", "bandwidth_gbs",
// "fraction_of_theoretical", "fraction_of_memcpy", or "predicted.<name>" for a
// prediction the experiment makes, such as "predicted.sectors_per_request".
func (r *Result) PointValue(series, point int, field string) (float64, error) {
	return call(r, func() float64 { return r.ptr().PointValue(series, point, field) })
}

// SummaryValue is a key figure of the run by name, such as "copy_over_memcpy"
// of stream.
func (r *Result) SummaryValue(name string) (float64, error) {
	return call(r, func() float64 { return r.ptr().SummaryValue(name) })
}
