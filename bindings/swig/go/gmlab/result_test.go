package gmlab

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// committedRun is the run document measured on an H200 and kept in results/.
func committedRun(t *testing.T) string {
	return sourceFile(t, "results/nvidia-h200.json")
}

// openCommitted reads result index of the committed run, closed when the test ends.
func openCommitted(t *testing.T, index int) *Result {
	t.Helper()
	r, err := ResultFromRunJSON(committedRun(t), index)
	requireNoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}

// resultDocument is the part of a gmlab.result/1 document the tests compare
// with the accessors.
type resultDocument struct {
	Schema string `json:"schema"`
	// False only for a result that was not applicable (peer on one GPU): no series.
	Applicable *bool `json:"applicable"`
	Experiment struct {
		Name string `json:"name"`
	} `json:"experiment"`
	Series []struct {
		Name       string            `json:"name"`
		Variant    *string           `json:"variant"`
		X          map[string]string `json:"x"`
		Y          map[string]string `json:"y"`
		Attributes struct {
			WordSize int `json:"word_size"`
		} `json:"attributes"`
		Points []struct {
			X            float64  `json:"x"`
			BandwidthGBs *float64 `json:"bandwidth_gbs"` // nil where the experiment does not count bytes
		} `json:"points"`
	} `json:"series"`
}

func decodeResult(t *testing.T, r *Result) resultDocument {
	t.Helper()
	text, err := r.ToJSON()
	requireNoError(t, err)
	var doc resultDocument
	requireNoError(t, json.Unmarshal([]byte(text), &doc))
	return doc
}

// committedResults decodes the committed run document's results with
// encoding/json, independently of the library.
func committedResults(t *testing.T) []resultDocument {
	t.Helper()
	var run struct {
		Schema  string           `json:"schema"`
		Results []resultDocument `json:"results"`
	}
	requireNoError(t, json.Unmarshal([]byte(committedRun(t)), &run))
	if !strings.HasPrefix(run.Schema, "gmlab.run/1") || len(run.Results) == 0 {
		t.Fatalf("the committed run: schema %q, %d results", run.Schema, len(run.Results))
	}
	return run.Results
}

// committedIndex is the index of the committed run's result of experiment.
func committedIndex(t *testing.T, experiment string) int {
	t.Helper()
	for i, doc := range committedResults(t) {
		if doc.Experiment.Name == experiment {
			return i
		}
	}
	t.Fatalf("the committed run has no %s result", experiment)
	return -1
}

func seriesNames(t *testing.T, r *Result) []string {
	t.Helper()
	count, err := r.SeriesCount()
	requireNoError(t, err)
	names := make([]string, count)
	for s := range names {
		names[s], err = r.SeriesName(s)
		requireNoError(t, err)
	}
	return names
}

