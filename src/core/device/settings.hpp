// Measurement settings of a context, with their bounds in one table.
#pragma once

#include <nlohmann/json.hpp>

#include "core/counters/counters.hpp"
#include "gmlab.h"

namespace gmlab {

// The defaults keep the standard suite under a minute: a median of 5 launches
// of a millisecond kernel, or of 10 ms worth of a short one (100 at most),
// agrees within 2% with the median of a run ten times as long
// (bench/suite_time.py measures it).
struct Settings {
    int warmup = 2;
    int min_repetitions = 5;
    int max_repetitions = 100;
    double min_time_ms = 10.0;
    bool flush_l2 = true;
    double memory_fraction = 0.5;
    CounterMode counters = CounterMode::Auto;  // hardware counters per point

    // Validates and stores one setting (throws Error naming the allowed range).
    void set(gm_setting which, double value);
    double get(gm_setting which) const;
    nlohmann::json to_json() const;
};

const char *setting_name(gm_setting which);  // nullptr when unknown
bool setting_from_name(const char *name, gm_setting *out);

}  // namespace gmlab
