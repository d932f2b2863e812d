#include "core/experiment/params.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "core/error.hpp"

namespace gmlab {

using nlohmann::json;

namespace {

std::string fmt(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.15g", v);
    return buf;
}

std::string join(const std::vector<std::string> &items) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
    return out;
}

std::string join(const std::vector<long long> &items) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + std::to_string(items[i]);
    return out;
}

std::string trim(const std::string &s) {
    std::size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
}

// Parses a whole decimal integer (optionally signed); false if anything is left.
bool parse_ll(const std::string &text, long long *out) {
    const std::string t = trim(text);
    if (t.empty()) return false;
    std::size_t pos = 0;
    try {
        *out = std::stoll(t, &pos, 10);
    } catch (...) {
        return false;
    }
    return pos == t.size();
}

std::string shown(const json &v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

long long to_integer(const json &v, const std::string &what) {
    if (v.is_number_integer()) return v.get<long long>();
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) return static_cast<long long>(d);
    }
    long long out = 0;
    if (v.is_string() && parse_ll(v.get<std::string>(), &out)) return out;
    invalid(what + " must be an integer, got " + shown(v));
}

void check_integer(const ParamSpec &p, long long v, const std::string &what) {
    if (!p.allowed.empty()) {
        if (std::find(p.allowed.begin(), p.allowed.end(), v) == p.allowed.end())
            invalid(what + " must be one of " + join(p.allowed) + ", got " + std::to_string(v));
        return;
    }
    if (static_cast<double>(v) < p.min || static_cast<double>(v) > p.max)
        invalid(what + " must be in " + fmt(p.min) + ".." + fmt(p.max) + ", got " + std::to_string(v));
    if (p.multiple_of > 0 && v % p.multiple_of != 0)
        invalid(what + " must be a multiple of " + std::to_string(p.multiple_of) + ", got " +
                std::to_string(v));
}

std::string check_choice(const ParamSpec &p, const json &v, const std::string &what) {
    if (!v.is_string()) invalid(what + " must be a string, one of " + join(p.choices) + ", got " + v.dump());
    std::string s = trim(v.get<std::string>());
    if (std::find(p.choices.begin(), p.choices.end(), s) == p.choices.end())
        invalid(what + " must be one of " + join(p.choices) + ", got '" + s + "'");
    return s;
}

std::vector<std::string> split_commas(const std::string &text) {
    std::vector<std::string> parts;
    std::string cur;
    for (char c : text) {
        if (c == ',') {
            parts.push_back(trim(cur));
            cur.clear();
        } else {
            cur += c;
        }
    }
    parts.push_back(trim(cur));
    return parts;
}

json resolve_one(const ParamSpec &p, const json &v) {
    const std::string &what = p.name;
    switch (p.type) {
    case ParamType::Int: {
        long long i = to_integer(v, what);
        check_integer(p, i, what);
        return i;
    }
    case ParamType::Size: {
        long long i = v.is_string() ? parse_size(v.get<std::string>(), what) : to_integer(v, what);
        check_integer(p, i, what);
        return i;
    }
    case ParamType::Double: {
        double d = 0;
        if (v.is_number()) {
            d = v.get<double>();
        } else if (v.is_string()) {
            try {
                std::size_t pos = 0;
                const std::string t = trim(v.get<std::string>());
                d = std::stod(t, &pos);
                if (pos != t.size()) throw 1;
            } catch (...) {
                invalid(what + " must be a number, got " + shown(v));
            }
        } else {
            invalid(what + " must be a number, got " + v.dump());
        }
        if (!std::isfinite(d) || d < p.min || d > p.max)
            invalid(what + " must be in " + fmt(p.min) + ".." + fmt(p.max) + ", got " + fmt(d));
        return d;
    }
    case ParamType::Bool: {
        if (v.is_boolean()) return v.get<bool>();
        if (v.is_number_integer() && (v.get<long long>() == 0 || v.get<long long>() == 1))
            return v.get<long long>() == 1;
        if (v.is_string()) {
            const std::string s = trim(v.get<std::string>());
            if (s == "true" || s == "1" || s == "yes" || s == "on") return true;
            if (s == "false" || s == "0" || s == "no" || s == "off") return false;
        }
        invalid(what + " must be true or false, got " + shown(v));
    }
    case ParamType::Enum:
        return check_choice(p, v, what);
    case ParamType::IntList: {
        std::vector<long long> items;
        if (v.is_array()) {
            for (const auto &e : v) items.push_back(to_integer(e, what));
        } else if (v.is_string()) {
            items = parse_int_list(v.get<std::string>(), what);
        } else if (v.is_number()) {
            items.push_back(to_integer(v, what));
        } else {
            invalid(what + " must be a list of integers (an array or text such as \"1..32\"), got " + v.dump());
        }
        if (items.empty()) invalid(what + " must hold at least one value");
        std::vector<long long> unique;
        for (long long i : items) {
            check_integer(p, i, what);
            if (std::find(unique.begin(), unique.end(), i) == unique.end()) unique.push_back(i);
        }
        return unique;
    }
    case ParamType::EnumList: {
        std::vector<std::string> items;
        if (v.is_array()) {
            for (const auto &e : v) items.push_back(check_choice(p, e, what));
        } else if (v.is_string()) {
            for (const auto &part : split_commas(v.get<std::string>()))
                items.push_back(check_choice(p, json(part), what));
        } else {
            invalid(what + " must be a list of names from " + join(p.choices) + ", got " + v.dump());
        }
        if (items.empty()) invalid(what + " must hold at least one value");
        std::vector<std::string> unique;
        for (auto &s : items)
            if (std::find(unique.begin(), unique.end(), s) == unique.end()) unique.push_back(s);
        return unique;
    }
    }
    fail(GM_ERROR_INTERNAL, "unknown parameter type");
}

