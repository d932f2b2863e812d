#include "experiments/common/point_checks.hpp"

namespace gmlab {

Series declared_series(const std::string &name, const std::string &variant, const std::string &x_name,
                       const std::string &x_unit, Quantity quantity, const nlohmann::json &attributes) {
    Series s;
    s.name = name;
    s.variant = variant;
    s.x_name = x_name;
    s.x_unit = x_unit;
    s.quantity = quantity;
    s.attributes = attributes;
    return s;
}

void record_ratio_if_measured(Result &out, const Figure &figure, const std::map<std::string, double> &values,
                              const std::string &over, const std::string &under, const FigureAt &at) {
    const auto o = values.find(over), u = values.find(under);
    if (o == values.end() || u == values.end()) return;
    out.record(figure, o->second / u->second, at);
}

}  // namespace gmlab
