#include "crowd.hpp"
#include "utc_now.hpp"

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
    for (const std::string &n : catalogued_experiments())
        if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    return names;
}

bool Crowd::known_experiment(const std::string &name) {
    const std::vector<std::string> names = experiment_names();
    return std::find(names.begin(), names.end(), name) != names.end();
}

ModelValues Crowd::model_values(const std::string &gpu_key) {
    std::uint64_t generation;
    {
        std::lock_guard<std::mutex> lock(mu_);
        const auto it = model_cache_.find(gpu_key);
        if (it != model_cache_.end() && Clock::now() - it->second.first < kModelValuesLife) return it->second.second;
        generation = model_generation_[gpu_key];
    }
    ModelValues values;
    store_.model_values(gpu_key, "", [&](const std::string &e, const std::string &f, double v) { values[{e, f}].push_back(v); });
    for (auto &[key, v] : values) std::sort(v.begin(), v.end());
    std::lock_guard<std::mutex> lock(mu_);
    if (model_generation_[gpu_key] == generation) {
        if (model_cache_.size() >= 256) model_cache_.clear();
        model_cache_[gpu_key] = {Clock::now(), values};
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
    }
    if (changed_) changed_(gpu_key);
}

UploadStatus Crowd::admit(const StoredRun &run, const json &document) {
    const std::vector<FigureValue> figures = upload_figures(document);
    const std::vector<std::string> health = health_problems(document);
    const ModelValues model = model_values(run.gpu.key);
    UploadStatus st;
    st.run_id = run.id;
    st.gpu_key = run.gpu.key;
    st.created_at = run.created_at;
    st.reason = hold_reason(standings(figures, model), health);
    st.status = st.reason.empty() ? "accepted" : "held";
    store_.record(st, figures);
    if (st.status == "held") {
        storage_.set_counted(run.id, false);
        store_.moderate(st, "hold", st.reason, "outlier rule", utc_now());
        bump(run.gpu.key);
        return st;
    }
    // Accepted: add its values to the cached ones in place (kept sorted) rather
    // than reading the model's values again at its next upload.
    std::lock_guard<std::mutex> lock(mu_);
    ++generation_;
    ++model_generation_[run.gpu.key];
    auto it = model_cache_.find(run.gpu.key);
    if (it != model_cache_.end()) {
        for (const FigureValue &f : figures) {
            std::vector<double> &v = it->second.second[{f.experiment, f.figure}];
            v.insert(std::upper_bound(v.begin(), v.end(), f.value), f.value);
        }
    }
    table_cache_.clear();
    return st;
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

json Crowd::experiment_table(const std::string &experiment) {
    std::uint64_t generation;
    {
        std::lock_guard<std::mutex> lock(mu_);
        generation = generation_;
        const auto it = table_cache_.find(experiment);
        if (it != table_cache_.end() && it->second.generation == generation && Clock::now() - it->second.at < kTableLife) return it->second.table;
    }
    std::map<std::string, std::map<std::string, std::vector<double>>> by_model;
    store_.experiment_values(experiment, [&](const std::string &key, const std::string &figure, double v) { by_model[key][figure].push_back(v); });
    json specs = json::array();
    for (const FigureSpec &f : figure_specs(experiment))
        specs.push_back({{"id", f.id}, {"label", f.label}, {"unit", f.unit}, {"basis", f.basis}});
    std::map<std::string, GpuIdentity> identities;
    if (!by_model.empty())
        for (const GpuCount &g : gpus()) identities[g.gpu.key] = g.gpu;
    json models = json::array();
    for (auto &[key, figures] : by_model) {
        json fj = json::object();
        std::size_t uploads = 0;
        for (auto &[id, v] : figures) {
            std::sort(v.begin(), v.end());
            uploads = std::max(uploads, v.size());
            fj[id] = {{"n", v.size()}, {"median", sorted_quantile(v, 0.5)}, {"q1", sorted_quantile(v, 0.25)}, {"q3", sorted_quantile(v, 0.75)}};
        }
        const auto id = identities.find(key);
        models.push_back({{"key", key}, {"name", id != identities.end() ? id->second.name : key}, {"uploads", uploads}, {"figures", std::move(fj)}});
    }
    // Most uploaded models first.
    std::stable_sort(models.begin(), models.end(), [](const json &a, const json &b) { return a["uploads"].get<std::size_t>() > b["uploads"].get<std::size_t>(); });
    json out = {{"experiment", experiment}, {"figures", std::move(specs)}, {"models", std::move(models)},
                {"quantiles", "linear interpolation between closest ranks (type 7), over the model's accepted uploads"}};
    std::lock_guard<std::mutex> lock(mu_);
    if (table_cache_.size() >= 256) table_cache_.clear();
    table_cache_[experiment] = {generation, Clock::now(), out};
    return out;
}

json Crowd::standing(const StoredRun &run) {
    const std::optional<UploadStatus> st = store_.status(run.id);
    const ModelValues model = model_values(run.gpu.key);
    json figures = json::array();
    std::map<std::pair<std::string, std::string>, std::string> labels;
    for (const FigureStanding &s : standings(store_.figures_of_run(run.id), model)) {
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
