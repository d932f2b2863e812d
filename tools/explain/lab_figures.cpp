#include "explain/lab_figures.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

namespace gmexplain {

using nlohmann::json;

namespace {

std::optional<json> read_json(const std::string &path) {
    // A run document is megabytes; one explanation (and a test explaining many
    // records against one run) reads it once.
    static std::map<std::string, std::pair<long, json>> cache;
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    struct stat st {};
    const long stamp = stat(path.c_str(), &st) == 0 ? long(st.st_mtime) * 1000000000L + long(st.st_size) : -1;
    auto hit = cache.find(path);
    if (hit != cache.end() && hit->second.first == stamp) return hit->second.second;
    std::ifstream in(path);
    if (!in) return std::nullopt;
    try {
        json doc = json::parse(in);
        cache[path] = {stamp, doc};
        return doc;
    } catch (const std::exception &) {
        return std::nullopt;
    }
}

std::string device_of(const json &doc) {
    if (doc.contains("device") && doc["device"].contains("name") && doc["device"]["name"].is_string())
        return doc["device"]["name"].get<std::string>();
    return "";
}

std::vector<std::string> search_folders() {
    std::vector<std::string> out;
    if (const char *runs = std::getenv("GMLAB_RUNS_DIR")) {
        std::stringstream s(runs);
        for (std::string d; std::getline(s, d, ':');)
            if (!d.empty()) out.push_back(d);
    }
    if (const char *state = std::getenv("XDG_STATE_HOME"); state && *state) out.push_back(std::string(state) + "/gmlab/runs");
    else if (const char *home = std::getenv("HOME")) out.push_back(std::string(home) + "/.local/state/gmlab/runs");
    return out;
}

const json *result_of(const json &doc, const std::string &experiment) {
    if (!doc.contains("results")) return nullptr;
    for (const auto &r : doc["results"])
        if (r.contains("experiment") && r["experiment"].value("name", "") == experiment) return &r;
    return nullptr;
}

std::optional<double> at_path(const json &point, const std::string &path) {
    const json *p = &point;
    std::stringstream s(path);
    for (std::string part; std::getline(s, part, '.');) {
        if (!p->is_object() || !p->contains(part)) return std::nullopt;
        p = &(*p)[part];
    }
    return p->is_number() ? std::optional<double>(p->get<double>()) : std::nullopt;
}

// The point of the series nearest x, and its value.
std::optional<std::pair<double, double>> nearest(const json &series, const std::string &value, double x) {
    std::optional<std::pair<double, double>> best;
    for (const auto &pt : series["points"]) {
        const auto px = at_path(pt, "x");
        const auto v = at_path(pt, value);
        if (!px || !v) continue;
        if (!best || std::fabs(*px - x) < std::fabs(best->first - x)) best = std::make_pair(*px, *v);
    }
    return best;
}

}  // namespace

std::optional<LabRun> find_lab_run(const std::string &explicit_path, const std::string &gpu_name, std::string *why) {
    if (!explicit_path.empty()) {
        auto doc = read_json(explicit_path);
        if (!doc) {
            *why = explicit_path + " is not a readable gmlab run document";
            return std::nullopt;
        }
        if (device_of(*doc) != gpu_name) {
            *why = explicit_path + " was measured on " + device_of(*doc) + ", not on this program's GPU (" + gpu_name + ")";
            return std::nullopt;
        }
        return LabRun{*doc, explicit_path, gpu_name, false, {}};
    }
    std::optional<LabRun> newest;
    double newest_time = -1;
    std::string searched;
    for (const auto &folder : search_folders()) {
        searched += (searched.empty() ? "" : ", ") + folder;
        DIR *dir = opendir(folder.c_str());
        if (!dir) continue;
        while (dirent *e = readdir(dir)) {
            const std::string name = e->d_name;
            if (name.size() < 6 || name.substr(name.size() - 5) != ".json") continue;
            const std::string path = folder + "/" + name;
            struct stat st {};
            if (stat(path.c_str(), &st) != 0 || double(st.st_mtime) <= newest_time) continue;
            auto doc = read_json(path);
            if (!doc || device_of(*doc) != gpu_name || !doc->contains("results")) continue;
            newest_time = double(st.st_mtime);
            newest = LabRun{*doc, path, gpu_name, false, {}};
        }
        closedir(dir);
    }
    if (!newest)
        *why = "no gmlab run of " + gpu_name + " in " + (searched.empty() ? std::string("(no folder)") : searched) +
               ": run `gmlab run --json FILE` once on this GPU and pass --lab-run FILE, or explain with --measure";
    return newest;
}

std::optional<double> lab_summary(const LabRun &run, const std::string &experiment, const std::string &figure) {
    const json *r = result_of(run.doc, experiment);
    if (!r || !r->contains("summary")) return std::nullopt;
    return at_path((*r)["summary"], figure);
}

namespace {

Cost read_cost(const LabRun &run, const CostSpec &spec, const Lookup &figures);

}  // namespace

Cost look_up_cost(const LabRun &run, const CostSpec &spec, const Lookup &figures) {
    Cost c = read_cost(run, spec, figures);
    c.from = run.path;
    if (run.measured) {
        auto m = run.measurements.find(spec.experiment);
        if (m != run.measurements.end()) c.measurement = m->second;
        if (!c.found && m == run.measurements.end())
            c.missing = spec.experiment + " was not measured now (see the notes)";
    }
    return c;
}

namespace {

Cost read_cost(const LabRun &run, const CostSpec &spec, const Lookup &figures) {
    Cost c;
    const json *r = result_of(run.doc, spec.experiment);
    if (!r) {
        c.missing = "the run " + run.path + " has no " + spec.experiment + " result";
        return c;
    }
    if (!spec.summary.empty()) {
        const auto v = lab_summary(run, spec.experiment, spec.summary);
        if (!v) {
            c.missing = spec.experiment + " has no summary figure " + spec.summary + " in " + run.path;
            return c;
        }
        c.found = true;
        c.value = *v;
        c.source = spec.experiment + " / " + spec.summary;
        return c;
    }
    const json *series = nullptr;
    for (const auto &s : (*r)["series"])
        if (s.value("name", "") == spec.series) series = &s;
    if (!series) {
        c.missing = spec.experiment + " has no series \"" + spec.series + "\" in " + run.path;
        return c;
    }
    const auto x = evaluate(spec.at, figures);
    if (!x) {
        c.missing = "the point to read (" + spec.at + ") needs a figure that was not counted";
        return c;
    }
    const auto point = nearest(*series, spec.value, *x);
    if (!point) {
        c.missing = spec.experiment + " / " + spec.series + " has no " + spec.value;
        return c;
    }
    c.at_x = point->first;
    c.value = point->second;
    if (!spec.baseline.empty()) {
        const auto bx = evaluate(spec.baseline, figures);
        const auto base = bx ? nearest(*series, spec.value, *bx) : std::nullopt;
        if (!base || base->second == 0) {
            c.missing = spec.experiment + " / " + spec.series + " has no baseline point at " + spec.baseline;
            return c;
        }
        c.baseline_x = base->first;
        c.value = point->second / base->second;
    }
    c.found = true;
    c.source = spec.experiment + " / " + spec.series;
    return c;
}

}  // namespace

}  // namespace gmexplain
