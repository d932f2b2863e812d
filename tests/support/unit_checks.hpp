// Helpers of the host-only tests: the message of the argument error that a
// check throws, and the message a bad experiment parameter gets.
#pragma once

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/experiment/registry.hpp"

// The message of the Error(GM_ERROR_INVALID_ARGUMENT) that f throws ("" if none).
template <class F> std::string argument_error(F &&f) {
    try {
        f();
    } catch (const gmlab::Error &e) {
        EXPECT_EQ(e.status(), GM_ERROR_INVALID_ARGUMENT);
        return e.what();
    }
    return "";
}

// The message of the Error that resolving `params` for `experiment` throws ("" if none).
inline std::string param_error(const std::string &experiment, const nlohmann::json &params) {
    return argument_error([&] { gmlab::resolve_params(gmlab::find_experiment(experiment).params, params, experiment); });
}

inline bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }
