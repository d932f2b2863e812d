package gmlab

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestVersionIsTheHeadersRelease(t *testing.T) {
	header := sourceFile(t, "include/gmlab.h")
	part := func(name string) string {
		m := regexp.MustCompile(`#define ` + name + ` (\d+)`).FindStringSubmatch(header)
		if m == nil {
			t.Fatalf("gmlab.h defines no %s", name)
		}
		return m[1]
	}
	want := fmt.Sprintf("%s.%s.%s", part("GM_VERSION_MAJOR"), part("GM_VERSION_MINOR"), part("GM_VERSION_PATCH"))
	if got := Version(); got != want {
		t.Errorf("Version() = %q, gmlab.h says %q", got, want)
	}
	if got, want := fmt.Sprint(ABIVersion()), part("GM_ABI_VERSION"); got != want {
		t.Errorf("ABIVersion() = %s, gmlab.h says %s", got, want)
	}
}

func TestExperimentsListsTheRegistry(t *testing.T) {
	names := Experiments()
	seen := map[string]bool{}
	for _, name := range names {
		if name == "" || seen[name] {
			t.Errorf("Experiments() = %q: empty or repeated names", names)
		}
		seen[name] = true
	}
	for _, want := range []string{"stream", "offset_copy", "stride_copy"} {
		if !seen[want] {
			t.Errorf("Experiments() = %q, without %q", names, want)
		}
	}
}

// parameter is one entry of Describe's "parameters".
type parameter struct {
	Name    string          `json:"name"`
	Type    string          `json:"type"`
	Min     *float64        `json:"min"`
	Max     *float64        `json:"max"`
	Default json.RawMessage `json:"default"`
}

func TestDescribeGivesEveryExperimentsParameters(t *testing.T) {
	for _, name := range Experiments() {
		text, err := Describe(name)
		requireNoError(t, err)
		var description struct {
			Name         string      `json:"name"`
			GuideSection string      `json:"guide_section"`
			Parameters   []parameter `json:"parameters"`
		}
		if err := json.Unmarshal([]byte(text), &description); err != nil {
			t.Fatalf("Describe(%q) is not JSON: %v\n%s", name, err, text)
		}
		if description.Name != name || description.GuideSection == "" || len(description.Parameters) == 0 {
			t.Errorf("Describe(%q): name %q, guide section %q, %d parameters", name, description.Name,
				description.GuideSection, len(description.Parameters))
		}
	}
}

func TestDescribeStrideCopyGivesTheStrideRange(t *testing.T) {
	text, err := Describe("stride_copy")
	requireNoError(t, err)
	var description struct {
		Parameters []parameter `json:"parameters"`
	}
	requireNoError(t, json.Unmarshal([]byte(text), &description))
	for _, p := range description.Parameters {
		if p.Name == "strides" {
			if p.Type != "int_list" || p.Min == nil || *p.Min != 1 || p.Max == nil || *p.Max != 32 {
				t.Errorf("strides: type %q, min %v, max %v", p.Type, p.Min, p.Max)
			}
			return
		}
	}
	t.Fatalf("stride_copy has no strides parameter:\n%s", text)
}

func TestDescribeNamesTheKernelsWithoutADevice(t *testing.T) {
	text, err := Describe("local_memory")
	requireNoError(t, err)
	var description struct {
		Kernels []string `json:"kernels"`
	}
	requireNoError(t, json.Unmarshal([]byte(text), &description))
	if len(description.Kernels) != 3 {
		t.Fatalf("local_memory kernels: %v", description.Kernels)
	}
}

func TestResolveParamsFillsDefaultsAndExpandsRanges(t *testing.T) {
	text, err := ResolveParams("stride_copy", `{"strides": "1..4", "word_sizes": [4]}`)
	requireNoError(t, err)
	var resolved struct {
		Strides   []int    `json:"strides"`
		WordSizes []int    `json:"word_sizes"`
		Variants  []string `json:"variants"`
		BlockSize int      `json:"block_size"`
	}
	requireNoError(t, json.Unmarshal([]byte(text), &resolved))
	if !reflect.DeepEqual(resolved.Strides, []int{1, 2, 3, 4}) || !reflect.DeepEqual(resolved.WordSizes, []int{4}) {
		t.Errorf("strides %v, word_sizes %v", resolved.Strides, resolved.WordSizes)
	}
	if !reflect.DeepEqual(resolved.Variants, []string{"guide", "ilp4"}) || resolved.BlockSize != 256 {
		t.Errorf("defaults: variants %v, block_size %d", resolved.Variants, resolved.BlockSize)
	}
}

func TestResolveParamsTakesEmptyTextAsDefaults(t *testing.T) {
	fromEmpty, err := ResolveParams("stride_copy", "")
	requireNoError(t, err)
	fromObject, err := ResolveParams("stride_copy", "{}")
	requireNoError(t, err)
	if fromEmpty != fromObject {
		t.Errorf(`"" resolves to %s, {} to %s`, fromEmpty, fromObject)
	}
}

func TestResolveParamsRejectsBadValues(t *testing.T) {
	_, err := ResolveParams("stride_copy", `{"strides":[0]}`)
	requireError(t, err, StatusInvalidArgument, "strides must be in 1..32, got 0")
	_, err = ResolveParams("stride_copy", `{"foo": 1}`)
	requireError(t, err, StatusInvalidArgument, "unknown parameter 'foo'")
	_, err = ResolveParams("stride_copy", `{"strides": [1,`)
	requireError(t, err, StatusInvalidArgument, "not valid JSON")
}

func TestUnknownExperimentHasItsOwnStatus(t *testing.T) {
	_, err := Describe("nope")
	requireError(t, err, StatusUnknownExperiment, "unknown experiment 'nope'")
	_, err = ResolveParams("nope", "{}")
	requireError(t, err, StatusUnknownExperiment, "unknown experiment 'nope'")
}

func TestEmptyStringsAreRefused(t *testing.T) {
	_, err := Describe("")
	requireError(t, err, StatusInvalidArgument, "experiment must not be empty")
	_, err = ResolveParams("", "{}")
	requireError(t, err, StatusInvalidArgument, "experiment must not be empty")
	_, err = ResultFromJSON("")
	requireError(t, err, StatusInvalidArgument, "resultJSON must not be empty")
	_, err = ResultFromRunJSON("", 0)
	requireError(t, err, StatusInvalidArgument, "runJSON must not be empty")
	_, err = RunResultCount("")
	requireError(t, err, StatusInvalidArgument, "runJSON must not be empty")
}

func TestLongMessagesArriveWhole(t *testing.T) {
	// A message longer than any before it makes the library allocate a new
	// string for it; the binding must read that one, not the one it replaced.
	name := strings.Repeat("x", 600)
	_, err := ResolveParams("stride_copy", `{"`+name+`": 1}`)
	requireError(t, err, StatusInvalidArgument, "unknown parameter '"+name+"' for experiment stride_copy")
}

func TestStringsEndAtAnEmbeddedNul(t *testing.T) {
	// C reads strings up to their NUL, so the name ends at "stride_copy".
	text, err := Describe("stride_copy\x00trailing")
	requireNoError(t, err)
	want, err := Describe("stride_copy")
	requireNoError(t, err)
	if text != want {
		t.Errorf("Describe with an embedded NUL differs from Describe(\"stride_copy\")")
	}
}
