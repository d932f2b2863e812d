// gmlab check's judge: a node's recorded figures (one block per GPU, and the
// peer pairs) judged three ways, apart from measuring so that it runs on
// recorded figures without a GPU (gmlab check --figures FILE, and the tests):
//  - node: against the node's other GPUs. With 3 or more, a GPU is flagged
//    when it falls short of the node's median by more than 3.5 robust
//    standard deviations (1.4826 x the median absolute deviation) and by more
//    than the tolerance; with 2, the lower one is flagged when it falls short
//    of the other by more than the tolerance; with 1, the node says nothing.
//  - crowd: the figure's percentile among the uploads of the same GPU model
//    (the server's /api/v1/gpus/{model}/quantiles, or --baseline FILE of the
//    same form); flagged below the 5th percentile (above the 95th for
//    latencies) once at least kMinDistribution uploads hold the figure.
//  - theoretical: the figure as a fraction of the hardware's figure (DRAM,
//    host link, NVLink or PCIe between GPUs); flagged below the 5th percentile
//    of the distribution's fractions where there is one.
// The tolerance of the node rule is the distribution's relative spread
// (q50 - q05) / q50, from the baseline, else the crowd; without either, the
// documented kDefaultTolerance, and the verdict says so.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gmcli::check {

// gmlab check's exit codes (also in gmlab --help and the README).
enum CheckExit {
    kHealthy = 0,
    kDegraded = 11,    // a GPU (or link) is slower than it should be, or needs attention; the GPU and figure are named
    kUnusable = 12,    // a GPU failed to measure, returned wrong data, or reports uncorrectable memory errors
    kNotChecked = 13,  // a GPU could not be checked as a whole GPU (MIG mode) and none was worse
};

constexpr double kDefaultTolerance = 0.10;    // without any distribution: 10 % short of the node
// The tolerance is never below this: one GPU measured twice, alone and beside
// the others, differs by up to about 2 % (docs/check.md), and a distribution
// of identical uploads has no spread at all.
constexpr double kMinTolerance = 0.03;
constexpr double kMadZ = 3.5;                 // Iglewicz and Hoaglin's outlier rule
constexpr std::size_t kMinDistribution = 8;   // uploads a distribution needs before it flags anything
constexpr double kLowQuantile = 0.05;

struct FigureSpec {
    std::string name;        // as in the figures document ("dram_copy_gbs")
    std::string unit;        // "GB/s", "ns"
    bool higher_is_better;
    std::string theoretical; // key of the GPU's "theoretical" block ("" : none)
    std::string crowd_experiment, crowd_figure;  // the standard suite's summary figure ("" : none)
    std::string what;        // one line for tables and Prometheus help
};

// Every per-GPU figure the check measures, in the order tables show them.
const std::vector<FigureSpec> &figure_specs();

// Judges a figures document (gmlab.check/1, docs/check.md): `crowd` is the
// server's quantiles document for the GPUs' model (null: none), `baseline`
// a site's own of the same form (null: none). Returns the verdicts document:
// {"node": {"verdict", "exit_code", "reasons"}, "gpus": [...], "peer": [...],
//  "judged_with": {...}}. Throws std::runtime_error naming what is malformed.
nlohmann::json judge(const nlohmann::json &figures, const nlohmann::json &crowd, const nlohmann::json &baseline);

// The percentile (0..100) of `value` within quantiles {"0.05": v, "0.5": v, ...},
// interpolated linearly between them and clamped to the outermost.
double percentile_of(double value, const nlohmann::json &quantiles);

// Median, and median absolute deviation, of values (not empty).
double median_of(std::vector<double> v);
double mad_of(const std::vector<double> &v);

// Checks that a baseline or crowd quantiles document is for `model` (the GPUs'
// name): "" when it is, else why not.
std::string model_mismatch(const nlohmann::json &quantiles, const std::string &model);

}  // namespace gmcli::check