func TestCommittedRunReadsAsItsJSONSays(t *testing.T) {
	docs := committedResults(t)
	count, err := RunResultCount(committedRun(t))
	requireNoError(t, err)
	if count != len(docs) {
		t.Fatalf("RunResultCount = %d, the document holds %d results", count, len(docs))
	}
	for index, doc := range docs {
		r := openCommitted(t, index)
		name, err := r.Experiment()
		requireNoError(t, err)
		if name != doc.Experiment.Name {
			t.Errorf("result %d: Experiment() = %q, JSON says %q", index, name, doc.Experiment.Name)
		}
		names := seriesNames(t, r)
		measured := doc.Applicable == nil || *doc.Applicable
		if len(names) != len(doc.Series) || (len(names) == 0) == measured {
			t.Fatalf("%s: %d series through the accessors, %d in JSON", name, len(names), len(doc.Series))
		}
		for s, series := range doc.Series {
			points, err := r.PointCount(s)
			requireNoError(t, err)
			if names[s] != series.Name || points != len(series.Points) || points == 0 {
				t.Fatalf("%s series %d: %q with %d points, JSON %q with %d", name, s, names[s], points,
					series.Name, len(series.Points))
			}
			// What the document holds, by SeriesInfo's keys; a key it lacks is an error.
			info := map[string]string{}
			if series.Variant != nil {
				info["variant"] = *series.Variant
			}
			for axis, fields := range map[string]map[string]string{"x": series.X, "y": series.Y} {
				for field, value := range fields {
					info[axis+"."+field] = value
				}
			}
			for _, key := range []string{"variant", "x.name", "x.unit", "y.field", "y.name", "y.unit"} {
				want, present := info[key]
				got, err := r.SeriesInfo(s, key)
				if !present {
					requireError(t, err, StatusInvalidArgument, key)
					continue
				}
				requireNoError(t, err)
				if got != want {
					t.Errorf("%s, %s: SeriesInfo(%q) = %q, JSON %q", name, names[s], key, got, want)
				}
			}
			for p, point := range series.Points {
				x, err := r.PointValue(s, p, "x")
				requireNoError(t, err)
				if x != point.X {
					t.Errorf("%s, %s point %d: x %v, JSON %v", name, names[s], p, x, point.X)
				}
				if headline := series.Y["field"]; headline != "" {
					_, err := r.PointValue(s, p, headline)
					requireNoError(t, err)
				}
				gbs, err := r.PointValue(s, p, "bandwidth_gbs")
				if point.BandwidthGBs == nil {
					requireError(t, err, StatusInvalidArgument, "field 'bandwidth_gbs' is not in this point")
					continue
				}
				requireNoError(t, err)
				if gbs != *point.BandwidthGBs || !(gbs > 0) {
					t.Errorf("%s, %s point %d: bandwidth_gbs %v, JSON %v", name, names[s], p, gbs, *point.BandwidthGBs)
				}
			}
		}
	}
	_, err = ResultFromRunJSON(committedRun(t), count)
	requireError(t, err, StatusInvalidArgument, fmt.Sprintf("index must be in 0..%d, got %d", count-1, count))
	_, err = ResultFromRunJSON(committedRun(t), -1)
	requireError(t, err, StatusInvalidArgument, "index must be >= 0, got -1")
}

func TestCommittedRunHoldsTheDefaultSuite(t *testing.T) {
	for index, want := range []string{"stream", "offset_copy", "stride_copy"} {
		name, err := openCommitted(t, index).Experiment()
		requireNoError(t, err)
		if name != want {
			t.Errorf("result %d is %q, want %q (the default suite's order)", index, name, want)
		}
	}
}

func TestCommittedStreamMeasuredBandwidth(t *testing.T) {
	r := openCommitted(t, committedIndex(t, "stream"))
	names := seriesNames(t, r)
	if want := []string{"copy", "scale", "add", "triad", "cudaMemcpy"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("stream series %q, want %q", names, want)
	}
	ratio, err := r.SummaryValue("copy_over_memcpy")
	requireNoError(t, err)
	if !(ratio > 0) {
		t.Errorf("copy_over_memcpy = %v", ratio)
	}
}

func TestCommittedStrideCopyFollowsTheSectorModel(t *testing.T) {
	r := openCommitted(t, committedIndex(t, "stride_copy"))
	names := seriesNames(t, r)
	want := []string{"guide, 4-byte words", "ilp4, 4-byte words", "guide, 8-byte words",
		"ilp4, 8-byte words", "guide, 16-byte words", "ilp4, 16-byte words"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("stride_copy series %q, want %q", names, want)
	}
	for s, series := range decodeResult(t, r).Series {
		points, err := r.PointCount(s)
		requireNoError(t, err)
		// The standard sweep: 1..8, then every 2nd to 16 and every 4th to 32.
		wantStrides := []int{1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32}
		if points != len(wantStrides) {
			t.Fatalf("%s: %d points, want strides %v", names[s], points, wantStrides)
		}
		for p := 0; p < points; p++ {
			stride, err := r.PointValue(s, p, "x")
			requireNoError(t, err)
			if stride != float64(wantStrides[p]) {
				t.Errorf("%s point %d: stride %v, want %d", names[s], p, stride, wantStrides[p])
			}
			sectors, err := r.PointValue(s, p, "predicted.sectors_per_request")
			requireNoError(t, err)
			if model := sectorsPerRequest(series.Attributes.WordSize, wantStrides[p]); sectors != float64(model) {
				t.Errorf("%s stride %d: predicted %v sectors per request, the model says %d", names[s], wantStrides[p], sectors, model)
			}
		}
	}
}

