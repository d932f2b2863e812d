#include "crowd/key_figures.hpp"

#include "crowd/gpu_state_health.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <simdjson.h>

namespace gmserver {
namespace {

using nlohmann::json;

struct Catalogued {
    const char *experiment, *id, *label, *unit;
};

// The library's own summary values (src/experiments/<family>/ computes them), the
// ones the guide's statements are about. Ratios first where the guide states
// an effect; absolute figures where the model's speed itself is the point.
const Catalogued kCatalogue[] = {
    {"stream", "copy_gbs", "stream copy", "GB/s"},
    {"stream", "triad_gbs", "stream triad", "GB/s"},
    {"stream", "cudaMemcpy_gbs", "cudaMemcpy device to device", "GB/s"},
    {"stream", "copy_fraction_of_theoretical", "copy / theoretical bandwidth", "ratio"},
    {"offset_copy", "guide_w4_offset1_over_offset0", "offset 1 / offset 0 (guide kernel)", "ratio"},
    {"offset_copy", "ilp4_w4_offset1_over_offset0", "offset 1 / offset 0 (4 words per thread)", "ratio"},
    {"stride_copy", "guide_w4_stride2_over_stride1", "stride 2 / stride 1, 4-byte words", "ratio"},
    {"stride_copy", "guide_w4_stride32_over_stride1", "stride 32 / stride 1, 4-byte words", "ratio"},
    {"stride_copy", "guide_w16_stride2_over_stride1", "stride 2 / stride 1, 16-byte words", "ratio"},
    {"l2_persist", "hit_ratio_1_speedup_fitting", "window (hit ratio 1) speed-up, region fits the set-aside", "ratio"},
    {"l2_persist", "hit_ratio_1_speedup_largest", "window (hit ratio 1) speed-up, largest region", "ratio"},
    {"l2_persist", "tuned_speedup_fitting", "tuned window speed-up, region fits", "ratio"},
    {"l2_persist", "tuned_speedup_largest", "tuned window speed-up, largest region", "ratio"},
    {"bank_conflicts", "read_w4_stride2_over_stride1", "stride 2 / stride 1 (2-way conflict)", "ratio"},
    {"bank_conflicts", "read_w4_stride32_over_stride1", "stride 32 / stride 1 (32-way conflict)", "ratio"},
    {"bank_conflicts", "read_w4_stride0_over_stride1", "broadcast / stride 1", "ratio"},
    {"matmul_ab", "coalesced_a_over_simple", "coalesced A / simple", "ratio"},
    {"matmul_ab", "shared_ab_over_simple", "shared A and B / simple", "ratio"},
    {"matmul_aat", "coalesced_over_simple", "coalesced / simple", "ratio"},
    {"matmul_aat", "padded_over_coalesced", "padded / coalesced (bank conflicts removed)", "ratio"},
    {"transpose", "padded_over_shared_w4", "padded / shared, 4-byte elements", "ratio"},
    {"transpose", "shared_padded_w4_over_copy", "padded shared / copy, 4-byte elements", "ratio"},
    {"transpose", "naive_w4_over_copy", "naive / copy, 4-byte elements", "ratio"},
    {"shared_alloc", "dynamic_time_over_static", "dynamic / static time", "ratio"},
    {"async_copy", "w4_count48_async_over_sync_cycles", "async / sync cycles, 4-byte elements, 48 copies", "ratio"},
    {"async_copy", "w16_count48_async_over_sync_cycles", "async / sync cycles, 16-byte elements, 48 copies", "ratio"},
    {"tma_copy", "tma_gbs", "TMA copy, best bulk / tile size and stages", "GB/s"},
    {"tma_copy", "tma_over_stream_copy", "TMA copy / stream copy kernel, same bytes", "ratio"},
    {"tma_copy", "tma_over_memcpy", "TMA copy / cudaMemcpy, same bytes", "ratio"},
    {"tma_copy", "tma_over_cp_async_inst", "TMA / cp.async instructions per byte", "ratio"},
    {"cluster_shared", "remote_ns", "distributed shared memory latency", "ns"},
    {"cluster_shared", "remote_over_local", "distributed / local shared memory latency", "ratio"},
    {"cluster_shared", "dsm_over_global_best", "exchange: distributed shared / global memory", "ratio"},
    {"cluster_shared", "max_active_clusters_c8", "clusters of 8 held at once", "count"},
    {"constant_broadcast", "k32_over_k1", "32 addresses / 1 address", "ratio"},
    {"constant_broadcast", "fit_ns_per_address", "cost per distinct address", "ns"},
    {"stencil", "constant_time_over_ldg", "__constant__ time / __ldg time", "ratio"},
    {"stencil", "constant_over_copy", "__constant__ stencil / copy", "ratio"},
    {"texture", "texture_over_global_time", "texture time / global time", "ratio"},
    {"transfer", "pinned_h2d_peak_gbs", "pinned host to device, peak", "GB/s"},
    {"transfer", "pinned_d2h_peak_gbs", "pinned device to host, peak", "GB/s"},
    {"transfer", "pinned_over_pageable_h2d", "pinned / pageable, host to device", "ratio"},
    {"transfer_batching", "h2d_overhead_us", "fixed cost per host to device copy", "us"},
    {"transfer_batching", "h2d_penalty_1024x4096", "1024 copies of 4 KiB / one copy", "ratio"},
    {"zero_copy", "explicit_over_mapped_coalesced", "explicit copies / mapped, coalesced", "ratio"},
    {"copy_overlap", "speedup_4_streams", "speed-up over serial, 4 streams", "ratio"},
    {"latency", "l1_ns", "L1 latency", "ns"},
    {"latency", "l2_near_ns", "L2 latency", "ns"},
    {"latency", "dram_ns", "DRAM latency", "ns"},
    {"memory_spaces", "shared_ns", "shared memory latency", "ns"},
    {"memory_spaces", "l2_ns", "L2 latency", "ns"},
    {"memory_spaces", "dram_ns", "DRAM latency", "ns"},
    {"local_memory", "uniform_time_over_registers", "local (uniform index) / registers time", "ratio"},
    {"local_memory", "divergent_time_over_registers", "local (per-lane index) / registers time", "ratio"},
    {"register_pressure", "cap32_time_over_best", "32-register cap / best time", "ratio"},
    {"alignment", "misaligned8_o1_over_aligned", "8-byte loads 1 byte off / aligned", "ratio"},
    {"alignment", "aligned_over_packed_r12", "aligned / packed, 12-byte records", "ratio"},
    {"pitch_2d", "pitched_over_packed_w1025", "pitched / packed rows, width 1025", "ratio"},
    {"managed_memory", "on_demand_read_gbs", "on-demand read of host-resident managed memory, 16 MiB", "GB/s"},
    {"managed_memory", "on_demand_over_prefetch_time", "on demand / prefetch then read, time", "ratio"},
    {"managed_memory", "fit_us_per_fault_group", "cost of a GPU page-fault group (fit)", "us"},
    {"managed_memory", "fit_link_gbs", "migration bandwidth (fit)", "GB/s"},
    {"managed_memory", "pingpong_us_64KiB", "host/device ping-pong round trip, 64 KiB", "us"},
    {"allocation", "malloc_us_largest", "cudaMalloc + cudaFree, 1 GiB", "us"},
    {"allocation", "pool_threshold_us", "pooled cudaMallocAsync + cudaFreeAsync, any size", "us"},
    {"allocation", "malloc_over_pool_threshold_largest", "cudaMalloc / pooled allocation, 1 GiB", "ratio"},
    {"allocation", "malloc_host_ms_per_gib", "cudaMallocHost per GiB", "ms"},
    {"allocation", "host_register_ms_per_gib", "cudaHostRegister per GiB", "ms"},
    {"compressible", "zeros_read_compressible_over_plain", "compressible / plain memory, reading zeros", "ratio"},
    {"compressible", "random_read_compressible_over_plain", "compressible / plain memory, reading random data", "ratio"},
    {"compressible", "zeros_read_dram_bytes_compressible_over_plain", "DRAM bytes read, compressible / plain, zeros", "ratio"},
    {"l2_partitions", "near_ns", "L2 hit latency, near partition", "ns"},
    {"l2_partitions", "far_ns", "L2 hit latency, far partition", "ns"},
    {"l2_partitions", "far_over_near", "far / near L2 hit latency", "ratio"},
    {"l2_partitions", "far_share_median", "share of lines far from an SM (model 0.5)", "ratio"},
    {"cache_hints", "evict_first_last_speedup", "evict_first stream + evict_last reused set / default loads", "ratio"},
    {"cache_hints", "stream_cs_speedup", "streaming (__ldcs) stream / default loads", "ratio"},
    {"cache_hints", "window_persisting_speedup", "persisting window on the reused set / default loads", "ratio"},
    {"cache_hints", "granularity_32_s256_dram_bytes_per_read", "DRAM bytes per 4-byte read, stride 256, fetch limit 32", "bytes"},
    {"carveout", "carveout0_fits_bytes", "largest working set still in L1, carveout 0%", "bytes"},
    {"carveout", "carveout100_fits_bytes", "largest working set still in L1, carveout 100%", "bytes"},
};

const json *summary_of(const json &result) {
    for (const char *k : {"summary", "summary_values"})
        if (result.contains(k) && result[k].is_object()) return &result[k];
    return nullptr;
}

double number_or_nan(const json *obj, const char *key) {
    if (!obj || !obj->contains(key) || !(*obj)[key].is_number()) return NAN;
    return (*obj)[key].get<double>();
}

double median_of(std::vector<double> v) {
    if (v.empty()) return NAN;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// A simdjson value as nlohmann::json (for the small objects judged_parts keeps).
json to_json(simdjson::dom::element e) {
    switch (e.type()) {
        case simdjson::dom::element_type::OBJECT: {
            json o = json::object();
            for (auto field : simdjson::dom::object(e)) o[std::string(field.key)] = to_json(field.value);
            return o;
        }
        case simdjson::dom::element_type::ARRAY: {
            json a = json::array();
            for (simdjson::dom::element v : simdjson::dom::array(e)) a.push_back(to_json(v));
            return a;
        }
        case simdjson::dom::element_type::STRING: return std::string(std::string_view(e));
        case simdjson::dom::element_type::INT64: return int64_t(e);
        case simdjson::dom::element_type::UINT64: return uint64_t(e);
        case simdjson::dom::element_type::DOUBLE: return double(e);
        case simdjson::dom::element_type::BOOL: return bool(e);
        default: return nullptr;
    }
}

}  // namespace

json judged_parts(std::string_view document) {
    thread_local simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (parser.parse(document.data(), document.size()).get(root) != simdjson::SUCCESS) return nullptr;
    return judged_parts(root);
}

namespace {
// The spread of a point's middle 80 % of repetitions relative to its median:
// from the deciles where the document is compact, the samples otherwise. NaN
// when the point has neither.
double repetition_spread(simdjson::dom::object t) {
    double med = 0;
    if (t.at_key("median").get(med) != simdjson::SUCCESS || !(med > 0)) return NAN;
    simdjson::dom::array q;
    double q10 = 0, q90 = 0;
    if (t.at_key("quantiles").get(q) == simdjson::SUCCESS && q.size() == 9 && q.at(0).get(q10) == simdjson::SUCCESS &&
        q.at(8).get(q90) == simdjson::SUCCESS)
        return (q90 - q10) / med;
    simdjson::dom::array samples;
    if (t.at_key("samples").get(samples) != simdjson::SUCCESS) return NAN;
    std::vector<double> v;
    for (simdjson::dom::element x : samples) {
        double d = 0;
        if (x.get(d) == simdjson::SUCCESS) v.push_back(d);
    }
    if (v.size() < 10) return NAN;
    std::sort(v.begin(), v.end());
    return (v[v.size() * 9 / 10] - v[v.size() / 10]) / med;
}
}  // namespace

json judged_parts(const simdjson::dom::element &root) {
    simdjson::dom::object doc;
    if (root.get(doc) != simdjson::SUCCESS) return nullptr;
    json out = json::object();
    // Each point's repetition times condensed to the one number
    // health_problems reads: no copy of every point's deciles.
    json &spreads = out["point_spreads"] = json::array();
    simdjson::dom::element device, results;
    if (doc.at_key("device").get(device) == simdjson::SUCCESS) out["device"] = to_json(device);
    if (doc.at_key("results").get(results) != simdjson::SUCCESS || !results.is_array()) return out;
    json &rs = out["results"] = json::array();
    json &gpu_warnings = out["gpu_state_warnings"] = json::array();
    for (simdjson::dom::element r : simdjson::dom::array(results)) {
        if (!r.is_object()) continue;
        for (json &w : gpu_state_warnings(r)) gpu_warnings.push_back(std::move(w));
        json one = json::object();
        simdjson::dom::element name, summary;
        simdjson::dom::array series;
        if (r.at_key("experiment").at_key("name").get(name) == simdjson::SUCCESS) one["experiment"] = {{"name", to_json(name)}};
        for (const char *k : {"summary", "summary_values"})
            if (r.at_key(k).get(summary) == simdjson::SUCCESS) one[k] = to_json(summary);
        if (r.at_key("series").get(series) == simdjson::SUCCESS)
            for (simdjson::dom::element s : series) {
                simdjson::dom::array points;
                if (s.at_key("points").get(points) != simdjson::SUCCESS) continue;
                for (simdjson::dom::element p : points) {
                    simdjson::dom::object t;
                    if (p.at_key("time_ms").get(t) != simdjson::SUCCESS) continue;
                    const double spread = repetition_spread(t);
                    if (std::isfinite(spread)) spreads.push_back(spread);
                }
            }
        rs.push_back(std::move(one));
    }
    return out;
}

const std::vector<std::string> &catalogued_experiments() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (const Catalogued &c : kCatalogue)
            if (std::find(out.begin(), out.end(), c.experiment) == out.end()) out.push_back(c.experiment);
        return out;
    }();
    return names;
}

