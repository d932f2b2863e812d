#include "core/device/settings.hpp"

#include <cmath>
#include <cstring>
#include <string>

#include "core/error.hpp"

namespace gmlab {

namespace {

struct SettingSpec {
    gm_setting id;
    const char *name;
    double min, max;
    bool integral;
};

constexpr SettingSpec kSpecs[] = {
    {GM_SETTING_WARMUP, "warmup", 0, 1000, true},
    {GM_SETTING_MIN_REPETITIONS, "min_repetitions", 1, 100000, true},
    {GM_SETTING_MAX_REPETITIONS, "max_repetitions", 1, 100000, true},
    {GM_SETTING_MIN_TIME_MS, "min_time_ms", 0, 600000, false},
    {GM_SETTING_FLUSH_L2, "flush_l2", 0, 1, true},
    {GM_SETTING_MEMORY_FRACTION, "memory_fraction", 0.01, 0.95, false},
    {GM_SETTING_COUNTERS, "counters", 0, 2, true},
};

const SettingSpec *find(gm_setting which) {
    for (const auto &s : kSpecs)
        if (s.id == which) return &s;
    return nullptr;
}

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

}  // namespace

const char *setting_name(gm_setting which) {
    const SettingSpec *s = find(which);
    return s ? s->name : nullptr;
}

bool setting_from_name(const char *name, gm_setting *out) {
    if (!name) return false;
    for (const auto &s : kSpecs) {
        if (std::strcmp(s.name, name) == 0) {
            *out = s.id;
            return true;
        }
    }
    return false;
}

void Settings::set(gm_setting which, double value) {
    const SettingSpec *s = find(which);
    if (!s) invalid("setting must be one of 0..6 (gm_setting), got " + std::to_string(which));
    if (!std::isfinite(value) || value < s->min || value > s->max ||
        (s->integral && value != std::floor(value))) {
        invalid(std::string(s->name) + " must be " + (s->integral ? "an integer " : "") + "in " +
                number(s->min) + ".." + number(s->max) + ", got " + number(value));
    }
    switch (which) {
    case GM_SETTING_WARMUP: warmup = static_cast<int>(value); break;
    case GM_SETTING_MIN_REPETITIONS:
        if (value > max_repetitions)
            invalid("min_repetitions must not exceed max_repetitions (" +
                    std::to_string(max_repetitions) + "), got " + number(value));
        min_repetitions = static_cast<int>(value);
        break;
    case GM_SETTING_MAX_REPETITIONS:
        if (value < min_repetitions)
            invalid("max_repetitions must be at least min_repetitions (" +
                    std::to_string(min_repetitions) + "), got " + number(value));
        max_repetitions = static_cast<int>(value);
        break;
    case GM_SETTING_MIN_TIME_MS: min_time_ms = value; break;
    case GM_SETTING_FLUSH_L2: flush_l2 = value != 0; break;
    case GM_SETTING_MEMORY_FRACTION: memory_fraction = value; break;
    case GM_SETTING_COUNTERS: counters = static_cast<CounterMode>(static_cast<int>(value)); break;
    }
}

double Settings::get(gm_setting which) const {
    switch (which) {
    case GM_SETTING_WARMUP: return warmup;
    case GM_SETTING_MIN_REPETITIONS: return min_repetitions;
    case GM_SETTING_MAX_REPETITIONS: return max_repetitions;
    case GM_SETTING_MIN_TIME_MS: return min_time_ms;
    case GM_SETTING_FLUSH_L2: return flush_l2 ? 1 : 0;
    case GM_SETTING_MEMORY_FRACTION: return memory_fraction;
    case GM_SETTING_COUNTERS: return static_cast<int>(counters);
    }
    invalid("setting must be one of 0..6 (gm_setting), got " + std::to_string(which));
}

nlohmann::json Settings::to_json() const {
    return {{"warmup", warmup},
            {"min_repetitions", min_repetitions},
            {"max_repetitions", max_repetitions},
            {"min_time_ms", min_time_ms},
            {"flush_l2", flush_l2},
            {"memory_fraction", memory_fraction},
            {"counters", counter_mode_name(counters)}};
}

}  // namespace gmlab
