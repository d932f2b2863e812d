// Numbers as the pages print them. Uploaded values reach the pages through
// the aggregates, and a value of any magnitude must print in a few
// characters: printf's "%f" writes -1e308 as 309 digits.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

namespace gmserver {

// Whole numbers below 1e15 print as they are (sizes in bytes, counts: at
// most 16 characters).
constexpr double kWholeNumbersBelow = 1e15;

// Text for a table cell: a whole number below kWholeNumbersBelow as it is;
// any other finite value with `digits` significant digits (1 to 17), in
// plain notation from 1e-4 up to 1e6 ("2622", "0.1235", "144200"; zeros
// after the point dropped) and in scientific notation beyond ("-1.000e+308");
// a value that is not finite as an em dash.
inline std::string number_text(double v, int digits = 4) {
    if (!std::isfinite(v)) return "\u2014";
    char buf[64];
    if (v == std::floor(v) && std::fabs(v) < kWholeNumbersBelow) {
        std::snprintf(buf, sizeof buf, "%.0f", v);
        return buf;
    }
    digits = std::clamp(digits, 1, 17);
    const double a = std::fabs(v);
    if (a < 1e-4 || a >= 1e6) {
        std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
        return buf;
    }
    const int magnitude = static_cast<int>(std::floor(std::log10(a)));  // -4 .. 5
    const int decimals = digits - 1 - magnitude;
    // Above 10^digits the places beyond `digits` are zeros: 144179.2 is 144200.
    const double scale = decimals < 0 ? std::pow(10.0, -decimals) : 1;
    std::snprintf(buf, sizeof buf, "%.*f", std::max(0, decimals), decimals < 0 ? std::round(v / scale) * scale : v);
    std::string s = buf;
    if (s.find('.') != std::string::npos) {
        s.erase(s.find_last_not_of('0') + 1);
        if (s.back() == '.') s.pop_back();
    }
    return s;
}

// A ratio (B / A): three decimals between 0.001 and 1000 ("0.525",
// "1.000"), number_text beyond; an em dash where it is not finite.
inline std::string ratio_text(double r) {
    if (!std::isfinite(r) || std::fabs(r) < 1e-3 || std::fabs(r) >= 1e3) return number_text(r);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", r);
    return buf;
}

// A value for the charts' JSON: rounded to `digits` significant digits, so
// that it is written in at most that many (JSON writes the shortest form
// that reads back as the same double); null where it is not finite, which
// the charts leave out.
inline nlohmann::json chart_number(double v, int digits = 7) {
    if (!std::isfinite(v)) return nullptr;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", std::clamp(digits, 1, 17), v);
    const double r = std::strtod(buf, nullptr);
    return std::isfinite(r) ? nlohmann::json(r) : nlohmann::json(nullptr);
}

// The same for a JSON number (an aggregate's median, quartile or x).
inline nlohmann::json chart_number(const nlohmann::json &v, int digits = 7) {
    return v.is_number() ? chart_number(v.get<double>(), digits) : nlohmann::json(nullptr);
}

// A data-v attribute (the tables' sort key): 7 significant digits, empty
// where there is no finite value.
inline std::string data_value(double v) {
    if (!std::isfinite(v)) return "";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.7g", v);
    return buf;
}

}  // namespace gmserver
