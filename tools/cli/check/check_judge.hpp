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
//  - reference: where no baseline or crowd distribution judges a figure, the
//    embedded reference of the GPU's model (scripts/check-reference.py over
//    the runs committed in results/, tools/cli/check/check_reference.json): flagged
//    when the figure falls short of the reference's median by more than
//    kReferenceTolerance (or the reference's own spread, if wider).
//  - theoretical: the figure as a fraction of the hardware's figure (DRAM,
//    host link, NVLink or PCIe between GPUs); flagged below the 5th percentile
//    of the distribution's fractions where there is one, and always below the
//    theoretical floor (a documented fraction of it); the L2 hit latency
//    against a ceiling in cycles at the GPU's SM clock.
// A figure no way judged says so ("not_judged"); a GPU none of whose figures
// was judged is "unjudged", never healthy.
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
    kUnjudged = 14,    // a GPU was measured but nothing judged any of its figures, and none was worse
};

// The theoretical floors (docs/check.md): a figure below this fraction of its
// theoretical figure is degraded whatever else judges it. Every healthy GPU
// the lab measured sits well above them (H100 and H200: DRAM 80-88 %, pinned
// host copies 87 %, NVLink peer copies 80 %); a GPU sharing its memory with
// another program fell to 22 % (issue 49); a PCIe link trained at half its
// width would carry about 44 % (half the 87 %).
constexpr double kDramFloor = 0.60;
constexpr double kHostLinkFloor = 0.60;
// Peer copies between GPUs with peer access; lower, since copies through PCIe
// switches or the host bridge reach less of the slower host link than NVLink does.
constexpr double kPeerFloor = 0.50;
// The L2 hit latency's ceiling, in cycles of the GPU's SM clock: above every
// L2 hit the lab measured (near L2 275-278 cycles, far L2 461-474 on H100 and
// H200, results/README.md), below a DRAM access.
constexpr double kL2LatencyCeilingCycles = 600;
// The embedded reference: a figure more than this short of its median (or
// than the reference's own spread (q50 - q01) / q50, if wider) is degraded,
// once the reference holds kMinReference runs of the figure.
constexpr double kReferenceTolerance = 0.10;
constexpr std::size_t kMinReference = 3;

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
    // The key of its distribution: the standard suite's summary figure
    // ("stream", "copy_gbs"), or "check" and the figure's own name where the
    // standard suite measures nothing alike (the embedded reference holds those).
    std::string crowd_experiment, crowd_figure;
    std::string what;        // one line for tables and Prometheus help
    double floor = 0;        // the theoretical floor, a fraction of `theoretical` (0: none)
    // A burst figure is the median of single timed launches, each shorter than
    // the GPU's time slice: a process sharing the GPU does not lower it.
    bool burst = false;
};

// Every per-GPU figure the check measures, in the order tables show them.
const std::vector<FigureSpec> &figure_specs();

// Judges a figures document (gmlab.check/1, docs/check.md): `crowd` is the
// server's quantiles document for the GPUs' model (null: none), `baseline`
// a site's own of the same form (null: none), `reference` the embedded
// reference (gmlab.check.reference/1: {"models": {name: quantiles document}};
// null: none). Returns the verdicts document: {"node": {"verdict",
// "exit_code", "reasons"}, "gpus": [...], "peer": [...], "judged_with": {...}}.
// Throws std::runtime_error naming what is malformed.
nlohmann::json judge(const nlohmann::json &figures, const nlohmann::json &crowd, const nlohmann::json &baseline,
                     const nlohmann::json &reference = nlohmann::json());

// A verdict's rank, worst highest: healthy 0, unjudged 1, not_checked 2, degraded 3, unusable 4.
int verdict_rank(const std::string &verdict);

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
