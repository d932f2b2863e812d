// gmlab info --measure: the latency and memory_spaces experiments with their
// defaults, shown as one compact table beside what the device reports.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "commands.hpp"
#include "gmlab.h"
#include "table.hpp"

namespace gmcli {

using gmreport::bytes_text;
using gmreport::fixed;
using gmreport::Table;

using nlohmann::json;

namespace {

// Runs one experiment with its defaults and returns its summary, or prints why not.
bool summary_of(gm_context *ctx, const char *experiment, json *out) {
    if (isatty(STDERR_FILENO)) std::cerr << "measuring " << experiment << " ...\n";
    gm_result *r = nullptr;
    if (gm_status s = gm_run(&r, ctx, experiment, "{}"); s != GM_OK) {
        std::cerr << "gmlab: info --measure: " << experiment << ": " << gm_context_last_error(ctx) << " (" << gm_status_string(s) << ")\n";
        return false;
    }
    char *text = nullptr;
    const gm_status s = gm_result_to_json(&text, r);
    gm_result_destroy(r);
    if (s != GM_OK) return false;
    *out = json::parse(text)["summary"];
    gm_free_string(text);
    return true;
}

double get(const json &s, const std::string &key) { return s.contains(key) && s[key].is_number() ? s[key].get<double>() : NAN; }

std::string bytes_or_dash(double v) { return std::isfinite(v) ? bytes_text(v) : "-"; }

}  // namespace

std::string memory_spaces_order(const json &summary) {
    static const char *spaces[] = {"registers", "shared", "constant", "l1", "l2", "dram", "local", "texture"};
    std::vector<std::pair<double, std::string>> ranked;
    for (const char *v : spaces)
        if (std::isfinite(get(summary, std::string(v) + "_cycles"))) ranked.push_back({get(summary, std::string(v) + "_cycles"), v});
    std::sort(ranked.begin(), ranked.end());
    std::string out;
    for (const auto &[y, v] : ranked) out += (out.empty() ? "" : " < ") + v + " " + fixed(y, 0);
    return out;
}

int print_measured(gm_context *ctx, json *device, bool as_json) {
    json lat, spaces;
    if (!summary_of(ctx, "latency", &lat) || !summary_of(ctx, "memory_spaces", &spaces)) return kFailed;
    if (as_json) {
        (*device)["measured"] = {{"latency", lat}, {"memory_spaces", spaces}};
        return kOk;
    }
    std::cout << "\nmeasured latency (one thread chasing pointers; SM clock " << fixed(get(lat, "sm_clock_mhz_measured"), 0)
              << " MHz measured, " << fixed(get(lat, "sm_clock_mhz_reported"), 0) << " MHz reported)\n";
    Table t({"level", "cycles", "ns", "capacity found", "reported", "found / reported"});
    auto row = [&](const std::string &name, const std::string &key, const std::string &bytes_key) {
        if (!std::isfinite(get(lat, key + "_cycles"))) return;
        t.add({name, fixed(get(lat, key + "_cycles"), 0), fixed(get(lat, key + "_ns"), 1),
               bytes_key.empty() ? "-" : bytes_or_dash(get(lat, bytes_key)), "-", "-"});
    };
    row("L1", "l1", "l1_bytes");
    row(std::isfinite(get(lat, "l2_far_cycles")) ? "L2 (near partition)" : "L2", "l2_near",
        std::isfinite(get(lat, "l2_far_cycles")) ? "l2_near_bytes" : "");
    row("L2 (far partition)", "l2_far", "");
    t.add({"L2 capacity", "", "", bytes_or_dash(get(lat, "l2_bytes")), bytes_or_dash(get(lat, "l2_reported_bytes")),
           fixed(get(lat, "l2_detected_over_reported"), 2)});
    row("DRAM (cold)", "dram", "");
    t.print(std::cout);
    std::cout << "\nmemory spaces, fastest first (cycles): " << memory_spaces_order(spaces) << "\n"
              << "the guide's order (registers, shared, constant, then global, local, texture): "
              << (get(spaces, "guide_order_holds") == 1.0 ? "holds" : "departs from it here (gmlab run memory_spaces says where)")
              << "\n";
    return kOk;
}

}  // namespace gmcli