ParamSpec base(std::string name, ParamType type, json def, std::string description) {
    ParamSpec p;
    p.name = std::move(name);
    p.type = type;
    p.default_value = std::move(def);
    p.description = std::move(description);
    return p;
}

}  // namespace

ParamSpec int_param(std::string name, long long def, long long min, long long max,
                    std::string description, std::string unit) {
    ParamSpec p = base(std::move(name), ParamType::Int, def, std::move(description));
    p.min = static_cast<double>(min);
    p.max = static_cast<double>(max);
    p.unit = std::move(unit);
    return p;
}

ParamSpec size_param(std::string name, long long def, long long min, long long max,
                     std::string description) {
    ParamSpec p = base(std::move(name), ParamType::Size, def, std::move(description));
    p.min = static_cast<double>(min);
    p.max = static_cast<double>(max);
    p.unit = "bytes";
    return p;
}

ParamSpec double_param(std::string name, double def, double min, double max,
                       std::string description, std::string unit) {
    ParamSpec p = base(std::move(name), ParamType::Double, def, std::move(description));
    p.min = min;
    p.max = max;
    p.unit = std::move(unit);
    return p;
}

ParamSpec bool_param(std::string name, bool def, std::string description) {
    return base(std::move(name), ParamType::Bool, def, std::move(description));
}

ParamSpec enum_param(std::string name, std::string def, std::vector<std::string> choices,
                     std::string description) {
    ParamSpec p = base(std::move(name), ParamType::Enum, def, std::move(description));
    p.choices = std::move(choices);
    return p;
}

ParamSpec int_list_param(std::string name, std::vector<long long> def, long long min,
                         long long max, std::string description, std::string unit) {
    ParamSpec p = base(std::move(name), ParamType::IntList, def, std::move(description));
    p.min = static_cast<double>(min);
    p.max = static_cast<double>(max);
    p.unit = std::move(unit);
    return p;
}

ParamSpec enum_list_param(std::string name, std::vector<std::string> def,
                          std::vector<std::string> choices, std::string description) {
    ParamSpec p = base(std::move(name), ParamType::EnumList, def, std::move(description));
    p.choices = std::move(choices);
    return p;
}

const char *type_name(ParamType t) {
    switch (t) {
    case ParamType::Int: return "int";
    case ParamType::Size: return "size";
    case ParamType::Double: return "double";
    case ParamType::Bool: return "bool";
    case ParamType::Enum: return "enum";
    case ParamType::IntList: return "int_list";
    case ParamType::EnumList: return "enum_list";
    }
    return "unknown";
}

