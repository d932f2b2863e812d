package gmlab

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"
)

// Run is a saved run: a gmlab.run/1 document (what `gmlab run --json` writes,
// the files in results/), read without a GPU. Its results are read by
// experiment name or by index; each is a new *Result, the caller's to close.
// Its methods on a nil *Run return an error.
type Run struct {
	// Source is the file the run was read from, or "the run" for a text.
	Source string
	// JSON is the document's text, decompressed.
	JSON string
	// Experiments names each result's experiment, in the document's order.
	Experiments []string
}

// LoadRun reads a run document from a file: JSON text, or gzip-compressed
// (.json.gz), told by its first bytes whatever the file is called. A
// zstd-compressed file (.json.zst) is refused with the command that
// decompresses it: Go's standard library has no zstd.
func LoadRun(path string) (*Run, error) {
	if path == "" {
		return nil, invalidArgument("path must not be empty")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, invalidArgument(path + ": the file is empty")
	}
	text, err := decompressed(data, path)
	if err != nil {
		return nil, err
	}
	return newRun(string(text), path)
}

// ParseRun reads a run document given as its text.
func ParseRun(runJSON string) (*Run, error) {
	return newRun(runJSON, "the run")
}

func newRun(runJSON, source string) (*Run, error) {
	count, err := RunResultCount(runJSON)
	if err != nil {
		return nil, naming(source, err)
	}
	run := &Run{Source: source, JSON: runJSON, Experiments: make([]string, 0, count)}
	for i := 0; i < count; i++ {
		result, err := ResultFromRunJSON(runJSON, i)
		if err != nil {
			return nil, naming(fmt.Sprintf("%s, result %d", source, i), err)
		}
		name, err := result.Experiment()
		result.Close()
		if err != nil {
			return nil, err
		}
		run.Experiments = append(run.Experiments, name)
	}
	return run, nil
}

// naming puts the document's source (a file, "the run") in place of the
// document's argument name at the head of a library error ("runJSON is not
// valid JSON" becomes "run.json: not valid JSON").
func naming(source string, err error) error {
	e, ok := err.(*Error)
	if !ok {
		return fmt.Errorf("%s: %w", source, err)
	}
	message := strings.TrimPrefix(e.Message, "runJSON is ")
	return &Error{Status: e.Status, Message: source + ": " + message}
}

func (r *Run) check() error {
	if r == nil {
		return invalidArgument("a nil *Run has no results: use the *Run LoadRun or ParseRun returns")
	}
	return nil
}

// Result reads the first result of the named experiment ("stride_copy");
// the error lists the experiments the run holds.
func (r *Run) Result(experiment string) (*Result, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	for i, name := range r.Experiments {
		if name == experiment {
			return ResultFromRunJSON(r.JSON, i)
		}
	}
	return nil, &Error{Status: StatusInvalidArgument, Message: fmt.Sprintf("experiment %s is not in %s; it holds %s",
		experiment, r.Source, strings.Join(r.Experiments, ", "))}
}

// ResultAt reads result index (0 .. len(Experiments)-1).
func (r *Run) ResultAt(index int) (*Result, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	if index < 0 || index >= len(r.Experiments) {
		return nil, invalidArgument(fmt.Sprintf("index must be in 0..%d, got %d (%s holds %d results)",
			len(r.Experiments)-1, index, r.Source, len(r.Experiments)))
	}
	return ResultFromRunJSON(r.JSON, index)
}

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

func decompressed(data []byte, path string) ([]byte, error) {
	switch {
	case bytes.HasPrefix(data, gzipMagic):
		reader, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s is not a valid gzip file: %w", path, err)
		}
		text, err := io.ReadAll(reader)
		if err != nil {
			return nil, fmt.Errorf("%s is not a valid gzip file: %w", path, err)
		}
		return text, nil
	case bytes.HasPrefix(data, zstdMagic):
		return nil, &Error{Status: StatusNotSupported, Message: fmt.Sprintf(
			"%s: is zstd-compressed, which Go's standard library cannot read; decompress it first: zstd -d %s",
			path, path)}
	}
	return data, nil
}
