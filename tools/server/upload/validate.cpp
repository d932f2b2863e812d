#include "upload/validate.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string_view>
#include <utility>

#include <simdjson.h>

#include <nlohmann/json.hpp>

#include "storage/counter_rows.hpp"
#include "upload/document_shape.hpp"
#include "upload/model_name.hpp"
#include "upload/plausibility.hpp"
#include "upload/quantities.hpp"
#include "upload/run_identity.hpp"

namespace gmserver {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

struct Reject {
    std::string code, message;
};

[[noreturn]] void reject(const std::string &code, const std::string &message) { throw Reject{code, message}; }

void require(bool ok, const std::string &where, const std::string &what) {
    if (!ok) reject("invalid_document", where + ": " + what);
}

// Looks a key up without building its path unless it is missing.
element member(object obj, const char *key, const std::string &where) {
    element v;
    if (obj.at_key(key).get(v) != simdjson::SUCCESS) reject("invalid_document", where + ": missing \"" + key + "\"");
    return v;
}

bool has(object obj, const char *key) {
    element v;
    return obj.at_key(key).get(v) == simdjson::SUCCESS;
}

// A place in the document, given as text or as a function that spells it
// out: a function costs nothing unless the check fails.
std::string spell(std::string_view where) { return std::string(where); }
template <class Where, class = decltype(std::declval<const Where &>()())>
std::string spell(const Where &where) {
    return where();
}

template <class Where>
object as_object(element v, const Where &where) {
    object o;
    if (v.get(o) != simdjson::SUCCESS) reject("invalid_document", spell(where) + ": must be an object");
    return o;
}

template <class Where>
array as_array(element v, const Where &where) {
    array a;
    if (v.get(a) != simdjson::SUCCESS) reject("invalid_document", spell(where) + ": must be an array");
    return a;
}

std::string text(object obj, const char *key, const std::string &where, std::size_t max_len) {
    std::string_view s;
    if (member(obj, key, where).get(s) != simdjson::SUCCESS) reject("invalid_document", where + "." + key + ": must be a string");
    require(s.size() <= max_len, where + "." + key, "longer than " + std::to_string(max_len) + " bytes");
    return std::string(s);
}

// Numbers arrive as 64-bit integers or doubles; all are read as double.
// JSON has no NaN or infinity, but a huge literal may overflow to infinity.
// The place is only spelled out on failure: a document has thousands of these.
double number(object obj, const char *key, const std::string &where) {
    double d = 0;
    if (member(obj, key, where).get_double().get(d) != simdjson::SUCCESS)
        reject("invalid_document", where + "." + key + ": must be a number");
    if (!std::isfinite(d)) reject("invalid_document", where + "." + key + ": must be finite");
    return d;
}

// No figure of any kind is larger than this in magnitude: it keeps numbers
// such as -1e308 out of storage and pages (byte counts, counters and times of
// real runs stay below 1e13).
constexpr double kMaxMagnitude = 1e15;

// No one repetition of a measurement takes longer than this (about three hours).
constexpr double kMaxTimeMs = 1e7;

// A member found in one pass over an object; the first occurrence of a key
// counts, as with at_key.
struct Found {
    element value;
    bool present = false;
};

// One pass over the object's fields instead of one lookup per key: a run
// document has thousands of points, each read for a dozen keys.
template <std::size_t N>
void pick(object o, const std::string_view (&keys)[N], Found (&out)[N]) {
    for (auto field : o)
        for (std::size_t i = 0; i < N; ++i)
            if (!out[i].present && field.key == keys[i]) {
                out[i] = Found{field.value, true};
                break;
            }
}

template <class Where>
double number(const Found &f, std::string_view key, const Where &where) {
    if (!f.present) reject("invalid_document", spell(where) + ": missing \"" + std::string(key) + "\"");
    double d = 0;
    if (f.value.get_double().get(d) != simdjson::SUCCESS)
        reject("invalid_document", spell(where) + "." + std::string(key) + ": must be a number");
    if (!std::isfinite(d)) reject("invalid_document", spell(where) + "." + std::string(key) + ": must be finite");
    return d;
}

constexpr std::string_view kPointKeys[] = {"x", "time_ms", "bytes", "bandwidth_gbs", "fraction_of_theoretical",
                                           "fraction_of_memcpy", "counters", "bandwidth_gbs_min", "bandwidth_gbs_max",
                                           "values", "predicted"};
enum PointKey {
    kX, kTime, kBytes, kBandwidth, kFractionTheoretical, kFractionMemcpy, kCounters, kBandwidthMin, kBandwidthMax,
    kValues, kPredicted
};

// How the points of one series are judged: what the series measures, the
// derived figures that quantity allows, and whether the document is older
// than 1.3, whose figures beyond those are dropped on ingest, not refused.
struct SeriesRules {
    Quantity quantity = Quantity::DramBandwidth;
    DerivedFigures allowed;
    bool legacy = false;
    double reference_gbs = 0;  // the result's reference.theoretical_bandwidth_gbs
    // A series over memory the GPU compresses (compressible's, where
    // compression was granted) counts the array's bytes, of which DRAM moves
    // fewer: its rate is bounded by what L2 delivers, not by DRAM.
    bool compressed = false;
};

// The bound a series' bandwidth is held to.
double series_bound(const SeriesRules &rules, const DeviceFacts &dev, double bytes) {
    if (rules.compressed && rules.quantity == Quantity::DramBandwidth)
        return std::max(quantity_bound(Quantity::L2Bandwidth, dev, rules.reference_gbs, bytes),
                        quantity_bound(rules.quantity, dev, rules.reference_gbs, bytes));
    return quantity_bound(rules.quantity, dev, rules.reference_gbs, bytes);
}
constexpr std::string_view kTimeKeys[] = {"median", "min", "max", "mean", "stddev", "n", "samples", "quantiles"};
enum TimeKey { kMedian, kMin, kMax, kMean, kStddev, kN, kSamples, kQuantiles };

// A point's x, the members of its time_ms and its counters, as check_point
// read them.
struct CheckedPoint {
    double x = 0;
    Found time[std::size(kTimeKeys)];
    Found counters;  // an object of finite numbers >= 0 when present
    bool drops = false;  // an older document's point carries figures its quantity does not have
    double top_gbs = 0;  // its largest bandwidth (bandwidth_gbs, its maximum, a value in GB/s), for the summary's check
};

// A point's place in the document ("results[2].series[0].points[17]"), spelled
// out only when a message needs it: a document has thousands of points.
struct PointPlace {
    const std::string &series;
    std::size_t index;
    std::string str() const { return series + ".points[" + std::to_string(index) + "]"; }
};

// An object of named numbers (a point's values or predictions): each finite
// and within kMaxMagnitude.
template <class Where>
void check_number_map(element e, const Where &where) {
    object o;
    if (e.get(o) != simdjson::SUCCESS) reject("invalid_document", spell(where) + ": must be an object");
    for (auto field : o) {
        double d = 0;
        if (field.value.get_double().get(d) != simdjson::SUCCESS)
            reject("invalid_document", spell(where) + "." + std::string(field.key) + ": must be a number");
        if (!std::isfinite(d) || std::fabs(d) > kMaxMagnitude)
            reject("implausible", spell(where) + "." + std::string(field.key) + ": must be finite and within +-1e15");
    }
}

// A figure the series' quantity does not allow: an older document's is
// dropped on ingest (marked here), a 1.3 document's is refused.
bool unwanted(const Found &f, bool allowed, std::string_view key, const SeriesRules &rules, const PointPlace &place,
              CheckedPoint &out) {
    if (!f.present || allowed) return false;
    if (!rules.legacy)
        reject("invalid_document", place.str() + "." + std::string(key) + ": a series of " + quantity_label(rules.quantity) +
                                       " carries no " + std::string(key));
    out.drops = true;
    return true;
}

// Where a bound came from, for its message.
const char *bound_source(const DeviceFacts &dev) {
    return dev.known_model ? "derived from the server's facts of this GPU model" : "derived from the device block";
}

// bytes, bandwidth_gbs and the fractions, each held to the series' quantity.
void check_derived(const Found (&f)[std::size(kPointKeys)], const SeriesRules &rules, const DeviceFacts &dev, double median,
                   const PointPlace &place, CheckedPoint &out) {
    const auto where = [&] { return place.str(); };
    bool dropped = false;
    for (int k : {kBytes, kBandwidth, kBandwidthMin, kBandwidthMax})
        dropped = unwanted(f[k], rules.allowed.bandwidth, kPointKeys[k], rules, place, out) || dropped;
    double bytes = 0;
    if (f[kBytes].present && !dropped) {
        bytes = number(f[kBytes], "bytes", where);
        if (bytes < 0 || bytes > kMaxMagnitude) reject("implausible", where() + ".bytes: must be 0..1e15");
    }
    const double bound = series_bound(rules, dev, bytes);
    const auto held = [&](const char *key, double bw) {
        if (bw < 0) reject("implausible", where() + "." + key + ": must be >= 0");
        if (bw > bound)
            reject("implausible", where() + "." + key + ": " + std::to_string(bw) + " GB/s of " + quantity_label(rules.quantity) +
                                      " is above the bound of " + std::to_string(bound) + " GB/s " + bound_source(dev));
        out.top_gbs = std::max(out.top_gbs, bw);
    };
    if (f[kBandwidthMax].present && !dropped) held("bandwidth_gbs_max", number(f[kBandwidthMax], "bandwidth_gbs_max", where));
    if (f[kBandwidth].present && !dropped) {
        const double bw = number(f[kBandwidth], "bandwidth_gbs", where);
        held("bandwidth_gbs", bw);
        // bandwidth is bytes / median time: a document whose figures disagree was edited.
        if (bytes > 0) {
            const double expected = bytes / (median * 1e6);
            if (std::fabs(bw - expected) > 0.02 * expected + 1e-9)
                reject("implausible", where() + ".bandwidth_gbs: does not equal bytes / median time");
        }
    }
    const bool allowed[] = {rules.allowed.fraction_of_theoretical, rules.allowed.fraction_of_memcpy};
    for (int k : {kFractionTheoretical, kFractionMemcpy}) {
        if (unwanted(f[k], allowed[k - kFractionTheoretical], kPointKeys[k], rules, place, out) || !f[k].present) continue;
        const double v = number(f[k], kPointKeys[k], where);
        if (v < 0 || v > 20) reject("implausible", where() + "." + std::string(kPointKeys[k]) + ": must be within 0..20");
    }
}

// The same checks as the library's gmlab.result/1 .. /1.3 reader (x and the
// time_ms statistics are numbers), plus the plausibility rules.
CheckedPoint check_point(object p, const PointPlace &place, const DeviceFacts &dev, const SeriesRules &rules) {
    // Places are spelled out only in messages.
    const auto where = [&] { return place.str(); };
    const auto tw = [&] { return place.str() + ".time_ms"; };
    Found f[std::size(kPointKeys)];
    pick(p, kPointKeys, f);
    CheckedPoint out;
    out.x = number(f[kX], "x", where);
    if (std::fabs(out.x) > kMaxMagnitude) reject("implausible", where() + ".x: must be within +-1e15");
    if (!f[kTime].present) reject("invalid_document", where() + ": missing \"time_ms\"");
    pick(as_object(f[kTime].value, tw), kTimeKeys, out.time);
    const Found *t = out.time;
    double stat[4];
    for (int k : {kMedian, kMin, kMax, kMean}) {
        stat[k] = number(t[k], kTimeKeys[k], tw);
        if (stat[k] <= 0) reject("implausible", tw() + "." + std::string(kTimeKeys[k]) + ": must be > 0");
    }
    const double median = stat[kMedian], mn = stat[kMin], mx = stat[kMax];
    if (stat[kMax] > kMaxTimeMs || stat[kMean] > kMaxTimeMs)
        reject("implausible", tw() + ": no repetition takes longer than 1e7 ms");
    if (!(mn <= median * (1 + 1e-9) && median <= mx * (1 + 1e-9)))
        reject("implausible", tw() + ": min <= median <= max does not hold");
    if (number(t[kStddev], "stddev", tw) < 0) reject("implausible", tw() + ".stddev: must be >= 0");
    if (!t[kN].present) reject("invalid_document", tw() + ": missing \"n\"");
    std::int64_t count = 0;
    if (t[kN].value.get_int64().get(count) != simdjson::SUCCESS) reject("invalid_document", tw() + ".n: must be an integer");
    if (count < 1 || count > 100000000) reject("implausible", tw() + ".n: must be 1..1e8");
    if (t[kSamples].present) {
        const array s = as_array(t[kSamples].value, [&] { return tw() + ".samples"; });
        // Uploads may carry a trimmed subset of the samples, never more than n.
        if (static_cast<std::int64_t>(s.size()) > count) reject("implausible", tw() + ".samples: more samples than n");
        for (element v : s) {
            double d = 0;
            if (v.get_double().get(d) != simdjson::SUCCESS) reject("invalid_document", tw() + ".samples: must hold numbers");
            if (!std::isfinite(d) || d <= 0) reject("implausible", tw() + ".samples: every sample must be finite and > 0");
        }
    }
    // Compact documents (1.1) keep the deciles in place of the samples: nine
    // times in order, within min..max (they carry 6 significant digits).
    if (t[kQuantiles].present) {
        const array q = as_array(t[kQuantiles].value, [&] { return tw() + ".quantiles"; });
        if (q.size() != 9) reject("invalid_document", tw() + ".quantiles: must hold 9 numbers (the deciles)");
        double previous = 0;
        for (element v : q) {
            double d = 0;
            if (v.get_double().get(d) != simdjson::SUCCESS) reject("invalid_document", tw() + ".quantiles: must hold numbers");
            if (!std::isfinite(d) || d <= 0) reject("implausible", tw() + ".quantiles: every decile must be finite and > 0");
            if (d < previous) reject("implausible", tw() + ".quantiles: the deciles must not decrease");
            if (d < mn * (1 - 1e-5) || d > mx * (1 + 1e-5)) reject("implausible", tw() + ".quantiles: a decile lies outside min..max");
            previous = d;
        }
    }
    check_derived(f, rules, dev, median, place, out);
    for (int k : {kValues, kPredicted})
        if (f[k].present) check_number_map(f[k].value, [&] { return place.str() + "." + std::string(kPointKeys[k]); });
    // A value in GB/s ("..._gbs") counts for the summary's check.
    if (f[kValues].present)
        for (auto field : object(f[kValues].value)) {
            double d = 0;
            const std::string_view key = field.key;
            if (key.size() > 4 && key.substr(key.size() - 4) == "_gbs" && field.value.get_double().get(d) == simdjson::SUCCESS)
                out.top_gbs = std::max(out.top_gbs, d);
        }
    // 1.2: hardware counters (counts, rates and ratios of counts): finite and >= 0.
    if (f[kCounters].present) {
        object counters;
        if (f[kCounters].value.get(counters) != simdjson::SUCCESS) reject("invalid_document", where() + ".counters: must be an object");
        for (auto field : counters) {
            double d = 0;
            const auto cw = [&] { return where() + ".counters." + std::string(field.key); };
            if (field.value.get_double().get(d) != simdjson::SUCCESS) reject("invalid_document", cw() + ": must be a number");
            if (!std::isfinite(d) || d < 0 || d > 1e18) reject("implausible", cw() + ": must be finite, 0..1e18");
        }
        out.counters = f[kCounters];
    }
    return out;
}

// The value a series plots, named by its y.field with the library's rules
// (gm_result_point_value): a time statistic ("median_ms", ..., "repetitions"),
// "predicted.<key>", a number member of the point, or a member of "values".
bool field_value(object point, const CheckedPoint &checked, std::string_view field, double &out) {
    static constexpr std::pair<std::string_view, TimeKey> kTimeFields[] = {
        {"median_ms", kMedian}, {"min_ms", kMin}, {"max_ms", kMax},
        {"mean_ms", kMean}, {"stddev_ms", kStddev}, {"repetitions", kN}};
    for (const auto &[name, key] : kTimeFields)
        if (field == name) return checked.time[key].value.get_double().get(out) == simdjson::SUCCESS;
    constexpr std::string_view kPredicted = "predicted.";
    if (field.substr(0, kPredicted.size()) == kPredicted)
        return point.at_key("predicted").at_key(field.substr(kPredicted.size())).get_double().get(out) == simdjson::SUCCESS;
    if (point.at_key(field).get_double().get(out) == simdjson::SUCCESS) return true;
    return point.at_key("values").at_key(field).get_double().get(out) == simdjson::SUCCESS;
}

// One entry of a series' "agreement": counted figure, prediction, tolerance.
struct Agreement {
    std::string counter, prediction;
    double tolerance = 0;
};

// The series' agreement entries that can be stored (storage/counter_rows.hpp). The
// block is the library's own summary of its points, not a measurement, so a
// malformed entry is left out rather than refused: it only loses its rows.
std::vector<Agreement> agreements_of(object series) {
    std::vector<Agreement> out;
    object block;
    if (series.at_key("agreement").get(block) != simdjson::SUCCESS) return out;
    for (auto field : block) {
        Agreement a;
        a.counter = std::string(field.key);
        std::string_view prediction;
        if (field.value.at_key("prediction").get(prediction) != simdjson::SUCCESS ||
            field.value.at_key("tolerance").get_double().get(a.tolerance) != simdjson::SUCCESS)
            continue;
        a.prediction = std::string(prediction);
        // Names bounded as a y.field is (the counter's becomes part of three stored fields).
        if (a.counter.empty() || a.prediction.empty() || a.counter.size() > 128 || a.prediction.size() > 128) continue;
        if (!std::isfinite(a.tolerance) || a.tolerance < 0) continue;
        // A key given twice (JSON allows it) would count each point twice.
        if (std::any_of(out.begin(), out.end(), [&](const Agreement &b) { return b.counter == a.counter; })) continue;
        out.push_back(std::move(a));
    }
    return out;
}

// What read_result found of one result's series, for the rewrite of an older
// document (rewrite_older_document).
struct ResultQuantities {
    std::vector<Quantity> quantities;  // one per series, in order
    bool drops = false;                // some point carries a figure its quantity does not have
};

// A counted point of a series with agreements: its x, counters and predictions.
struct CountedPoint {
    double x;
    object counters;
    element predicted;
};

// The counter rows of one series (storage/counter_rows.hpp): per agreement entry, the
// points that have both the counted figure and its prediction. Each field's
// rows are appended together, so that the aggregates meet one series at a time.
void append_counter_rows(const std::string &experiment, const std::string &series, const std::vector<Agreement> &agreements,
                         const std::vector<CountedPoint> &counted, std::vector<PointRow> &rows) {
    for (const Agreement &a : agreements) {
        const std::string counted_field = counter_field(CounterRow::Counted, a.counter),
                          model_field = counter_field(CounterRow::Model, a.counter),
                          tolerance_field = counter_field(CounterRow::Tolerance, a.counter);
        std::vector<PointRow> measured, model, tolerance;
        for (const CountedPoint &p : counted) {
            double c = 0, m = 0;
            if (p.counters.at_key(a.counter).get_double().get(c) != simdjson::SUCCESS) continue;
            if (p.predicted.at_key(a.prediction).get_double().get(m) != simdjson::SUCCESS || !std::isfinite(m)) continue;
            measured.push_back(PointRow{"", experiment, series, counted_field, p.x, c});
            model.push_back(PointRow{"", experiment, series, model_field, p.x, m});
            tolerance.push_back(PointRow{"", experiment, series, tolerance_field, p.x, a.tolerance});
        }
        for (std::vector<PointRow> *group : {&measured, &model, &tolerance})
            rows.insert(rows.end(), std::make_move_iterator(group->begin()), std::make_move_iterator(group->end()));
    }
}

// The quantity a series declares (1.3: required), or for an older document
// the one its experiment and series imply.
SeriesRules rules_of(object so, const std::string &sw, const std::string &experiment, const std::string &series,
                     const std::string &y_field, bool legacy, double reference_gbs) {
    SeriesRules rules;
    rules.legacy = legacy;
    rules.reference_gbs = reference_gbs;
    element q;
    if (so.at_key("quantity").get(q) == simdjson::SUCCESS) {
        const std::string name = text(as_object(q, sw + ".quantity"), "name", sw + ".quantity", 64);
        if (!parse_quantity(name, &rules.quantity))
            reject("invalid_document", sw + ".quantity.name: \"" + name +
                                           "\" is not one of dram_bandwidth, l2_bandwidth, l1_shared_bandwidth, link_bandwidth, "
                                           "latency, time_per_call, count, ratio, rate");
    } else if (!legacy) {
        reject("invalid_document", sw + ": missing \"quantity\" (required from gmlab.result/1.3 on)");
    } else {
        rules.quantity = legacy_quantity(experiment, series, y_field);
    }
    rules.allowed = legacy ? legacy_derived_figures(rules.quantity, experiment) : derived_figures(rules.quantity);
    element attributes;
    if (so.at_key("attributes").get(attributes) == simdjson::SUCCESS && attributes.type() == simdjson::dom::element_type::OBJECT) {
        bool granted = false;
        std::string_view memory;
        rules.compressed = attributes.at_key("compression_granted").get(granted) == simdjson::SUCCESS && granted &&
                           attributes.at_key("memory").get(memory) == simdjson::SUCCESS && memory == "compressible";
    }
    return rules;
}

// The value a series plots, held to its quantity: latencies and times
// positive, counts, ratios and rates not negative, a bandwidth plotted in
// GB/s within its bound; every one finite and within kMaxMagnitude.
void check_plotted(double v, const SeriesRules &rules, const std::string &y_unit, const DeviceFacts &dev,
                   const PointPlace &place) {
    if (!std::isfinite(v) || std::fabs(v) > kMaxMagnitude)
        reject("implausible", place.str() + ": the plotted value must be finite and within +-1e15");
    const bool time_like = rules.quantity == Quantity::Latency || rules.quantity == Quantity::Time;
    if (time_like && v <= 0)
        reject("implausible", place.str() + ": a " + std::string(quantity_label(rules.quantity)) + " must be > 0");
    if (!time_like && v < 0)
        reject("implausible", place.str() + ": a " + std::string(quantity_label(rules.quantity)) + " must be >= 0");
    if (is_bandwidth(rules.quantity) && y_unit == "GB/s") {
        const double bound = series_bound(rules, dev, 0);
        if (v > bound)
            reject("implausible", place.str() + ": " + std::to_string(v) + " GB/s of " + quantity_label(rules.quantity) +
                                      " is above the bound of " + std::to_string(bound) + " GB/s " + bound_source(dev));
    }
    if (rules.quantity == Quantity::Latency) {
        const std::string problem = judge_latency(v, y_unit, dev);
        if (!problem.empty()) reject("implausible", place.str() + ": " + problem);
    }
}

// The result's summary (its key figures): each finite and bounded, and each
// bandwidth or time in cycles no larger than its points allow
// (plausibility.hpp: judge_summary_figure).
void check_summary(element summary, const std::string &where, const ResultTops &tops, const DeviceFacts &dev) {
    check_number_map(summary, [&] { return where + ".summary"; });
    for (auto field : object(summary)) {
        const std::string problem = judge_summary_figure(std::string(field.key), double(field.value), tops, dev);
        if (!problem.empty()) reject("implausible", where + ".summary." + problem);
    }
}

// One result of the run: the library's gmlab.result/1 rules, every point's
// plausibility by its series' quantity, and one stored row per point (the
// value its series plots), plus the counter rows of series that compare
// counters with their model. Returns each series' quantity and whether an
// older document's points carry figures to drop.
ResultQuantities read_result(element r_el, const std::string &where, const DeviceFacts &dev, std::vector<PointRow> &rows) {
    const object r = as_object(r_el, where);
    require(!has(r, "device"), where, "must not carry its own device block");
    std::string_view schema;
    require(member(r, "schema", where).get(schema) == simdjson::SUCCESS &&
                (schema == "gmlab.result/1" || schema == "gmlab.result/1.1" || schema == "gmlab.result/1.2" ||
                 schema == "gmlab.result/1.3"),
            where + ".schema", "must be \"gmlab.result/1\", \"gmlab.result/1.1\", \"gmlab.result/1.2\" or \"gmlab.result/1.3\"");
    const bool legacy = schema != "gmlab.result/1.3";
    bool quick = false;
    if (r.at_key("quick").get(quick) == simdjson::SUCCESS && quick)
        reject("invalid_document", where + ".quick: a quick run (gmlab run --quick) is a smoke check, not measurements; "
                                           "upload a standard run");
    const object exp = as_object(member(r, "experiment", where), where + ".experiment");
    const std::string name = text(exp, "name", where + ".experiment", 64);
    if (const std::string problem = name_problem(name); !problem.empty())
        reject("invalid_name", where + ".experiment.name: " + problem);
    double reference_gbs = 0;
    if (r.at_key("reference").at_key("theoretical_bandwidth_gbs").get_double().get(reference_gbs) != simdjson::SUCCESS ||
        !std::isfinite(reference_gbs) || reference_gbs < 0 || reference_gbs > 1e5)
        reference_gbs = 0;
    const array series = as_array(member(r, "series", where), where + ".series");
    ResultQuantities out;
    ResultTops tops;
    std::size_t s = 0;
    for (element se : series) {
        const std::string sw = where + ".series[" + std::to_string(s++) + "]";
        const object so = as_object(se, sw);
        const std::string sname = text(so, "name", sw, 256);
        const object y = as_object(member(so, "y", sw), sw + ".y");
        const std::string field = text(y, "field", sw + ".y", 128);
        const std::string y_unit = has(y, "unit") ? text(y, "unit", sw + ".y", 64) : "";
        const SeriesRules rules = rules_of(so, sw, name, sname, field, legacy, reference_gbs);
        if (!rules.allowed.bandwidth && field == "bandwidth_gbs")
            reject("invalid_document", sw + ".y.field: a series of " + std::string(quantity_label(rules.quantity)) +
                                           " cannot plot bandwidth_gbs");
        out.quantities.push_back(rules.quantity);
        const array points = as_array(member(so, "points", sw), sw + ".points");
        const std::vector<Agreement> agreements = agreements_of(so);
        std::vector<CountedPoint> counted;
        std::size_t p = 0;
        for (element pe : points) {
            const PointPlace place{sw, p++};
            object po;
            if (pe.get(po) != simdjson::SUCCESS) reject("invalid_document", place.str() + ": must be an object");
            const CheckedPoint checked = check_point(po, place, dev, rules);
            out.drops = out.drops || checked.drops;
            double v = 0;
            if (!field_value(po, checked, field, v))
                reject("invalid_document", place.str() + ": has no number \"" + field + "\" (the series' y.field)");
            check_plotted(v, rules, y_unit, dev, place);
            tops.gbs = std::max({tops.gbs, checked.top_gbs, y_unit == "GB/s" ? v : 0.0});
            if (y_unit == "cycles") tops.cycles = std::max(tops.cycles, v);
            rows.push_back(PointRow{"", name, sname, field, checked.x, v});
            element predicted;
            if (!agreements.empty() && checked.counters.present && po.at_key("predicted").get(predicted) == simdjson::SUCCESS)
                counted.push_back(CountedPoint{checked.x, object(checked.counters.value), predicted});
        }
        append_counter_rows(name, sname, agreements, counted, rows);
    }
    element summary;
    if (r.at_key("summary").get(summary) == simdjson::SUCCESS) check_summary(summary, where, tops, dev);
    return out;
}

// Characters no string of a document may hold: every C0 control (NUL, CR
// and LF among them), DEL, the C1 controls, and the Unicode bidirectional
// controls (U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069), which let a
// name such as "NVIDIA \u202e002H AIDIVN" display as another GPU's. Returns
// what was found, or null, and in *non_ascii whether the text has any byte
// beyond ASCII. The text is valid UTF-8 (the parser checked).
const char *forbidden_character(std::string_view s, bool *non_ascii) {
    bool high = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c == 0x7f) return "a control character";
        if (c < 0x80) continue;  // the other checks are of multi-byte characters
        high = true;
        if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) <= 0x9f) return "a control character";
        if (c == 0xd8 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x9c) return "a bidirectional control";
        if (c == 0xe2 && i + 2 < s.size()) {
            const auto b1 = static_cast<unsigned char>(s[i + 1]), b2 = static_cast<unsigned char>(s[i + 2]);
            if (b1 == 0x80 && (b2 == 0x8e || b2 == 0x8f || (b2 >= 0xaa && b2 <= 0xae))) return "a bidirectional control";
            if (b1 == 0x81 && b2 >= 0xa6 && b2 <= 0xa9) return "a bidirectional control";
        }
    }
    *non_ascii = high;
    return nullptr;
}

