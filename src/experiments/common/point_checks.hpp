// What the families' measured points share around the core's point protocol
// (core/measurement/harness.hpp): the element-by-element comparison of a
// downloaded output with the host's expectation, the declaration of a series,
// and a headline ratio recorded only when both of its points were measured.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "core/experiment/figure.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/quantity.hpp"
#include "core/experiment/result.hpp"
#include "core/measurement/verify.hpp"

namespace gmlab {

// Compares host[i] with expected(i) for every i in [0, n): the first mismatch
// fails the run with both values (std::to_string), else the n elements are
// recorded as verified by `how`. For a CheckedLaunch's check.
template <class T, class Expected>
void verify_equal(const T *host, std::uint64_t n, Expected expected, const std::string &what, const std::string &how,
                  Result &out) {
    const std::uint64_t bad = first_mismatch(n, [&](std::uint64_t i) { return host[i] == expected(i); });
    if (bad < n) verification_failed(what, bad, std::to_string(expected(bad)), std::to_string(host[bad]));
    out.verified(n, how);
}

// A series with its name, kernel variant, x axis and quantity declared, and
// the attributes every point shares; the y axis keeps the Series defaults.
Series declared_series(const std::string &name, const std::string &variant, const std::string &x_name,
                       const std::string &x_unit, Quantity quantity,
                       const nlohmann::json &attributes = nlohmann::json::object());

// Records figure = values[over] / values[under] at `at` when both were
// measured (a variant the parameters left out has no entry).
void record_ratio_if_measured(Result &out, const Figure &figure, const std::map<std::string, double> &values,
                              const std::string &over, const std::string &under, const FigureAt &at = {});

}  // namespace gmlab
