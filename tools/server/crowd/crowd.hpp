// The view across GPU models: per experiment, every model's headline figures
// side by side; an upload placed among its model's uploads; outlier uploads
// held for a moderator; and the export of every accepted point. The routes
// live in the web layer, web/crowd_api.cpp (JSON, exports, moderation) and
// web/crowd_pages.cpp (web pages); this is the logic they share.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "crowd/crowd_store.hpp"
#include "crowd/key_figures.hpp"
#include "crowd/outliers.hpp"
#include "storage/storage.hpp"

namespace gmserver {

class Crowd {
public:
    // aggregate(key, experiment): the model's per-point distribution, as the
    // storage maintains it (null when none). changed(key), where given: a
    // model's accepted uploads changed.
    using AggregateOf = std::function<nlohmann::json(const std::string &, const std::string &)>;
    using Changed = std::function<void(const std::string &)>;

    Crowd(Storage &storage, CrowdStore &store, std::string moderator_token, AggregateOf aggregate, Changed changed);

    // A new upload, before it is stored: its status, judged against its
    // model's accepted uploads by its figures and health problems
    // (key_figures.hpp): held, with the reason, when it is far outside or was
    // throttled or unstable.
    UploadStatus judge(const StoredRun &run, const std::vector<FigureValue> &figures, const std::vector<std::string> &health);
    // It was stored, its figure set (figure_rows) with it; its insert began
    // at stored_from. The status is recorded; a held upload leaves the
    // aggregates and the log says why.
    void admitted(const UploadStatus &status, const std::vector<FigureValue> &figures, std::chrono::steady_clock::time_point stored_from);
    // An upload was deleted (by its owner or a moderator).
    void deleted(const StoredRun &run, const std::string &actor, const std::string &reason);

    // {"experiment", "figures": [spec...], "models": [{key, name, uploads, figures: {id: {n, median, q1, q3}}}]}
    nlohmann::json experiment_table(const std::string &experiment);
    // Each figure of an upload among its model's accepted uploads, and its status.
    nlohmann::json standing(const StoredRun &run);

    // Registry names (the library's) and those of the compared figures.
    static std::vector<std::string> experiment_names();
    static bool known_experiment(const std::string &name);

    // The storage's models, read at most once a second (fresh: now): a
    // comparison page names them in every experiment's table.
    std::vector<GpuCount> gpus(bool fresh = false);

    Storage &storage() { return storage_; }
    CrowdStore &store() { return store_; }
    const AggregateOf &aggregate() const { return aggregate_; }
    // A model's aggregates of several experiments at once (null where none):
    // the storage reads them in a few statements instead of one each.
    std::vector<nlohmann::json> model_aggregates(const std::string &gpu_key, const std::vector<std::string> &experiments);

private:
    // A model's accepted values: cached for the outlier rule, or read now (fresh).
    ModelValues model_values(const std::string &gpu_key, bool fresh = false);
    void bump(const std::string &gpu_key);

    Storage &storage_;
    CrowdStore &store_;
    const std::string moderator_token_;
    AggregateOf aggregate_;
    Changed changed_;

    // Caches: the accepted values of each model (the outlier rule's), each
    // experiment's table, and the figure summaries.
    // A model's values are loaded once and then kept up to date in place as
    // uploads are admitted (per-model generations, bumped by moderation and
    // deletion, tell a load that raced with one not to keep its result);
    // tables are dropped on any change and after kTableLife. The summaries follow the storage's refresher,
    // which folds new uploads in about a second.
    std::mutex mu_;
    std::uint64_t generation_ = 0;
    std::map<std::string, std::uint64_t> model_generation_;
    // Other server processes on the same database admit and moderate too:
    // what this one keeps is read again after these ages at the latest.
    using Clock = std::chrono::steady_clock;
    static constexpr std::chrono::seconds kModelValuesLife{30}, kTableLife{2}, kSummariesLife{2};
    // Per model: when its read began, and the values.
    std::map<std::string, std::pair<Clock::time_point, ModelValues>> model_cache_;
    struct CachedTable {
        std::uint64_t generation;
        Clock::time_point at;
        nlohmann::json table;
    };
    std::map<std::string, CachedTable> table_cache_;
    // Every model's figure-set aggregate (the API's JSON), read in one go
    // and kept for kSummariesLife: the tables of all experiments slice it.
    struct Summaries {
        Clock::time_point at;
        std::map<std::string, nlohmann::json> by_model;
    };
    std::shared_ptr<const Summaries> figure_summaries();
    std::shared_ptr<const Summaries> summaries_;
    static constexpr std::chrono::seconds kGpusLife{1};
    std::mutex gpus_mu_;
    Clock::time_point gpus_at_{};
    std::vector<GpuCount> gpus_;
    // The moderation routes (web/crowd_api.cpp) check the moderator token and
    // drop the caches of a model they moderate.
    friend class CrowdApi;
};

// Bearer token check in constant time; "" configured token never matches.
bool moderator_authorised(const std::string &authorization, const std::string &token);

// A CSV cell: quoted where it holds a comma, quote or line break, and a text
// cell that a spreadsheet would take for a formula (=, +, -, @, tab, CR first)
// is quoted with a ' in front, so that it stays text.
std::string csv_cell(const std::string &s);

}  // namespace gmserver