// Where check_limits is in the document, spelled out only for a message.
struct PathStep {
    const PathStep *parent;
    std::string_view key;  // empty for an array item
    std::size_t index;
    std::string str() const {
        std::string up = parent ? parent->str() : "document";
        return key.empty() ? up + "[" + std::to_string(index) + "]" : up + "." + std::string(key);
    }
};

void check_string(std::string_view s, const PathStep *at, const ValidationLimits &limits) {
    if (s.size() > limits.max_string_bytes)
        reject("too_large", "a string is longer than " + std::to_string(limits.max_string_bytes) + " bytes");
    bool non_ascii = false;
    if (const char *what = forbidden_character(s, &non_ascii))
        reject("invalid_document", (at ? at->str() : std::string("document")) + ": holds " + what +
                                       " (no string may hold controls, CR, LF, NUL or bidirectional marks)");
    // Zero-width spaces, soft hyphens, fillers, tag characters: text that
    // reads as other text (model_name.hpp).
    if (const std::string c = non_ascii ? invisible_character(s) : std::string(); !c.empty())
        reject("invalid_document", (at ? at->str() : std::string("document")) + ": holds " + c +
                                       ", an invisible or format character (no string may hold one)");
}

// Each result's experiment name judged as a name first (model_name.hpp), so
// that a look-alike of a real experiment ("str\u0435am", a Cyrillic e) is refused
// as the spoof it is, before the shape check calls it merely unknown.
void check_experiment_names(element root) {
    array results;
    if (root.at_key("results").get(results) != simdjson::SUCCESS) return;
    std::size_t i = 0;
    for (element r : results) {
        std::string_view name;
        if (r.at_key("experiment").at_key("name").get(name) == simdjson::SUCCESS)
            if (const std::string problem = name_problem(name); !problem.empty())
                reject("invalid_name", "results[" + std::to_string(i) + "].experiment.name: " + problem);
        ++i;
    }
}

