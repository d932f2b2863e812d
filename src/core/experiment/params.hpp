// Typed experiment parameters: declared once with defaults and bounds, checked
// and resolved from JSON in one place (host only; no device needed).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace gmlab {

enum class ParamType { Int, Size, Double, Bool, Enum, IntList, EnumList };

struct ParamSpec {
    std::string name;
    ParamType type = ParamType::Int;
    nlohmann::json default_value;
    double min = 0, max = 0;            // Int, Size, Double and each IntList element
    std::vector<long long> allowed;     // Int / IntList: the only values allowed, if any
    std::vector<std::string> choices;   // Enum / EnumList
    long long multiple_of = 0;          // Int: value must be a multiple (0: any)
    std::string unit;
    std::string description;
};

// Convenience constructors for the registry tables.
ParamSpec int_param(std::string name, long long def, long long min, long long max,
                    std::string description, std::string unit = "");
ParamSpec size_param(std::string name, long long def, long long min, long long max,
                     std::string description);
ParamSpec double_param(std::string name, double def, double min, double max,
                       std::string description, std::string unit = "");
ParamSpec bool_param(std::string name, bool def, std::string description);
ParamSpec enum_param(std::string name, std::string def, std::vector<std::string> choices,
                     std::string description);
ParamSpec int_list_param(std::string name, std::vector<long long> def, long long min,
                         long long max, std::string description, std::string unit = "");
ParamSpec enum_list_param(std::string name, std::vector<std::string> def,
                          std::vector<std::string> choices, std::string description);

// A declaration that names what it sets besides the constructor's fields:
// with_multiple_of(int_param("block_size", ...), 32), never params[1].multiple_of.
inline ParamSpec with_multiple_of(ParamSpec p, long long multiple) {
    p.multiple_of = multiple;
    return p;
}
inline ParamSpec with_allowed(ParamSpec p, std::vector<long long> values) {
    p.allowed = std::move(values);
    return p;
}

const char *type_name(ParamType t);
nlohmann::json describe(const ParamSpec &p);

// Parses "1..4,8,16" into {1,2,3,4,8,16}; throws Error naming `what`.
std::vector<long long> parse_int_list(const std::string &text, const std::string &what);
// Parses "256MiB", "1GB", "4096" into bytes; throws Error naming `what`.
long long parse_size(const std::string &text, const std::string &what);

// Checks `given` (a JSON object, or null) against the specs and returns an
// object with every parameter set: the given value, checked, or the default.
// Unknown names, wrong types and out-of-range values throw
// Error(GM_ERROR_INVALID_ARGUMENT) naming the parameter and the allowed range.
nlohmann::json resolve_params(const std::vector<ParamSpec> &specs, const nlohmann::json &given,
                              const std::string &experiment);

// Read access to resolved parameters.
class Params {
public:
    explicit Params(nlohmann::json values) : values_(std::move(values)) {}
    long long integer(const std::string &name) const;
    std::uint64_t size(const std::string &name) const;
    double number(const std::string &name) const;
    bool flag(const std::string &name) const;
    std::string text(const std::string &name) const;
    std::vector<long long> integers(const std::string &name) const;
    std::vector<std::string> texts(const std::string &name) const;
    const nlohmann::json &json() const { return values_; }
    // True when a parameter was given as 0, meaning "choose for this device".
    bool is_auto(const std::string &name) const { return size(name) == 0; }

private:
    const nlohmann::json &at(const std::string &name) const;
    nlohmann::json values_;
};

}  // namespace gmlab
