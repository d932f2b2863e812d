#include "crowd/crowd.hpp"
#include "storage/utc_now.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>

#include <gmlab.h>

namespace gmserver {

using nlohmann::json;

bool moderator_authorised(const std::string &authorization, const std::string &token) {
    if (token.empty() || authorization.rfind("Bearer ", 0) != 0) return false;
    const std::string given = authorization.substr(7);
    if (given.size() != token.size()) return false;
    unsigned char d = 0;
    for (std::size_t i = 0; i < given.size(); ++i) d |= static_cast<unsigned char>(given[i] ^ token[i]);
    return d == 0;
}

std::string csv_cell(const std::string &s) {
    const bool formula = !s.empty() && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' || s[0] == '\r');
    if (!formula && s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string out = formula ? "\"'" : "\"";
    for (char c : s) {
        if (c == '"') out += "\"\"";
        else out.push_back(c);
    }
    return out + "\"";
}

Crowd::Crowd(Storage &storage, CrowdStore &store, std::string moderator_token, AggregateOf aggregate, Changed changed)
    : storage_(storage), store_(store), moderator_token_(std::move(moderator_token)), aggregate_(std::move(aggregate)),
      changed_(std::move(changed)) {}

std::vector<std::string> Crowd::experiment_names() {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < gm_experiment_count(); ++i)
        if (const char *n = gm_experiment_name(i)) names.push_back(n);
    for (const std::string &n : compared_experiments())
        if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    return names;
}

bool Crowd::known_experiment(const std::string &name) {
    const std::vector<std::string> names = experiment_names();
    return std::find(names.begin(), names.end(), name) != names.end();
}

ModelValues Crowd::model_values(const std::string &gpu_key, bool fresh) {
    std::uint64_t generation;
    {
        std::lock_guard<std::mutex> lock(mu_);
        const auto it = model_cache_.find(gpu_key);
        if (!fresh && it != model_cache_.end() && Clock::now() - it->second.first < kModelValuesLife) return it->second.second;
        generation = model_generation_[gpu_key];
    }
    // The model's figure set, as the storage's histograms keep it.
    const Clock::time_point read_from = Clock::now();
    ModelValues values;
    if (const std::optional<std::string> state = storage_.aggregate_state(gpu_key, kFiguresSet)) {
        HistogramAggregate::decode(*state).visit([&](const std::string &series, const std::string &, double,
                                                     const std::vector<HistogramAggregate::BinValue> &bins) {
            std::string experiment, figure;
            if (split_figure_series(series, &experiment, &figure)) values[{experiment, figure}] = bins;
        });
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (model_generation_[gpu_key] == generation) {
        if (model_cache_.size() >= 256) model_cache_.clear();
        model_cache_[gpu_key] = {read_from, values};
    }
    return values;
}

void Crowd::bump(const std::string &gpu_key) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        ++generation_;
        ++model_generation_[gpu_key];
        model_cache_.erase(gpu_key);
        table_cache_.clear();
        summaries_.reset();
    }
    if (changed_) changed_(gpu_key);
}

UploadStatus Crowd::judge(const StoredRun &run, const std::vector<FigureValue> &figures, const std::vector<std::string> &health) {
    UploadStatus st;
    st.run_id = run.id;
    st.gpu_key = run.gpu.key;
    st.created_at = run.created_at;
    st.reason = hold_reason(standings(figures, model_values(run.gpu.key)), health);
    st.status = st.reason.empty() ? "accepted" : "held";
    return st;
}

void Crowd::admitted(const UploadStatus &st, const std::vector<FigureValue> &figures, Clock::time_point stored_from) {
    // An upload without a status row is accepted (standing() and the stores'
    // queries read it so): an accepted upload writes nothing here, and a held
    // one gets its row with the log entry that says why.
    if (st.status == "held") {
        storage_.set_counted(st.run_id, false);
        store_.moderate(st, "hold", st.reason, "outlier rule", utc_now());
        bump(st.gpu_key);
        return;
    }
    // Accepted: its values go into the cached ones in place rather than the
    // model's values being read again at its next upload. A read that began
    // after the insert began may or may not have seen it: it is left as it
    // is, so that under many concurrent uploads the cache is not dropped and
    // read again at every one. The outlier rule may then miss one upload until
    // the cache expires, which moves a median and MAD over the model's other
    // uploads by nothing it can see; an upload's standing reads the model
    // afresh.
    std::lock_guard<std::mutex> lock(mu_);
    ++generation_;
    summaries_.reset();
    auto it = model_cache_.find(st.gpu_key);
    if (it != model_cache_.end() && it->second.first < stored_from)
        for (const FigureValue &f : figures) add_value(it->second.second[{f.experiment, f.figure}], f.value);
}

void Crowd::deleted(const StoredRun &run, const std::string &actor, const std::string &reason) {
    store_.forget(run.id, reason, actor, utc_now());
    bump(run.gpu.key);
}

std::vector<GpuCount> Crowd::gpus(bool fresh) {
    std::lock_guard<std::mutex> lock(gpus_mu_);
    if (fresh || Clock::now() - gpus_at_ > kGpusLife) {
        gpus_ = storage_.gpus();
        gpus_at_ = Clock::now();
    }
    return gpus_;
}

