#include "storage/backend_shared.hpp"

#include <algorithm>
#include <stdexcept>

#include "storage/point_codec.hpp"

namespace gmserver {

std::map<std::string, std::vector<const PointRow *>> points_by_experiment(const std::vector<PointRow> &points) {
    std::map<std::string, std::vector<const PointRow *>> by_experiment;
    for (const PointRow &p : points) by_experiment[p.experiment].push_back(&p);
    return by_experiment;
}

void visit_stored_points(const char *backend, std::string_view point_set, const std::string &run_id,
                         const std::string &experiment, const std::function<void(const PointRow &)> &visit) {
    if (!decode_points(point_set, run_id, experiment, visit))
        throw std::runtime_error(std::string(backend) + ": the stored points of run " + run_id + " are damaged");
}

void PointSetFolder::fold(HistogramAggregate &into, std::string_view point_set, int sign, const std::string &whose) {
    if (!decode_point_set(point_set, strings_, points_))
        throw std::runtime_error(std::string(backend_) + ": the stored points of " + whose + " are damaged");
    into.fold(strings_, points_, sign);
}

void ModelStates::fold(const std::string &experiment, std::string_view point_set, int sign) {
    auto it = states_.find(experiment);
    if (it == states_.end()) it = states_.emplace(experiment, load_one_(experiment)).first;
    folder_.fold(it->second, point_set, sign, "an upload of " + key_);
}

std::size_t fold_queued_models(const std::vector<std::string> &models, std::size_t max_runs, std::size_t batch,
                               const std::function<std::size_t(const std::string &, std::size_t)> &fold_model) {
    std::size_t folded = 0;
    for (const std::string &key : models) {
        // A transaction per model and batch: the lock is given back between
        // them, so uploads wait at most for one batch.
        while (folded < max_runs) {
            const std::size_t n = fold_model(key, std::min(max_runs - folded, batch));
            folded += n;
            if (n == 0) break;
        }
        if (folded >= max_runs) break;
    }
    return folded;
}

std::vector<std::pair<std::string, std::string>> with_queued_merged(
    std::map<std::string, std::string> stored_by_model, const std::vector<std::string> &queued_models,
    const std::function<std::optional<std::string>(const std::string &)> &merged) {
    for (const std::string &key : queued_models) {
        if (std::optional<std::string> m = merged(key)) stored_by_model[key] = std::move(*m);
        else stored_by_model.erase(key);
    }
    return {stored_by_model.begin(), stored_by_model.end()};
}

}  // namespace gmserver
