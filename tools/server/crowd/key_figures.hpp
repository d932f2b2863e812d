// The headline figures of each experiment: the few numbers a reader compares
// across GPU models (the guide's effects, most of them ratios such as offset 1
// over offset 0, so that they carry over between models), computed once per
// upload from its document and kept beside it (crowd_store.hpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "crowd/crowd_store.hpp"
#include "storage/storage.hpp"

namespace simdjson::dom {
class element;
}

namespace gmserver {

struct FigureSpec {
    std::string id;     // the summary value's name, or "<id>/theoretical", "<id>/copy"
    std::string label;  // what it means, for the pages
    std::string unit;   // "ratio", "GB/s", "ns", ...
    std::string basis;  // "" absolute; "theoretical" or "copy": an absolute GB/s figure divided by
                        // the upload's theoretical bandwidth or its own stream copy
};

// The figures of an experiment in the order the pages show them: the
// summary values the experiment declares for the comparison, each absolute
// GB/s one followed by its two normalised forms. An experiment that declares
// none: none.
std::vector<FigureSpec> figure_specs(const std::string &experiment);
// The experiments that declare compared figures, in the standard suite's order.
const std::vector<std::string> &compared_experiments();

// The figures of one upload (a validated gmlab.run/1 document): the compared
// summary values it has, and the normalised forms where its device's
// theoretical bandwidth and its stream copy are known.
std::vector<FigureValue> upload_figures(const nlohmann::json &document);

// The figures as the upload's figure set (kFiguresSet in storage/storage.hpp): one
// point each, series "<experiment>/<figure>", field "figure", x 0.
std::vector<PointRow> figure_rows(const std::string &run_id, const std::vector<FigureValue> &figures);
// A figure set's series name back into (experiment, figure); false when it
// is not one.
bool split_figure_series(const std::string &series, std::string *experiment, std::string *figure);

// Why an upload's measurements are not trustworthy as they stand: the SM
// clock measured below the device's maximum (throttled), or repetitions
// spread widely (unstable). Empty when neither.
std::vector<std::string> health_problems(const nlohmann::json &document);
// The thresholds: the median measured SM clock below this share of the
// device's maximum; the median point's 10th..90th percentile range of
// repetition times above this share of its median.
constexpr double kThrottledClockShare = 0.85;
constexpr double kUnstableSpread = 0.25;

// The parts of a run document that upload_figures and health_problems read
// (the device block; each result's experiment name and summary; and
// "point_spreads": each point's repetition spread, the middle 80 % of its
// repetition times over its median), read with simdjson: nlohmann's parse of a
// 500 KiB document costs about 12 ms, more than the rest of storing an
// upload. Null when the text is not a JSON object.
nlohmann::json judged_parts(std::string_view document);
// The same from a document already parsed (validate_upload's ParsedDocumentReader).
nlohmann::json judged_parts(const simdjson::dom::element &root);

}  // namespace gmserver