// The size limits over the parsed document: the length of every string (keys
// too), the number of items of every array, and no string with a control or
// bidirectional character. The body size limit bounds what the parser builds
// before this runs; depth is bounded by the parser itself.
void check_limits(element e, const ValidationLimits &limits, const PathStep *at = nullptr) {
    switch (e.type()) {
    case element_type::STRING:
        check_string(std::string_view(e), at, limits);
        break;
    case element_type::ARRAY: {
        const array a(e);
        if (a.size() > limits.max_array_items)
            reject("too_large", "an array has more than " + std::to_string(limits.max_array_items) + " items");
        std::size_t i = 0;
        for (element v : a) {
            const PathStep step{at, {}, i++};
            check_limits(v, limits, &step);
        }
        break;
    }
    case element_type::OBJECT: {
        // A key given twice is refused: readers disagree on which one counts
        // (this parser takes the first, others the last), so a document could
        // mean one thing here and another to whoever reads it back.
        std::vector<std::string_view> keys;
        for (auto field : object(e)) {
            const PathStep step{at, field.key, 0};
            check_string(field.key, &step, limits);
            if (std::find(keys.begin(), keys.end(), field.key) != keys.end())
                reject("invalid_document", step.str() + ": the key is given twice");
            keys.push_back(field.key);
            check_limits(field.value, limits, &step);
        }
        break;
    }
    default:
        break;
    }
}

