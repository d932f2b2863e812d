package gmlab

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The bindings' shared behaviour table (bindings/contract.json, explained in
// bindings/CONTRACT.md; the module carries it and its fixture run in
// testdata/), row by row, in Go: each row's input, the type of the error it
// returns (or none) and what the message names. A row without a case below
// fails: every row is run.

type contractRow struct {
	ID       string              `json:"id"`
	Needs    string              `json:"needs"`
	Status   string              `json:"status"`
	Contains []string            `json:"contains"`
	Absent   []string            `json:"absent"`
	Go       contractExpectation `json:"go"`
}

type contractExpectation struct {
	Error    *string  `json:"error"`
	Contains []string `json:"contains"`
}

type contractFiles map[string]string

// contractCase runs a row's input; it returns the error and the file the
// message must name ("" for none).
type contractCase func(f contractFiles) (error, string)

func loadCase(key string) contractCase {
	return func(f contractFiles) (error, string) {
		_, err := LoadRun(f[key])
		return err, f[key]
	}
}

func fixtureRun(f contractFiles) *Run {
	run, err := LoadRun(f["run"])
	if err != nil {
		panic(err)
	}
	return run
}

var contractCases = map[string]contractCase{
	"negative_device": func(contractFiles) (error, string) { _, err := Open(-1); return err, "" },
	"no_device":       func(contractFiles) (error, string) { _, err := Open(0); return err, "" },
	"null": func(contractFiles) (error, string) {
		_, err := (*Run)(nil).Result("stream")
		return err, ""
	},
	"empty_path":     func(contractFiles) (error, string) { _, err := LoadRun(""); return err, "" },
	"missing_file":   loadCase("missing"),
	"empty_file":     loadCase("empty"),
	"not_json":       loadCase("not_json"),
	"truncated_file": loadCase("truncated"),
	"zstd_file":      loadCase("run_zst"),
	"experiment_not_in_run": func(f contractFiles) (error, string) {
		_, err := fixtureRun(f).Result("no_such_experiment")
		return err, f["run"]
	},
	"unknown_experiment": func(contractFiles) (error, string) {
		_, err := Describe("no_such_experiment")
		return err, ""
	},
	"index_out_of_range": func(f contractFiles) (error, string) {
		_, err := fixtureRun(f).ResultAt(99)
		return err, f["run"]
	},
	"series_out_of_range": func(f contractFiles) (error, string) {
		r, err := fixtureRun(f).Result("stream")
		if err != nil {
			return err, ""
		}
		defer r.Close()
		_, err = r.PointValue(99, 0, "x")
		return err, ""
	},
	"use_after_close": func(f contractFiles) (error, string) {
		r, err := fixtureRun(f).Result("stream")
		if err != nil {
			return err, ""
		}
		r.Close()
		_, err = r.Experiment()
		return err, ""
	},
	"results_independent": func(f contractFiles) (error, string) {
		run := fixtureRun(f)
		first, err := run.Result("stream")
		if err != nil {
			return err, ""
		}
		first.Close()
		for _, name := range []string{"stream", "matmul_ab"} {
			r, err := run.Result(name)
			if err != nil {
				return err, ""
			}
			got, err := r.Experiment()
			r.Close()
			if err != nil {
				return err, ""
			}
			if got != name {
				return fmt.Errorf("asked for %s, read %s", name, got), ""
			}
		}
		return nil, ""
	},
}

// statusName is the table's name of a status ("NO_DEVICE") as the constant's ("StatusNoDevice").
func statusName(table string) string {
	name := "Status"
	for _, word := range strings.Split(strings.ToLower(table), "_") {
		name += strings.ToUpper(word[:1]) + word[1:]
	}
	return name
}

func contractSetup(t *testing.T) ([]contractRow, contractFiles) {
	t.Helper()
	var table struct {
		Rows []contractRow `json:"rows"`
	}
	data, err := os.ReadFile(filepath.Join("testdata", "contract.json"))
	requireNoError(t, err)
	requireNoError(t, json.Unmarshal(data, &table))
	dir := t.TempDir()
	run, err := os.ReadFile(filepath.Join("testdata", "run.json"))
	requireNoError(t, err)
	zst, err := os.ReadFile(filepath.Join("testdata", "run.json.zst"))
	requireNoError(t, err)
	files := contractFiles{}
	for key, content := range map[string][]byte{"run": run, "run_zst": zst, "empty": {}, "missing": nil,
		"not_json": []byte("this is not JSON"), "truncated": run[:len(run)/2]} {
		files[key] = filepath.Join(dir, key+".json")
		if content != nil {
			requireNoError(t, os.WriteFile(files[key], content, 0o644))
		}
	}
	return table.Rows, files
}

func TestContract(t *testing.T) {
	rows, files := contractSetup(t)
	devices, err := DeviceCount()
	requireNoError(t, err)
	for _, row := range rows {
		row := row
		t.Run(row.ID, func(t *testing.T) {
			run, ok := contractCases[row.ID]
			if !ok {
				t.Fatalf("row %s of the table has no case in Go", row.ID)
			}
			if row.Needs == "no_device" && devices > 0 {
				t.Skip("this machine has a CUDA device")
			}
			err, file := run(files)
			if row.Go.Error == nil {
				requireNoError(t, err)
				return
			}
			if err == nil {
				t.Fatalf("want a %s, got no error", *row.Go.Error)
			}
			if got := fmt.Sprintf("%T", err); got != *row.Go.Error {
				t.Fatalf("want a %s, got %s: %v", *row.Go.Error, got, err)
			}
			var gmErr *Error
			if errors.As(err, &gmErr) && row.Status != "" && gmErr.Status.String() != statusName(row.Status) {
				t.Errorf("want %s, got %v: %v", statusName(row.Status), gmErr.Status, err)
			}
			message := err.Error()
			for _, want := range append(append([]string{}, row.Contains...), row.Go.Contains...) {
				if file != "" {
					want = strings.ReplaceAll(want, "{file}", file)
				}
				if !strings.Contains(message, want) {
					t.Errorf("%q lacks %q", message, want)
				}
			}
			for _, absent := range row.Absent {
				if strings.Contains(message, absent) {
					t.Errorf("%q has %q", message, absent)
				}
			}
		})
	}
	for id := range contractCases {
		found := false
		for _, row := range rows {
			found = found || row.ID == id
		}
		if !found {
			t.Errorf("case %s is no row of the table", id)
		}
	}
}

func TestNilMethodsReturnErrors(t *testing.T) {
	var run *Run
	_, err := run.ResultAt(0)
	requireError(t, err, StatusInvalidArgument, "nil *Run")
	var r *Result
	_, err = r.Experiment()
	requireError(t, err, StatusInvalidArgument, "this Result is closed")
	requireNoError(t, r.Close())
	var c *Context
	_, err = c.Device()
	requireError(t, err, StatusInvalidArgument, "this Context is closed")
	var b *Buffer
	_, err = b.Size()
	requireError(t, err, StatusInvalidArgument, "this Buffer is closed")
}