std::vector<FigureSpec> figure_specs(const std::string &experiment) {
    std::vector<FigureSpec> out;
    for (const Catalogued &c : kCatalogue) {
        if (experiment != c.experiment) continue;
        out.push_back({c.id, c.label, c.unit, ""});
        if (std::string(c.unit) == "GB/s") {
            out.push_back({std::string(c.id) + "/theoretical", std::string(c.label) + " / theoretical bandwidth", "ratio", "theoretical"});
            out.push_back({std::string(c.id) + "/copy", std::string(c.label) + " / stream copy", "ratio", "copy"});
        }
    }
    return out;
}

std::vector<FigureValue> upload_figures(const json &doc) {
    std::vector<FigureValue> out;
    if (!doc.is_object() || !doc.contains("results") || !doc["results"].is_array()) return out;
    const json *device = doc.contains("device") && doc["device"].is_object() ? &doc["device"] : nullptr;
    const double theoretical = number_or_nan(device, "theoretical_bandwidth_gbs");
    double copy = NAN;
    for (const json &r : doc["results"])
        if (r.is_object() && r.contains("experiment") && r["experiment"].value("name", "") == "stream") copy = number_or_nan(summary_of(r), "copy_gbs");
    for (const json &r : doc["results"]) {
        if (!r.is_object() || !r.contains("experiment") || !r["experiment"].is_object()) continue;
        const std::string exp = r["experiment"].value("name", "");
        const json *summary = summary_of(r);
        for (const FigureSpec &f : figure_specs(exp)) {
            if (!f.basis.empty()) continue;
            const double v = number_or_nan(summary, f.id.c_str());
            if (!std::isfinite(v)) continue;
            out.push_back({exp, f.id, v});
            if (f.unit != "GB/s") continue;
            if (std::isfinite(theoretical) && theoretical > 0) out.push_back({exp, f.id + "/theoretical", v / theoretical});
            if (std::isfinite(copy) && copy > 0) out.push_back({exp, f.id + "/copy", v / copy});
        }
    }
    return out;
}