// An older document whose points carry figures their series' quantity does
// not have (before 1.3, allocation's call costs carried a "bandwidth"): the
// stored document is that one without them, each series naming its quantity,
// so that no page shows them.
std::string rewrite_older_document(const std::string &body, const std::vector<ResultQuantities> &results) {
    nlohmann::json doc = nlohmann::json::parse(body);
    nlohmann::json &list = doc["results"];
    for (std::size_t r = 0; r < results.size() && r < list.size(); ++r) {
        nlohmann::json &series = list[r]["series"];
        const std::string experiment = list[r]["experiment"].value("name", "");
        for (std::size_t s = 0; s < results[r].quantities.size() && s < series.size(); ++s) {
            const Quantity q = results[r].quantities[s];
            const DerivedFigures keep = legacy_derived_figures(q, experiment);
            if (!series[s].contains("quantity"))
                series[s]["quantity"] = {{"name", quantity_name(q)}, {"label", quantity_label(q)},
                                         {"unit", is_bandwidth(q) ? std::string("GB/s") : series[s]["y"].value("unit", "")}};
            for (nlohmann::json &p : series[s]["points"]) {
                if (!keep.bandwidth)
                    for (const char *k : {"bytes", "bandwidth_gbs", "bandwidth_gbs_min", "bandwidth_gbs_max"}) p.erase(k);
                if (!keep.fraction_of_theoretical) p.erase("fraction_of_theoretical");
                if (!keep.fraction_of_memcpy) p.erase("fraction_of_memcpy");
            }
        }
    }
    return doc.dump();
}

