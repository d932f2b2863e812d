// Is an upload normal for its model? Each headline figure is placed among the
// model's accepted uploads with a robust rule (median and median absolute
// deviation, which a few bad uploads cannot drag along), and an upload far
// outside on any figure is held for a moderator instead of being counted.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "crowd_store.hpp"

namespace gmserver {

// Rules: judged only once the model has this many accepted uploads with the
// figure; |robust z| = 0.6745 |x - median| / MAD above kUnusualZ is outside
// the usual range (Iglewicz and Hoaglin's 3.5), above kHoldZ the upload is
// held. MAD is taken as at least kMadFloor x |median|, so that near-identical
// uploads do not make a 2 % difference look extreme.
constexpr std::size_t kMinUploadsToJudge = 8;
constexpr double kUnusualZ = 3.5;
constexpr double kHoldZ = 10.0;
constexpr double kMadFloor = 0.01;

// The model's accepted values per (experiment, figure).
using ModelValues = std::map<std::pair<std::string, std::string>, std::vector<double>>;

struct FigureStanding {
    std::string experiment, figure;
    double value = 0;
    std::size_t n = 0;           // the model's accepted uploads with this figure
    double median = 0, q1 = 0, q3 = 0;
    double percentile = 0;       // share of the model's values below this one (ties count half), 0..100
    double z = 0;                // robust z (0 when n < kMinUploadsToJudge)
    bool judged = false, unusual = false, extreme = false;
};

// Places every figure of the upload among the model's values (each list sorted).
std::vector<FigureStanding> standings(const std::vector<FigureValue> &upload, const ModelValues &model);

// Why the upload is held ("" when it is not): its extreme figures, and the
// health problems given (throttled, unstable).
std::string hold_reason(const std::vector<FigureStanding> &standings, const std::vector<std::string> &health);

// Quantile with linear interpolation between closest ranks (type 7); v sorted, not empty.
double sorted_quantile(const std::vector<double> &v, double q);

}  // namespace gmserver
