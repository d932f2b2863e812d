// What the SQLite and PostgreSQL backends do alike, written once: grouping
// an upload's points by experiment, reading stored point sets (an error that
// names whose they were when they do not decode), the stored aggregates of
// one model as a fold or a delete changes them, the refresher's batches over
// the queued models, and the aggregates of queued models merged in. Each
// backend keeps only its statements.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/aggregate.hpp"
#include "storage/storage.hpp"

namespace gmserver {

// An upload's points by experiment, in the order of the experiments' names:
// one point set is stored per experiment (point_codec.hpp).
std::map<std::string, std::vector<const PointRow *>> points_by_experiment(const std::vector<PointRow> &points);

// Calls visit for every headline point of a stored point set (decode_points);
// throws "<backend>: the stored points of run <id> are damaged" when it does
// not decode.
void visit_stored_points(const char *backend, std::string_view point_set, const std::string &run_id,
                         const std::string &experiment, const std::function<void(const PointRow &)> &visit);

// Folds stored point sets into histograms, reusing its buffers from one set
// to the next. A set that does not decode throws "<backend>: the stored
// points of <whose> are damaged".
class PointSetFolder {
public:
    explicit PointSetFolder(const char *backend) : backend_(backend) {}
    void fold(HistogramAggregate &into, std::string_view point_set, int sign, const std::string &whose);

private:
    const char *backend_;
    std::vector<std::string> strings_;
    std::vector<HistogramAggregate::Point> points_;
};

// The stored aggregates of one model's experiments as a fold (the refresher)
// or a delete (a folded upload subtracted) changes them: each loaded by the
// backend when first folded into, and written back by the backend from
// states(), where an empty one is to be deleted.
class ModelStates {
public:
    // The stored state of one of the model's experiments (empty when none).
    using LoadOne = std::function<HistogramAggregate(const std::string &experiment)>;
    ModelStates(const char *backend, std::string gpu_key, LoadOne load_one)
        : key_(std::move(gpu_key)), load_one_(std::move(load_one)), folder_(backend) {}

    // Folds an upload's point set of `experiment` in (sign +1) or out (-1).
    void fold(const std::string &experiment, std::string_view point_set, int sign);
    // States the backend loaded itself (several in one statement).
    bool holds(const std::string &experiment) const { return states_.count(experiment) > 0; }
    void hold(const std::string &experiment, HistogramAggregate state) { states_[experiment] = std::move(state); }
    const std::map<std::string, HistogramAggregate> &states() const { return states_; }
    const std::string &gpu_key() const { return key_; }

private:
    const std::string key_;
    LoadOne load_one_;
    PointSetFolder folder_;
    std::map<std::string, HistogramAggregate> states_;
};

// The refresher's pass: the queued uploads of each model folded in batches
// of at most `batch` (fold_model(key, limit) folds up to limit of the
// model's oldest and says how many it folded), until max_runs are folded or
// none is left. Returns how many were folded.
std::size_t fold_queued_models(const std::vector<std::string> &models, std::size_t max_runs, std::size_t batch,
                               const std::function<std::size_t(const std::string &, std::size_t)> &fold_model);

// Storage::aggregates_of_experiment: the stored aggregates by model, where
// the models with queued uploads are read again with them merged in
// (merged(key): nothing when the model has none of the experiment left).
std::vector<std::pair<std::string, std::string>> with_queued_merged(
    std::map<std::string, std::string> stored_by_model, const std::vector<std::string> &queued_models,
    const std::function<std::optional<std::string>(const std::string &)> &merged);

}  // namespace gmserver