// Each result's summary figures, in order, as rows of the run's identity
// (series "#summary", field the figure's name). The document passed
// validation: every summary is an object of numbers.
std::vector<PointRow> summary_rows(array results) {
    std::vector<PointRow> rows;
    for (element r : results) {
        object summary;
        if (r.at_key("summary").get(summary) != simdjson::SUCCESS) continue;
        std::string_view experiment;
        if (r.at_key("experiment").at_key("name").get(experiment) != simdjson::SUCCESS) continue;
        for (auto field : summary) {
            double v = 0;
            if (field.value.get_double().get(v) == simdjson::SUCCESS)
                rows.push_back(PointRow{"", std::string(experiment), "#summary", std::string(field.key), 0, v});
        }
    }
    return rows;
}

// The device block's facts as the plausibility rules judge them
// (plausibility.hpp): a known model's from the server's table, an unknown
// one's from the block, each within what a GPU can have.
DeviceFacts device_facts(object device, const GpuIdentity &g) {
    ClaimedDevice c;
    c.name = g.name;
    c.compute_capability = g.compute_capability;
    c.global_memory_bytes = double(g.memory_bytes);
    c.bus_width_bits = g.bus_width_bits;
    c.theoretical_gbs = number(device, "theoretical_bandwidth_gbs", "device");
    const std::pair<const char *, double *> optional[] = {{"multiprocessors", &c.multiprocessors},
                                                          {"l2_cache_bytes", &c.l2_bytes},
                                                          {"sm_clock_mhz", &c.sm_clock_mhz},
                                                          {"memory_clock_mhz", &c.memory_clock_mhz}};
    for (const auto &[key, into] : optional)
        if (has(device, key)) *into = number(device, key, "device");
    object link;
    if (device.at_key("host_link").get(link) == simdjson::SUCCESS && has(link, "theoretical_gbs"))
        c.host_link_gbs = number(link, "theoretical_gbs", "device.host_link");
    DeviceFacts facts;
    if (const std::string problem = judge_device(c, &facts); !problem.empty()) reject("implausible", problem);
    return facts;
}