func TestResultFromJSONRoundTrip(t *testing.T) {
	for index := range committedResults(t) {
		original := openCommitted(t, index)
		text, err := original.ToJSON()
		requireNoError(t, err)
		copied, err := ResultFromJSON(text)
		requireNoError(t, err)
		again, err := copied.ToJSON()
		requireNoError(t, err)
		requireNoError(t, copied.Close())
		var before, after any
		requireNoError(t, json.Unmarshal([]byte(text), &before))
		requireNoError(t, json.Unmarshal([]byte(again), &after))
		if !reflect.DeepEqual(before, after) {
			t.Errorf("result %d changed on its way through ResultFromJSON", index)
		}
		// As written now: 1.3 where the series declare their quantities, else 1.2.
		if schema := decodeResult(t, original).Schema; schema != "gmlab.result/1.2" && schema != "gmlab.result/1.3" {
			t.Errorf("result %d: schema %q", index, schema)
		}
	}
}

func TestResultAccessorsRefuseBadArguments(t *testing.T) {
	r := openCommitted(t, committedIndex(t, "stride_copy"))
	_, err := r.SeriesName(6)
	requireError(t, err, StatusInvalidArgument, "series must be in 0..5, got 6")
	_, err = r.PointCount(-1)
	requireError(t, err, StatusInvalidArgument, "series must be >= 0, got -1")
	_, err = r.PointValue(0, -1, "x")
	requireError(t, err, StatusInvalidArgument, "point must be >= 0, got -1")
	_, err = r.PointValue(0, 0, "")
	requireError(t, err, StatusInvalidArgument, "field must not be empty")
	_, err = r.PointValue(0, 0, "no_such_field")
	requireError(t, err, StatusInvalidArgument, "no_such_field")
	_, err = r.SeriesInfo(0, "no_such_key")
	requireError(t, err, StatusInvalidArgument, "key must be variant, x.name, x.unit, y.field, y.name or y.unit, got no_such_key")
	_, err = r.SeriesInfo(6, "x.name")
	requireError(t, err, StatusInvalidArgument, "series must be in 0..5, got 6")
	_, err = r.SeriesInfo(0, "")
	requireError(t, err, StatusInvalidArgument, "key must not be empty")
	_, err = r.SummaryValue("no_such_value")
	requireError(t, err, StatusInvalidArgument, "no_such_value")
	_, err = r.SummaryValue("")
	requireError(t, err, StatusInvalidArgument, "name must not be empty")
}

func TestResultFromJSONRefusesOtherDocuments(t *testing.T) {
	_, err := ResultFromJSON("{")
	requireError(t, err, StatusInvalidArgument, "not valid JSON")
	_, err = ResultFromJSON(`{"schema": "something/1"}`)
	requireError(t, err, StatusInvalidArgument, "gmlab.result/1")
	// A run document is not a result document.
	_, err = ResultFromJSON(committedRun(t))
	requireError(t, err, StatusInvalidArgument, "gmlab.result/1")
}

func TestResultCloseTwiceThenUse(t *testing.T) {
	r, err := ResultFromRunJSON(committedRun(t), 0)
	requireNoError(t, err)
	requireNoError(t, r.Close())
	requireNoError(t, r.Close())
	_, err = r.Experiment()
	requireError(t, err, StatusInvalidArgument, "this Result is closed")
	_, err = r.PointValue(0, 0, "x")
	requireError(t, err, StatusInvalidArgument, "this Result is closed")
	_, err = r.ToJSON()
	requireError(t, err, StatusInvalidArgument, "this Result is closed")
}

// A result as schema 1.2 writes it (the committed stride_copy result with one
// counter in its first point) reads "counters.<name>" as any other field.
func TestResultCountersOfANewerDocument(t *testing.T) {
	text, err := openCommitted(t, committedIndex(t, "stride_copy")).ToJSON()
	requireNoError(t, err)
	first := regexp.MustCompile(`"predicted":\s*\{`).FindStringIndex(text)
	if first == nil {
		t.Fatal("the result has no predictions")
	}
	text = text[:first[0]] + `"counters": {"sectors_per_request_ld": 4.0}, ` + text[first[0]:]
	newer, err := ResultFromJSON(text)
	requireNoError(t, err)
	defer newer.Close()
	v, err := newer.PointValue(0, 0, "counters.sectors_per_request_ld")
	requireNoError(t, err)
	if v != 4.0 {
		t.Errorf("counters.sectors_per_request_ld = %v, want 4", v)
	}
	_, err = newer.PointValue(0, 0, "counters.no_such_counter")
	requireError(t, err, StatusInvalidArgument, "counters.sectors_per_request_ld")
}