std::vector<json> Crowd::model_aggregates(const std::string &gpu_key, const std::vector<std::string> &experiments) {
    std::vector<json> out;
    for (const std::optional<std::string> &text : storage_.aggregates(gpu_key, experiments))
        out.push_back(text ? json::parse(*text, nullptr, false) : json());
    for (json &j : out)
        if (j.is_discarded()) j = nullptr;
    return out;
}

std::shared_ptr<const Crowd::Summaries> Crowd::figure_summaries() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (summaries_ && Clock::now() - summaries_->at < kSummariesLife) return summaries_;
    }
    auto fresh = std::make_shared<Summaries>();
    fresh->at = Clock::now();
    for (const auto &[key, text] : storage_.aggregates_of_experiment(kFiguresSet)) {
        json j = json::parse(text, nullptr, false);
        if (!j.is_discarded()) fresh->by_model.emplace(key, std::move(j));
    }
    std::lock_guard<std::mutex> lock(mu_);
    summaries_ = fresh;
    return fresh;
}

json Crowd::experiment_table(const std::string &experiment) {
    std::uint64_t generation;
    {
        std::lock_guard<std::mutex> lock(mu_);
        generation = generation_;
        const auto it = table_cache_.find(experiment);
        if (it != table_cache_.end() && it->second.generation == generation && Clock::now() - it->second.at < kTableLife) return it->second.table;
    }
    // Each model's figures of this experiment: the series "<experiment>/..."
    // of its figure-set aggregate, one point (x 0) each.
    const std::shared_ptr<const Summaries> summaries = figure_summaries();
    const std::string prefix = experiment + "/";
    std::map<std::string, json> by_model;
    for (const auto &[key, agg] : summaries->by_model) {
        if (!agg.contains("series")) continue;
        for (const json &s : agg["series"]) {
            const std::string &name = s["name"].get_ref<const std::string &>();
            if (name.compare(0, prefix.size(), prefix) != 0 || s["points"].empty()) continue;
            const json &p = s["points"][0];
            by_model[key][name.substr(prefix.size())] = {{"n", p["n"]}, {"median", p["median"]}, {"q1", p["q1"]}, {"q3", p["q3"]}};
        }
    }
    json specs = json::array();
    for (const FigureSpec &f : figure_specs(experiment))
        specs.push_back({{"id", f.id}, {"label", f.label}, {"unit", f.unit}, {"basis", f.basis}});
    std::map<std::string, GpuIdentity> identities;
    if (!by_model.empty())
        for (const GpuCount &g : gpus()) identities[g.gpu.key] = g.gpu;
    json models = json::array();
    for (auto &[key, figures] : by_model) {
        std::size_t uploads = 0;
        for (const auto &[id, f] : figures.items()) uploads = std::max(uploads, f["n"].get<std::size_t>());
        const auto id = identities.find(key);
        models.push_back({{"key", key}, {"name", id != identities.end() ? id->second.name : key}, {"uploads", uploads}, {"figures", std::move(figures)}});
    }
    // Most uploaded models first.
    std::stable_sort(models.begin(), models.end(), [](const json &a, const json &b) { return a["uploads"].get<std::size_t>() > b["uploads"].get<std::size_t>(); });
    json out = {{"experiment", experiment}, {"figures", std::move(specs)}, {"models", std::move(models)},
                {"quantiles", "linear interpolation between closest ranks (type 7), over the model's accepted uploads, from "
                              "histograms of 0.05 % wide bins (within 0.05 % of the exact quantiles)"}};
    std::lock_guard<std::mutex> lock(mu_);
    if (table_cache_.size() >= 256) table_cache_.clear();
    table_cache_[experiment] = {generation, Clock::now(), out};
    return out;
}

json Crowd::standing(const StoredRun &run) {
    const std::optional<UploadStatus> st = store_.status(run.id);
    const ModelValues model = model_values(run.gpu.key, true);
    const std::vector<FigureValue> own = upload_figures(judged_parts(run.document));
    json figures = json::array();
    std::map<std::pair<std::string, std::string>, std::string> labels;
    for (const FigureStanding &s : standings(own, model)) {
        if (labels.empty() || !labels.count({s.experiment, s.figure}))
            for (const FigureSpec &f : figure_specs(s.experiment)) labels[{s.experiment, f.id}] = f.label;
        json j = {{"experiment", s.experiment}, {"figure", s.figure}, {"label", labels[{s.experiment, s.figure}]}, {"value", s.value}, {"n", s.n}};
        if (s.n) {
            j["median"] = s.median;
            j["q1"] = s.q1;
            j["q3"] = s.q3;
            j["percentile"] = s.percentile;
        }
        if (s.judged) {
            j["robust_z"] = s.z;
            j["unusual"] = s.unusual;
        }
        figures.push_back(std::move(j));
    }
    return {{"id", run.id},
            {"gpu", run.gpu.key},
            {"status", st ? st->status : "accepted"},
            {"reason", st ? st->reason : ""},
            {"rule", {{"min_uploads", kMinUploadsToJudge}, {"unusual_z", kUnusualZ}, {"hold_z", kHoldZ}, {"mad_floor", kMadFloor}}},
            {"figures", std::move(figures)}};
}

}  // namespace gmserver