bool valid_cc(const std::string &cc) {
    const auto dot = cc.find('.');
    if (dot == std::string::npos || dot == 0 || dot > 2 || cc.size() - dot - 1 < 1 || cc.size() - dot - 1 > 2) return false;
    for (std::size_t i = 0; i < cc.size(); ++i)
        if (i != dot && (cc[i] < '0' || cc[i] > '9')) return false;
    return true;
}

}  // namespace

std::string gpu_key(const std::string &name, const std::string &cc, std::uint64_t memory_bytes, int bus_width_bits) {
    std::string k;
    for (unsigned char c : name) {
        if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) k.push_back(char(c));
        else if (!k.empty() && k.back() != '-') k.push_back('-');
    }
    while (!k.empty() && k.back() == '-') k.pop_back();
    if (k.empty()) k = "gpu";
    const auto gib = static_cast<unsigned long long>(std::llround(double(memory_bytes) / (1024.0 * 1024.0 * 1024.0)));
    return k + "-cc" + cc + "-" + std::to_string(gib) + "gib-" + std::to_string(bus_width_bits) + "bit";
}

std::optional<DeviceFacts> stored_device_facts(const std::string &document) {
    try {
        simdjson::dom::parser parser;
        element root;
        object device;
        if (parser.parse(document).get(root) != simdjson::SUCCESS || root.at_key("device").get(device) != simdjson::SUCCESS)
            return std::nullopt;
        GpuIdentity g;
        g.name = text(device, "name", "device", 256);
        g.compute_capability = text(device, "compute_capability", "device", 8);
        g.memory_bytes = static_cast<std::uint64_t>(number(device, "global_memory_bytes", "device"));
        g.bus_width_bits = static_cast<int>(number(device, "memory_bus_width_bits", "device"));
        return device_facts(device, g);
    } catch (const Reject &) {
        // Stored before the rules it now fails: it says nothing of the model.
        return std::nullopt;
    } catch (const std::exception &) {
        return std::nullopt;
    }
}

