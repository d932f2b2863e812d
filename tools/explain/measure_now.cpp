#include "explain/measure_now.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>

#include "gmlab.h"

namespace gmexplain {

using nlohmann::json;

namespace {

// Sizes, strides and offsets are whole numbers: 3.0 is written 3.
json number(double v) {
    const double r = std::round(v);
    if (std::fabs(v - r) < 1e-9 && std::fabs(r) < 9e15) return json(static_cast<long long>(r));
    return json(v);
}

std::string utc_now() {
    std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

void add_points(json &params, const std::string &name, const json &more) {
    json &list = params[name];
    if (!list.is_array()) list = json::array();
    for (const auto &v : more)
        if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
    std::sort(list.begin(), list.end());
}

// One request folded into the measurement of its experiment.
void fold(json &params, const json &request) {
    const json &wanted = request.value("parameters", json::object());
    const std::string points = request.value("points", "");
    const json range = request.value("range", json::array());
    for (const auto &[key, value] : wanted.items()) {
        if (key == points) {
            add_points(params, key, value);
        } else if (range.size() == 2 && key == range[0].get<std::string>() && params.contains(key) && params[key].is_number()) {
            params[key] = number(std::min(params[key].get<double>(), value.get<double>()));
        } else if (range.size() == 2 && key == range[1].get<std::string>() && params.contains(key) && params[key].is_number()) {
            params[key] = number(std::max(params[key].get<double>(), value.get<double>()));
        } else {
            params[key] = value;
        }
    }
}

}  // namespace

json measurement_request(const CostSpec &spec, const Lookup &figures) {
    json params = spec.measure_params.is_object() ? spec.measure_params : json::object();
    json request = {{"experiment", spec.experiment}};
    if (!spec.measure_points.empty()) {
        json xs = json::array();
        for (const std::string &e : {spec.at, spec.baseline}) {
            if (e.empty()) continue;
            const auto x = evaluate(e, figures);
            if (!x) return nullptr;
            xs.push_back(number(*x));
        }
        params[spec.measure_points] = json::array();
        add_points(params, spec.measure_points, xs);
        request["points"] = spec.measure_points;
    }
    if (spec.measure_range.size() == 2) {
        const auto x = evaluate(spec.at, figures);
        if (!x) return nullptr;
        for (const auto &name : spec.measure_range) params[name] = number(*x);
        request["range"] = spec.measure_range;
    }
    request["parameters"] = params;
    return request;
}

std::vector<json> requests_in(const json &doc) {
    std::vector<json> out;
    auto collect = [&](const json &findings) {
        for (const auto &f : findings) {
            const json &cost = f.value("cost", json::object());
            if (cost.value("found", false) || !cost.contains("measure") || cost["measure"].is_null()) continue;
            json r = cost["measure"];
            r["rules"] = json::array({f.value("rule", "")});
            out.push_back(r);
        }
    };
    for (const auto &k : doc.value("kernels", json::array())) collect(k.value("findings", json::array()));
    if (doc.contains("run")) collect(doc["run"].value("findings", json::array()));
    return out;
}

std::vector<Measurement> plan_measurements(const std::vector<json> &requests, const QuickParameters &quick) {
    std::vector<Measurement> plan;
    for (const auto &r : requests) {
        const std::string experiment = r.value("experiment", "");
        if (experiment.empty()) continue;
        auto it = std::find_if(plan.begin(), plan.end(), [&](const Measurement &m) { return m.experiment == experiment; });
        if (it == plan.end()) {
            Measurement m;
            m.experiment = experiment;
            m.parameters = quick ? quick(experiment) : json::object();
            if (!m.parameters.is_object()) m.parameters = json::object();
            // A request's own points and range replace the quick ones: only what is asked for is measured.
            if (r.contains("points")) m.parameters.erase(r["points"].get<std::string>());
            for (const auto &name : r.value("range", json::array())) m.parameters.erase(name.get<std::string>());
            plan.push_back(m);
            it = plan.end() - 1;
        }
        fold(it->parameters, r);
        for (const auto &rule : r.value("rules", json::array()))
            if (std::find(it->rules.begin(), it->rules.end(), rule.get<std::string>()) == it->rules.end())
                it->rules.push_back(rule.get<std::string>());
    }
    return plan;
}

std::optional<LabRun> lab_from_measurements(const std::string &gpu_name, const std::vector<Measurement> &plan,
                                            const MeasuredSession &session, std::vector<std::string> *notes) {
    if (!session.error.empty()) {
        notes->push_back("costs could not be measured now: " + session.error);
        return std::nullopt;
    }
    const std::string measured_on = session.device.value("name", "");
    if (measured_on != gpu_name) {
        notes->push_back("costs were not measured now: this process sees " + measured_on + ", the program ran on " + gpu_name);
        return std::nullopt;
    }
    LabRun lab;
    lab.path = kMeasuredNow;
    lab.device_name = gpu_name;
    lab.measured = true;
    lab.doc = {{"device", session.device}, {"results", json::array()}};
    for (std::size_t i = 0; i < plan.size() && i < session.results.size(); ++i) {
        const MeasuredResult &r = session.results[i];
        if (!r.error.empty() || r.result.is_null()) {
            notes->push_back(plan[i].experiment + " could not be measured now: " + r.error);
            continue;
        }
        lab.doc["results"].push_back(r.result);
        lab.measurements[plan[i].experiment] = {{"experiment", plan[i].experiment},
                                                {"parameters", r.result.value("parameters", plan[i].parameters)},
                                                {"seconds", r.seconds},
                                                {"measured_at", r.measured_at},
                                                {"settings", session.settings},
                                                {"rules", plan[i].rules}};
    }
    if (lab.measurements.empty()) return std::nullopt;
    return lab;
}

json registry_quick_parameters(const std::string &experiment) {
    char *text = nullptr;
    if (gm_experiment_describe_json(&text, experiment.c_str()) != GM_OK || !text) return json::object();
    json quick = json::object();
    try {
        quick = json::parse(text).value("quick_parameters", json::object());
    } catch (const std::exception &) {
    }
    gm_free_string(text);
    return quick.is_object() ? quick : json::object();
}

namespace {

std::string failure(gm_context *ctx, gm_status status) {
    std::string why = ctx ? gm_context_last_error(ctx) : "";
    if (why.empty()) why = gm_last_error();
    return std::string(gm_status_string(status)) + (why.empty() ? "" : ": " + why);
}

// Few repetitions, no counters: a cost figure in seconds, not a lab run.
const std::vector<std::pair<gm_setting, double>> &quick_settings() {
    static const std::vector<std::pair<gm_setting, double>> settings = {
        {GM_SETTING_WARMUP, 1}, {GM_SETTING_MIN_REPETITIONS, 5}, {GM_SETTING_MAX_REPETITIONS, 5},
        {GM_SETTING_MIN_TIME_MS, 0}, {GM_SETTING_COUNTERS, GM_COUNTERS_OFF}};
    return settings;
}

MeasuredResult run_one(gm_context *ctx, const Measurement &m) {
    MeasuredResult out;
    out.measured_at = utc_now();
    const auto t0 = std::chrono::steady_clock::now();
    gm_result *result = nullptr;
    const gm_status st = gm_run(&result, ctx, m.experiment.c_str(), m.parameters.dump().c_str());
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (st != GM_OK) {
        out.error = failure(ctx, st);
        gm_result_destroy(result);
        return out;
    }
    char *text = nullptr;
    const gm_status written = gm_result_to_json(&text, result);
    gm_result_destroy(result);
    if (written != GM_OK || !text) {
        out.error = failure(ctx, written);
        return out;
    }
    try {
        out.result = json::parse(text);
    } catch (const std::exception &e) {
        out.error = std::string("the result is not JSON: ") + e.what();
    }
    gm_free_string(text);
    return out;
}

}  // namespace

MeasuredSession measure_with_libgmlab(int device, const std::vector<Measurement> &plan) {
    MeasuredSession s;
    gm_context *ctx = nullptr;
    if (const gm_status st = gm_context_create(&ctx, device); st != GM_OK) {
        s.error = "no context on device " + std::to_string(device) + ": " + failure(nullptr, st);
        return s;
    }
    char *info = nullptr;
    if (gm_device_info_json(&info, ctx) == GM_OK && info) {
        try {
            s.device = json::parse(info);
        } catch (const std::exception &) {
        }
        gm_free_string(info);
    }
    s.settings = json::object();
    for (const auto &[setting, value] : quick_settings()) {
        if (gm_context_set(ctx, setting, value) != GM_OK) {
            s.error = "setting " + std::string(gm_setting_name(setting)) + ": " + failure(ctx, GM_ERROR_INVALID_ARGUMENT);
            gm_context_destroy(ctx);
            return s;
        }
        s.settings[gm_setting_name(setting)] = value;
    }
    for (const auto &m : plan) s.results.push_back(run_one(ctx, m));
    gm_context_destroy(ctx);
    return s;
}

}  // namespace gmexplain
