#include "core/experiment/result.hpp"

#include <ctime>

#include "core/error.hpp"
#include "core/measurement/harness.hpp"
#include "vocabulary/point_fields.hpp"

namespace gmlab {

using nlohmann::json;

void Result::verified(std::uint64_t n, const std::string &method, double max_abs_error) {
    verification.passed = true;
    verification.elements_checked += n;
    if (verification.method.empty()) verification.method = method;
    if (max_abs_error > verification.max_abs_error) verification.max_abs_error = max_abs_error;
}

void Result::not_applicable(const std::string &why) {
    applicable = false;
    series.clear();
    verification.passed = true;  // nothing ran, so nothing failed
    verification.method = "not applicable: nothing was measured";
    verification.elements_checked = 0;
    notes.push_back(why);
}

bool is_result_schema(const std::string &schema) {
    return schema == "gmlab.result/1" || schema == "gmlab.result/1.1" || schema == "gmlab.result/1.2" ||
           schema == kResultSchema;
}
bool is_run_schema(const std::string &schema) {
    return schema == "gmlab.run/1" || schema == "gmlab.run/1.1" || schema == "gmlab.run/1.2" || schema == kRunSchema;
}

json library_json() {
    return {{"name", "gmlab"}, {"version", GM_VERSION_STRING}, {"abi", GM_ABI_VERSION}};
}

namespace {

// A bandwidth only where bytes move through what the quantity names; the
// fractions only against that path's own theoretical figure (DRAM and
// cudaMemcpy for DRAM, the link for a link), never for L1/L2 or non-bandwidths.
json point_json(const Point &p, Quantity q, const Result &r, SampleForm form) {
    json j = {{"x", p.x}, {"time_ms", to_json(p.time_ms, form)}};
    if (is_bandwidth(q) && p.bytes > 0) {
        const double bw = bandwidth_gbs(p.bytes, p.time_ms.median);
        j["bytes"] = p.bytes;
        j["bandwidth_gbs"] = bw;
        // The spread of the repetitions, as bandwidths: slowest and fastest launch.
        j["bandwidth_gbs_min"] = bandwidth_gbs(p.bytes, p.time_ms.max);
        j["bandwidth_gbs_max"] = bandwidth_gbs(p.bytes, p.time_ms.min);
        if (q == Quantity::DramBandwidth) {
            if (r.dram_theoretical_gbs > 0) j["fraction_of_theoretical"] = bw / r.dram_theoretical_gbs;
            if (r.memcpy_gbs > 0) j["fraction_of_memcpy"] = bw / r.memcpy_gbs;
        } else if (q == Quantity::LinkBandwidth && r.link_theoretical_gbs > 0) {
            j["fraction_of_theoretical"] = bw / r.link_theoretical_gbs;
        }
    }
    j["values"] = p.values;
    j["predicted"] = p.predicted;
    if (!p.counters.empty()) j["counters"] = p.counters;
    return j;
}

json quantity_json(const Series &s) {
    const std::string unit = is_bandwidth(s.quantity) ? "GB/s" : !s.quantity_unit.empty() ? s.quantity_unit : s.y_unit;
    return {{"name", quantity_name(s.quantity)}, {"label", quantity_label(s.quantity)}, {"unit", unit}};
}

// Per declared figure: how many points were compared and how many agreed.
json series_agreement(const Series &s, std::size_t *compared, std::size_t *agreed) {
    json a = json::object();
    for (const auto &p : s.points) {
        for (const auto &c : p.counter_checks) {
            json &e = a[c.counter];
            if (e.is_null()) e = {{"prediction", c.predicted}, {"tolerance", c.tolerance}, {"points", 0}, {"agreeing", 0}};
            e["points"] = e["points"].get<int>() + 1;
            if (c.agrees) e["agreeing"] = e["agreeing"].get<int>() + 1;
            ++*compared;
            if (c.agrees) ++*agreed;
        }
    }
    for (auto &[name, e] : a.items()) e["share"] = e["agreeing"].get<double>() / e["points"].get<double>();
    return a;
}

json counters_json(const Result &r) {
    json c = {{"mode", r.counters_mode}, {"available", r.counters_available}};
    if (!r.counters_available) c["reason"] = r.counters_reason;
    if (!r.counters_chip.empty()) c["chip"] = r.counters_chip;
    if (r.counters_available) {
        c["passes"] = r.counter_passes;
        c["seconds"] = r.counter_seconds;
        c["launch_seconds"] = r.counter_launch_seconds;
        // auto: the points left uncounted to keep counting within its share of the time.
        c["points_skipped"] = r.counter_points_skipped;
    }
    if (!r.counter_errors.empty()) c["errors"] = r.counter_errors;
    return c;
}

}  // namespace

json to_json(const Result &r, SampleForm form) {
    json series = json::array();
    std::size_t compared = 0, agreed = 0;
    for (const auto &s : r.series) {
        // A series that does not say what it measures would get figures it
        // has no right to: an error in the experiment, not in the user's input.
        if (s.quantity == Quantity::Undeclared)
            fail(GM_ERROR_INTERNAL, r.experiment + ": series '" + s.name + "' declares no quantity");
        json points = json::array();
        for (const auto &p : s.points) points.push_back(point_json(p, s.quantity, r, form));
        json one = {{"name", s.name},
                    {"variant", s.variant},
                    {"x", {{"name", s.x_name}, {"unit", s.x_unit}}},
                    {"y", {{"field", s.y_field}, {"name", s.y_name}, {"unit", s.y_unit}}},
                    {"quantity", quantity_json(s)},
                    {"attributes", s.attributes},
                    {"points", points}};
        json agreement = series_agreement(s, &compared, &agreed);
        if (!agreement.empty()) one["agreement"] = agreement;
        series.push_back(std::move(one));
    }
    std::map<std::string, double> summary = r.summary_values;
    // The share of (point, figure) pairs where the counter equals the model.
    if (compared > 0) summary["model_agreement"] = static_cast<double>(agreed) / static_cast<double>(compared);
    json doc = {
        {"schema", kResultSchema},
        {"library", library_json()},
        {"experiment", {{"name", r.experiment}, {"guide_section", r.guide_section}, {"summary", r.summary}}},
        {"device", r.device},
        {"settings", r.settings},
        {"parameters", r.parameters},
        {"reference", {{"theoretical_bandwidth_gbs", r.theoretical_gbs}, {"memcpy_d2d_gbs", r.memcpy_gbs}}},
        {"series", series},
        {"summary", summary},
        {"counters", counters_json(r)},
        {"verification",
         {{"passed", r.verification.passed},
          {"method", r.verification.method},
          {"elements_checked", r.verification.elements_checked},
          {"max_abs_error", r.verification.max_abs_error}}},
        {"memory", {{"device_bytes_allocated", r.device_bytes_allocated}, {"budget_bytes", r.memory_budget_bytes}}},
        {"notes", r.notes},
        {"started_at", r.started_at},
        {"finished_at", r.finished_at},
    };
    if (!r.applicable) doc["applicable"] = false;
    if (!r.published.empty()) doc["published"] = {{"source", r.published_source}, {"figures", r.published}};
    if (r.gpu_state.is_object()) doc["gpu_state"] = r.gpu_state;
    return doc;
}

void set_sample_form_of_document(json &doc, SampleForm form) {
    if (!doc.is_object()) return;
    auto one = [form](json &result) {
        if (!result.is_object() || !result.contains("series") || !result["series"].is_array()) return;
        for (json &s : result["series"]) {
            if (!s.is_object() || !s.contains("points") || !s["points"].is_array()) continue;
            for (json &p : s["points"])
                if (p.is_object() && p.contains("time_ms")) set_sample_form(p["time_ms"], form);
        }
    };
    if (doc.contains("results") && doc["results"].is_array()) {
        for (json &r : doc["results"]) one(r);
    } else {
        one(doc);
    }
}

const char *schema_to_write(const json &doc) {
    if (doc.contains("series") && doc["series"].is_array())
        for (const json &s : doc["series"])
            if (!s.is_object() || !s.contains("quantity")) return "gmlab.result/1.2";
    return kResultSchema;
}

void check_result_document(const json &doc) {
    auto need = [](bool ok, const std::string &what) {
        if (!ok) invalid("not a gmlab.result/1 document: " + what);
    };
    need(doc.is_object(), "the top level must be an object");
    need(doc.contains("schema") && doc["schema"].is_string() && is_result_schema(doc["schema"].get<std::string>()),
         "\"schema\" must be \"gmlab.result/1\", \"gmlab.result/1.1\", \"gmlab.result/1.2\" or \"" + std::string(kResultSchema) + "\"");
    need(doc.contains("experiment") && doc["experiment"].is_object() &&
             doc["experiment"].contains("name") && doc["experiment"]["name"].is_string(),
         "\"experiment.name\" must be a string");
    need(doc.contains("series") && doc["series"].is_array(), "\"series\" must be an array");
    for (std::size_t s = 0; s < doc["series"].size(); ++s) {
        const json &se = doc["series"][s];
        const std::string at = "series[" + std::to_string(s) + "]";
        need(se.is_object() && se.contains("name") && se["name"].is_string(), at + ".name must be a string");
        need(se.contains("points") && se["points"].is_array(), at + ".points must be an array");
        for (std::size_t p = 0; p < se["points"].size(); ++p) {
            const json &pt = se["points"][p];
            const std::string pat = at + ".points[" + std::to_string(p) + "]";
            need(pt.is_object() && pt.contains("x") && pt["x"].is_number(), pat + ".x must be a number");
            need(pt.contains("time_ms") && pt["time_ms"].is_object(), pat + ".time_ms must be an object");
            const json &tm = pt["time_ms"];
            for (const char *k : {"median", "min", "max", "mean", "stddev", "n"})
                need(tm.contains(k) && tm[k].is_number(), pat + ".time_ms." + k + " must be a number");
            // Compact documents carry the deciles, full ones the samples too.
            if (tm.contains("quantiles")) {
                bool ok = tm["quantiles"].is_array() && tm["quantiles"].size() == kQuantiles;
                if (ok)
                    for (const json &v : tm["quantiles"]) ok = ok && v.is_number();
                need(ok, pat + ".time_ms.quantiles must be an array of " + std::to_string(kQuantiles) + " numbers");
            }
            if (tm.contains("samples")) {
                bool ok = tm["samples"].is_array();
                if (ok)
                    for (const json &v : tm["samples"]) ok = ok && v.is_number();
                need(ok, pat + ".time_ms.samples must be an array of numbers");
            }
        }
    }
    if (doc.contains("summary")) need(doc["summary"].is_object(), "\"summary\" must be an object");
    if (doc.contains("counters"))
        need(doc["counters"].is_object() && doc["counters"].contains("available") && doc["counters"]["available"].is_boolean(),
             "\"counters\" must be an object with a boolean \"available\"");
}

double point_value(const json &doc, std::size_t series, std::size_t point, const std::string &field) {
    const json &all = doc.at("series");
    if (series >= all.size())
        invalid("series must be in 0.." + std::to_string(static_cast<long long>(all.size()) - 1) +
                ", got " + std::to_string(series));
    const json &points = all[series].at("points");
    if (point >= points.size())
        invalid("point must be in 0.." + std::to_string(static_cast<long long>(points.size()) - 1) +
                ", got " + std::to_string(point));
    const json &p = points[point];
    if (const auto v = gmvocab::point_field(p, field)) return *v;
    // A decile of a full /1 document that kept its samples but no quantiles.
    if (gmvocab::decile_of_field(field)) {
        const Stats st = stats_from_json(p.at("time_ms"));
        if (st.has_quantiles) return st.quantiles[*gmvocab::decile_of_field(field)];
        invalid("field '" + field + "': this point has neither time_ms.quantiles nor time_ms.samples");
    }
    // Name what this point does have, so that the caller can correct the call.
    std::string known = gmvocab::kPointStatisticFields;
    for (auto it = p.begin(); it != p.end(); ++it)
        if (it.value().is_number()) known += ", " + it.key();
    if (p.contains("values"))
        for (auto it = p["values"].begin(); it != p["values"].end(); ++it) known += ", " + it.key();
    if (p.contains("predicted"))
        for (auto it = p["predicted"].begin(); it != p["predicted"].end(); ++it) known += ", predicted." + it.key();
    if (p.contains("counters") && p["counters"].is_object())
        for (auto it = p["counters"].begin(); it != p["counters"].end(); ++it) known += ", counters." + it.key();
    invalid("field '" + field + "' is not in this point; it has: " + known);
}

std::string utc_now() {
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

}  // namespace gmlab
