package gmlab

import (
	"encoding/json"
	"fmt"
)

// ExperimentDescription is what Description says of an experiment: the guide
// section it illustrates, its parameters with defaults and bounds, and its
// kernels' names.
type ExperimentDescription struct {
	Name          string                 `json:"name"`
	GuideSection  string                 `json:"guide_section"`
	Summary       string                 `json:"summary"`
	DefaultSuite  bool                   `json:"default_suite"`
	Parameters    []ParameterDescription `json:"parameters"`
	Kernels       []string               `json:"kernels"`
	QuickDefaults map[string]any         `json:"quick_parameters"`
}

// ParameterDescription is one parameter of an experiment. Min and Max are nil
// where the parameter has no such bound; Default is a float64, a string or a
// []any of them.
type ParameterDescription struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	Description string   `json:"description"`
	Unit        string   `json:"unit"`
	Default     any      `json:"default"`
	Min         *float64 `json:"min"`
	Max         *float64 `json:"max"`
	Allowed     []any    `json:"allowed"`
	Choices     []string `json:"choices"`
}

// DeviceInfo is the device a Context uses, as the library reads it; the
// fields most programs need, decoded from DeviceInfoJSON (which has them all).
type DeviceInfo struct {
	Ordinal                 int     `json:"ordinal"`
	Name                    string  `json:"name"`
	ComputeCapability       string  `json:"compute_capability"`
	Multiprocessors         int     `json:"multiprocessors"`
	GlobalMemoryBytes       int64   `json:"global_memory_bytes"`
	L2CacheBytes            int64   `json:"l2_cache_bytes"`
	TheoreticalBandwidthGBs float64 `json:"theoretical_bandwidth_gbs"`
	DriverVersion           string  `json:"driver_version"`
}

// Description describes an experiment, without a device (Describe gives the
// same as JSON text).
func Description(experiment string) (*ExperimentDescription, error) {
	text, err := Describe(experiment)
	if err != nil {
		return nil, err
	}
	var description ExperimentDescription
	return &description, decode(text, &description, "the description of "+experiment)
}

// ResolvedParams checks paramsJSON as ResolveParams does and returns every
// parameter with its value, decoded (numbers are float64, lists []any).
func ResolvedParams(experiment, paramsJSON string) (map[string]any, error) {
	text, err := ResolveParams(experiment, paramsJSON)
	if err != nil {
		return nil, err
	}
	var params map[string]any
	return params, decode(text, &params, "the parameters of "+experiment)
}

// DeviceInfo reads the device's name, compute capability and memory sizes.
func (c *Context) DeviceInfo() (*DeviceInfo, error) {
	text, err := c.DeviceInfoJSON()
	if err != nil {
		return nil, err
	}
	var info DeviceInfo
	return &info, decode(text, &info, "the device info")
}

func decode(text string, into any, what string) error {
	if err := json.Unmarshal([]byte(text), into); err != nil {
		return &Error{Status: StatusInternal, Message: fmt.Sprintf("%s is not the JSON expected: %v", what, err)}
	}
	return nil
}
