package gmlab

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeCommittedRun writes the committed run into a test folder as name,
// through encode (nil: as it is), and returns the path.
func writeCommittedRun(t *testing.T, name string, encode func([]byte) []byte) string {
	t.Helper()
	data := []byte(committedRun(t))
	if encode != nil {
		data = encode(data)
	}
	path := filepath.Join(t.TempDir(), name)
	requireNoError(t, os.WriteFile(path, data, 0o644))
	return path
}

func gzipped(data []byte) []byte {
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	w.Write(data)
	w.Close()
	return out.Bytes()
}

func TestLoadRunReadsPlainAndGzipFilesByExperimentName(t *testing.T) {
	for _, file := range []struct {
		name   string
		encode func([]byte) []byte
	}{{"run.json", nil}, {"run.json.gz", gzipped}, {"gzipped-without-a-suffix", gzipped}} {
		path := writeCommittedRun(t, file.name, file.encode)
		run, err := LoadRun(path)
		requireNoError(t, err)
		if run.Source != path || len(run.Experiments) < 20 {
			t.Fatalf("%s: source %q, %d experiments", file.name, run.Source, len(run.Experiments))
		}
		result, err := run.Result("stride_copy")
		requireNoError(t, err)
		name, err := result.Experiment()
		requireNoError(t, err)
		result.Close()
		if name != "stride_copy" {
			t.Fatalf("%s: Result(stride_copy) read %q", file.name, name)
		}
	}
}

func TestLoadRunNamesWhatIsMissingOrUnreadable(t *testing.T) {
	path := writeCommittedRun(t, "run.json", nil)
	run, err := LoadRun(path)
	requireNoError(t, err)
	_, err = run.Result("nope")
	requireError(t, err, StatusInvalidArgument, "experiment nope is not in "+path+"; it holds stream, ")
	_, err = run.ResultAt(99)
	requireError(t, err, StatusInvalidArgument, "index must be in 0..")
	if !strings.Contains(err.Error(), "got 99 ("+path+" holds ") {
		t.Fatalf("ResultAt(99) does not name the run and its size: %v", err)
	}
	zstd := writeCommittedRun(t, "run.json.zst", func(data []byte) []byte {
		return append([]byte{0x28, 0xb5, 0x2f, 0xfd}, data...)
	})
	_, err = LoadRun(zstd)
	requireError(t, err, StatusNotSupported, "zstd -d "+zstd)
	_, err = LoadRun(filepath.Join(t.TempDir(), "missing.json"))
	if !os.IsNotExist(err) {
		t.Fatalf("a missing file: want a not-exist error, got %v", err)
	}
	_, err = LoadRun("")
	requireError(t, err, StatusInvalidArgument, "path must not be empty")
	bad := writeCommittedRun(t, "bad.json", func([]byte) []byte { return []byte("{") })
	_, err = LoadRun(bad)
	requireError(t, err, StatusInvalidArgument, bad+": not valid JSON")
	if !strings.Contains(err.Error(), bad) {
		t.Fatalf("a broken file's error does not name it: %v", err)
	}
}

func TestMessagesUseTheGoNames(t *testing.T) {
	_, err := RunResultCount("{")
	requireError(t, err, StatusInvalidArgument, "runJSON is not valid JSON")
	_, err = ResultFromRunJSON("", 0)
	requireError(t, err, StatusInvalidArgument, "runJSON must not be empty")
	_, err = ResultFromJSON("{")
	requireError(t, err, StatusInvalidArgument, "resultJSON is not valid JSON")
	_, err = ResolveParams("stream", "{")
	requireError(t, err, StatusInvalidArgument, "paramsJSON is not valid JSON")
}

func TestDescriptionAndResolvedParamsAreTyped(t *testing.T) {
	description, err := Description("stride_copy")
	requireNoError(t, err)
	if description.Name != "stride_copy" || !description.DefaultSuite || len(description.Kernels) == 0 {
		t.Fatalf("Description(stride_copy): %+v", description)
	}
	var strides *ParameterDescription
	for i := range description.Parameters {
		if description.Parameters[i].Name == "strides" {
			strides = &description.Parameters[i]
		}
	}
	if strides == nil || strides.Type != "int_list" || strides.Min == nil || *strides.Min != 1 || *strides.Max != 32 {
		t.Fatalf("Description(stride_copy) strides: %+v", strides)
	}
	params, err := ResolvedParams("stride_copy", `{"strides": "1..4"}`)
	requireNoError(t, err)
	if got, ok := params["strides"].([]any); !ok || len(got) != 4 || got[3] != 4.0 {
		t.Fatalf("ResolvedParams strides: %#v", params["strides"])
	}
	if params["block_size"] != 256.0 {
		t.Fatalf("ResolvedParams block_size: %#v", params["block_size"])
	}
	_, err = Description("nope")
	requireError(t, err, StatusUnknownExperiment, "nope")
}