json describe(const ParamSpec &p) {
    json j = {{"name", p.name}, {"type", type_name(p.type)}, {"default", p.default_value},
              {"description", p.description}};
    const bool numeric = p.type == ParamType::Int || p.type == ParamType::Size ||
                         p.type == ParamType::Double || p.type == ParamType::IntList;
    if (!p.allowed.empty()) {
        j["allowed"] = p.allowed;
    } else if (numeric) {
        j["min"] = p.min;
        j["max"] = p.max;
    }
    if (!p.choices.empty()) j["choices"] = p.choices;
    if (p.multiple_of > 0) j["multiple_of"] = p.multiple_of;
    if (!p.unit.empty()) j["unit"] = p.unit;
    return j;
}

std::vector<long long> parse_int_list(const std::string &text, const std::string &what) {
    std::vector<long long> out;
    for (const std::string &part : split_commas(text)) {
        const std::size_t dots = part.find("..");
        long long a = 0, b = 0;
        if (dots == std::string::npos) {
            if (!parse_ll(part, &a)) invalid(what + ": '" + part + "' is not an integer (lists look like 1..32 or 4,8,16)");
            out.push_back(a);
            continue;
        }
        if (!parse_ll(part.substr(0, dots), &a) || !parse_ll(part.substr(dots + 2), &b))
            invalid(what + ": '" + part + "' is not a range (lists look like 1..32 or 4,8,16)");
        if (b < a) invalid(what + ": range '" + part + "' runs backwards");
        if (b - a > 100000) invalid(what + ": range '" + part + "' holds more than 100000 values");
        for (long long i = a; i <= b; ++i) out.push_back(i);
    }
    return out;
}

long long parse_size(const std::string &text, const std::string &what) {
    const std::string t = trim(text);
    std::size_t i = 0;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
    long long n = 0;
    if (i == 0 || !parse_ll(t.substr(0, i), &n))
        invalid(what + " must be a byte count such as 4096, 256MiB or 1GB, got '" + text + "'");
    std::string unit = trim(t.substr(i));
    for (auto &c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    long long mult = 1;
    if (unit.empty() || unit == "b") mult = 1;
    else if (unit == "kib" || unit == "k") mult = 1LL << 10;
    else if (unit == "mib" || unit == "m") mult = 1LL << 20;
    else if (unit == "gib" || unit == "g") mult = 1LL << 30;
    else if (unit == "kb") mult = 1000LL;
    else if (unit == "mb") mult = 1000LL * 1000;
    else if (unit == "gb") mult = 1000LL * 1000 * 1000;
    else invalid(what + ": unknown unit '" + unit + "' (use B, KiB, MiB, GiB, KB, MB or GB)");
    if (n > (1LL << 62) / mult) invalid(what + " is too large: '" + text + "'");
    return n * mult;
}

json resolve_params(const std::vector<ParamSpec> &specs, const json &given,
                    const std::string &experiment) {
    if (!given.is_null() && !given.is_object())
        invalid("parameters of " + experiment + " must be a JSON object, got " + given.dump());
    if (given.is_object()) {
        for (auto it = given.begin(); it != given.end(); ++it) {
            const bool known = std::any_of(specs.begin(), specs.end(),
                                           [&](const ParamSpec &p) { return p.name == it.key(); });
            if (!known) {
                std::vector<std::string> names;
                for (const auto &p : specs) names.push_back(p.name);
                invalid("unknown parameter '" + it.key() + "' for experiment " + experiment +
                        (names.empty() ? std::string(" (it takes none)") : "; known: " + join(names)));
            }
        }
    }
    json out = json::object();
    for (const auto &p : specs) {
        if (given.is_object() && given.contains(p.name))
            out[p.name] = resolve_one(p, given.at(p.name));
        else
            out[p.name] = p.default_value;
    }
    return out;
}

const json &Params::at(const std::string &name) const {
    if (!values_.contains(name)) fail(GM_ERROR_INTERNAL, "parameter '" + name + "' was not declared");
    return values_.at(name);
}

long long Params::integer(const std::string &name) const { return at(name).get<long long>(); }
std::uint64_t Params::size(const std::string &name) const { return at(name).get<std::uint64_t>(); }
double Params::number(const std::string &name) const { return at(name).get<double>(); }
bool Params::flag(const std::string &name) const { return at(name).get<bool>(); }
std::string Params::text(const std::string &name) const { return at(name).get<std::string>(); }
std::vector<long long> Params::integers(const std::string &name) const {
    return at(name).get<std::vector<long long>>();
}
std::vector<std::string> Params::texts(const std::string &name) const {
    return at(name).get<std::vector<std::string>>();
}

}  // namespace gmlab
