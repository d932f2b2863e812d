// The fields a point of a result document is read by: one lookup for the
// library (gm_result_point_value) and the report's charts and tables. A
// field is a timing statistic ("median_ms", "min_ms", "max_ms", "mean_ms",
// "stddev_ms", "repetitions"), a decile of the launch times ("p10_ms" ..
// "p90_ms", from time_ms.quantiles), a model's figure ("predicted.<key>"), a
// counted one ("counters.<key>"), a number of the point itself
// ("bandwidth_gbs") or one of its values ("values.<key>" written as "<key>").
// Header-only, no CUDA, nothing else of the tree.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace gmvocab {

// What a caller may ask for besides the point's own numbers, for messages.
inline const char *kPointStatisticFields = "median_ms, min_ms, max_ms, mean_ms, stddev_ms, repetitions, p10_ms..p90_ms";

// 0..8 for "p10_ms".."p90_ms"; nullopt for any other field.
inline std::optional<int> decile_of_field(const std::string &field) {
    if (field.size() == 6 && field[0] == 'p' && field[1] >= '1' && field[1] <= '9' && field[2] == '0' &&
        field.compare(3, 3, "_ms") == 0)
        return field[1] - '1';
    return std::nullopt;
}

// The value of `field` in point `p`; nullopt where the point has none (a
// decile of a full document that kept its samples but no quantiles, too:
// the library computes those from the samples).
inline std::optional<double> point_field(const nlohmann::json &p, const std::string &field) {
    struct TimeField {
        const char *field, *key;
    };
    static constexpr TimeField kTime[] = {{"median_ms", "median"}, {"min_ms", "min"},       {"max_ms", "max"},
                                          {"mean_ms", "mean"},     {"stddev_ms", "stddev"}, {"repetitions", "n"}};
    const auto number = [](const nlohmann::json &o, const std::string &key) -> std::optional<double> {
        if (o.is_object() && o.contains(key) && o[key].is_number()) return o[key].get<double>();
        return std::nullopt;
    };
    for (const TimeField &t : kTime)
        if (field == t.field) return p.contains("time_ms") ? number(p["time_ms"], t.key) : std::nullopt;
    if (const auto k = decile_of_field(field)) {
        if (!p.contains("time_ms") || !p["time_ms"].contains("quantiles")) return std::nullopt;
        const nlohmann::json &q = p["time_ms"]["quantiles"];
        if (!q.is_array() || q.size() != 9 || !q[*k].is_number()) return std::nullopt;
        return q[*k].get<double>();
    }
    const std::string predicted = "predicted.", counters = "counters.";
    if (field.compare(0, predicted.size(), predicted) == 0)
        return p.contains("predicted") ? number(p["predicted"], field.substr(predicted.size())) : std::nullopt;
    if (field.compare(0, counters.size(), counters) == 0)
        return p.contains("counters") ? number(p["counters"], field.substr(counters.size())) : std::nullopt;
    if (const auto v = number(p, field)) return v;
    return p.contains("values") ? number(p["values"], field) : std::nullopt;
}

}  // namespace gmvocab
