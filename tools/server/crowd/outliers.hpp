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

#include "crowd/crowd_store.hpp"
#include "storage/aggregate.hpp"

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

// A model's accepted values of one figure as the stored histograms keep them
// (storage/aggregate.hpp): (mean, count) per bin of relative width 0.05 %, in
// increasing order of value. Quantiles taken from it lie within that width of
// the exact ones, which is far inside what the rule below resolves.
using Distribution = std::vector<HistogramAggregate::BinValue>;
// The model's accepted values per (experiment, figure).
using ModelValues = std::map<std::pair<std::string, std::string>, Distribution>;

// Values into a distribution (tests; a model's first uploads).
Distribution distribution_of(std::vector<double> values);
// Adds one value: into the bin it falls in, or a new one.
void add_value(Distribution &d, double value);
std::uint64_t count_of(const Distribution &d);
// Quantile with linear interpolation between closest ranks (type 7), each
// rank's value the mean of its bin; d not empty.
double distribution_quantile(const Distribution &d, double q);

struct FigureStanding {
    std::string experiment, figure;
    double value = 0;
    std::size_t n = 0;           // the model's accepted uploads with this figure
    double median = 0, q1 = 0, q3 = 0;
    double percentile = 0;       // share of the model's values below this one (ties count half), 0..100
    double z = 0;                // robust z (0 when n < kMinUploadsToJudge)
    bool judged = false, unusual = false, extreme = false;
};

// Places every figure of the upload among the model's values.
std::vector<FigureStanding> standings(const std::vector<FigureValue> &upload, const ModelValues &model);

// Why the upload is held ("" when it is not): its extreme figures, and the
// health problems given (throttled, unstable).
std::string hold_reason(const std::vector<FigureStanding> &standings, const std::vector<std::string> &health);

}  // namespace gmserver
