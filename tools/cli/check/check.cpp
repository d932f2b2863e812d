#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "check_command.hpp"
#include "check_judge.hpp"
#include "check_measure.hpp"
#include "check_output.hpp"
#include "children.hpp"
#include "commands.hpp"
#include "devices.hpp"
#include "gmlab.h"
#include "http_get.hpp"

namespace gmcli {

using nlohmann::json;

namespace check {

extern const char kCheckReferenceJson[];  // check_reference_data.cpp, generated from check_reference.json

const json &embedded_reference() {
    static const json doc = json::parse(kCheckReferenceJson, nullptr, false);
    static const json none;
    return doc.is_discarded() ? none : doc;
}

}  // namespace check

namespace {

// Time kept back from the budget for the peer pairs, judging and writing.
constexpr double kAfterChildrenS = 12;

bool read_json_file(const std::string &path, const char *flag, json *out) {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        std::cerr << "gmlab check: " << flag << " " << path << ": cannot be read\n";
        return false;
    }
    std::stringstream ss;
    ss << f.rdbuf();
    *out = json::parse(ss.str(), nullptr, false);
    if (out->is_discarded() || !out->is_object()) {
        std::cerr << "gmlab check: " << flag << " " << path << ": not a JSON object\n";
        return false;
    }
    return true;
}

bool write_text(const std::string &path, const std::string &text) {
    // Written beside and renamed: node_exporter never reads half a file.
    const std::string tmp = path + ".tmp." + std::to_string(getpid());
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    f.close();
    if (!f || std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        std::cerr << "gmlab check: cannot write " << path << "\n";
        return false;
    }
    return true;
}

// The crowd's quantiles of `model` from the server, or null with *why.
json fetch_crowd(const std::string &server, const std::string &model, std::string *why) {
    const std::string url = server_base(server) + "/api/v1/gpus/" + path_segment(model) + "/quantiles";
    HttpGetResult got = http_get_json(url);
    if (got.doc.is_null()) {
        *why = got.why;
        return json();
    }
    if (!got.doc.contains("figures") || !got.doc["figures"].is_object()) {
        *why = url + " did not answer a quantiles document";
        return json();
    }
    return got.doc;
}

// The child's part: one GPU measured, its block written to opt.child_out.
int check_child(const CheckOptions &opt) {
    const json gpu = check::measure_gpu(opt.child_device, opt.host_lock);
    return write_text(opt.child_out, gpu.dump(2) + "\n") ? kOk : kFailed;
}

// Every selected GPU measured at once, then the peer pairs: the figures document.
int measure_node(const std::vector<int> &ordinals, double budget_s, json *figures) {
    const auto start = std::chrono::steady_clock::now();
    char dir_template[] = "/tmp/gmlab-check-XXXXXX";
    const char *dir = mkdtemp(dir_template);
    if (!dir) {
        std::cerr << "gmlab check: cannot make a temporary folder\n";
        return kFailed;
    }
    const std::string lock = std::string(dir) + "/host-link.lock";
    std::vector<ChildSpec> children;
    for (int d : ordinals)
        children.push_back({d, {"check", "--child-device", std::to_string(d), "--child-out", std::string(dir) + "/gpu" + std::to_string(d) + ".json",
                                "--host-lock", lock}});
    std::cerr << "gmlab check: measuring " << ordinals.size() << " GPU" << (ordinals.size() == 1 ? "" : "s") << " at once\n";
    const std::vector<ChildOutcome> outcome = run_children(children, std::max(10.0, budget_s - kAfterChildrenS), std::cerr);
    json gpus = json::array();
    for (std::size_t i = 0; i < ordinals.size(); ++i) {
        const std::string path = children[i].args[4];
        json gpu;
        std::ifstream f(path);
        if (f) gpu = json::parse(f, nullptr, false);
        if (!gpu.is_object()) {
            const std::string why = outcome[i].why.empty() ? "exit code " + std::to_string(outcome[i].exit_code) : outcome[i].why;
            gpu = {{"ordinal", ordinals[i]}, {"figures", json::object()}, {"errors", {"the measurement did not finish: " + why}}};
        }
        std::remove(path.c_str());
        gpus.push_back(std::move(gpu));
    }
    std::remove(lock.c_str());
    rmdir(dir);
    *figures = {{"schema", "gmlab.check/1"}, {"library", gm_version()}, {"gpus", gpus}};
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    (*figures)["host"] = host;
    std::vector<int> peers;
    for (const json &g : gpus)
        if (!g.value("mig", false) && g.value("errors", json::array()).empty()) peers.push_back(g["ordinal"].get<int>());
    if (peers.size() >= 2) {
        const auto t = std::chrono::steady_clock::now();
        (*figures)["peer"] = check::measure_peer(peers, gpus);
        (*figures)["peer"]["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    }
    (*figures)["wall_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    (*figures)["finished_unix"] = static_cast<double>(std::time(nullptr));
    return kOk;
}

int choose_check_devices(const std::string &spec, std::vector<int> *ordinals) {
    const EnvLookup env = [](const char *name) { return std::getenv(name); };
    // The list's form first (a GPU named twice, not a number), whether or not there is a GPU.
    if (spec != "all" && !spec.empty())
        if (const DeviceSelection form = select_devices(spec, 1 << 20, env); !form.error.empty()) {
            std::cerr << "gmlab check: " << form.error << "\n";
            return kUsage;
        }
    int visible = 0;
    if (gm_device_count(&visible) != GM_OK || visible <= 0) {
        std::cerr << "gmlab check: " << gm_last_error() << "\n";
        return kNoDevice;
    }
    const DeviceSelection sel = select_devices(spec, visible, env);
    if (!sel.error.empty()) {
        std::cerr << "gmlab check: " << sel.error << "\n";
        return sel.no_such_device ? kNoSuchDevice : kUsage;
    }
    *ordinals = sel.ordinals;
    return kOk;
}

}  // namespace

int cmd_check(const CheckOptions &opt) {
    if (opt.child_device >= 0) return check_child(opt);
    json baseline;
    if (!opt.baseline.empty() && !read_json_file(opt.baseline, "--baseline", &baseline)) return kUsage;
    json figures;
    if (!opt.figures.empty()) {
        if (!read_json_file(opt.figures, "--figures", &figures)) return kUsage;
        if (figures.contains("figures") && figures["figures"].is_object() && figures["figures"].contains("gpus"))
            figures = json(figures["figures"]);  // the --json output of an earlier check
    } else {
        std::vector<int> ordinals;
        if (const int code = choose_check_devices(opt.devices, &ordinals); code != kOk) return code;
        if (const int code = measure_node(ordinals, opt.budget_s, &figures); code != kOk) return code;
        if (!opt.save_figures.empty() && !write_text(opt.save_figures, figures.dump(2) + "\n")) return kFailed;
    }
    // The GPUs' model, for the distributions (a malformed document is refused by judge below).
    std::string model;
    if (figures.contains("gpus") && figures["gpus"].is_array() && !figures["gpus"].empty() && figures["gpus"][0].is_object())
        model = figures["gpus"][0].value("name", "");
    if (baseline.is_object()) {
        if (const std::string why = check::model_mismatch(baseline, model); !why.empty()) {
            std::cerr << "gmlab check: --baseline " << opt.baseline << ": " << why << "\n";
            return kUsage;
        }
    }
    json crowd;
    std::string crowd_note = "no --server given";
    if (!opt.server.empty()) {
        std::string why;
        crowd = fetch_crowd(opt.server, model, &why);
        if (crowd.is_null()) {
            crowd_note = "judged without the crowd: " + why;
            std::cerr << "gmlab check: " << crowd_note << "\n";
        } else {
            crowd_note = "crowd of " + model + " from " + opt.server;
        }
    }
    json verdicts;
    try {
        verdicts = check::judge(figures, crowd, baseline, check::embedded_reference());
    } catch (const std::exception &e) {
        std::cerr << "gmlab check: " << (opt.figures.empty() ? "the measured figures" : "--figures " + opt.figures) << ": " << e.what() << "\n";
        return opt.figures.empty() ? kFailed : kUsage;
    }
    verdicts["judged_with"]["crowd_source"] = crowd_note;
    if (!opt.prometheus.empty() && !write_text(opt.prometheus, check::prometheus_text(figures, verdicts))) return kFailed;
    if (opt.as_json)
        std::cout << json{{"figures", figures}, {"verdicts", verdicts}}.dump(2) << "\n";
    else
        check::write_table(std::cout, figures, verdicts);
    return verdicts["node"]["exit_code"].get<int>();
}

}  // namespace gmcli
