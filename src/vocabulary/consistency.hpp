// One quantity measured by several experiments: the quantities the report's
// consistency section compares, and the declaration by which an experiment
// says that one of its figures measures one of them (Experiment::consistency,
// published in its description's "consistency"). The report builds the
// section from the declarations (tools/report/consistency.cpp only judges);
// a new figure joins a quantity by a declaration beside the experiment's
// other figures. Header-only, no CUDA, nothing else of the tree.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gmvocab {

// How a quantity's figures are judged. Spread: point figures, flagged where
// the largest and smallest of those expected to agree differ by more than the
// tolerance of their median. Bracket: a capacity a sweep finds lies between
// the last size that still fitted and the first that did not; the brackets
// (each widened by the tolerance) must overlap.
enum class ConsistencyRule { Spread, Bracket };

struct SharedQuantity {
    const char *name, *label, *unit;
    ConsistencyRule rule;
    double tolerance;
};

// The quantities, in the section's order.
inline constexpr SharedQuantity kSharedQuantities[] = {
    {"l2_hit_latency", "L2 hit latency (near partition)", "cycles", ConsistencyRule::Spread, 0.05},
    {"l2_far_hit_latency", "L2 hit latency (far partition)", "cycles", ConsistencyRule::Spread, 0.05},
    {"l1_hit_latency", "L1 hit latency", "cycles", ConsistencyRule::Spread, 0.05},
    {"dram_latency", "DRAM latency", "cycles", ConsistencyRule::Spread, 0.05},
    {"shared_latency", "Shared-memory latency", "cycles", ConsistencyRule::Spread, 0.05},
    {"dram_copy_bandwidth", "DRAM copy bandwidth", "GB/s", ConsistencyRule::Spread, 0.03},
    {"pinned_h2d_bandwidth", "Pinned host-to-device bandwidth (one 64 MiB copy)", "GB/s", ConsistencyRule::Spread, 0.03},
    {"l1_capacity", "L1 capacity (carveout 0 %: the largest L1)", "bytes", ConsistencyRule::Bracket, 0.05},
    {"l2_capacity", "L2 capacity", "bytes", ConsistencyRule::Bracket, 0.05},
};

// A figure of an experiment that measures a shared quantity.
struct ConsistencyFigure {
    std::string quantity;  // a kSharedQuantities name
    // Where the figure is: a summary key of the experiment's result, a
    // series' point as "<series name>@<x>" (its bandwidth), or, with
    // from_device, a field of the run's device block.
    std::string key;
    std::string high_key;  // Bracket: the first size past the capacity ("" for a point)
    bool agrees = true;    // false: shown beside the others, with `reason`
    bool from_device = false;
    std::string what;      // what the figure is, in a few words
    std::string reason;    // shown: why it measures something else
};

// A figure expected to agree with the others of its quantity.
inline ConsistencyFigure agrees_on(std::string quantity, std::string key, std::string what, std::string high_key = "") {
    ConsistencyFigure f;
    f.quantity = std::move(quantity);
    f.key = std::move(key);
    f.what = std::move(what);
    f.high_key = std::move(high_key);
    return f;
}

// A figure shown beside them: it measures something else, and says what.
inline ConsistencyFigure shown_beside(std::string quantity, std::string key, std::string what, std::string reason) {
    ConsistencyFigure f = agrees_on(std::move(quantity), std::move(key), std::move(what));
    f.agrees = false;
    f.reason = std::move(reason);
    return f;
}

inline nlohmann::json consistency_to_json(const ConsistencyFigure &f) {
    nlohmann::json j = {{"quantity", f.quantity}, {"key", f.key}, {"role", f.agrees ? "agree" : "shown"}, {"what", f.what}};
    if (!f.high_key.empty()) j["high_key"] = f.high_key;
    if (f.from_device) j["from"] = "device";
    if (!f.agrees) j["reason"] = f.reason;
    return j;
}

inline ConsistencyFigure consistency_from_json(const nlohmann::json &j) {
    ConsistencyFigure f;
    f.quantity = j.value("quantity", "");
    f.key = j.value("key", "");
    f.high_key = j.value("high_key", "");
    f.agrees = j.value("role", "agree") != "shown";
    f.from_device = j.value("from", "") == "device";
    f.what = j.value("what", "");
    f.reason = j.value("reason", "");
    return f;
}

}  // namespace gmvocab
