#include "devices.hpp"

#include <algorithm>
#include <cctype>

namespace gmcli {

namespace {

const char *const kPlaceholder = "{device}";

// A non-negative decimal integer, whole string; false otherwise.
bool parse_ordinal(const std::string &s, int *out) {
    if (s.empty() || s.size() > 6) return false;
    for (unsigned char c : s)
        if (!std::isdigit(c)) return false;
    *out = std::stoi(s);
    return true;
}

std::string range_text(int visible) {
    return visible == 1 ? "device 0" : "devices 0.." + std::to_string(visible - 1);
}

std::string visible_text(int visible, const EnvLookup &env) {
    std::string t = std::to_string(visible) + " visible GPU" + (visible == 1 ? "" : "s");
    if (const char *cvd = env("CUDA_VISIBLE_DEVICES")) t += " (CUDA_VISIBLE_DEVICES=" + std::string(cvd) + ")";
    return t;
}

}  // namespace

DeviceSelection select_devices(const std::string &spec, int visible, const EnvLookup &env) {
    DeviceSelection sel;
    auto fail = [&](const std::string &why, bool missing) {
        sel.ordinals.clear();
        sel.error = why;
        sel.no_such_device = missing;
        return sel;
    };
    if (spec == "all") {
        for (int i = 0; i < visible; ++i) sel.ordinals.push_back(i);
        sel.why = "all " + visible_text(visible, env);
        return sel;
    }
    if (!spec.empty()) {
        std::string item;
        for (std::size_t start = 0;;) {
            const std::size_t comma = spec.find(',', start);
            item = spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            int d = 0;
            if (!parse_ordinal(item, &d))
                return fail("--devices wants all or device ordinals separated by commas (0,2), got '" + spec + "'", false);
            if (std::find(sel.ordinals.begin(), sel.ordinals.end(), d) != sel.ordinals.end())
                return fail("--devices names device " + item + " twice", false);
            sel.ordinals.push_back(d);
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        for (int d : sel.ordinals)
            if (d >= visible)
                return fail("there is no device " + std::to_string(d) + ": this machine has " + range_text(visible) +
                                " (" + visible_text(visible, env) + ")",
                            true);
        return sel;
    }
    // Not given: the launcher's local rank where several devices are visible.
    if (visible > 1) {
        for (const char *var : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"}) {
            const char *value = env(var);
            if (!value) continue;
            int rank = 0;
            if (!parse_ordinal(value, &rank))
                return fail(std::string(var) + "=" + value + " is not a local rank", false);
            if (rank >= visible)
                return fail(std::string(var) + "=" + value + " but this task sees " + visible_text(visible, env) +
                                ": start at most " + std::to_string(visible) +
                                " tasks per node, or bind one GPU per task (srun --gpus-per-task=1)",
                            true);
            sel.ordinals.push_back(rank);
            sel.why = "device " + std::to_string(rank) + " of " + visible_text(visible, env) + ", chosen by " + var + "=" + value;
            return sel;
        }
    }
    sel.ordinals.push_back(0);
    return sel;
}

bool has_device_placeholder(const std::string &pattern) { return pattern.find(kPlaceholder) != std::string::npos; }

std::string expand_device_placeholder(const std::string &pattern, int ordinal) {
    std::string out = pattern;
    const std::string key = kPlaceholder, value = std::to_string(ordinal);
    for (std::size_t pos = out.find(key); pos != std::string::npos; pos = out.find(key, pos + value.size()))
        out.replace(pos, key.size(), value);
    return out;
}

}  // namespace gmcli