bool valid_submission_id(const std::string &s) {
    if (s.empty() || s.size() > 128) return false;
    for (char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
            return false;
    return true;
}

ValidatedUpload validate_upload(std::string body, const ValidationLimits &limits) {
    return validate_upload(std::move(body), limits, nullptr);
}

ValidatedUpload validate_upload(std::string body, const ValidationLimits &limits, const ParsedDocumentReader &also) {
    static_assert(kParserPadding >= simdjson::SIMDJSON_PADDING, "kParserPadding must cover the parser's padding");
    ValidatedUpload out;
    try {
        if (const auto problem = check_density(body)) reject(problem->code, problem->message);
        // One parser per thread, reused, for ordinary bodies (its buffers
        // grow to at most kReusedParserBytes); a larger body gets a parser of
        // its own, freed once the body is read, so that one large or hostile
        // body (the parse of 16 MiB of "[1,1,..." is ~240 MiB) does not stay
        // with every worker that saw one. simdjson checks UTF-8 in
        // full (overlong forms, surrogates, > U+10FFFF) and escapes, and stops at
        // the depth limit before building deeper levels.
        constexpr std::size_t kReusedParserBytes = 1u << 20;
        thread_local simdjson::dom::parser reused;
        std::unique_ptr<simdjson::dom::parser> own;
        if (body.size() > kReusedParserBytes) own = std::make_unique<simdjson::dom::parser>();
        simdjson::dom::parser &parser = own ? *own : reused;
        if (parser.max_depth() != static_cast<std::size_t>(limits.max_depth) &&
            parser.allocate(std::max<std::size_t>(body.size(), 64), static_cast<std::size_t>(limits.max_depth)) != simdjson::SUCCESS)
            reject("too_large", "the body does not fit in memory");
        element root;
        const simdjson::error_code err = parser.parse(body).get(root);
        if (err == simdjson::DEPTH_ERROR) reject("too_deep", "JSON nested deeper than " + std::to_string(limits.max_depth));
        if (err == simdjson::UTF8_ERROR) reject("invalid_json", "the body is not valid UTF-8");
        if (err == simdjson::MEMALLOC || err == simdjson::CAPACITY) reject("too_large", "the body does not fit in memory");
        if (err) reject("invalid_json", std::string("not JSON: ") + simdjson::error_message(err));
        check_limits(root, limits);
        check_experiment_names(root);
        if (const auto problem = check_shape(root, limits.shapes.get())) reject(problem->code, problem->message);
        if (const std::string problem = shape_problem(root); !problem.empty()) reject("invalid_document", problem);

        const object doc = as_object(root, "document");
        std::string_view schema;
        require(member(doc, "schema", "document").get(schema) == simdjson::SUCCESS &&
                    (schema == "gmlab.run/1" || schema == "gmlab.run/1.1" || schema == "gmlab.run/1.2" ||
                     schema == "gmlab.run/1.3"),
                "document.schema", "must be \"gmlab.run/1\", \"gmlab.run/1.1\", \"gmlab.run/1.2\" or \"gmlab.run/1.3\"");
        bool quick = false;
        if (doc.at_key("quick").get(quick) == simdjson::SUCCESS && quick)
            reject("invalid_document", "document.quick: a quick run (gmlab run --quick) is a smoke check, not measurements; "
                                       "upload a standard run");
        for (const char *k : {"library", "settings"}) as_object(member(doc, k, "document"), std::string("document.") + k);
        const object device = as_object(member(doc, "device", "document"), "document.device");
        const std::string created_at = text(doc, "created_at", "document", 64);
        text(doc, "command", "document", 4096);
        element sid;
        if (doc.at_key("submission_id").get(sid) == simdjson::SUCCESS) {
            std::string_view s;
            require(sid.get(s) == simdjson::SUCCESS && valid_submission_id(std::string(s)), "document.submission_id",
                    "must be 1..128 characters of [A-Za-z0-9._-]");
            out.submission_id = std::string(s);
        }

        GpuIdentity &g = out.gpu;
        g.name = text(device, "name", "device", 256);
        require(!g.name.empty(), "device.name", "must not be empty");
        g.compute_capability = text(device, "compute_capability", "device", 8);
        require(valid_cc(g.compute_capability), "device.compute_capability", "must look like \"9.0\"");
        const double mem = number(device, "global_memory_bytes", "device");
        if (mem < 1 || mem > 1e15) reject("implausible", "device.global_memory_bytes: must be 1..1e15");
        g.memory_bytes = static_cast<std::uint64_t>(mem);
        const double bus = number(device, "memory_bus_width_bits", "device");
        if (bus < 0 || bus > 65536 || bus != std::floor(bus)) reject("implausible", "device.memory_bus_width_bits: must be an integer 0..65536");
        g.bus_width_bits = static_cast<int>(bus);
        g.driver_version = has(device, "driver_version") ? text(device, "driver_version", "device", 256) : "";
        g.runtime_version = has(device, "runtime_version") ? text(device, "runtime_version", "device", 256) : "";
        g.key = gpu_key(g.name, g.compute_capability, g.memory_bytes, g.bus_width_bits);

        if (const std::string problem = name_problem(g.name); !problem.empty())
            reject("invalid_name", "device.name: " + problem);
        const DeviceFacts dev = device_facts(device, g);
        out.facts = dev;

        const array results = as_array(member(doc, "results", "document"), "document.results");
        require(results.size() > 0, "document.results", "must be a non-empty array");
        require(results.size() <= limits.max_results, "document.results", "too many results");
        std::size_t i = 0;
        std::vector<ResultQuantities> quantities;
        bool drops = false;
        for (element r : results) {
            quantities.push_back(read_result(r, "results[" + std::to_string(i++) + "]", dev, out.points));
            drops = drops || quantities.back().drops;
        }
        if (also) also(root);
        out.run_identity = run_identity(g.key, created_at, out.points, summary_rows(results));
        // Stored as received (valid UTF-8 JSON that passed every check above),
        // or, for an older document with figures its quantities do not have,
        // without them.
        if (drops) {
            out.document = rewrite_older_document(body, quantities);
            out.rewritten = true;
        } else {
            out.document = std::move(body);
        }
        out.ok = true;
    } catch (const Reject &r) {
        out.ok = false;
        out.error_code = r.code;
        out.error_message = r.message;
        out.points.clear();
    } catch (const std::exception &e) {
        out.ok = false;
        out.error_code = "invalid_document";
        out.error_message = e.what();
        out.points.clear();
    }
    return out;
}

}  // namespace gmserver
