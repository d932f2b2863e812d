package gmlab

import "gmlab.invalid/gmlab/internal/swiggmlab"

// The package refuses to start with a libgmlab of another ABI (one found first
// on LD_LIBRARY_PATH, say): the message names both ABI versions and the file.
func init() {
	if problem := swiggmlab.AbiProblem(BindingABIVersion); problem != "" {
		panic(problem)
	}
}

// LibraryPath is the file the loaded libgmlab was read from ("" where the
// system cannot say).
func LibraryPath() string {
	return swiggmlab.LibraryPath()
}

// Version is the release of the loaded library, such as "0.1.0".
func Version() string {
	return swiggmlab.Version()
}

// ABIVersion is the ABI version of the loaded library (its SONAME's number).
func ABIVersion() int {
	return swiggmlab.AbiVersion()
}

// StatusString is the library's fixed text for a status code ("invalid argument", ...).
func StatusString(status Status) string {
	return swiggmlab.StatusString(int(status))
}

// DeviceCount is the number of CUDA devices: 0, not an error, where there is none.
func DeviceCount() (int, error) {
	return call(nil, swiggmlab.DeviceCount)
}

// Experiments lists the names of the experiments Run knows, in registry order.
func Experiments() []string {
	// Indices below ExperimentCount always have a name, so nothing here fails.
	count := swiggmlab.ExperimentCount()
	names := make([]string, 0, count)
	for i := 0; i < count; i++ {
		names = append(names, swiggmlab.ExperimentName(i))
	}
	return names
}

// Describe gives an experiment's guide section, summary and typed parameters
// (defaults and bounds) as JSON.
func Describe(experiment string) (string, error) {
	return call(nil, func() string { return swiggmlab.DescribeExperiment(experiment) })
}

// ResolveParams checks paramsJSON (a JSON object; "" means {}) against the
// experiment's parameters without a device, and returns every parameter with
// the value a run would use, as JSON. Lists may be arrays or strings such as
// "1..32" or "4,8,16".
func ResolveParams(experiment, paramsJSON string) (string, error) {
	return call(nil, func() string { return swiggmlab.ResolveParams(experiment, paramsJSON) })
}