std::vector<PointRow> figure_rows(const std::string &run_id, const std::vector<FigureValue> &figures) {
    std::vector<PointRow> rows;
    rows.reserve(figures.size());
    for (const FigureValue &f : figures) rows.push_back({run_id, kFiguresSet, f.experiment + "/" + f.figure, "figure", 0, f.value});
    return rows;
}

bool split_figure_series(const std::string &series, std::string *experiment, std::string *figure) {
    // Experiment names have no '/'; figure ids may ("<id>/theoretical").
    const std::size_t slash = series.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == series.size()) return false;
    *experiment = series.substr(0, slash);
    *figure = series.substr(slash + 1);
    return true;
}

std::vector<std::string> health_problems(const json &doc) {
    std::vector<std::string> problems;
    if (!doc.is_object()) return problems;
    // A whole document is condensed first: the spread rule lives in judged_parts.
    if (!doc.contains("point_spreads")) {
        const json parts = judged_parts(doc.dump());
        return parts.is_object() && parts.contains("point_spreads") ? health_problems(parts) : problems;
    }
    const json *device = doc.contains("device") && doc["device"].is_object() ? &doc["device"] : nullptr;
    const double max_clock = number_or_nan(device, "sm_clock_mhz");
    // The pointer-chasing experiments measure the SM clock they ran at.
    std::vector<double> clocks, spreads;
    if (doc.contains("results") && doc["results"].is_array())
        for (const json &r : doc["results"]) {
            const double measured = r.is_object() ? number_or_nan(summary_of(r), "sm_clock_mhz_measured") : NAN;
            if (std::isfinite(measured)) clocks.push_back(measured);
        }
    for (const json &x : doc["point_spreads"])
        if (x.is_number()) spreads.push_back(x.get<double>());
    const double clock = median_of(clocks);
    if (std::isfinite(clock) && std::isfinite(max_clock) && max_clock > 0 && clock < kThrottledClockShare * max_clock) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "throttled: the SM clock was measured at %.0f MHz, %.0f %% of the device's maximum %.0f MHz", clock,
                      100 * clock / max_clock, max_clock);
        problems.push_back(buf);
    }
    if (const std::string degraded = gpu_state_problem(doc.value("gpu_state_warnings", json::array())); !degraded.empty())
        problems.push_back(degraded);
    const double spread = median_of(spreads);
    if (std::isfinite(spread) && spread > kUnstableSpread) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "unstable: the middle 80 %% of repetitions spread over %.0f %% of the median (typical point)", 100 * spread);
        problems.push_back(buf);
    }
    return problems;
}

}  // namespace gmserver
