// gmlab contribute: `gmlab run` of the standard suite and the upload of
// gmlab-upload, composed for someone who just wants to add their GPU to a
// results server: which server, consent, where the run and the delete token
// are kept, and one exit code per kind of failure (commands.hpp).
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "devices.hpp"
#include "user_config.hpp"
#include "document.hpp"
#ifdef GM_HAVE_UPLOAD
#include "upload.hpp"
#endif

namespace gmcli {

using nlohmann::json;

namespace {

const char *env(const char *name) { return std::getenv(name); }

// Where a run is kept when --json is not given: beside the upload spool.
std::string default_run_file(int device) {
    std::string dir;
    if (const char *state = env("XDG_STATE_HOME"); state && state[0] == '/')
        dir = std::string(state) + "/gmlab/runs";
    else if (const char *home = env("HOME"); home && *home)
        dir = std::string(home) + "/.local/state/gmlab/runs";
    else
        dir = ".";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);  // a failure shows when the file is written
    char stamp[32];
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    return dir + "/gmlab-" + stamp + "-device" + std::to_string(device) + ".json";
}

#ifdef GM_HAVE_UPLOAD

// Shows the exact document and the changes made to it; true when the user
// agrees (or --yes).
bool consent(const gmupload::Prepared &p, const std::string &server, bool yes) {
    std::cout << "\nThis document would be sent to " << gmupload::results_endpoint(server)
              << " and be public there. Before upload:\n";
    for (const auto &c : p.changes) std::cout << "  - " << c << "\n";
    if (yes) {
        std::cout << "(--yes: sending without asking; gmlab-upload FILE --dry-run shows a document in full)\n";
        return true;
    }
    std::cout << "The exact document:\n" << p.doc.dump(2) << "\n";
    std::cerr << "Send it to " << server << "? [y/N] " << std::flush;
    std::string answer;
    if (!std::getline(std::cin, answer)) return false;
    return answer == "y" || answer == "Y" || answer == "yes" || answer == "YES" || answer == "Yes";
}

// Measures the standard suite on `device` (or reads opt.run_file) and
// offers the run; returns an exit code.
int contribute_one(const ContributeOptions &opt, const std::string &server, int device) {
    RunOptions run = opt.run;
    json doc;
    int ran = kOk;
    std::string kept;
    if (!opt.run_file.empty()) {
        try {
            doc = gmreport::load_run(opt.run_file);
        } catch (const std::exception &e) {
            std::cerr << "gmlab: contribute: " << e.what() << " (nothing sent)\n";
            return kUsage;
        }
        run.json_file = kept = opt.run_file;
    } else {
        run.device = device;
        run.experiments.clear();  // the standard suite
        run.json_file = run.json_file.empty() ? default_run_file(device) : expand_device_placeholder(run.json_file, device);
        ran = run_on_device(run, &doc);
        if (doc.is_null()) return ran == kOk ? kFailed : ran;  // nothing finished: nothing to send
        std::error_code ec;
        kept = std::filesystem::exists(run.json_file, ec) ? run.json_file
                                                          : "no file (" + run.json_file + " could not be written)";
    }
    if (ran != kOk)
        std::cerr << "gmlab: contribute: not every experiment finished on device " << device
                  << "; the ones that did are offered\n";

    gmupload::Prepared p;
    try {
        p = gmupload::prepare(doc, run.json_file);
    } catch (const std::exception &e) {
        std::cerr << "gmlab: contribute: " << e.what() << " (nothing sent; the run is in " << kept << ")\n";
        return kFailed;
    }
    if (!consent(p, server, opt.yes)) {
        std::cerr << "gmlab: contribute: not sent (consent refused); the run is kept in " << kept << "\n";
        return kRefused;
    }
    gmupload::SendOptions send;
    send.server = server;
    send.insecure = opt.insecure;
    send.log = &std::cerr;
    std::string spool;
    try {
        spool = gmupload::default_spool_dir();
    } catch (const std::exception &e) {
        spool = ".";
    }
    const gmupload::Delivery d = gmupload::deliver(p, send, spool, std::cout, std::cerr);
    switch (d.code) {
        case gmupload::kOk: break;
        case gmupload::kRejected:
            std::cerr << "gmlab: contribute: the server rejected the run; it is kept in " << kept << "\n";
            return kRejected;
        default:
            if (!d.spool_error.empty()) {
                std::cerr << "gmlab: contribute: the server is unreachable and the spool cannot be written ("
                          << d.spool_error << "); the run is kept in " << kept << "\n";
                return kSpoolFailed;
            }
            std::cerr << "gmlab: contribute: the server is unreachable; the upload waits in " << d.spooled
                      << " (gmlab-upload --flush --server " << server << ")\n";
            return kUnreachable;
    }
    if (d.sent.delete_token.empty()) return kOk;  // a repeated submission: no new token
    const json record = {{"server", server},        {"id", d.sent.id},
                         {"url", d.sent.url},       {"gpu_url", d.sent.gpu_url},
                         {"device", doc["device"].value("name", "")},
                         {"delete_token", d.sent.delete_token},
                         {"created_at", doc.value("created_at", "")}};
    try {
        const std::string path = save_delete_token(config_dir(env), record);
        std::cout << "delete token kept in " << path << "\n";
    } catch (const std::exception &e) {
        std::cerr << "gmlab: contribute: the delete token could not be kept (" << e.what()
                  << "); copy it from above\n";
    }
    return kOk;
}

#endif  // GM_HAVE_UPLOAD

}  // namespace

int cmd_contribute(const ContributeOptions &opt) {
#ifndef GM_HAVE_UPLOAD
    (void)opt;
    std::cerr << "gmlab: contribute is not available: this gmlab was built without libcurl "
                 "(configure with -DGM_BUILD_UPLOAD=ON)\n";
    return kUsage;
#else
    // Everything that can be refused is refused before the suite runs.
    ServerChoice server;
    try {
        server = choose_server(opt.server, env);
    } catch (const ConfigError &e) {
        std::cerr << "gmlab: " << e.what() << "\n";
        return kBadConfig;
    }
    if (server.url.empty()) {
        std::cerr << "gmlab: " << how_to_set_server(env) << "\n";
        return kBadServer;
    }
    if (const std::string why = server_url_problem(server.url); !why.empty()) {
        std::cerr << "gmlab: " << why << " (from " << server.source << ")\n";
        return kBadServer;
    }
    if (!opt.yes && !isatty(STDIN_FILENO)) {
        std::cerr << "gmlab: contribute asks before sending, and there is no terminal to ask: add --yes to send "
                     "without asking (nothing was measured or sent)\n";
        return kRefused;
    }
    std::vector<int> ordinals = {0};  // --run: one document, no device
    if (opt.run_file.empty())
        if (const int code = choose_devices(opt.run, &ordinals); code != kOk) return code;
    int result = kOk;
    for (int d : ordinals) {
        const int code = contribute_one(opt, server.url, d);
        if (result == kOk) result = code;
        if (code == kUsage || code == kNoDevice) break;
    }
    return result;
#endif
}

}  // namespace gmcli
