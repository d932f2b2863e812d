// gmlab-server-fill: stores many uploads quickly, for bench/server_load.py.
//
//   gmlab-server-fill --db URL --document RUN.json --count N [--jitter 0.03]
//                     [--threads T] [--full-documents] [--seed S] [--no-fold]
//
// Each upload is the document's points (validated as the server validates
// them) with every value scaled by a per-upload factor within +-jitter and a
// per-point one within +-jitter/3, so that the aggregates' histograms are as
// wide as real uploads of one model make them. Uploads go through
// Storage::insert, exactly as the server stores them (queued for the
// aggregates in the same transaction), dated one second apart before 2001 so
// that real uploads stay the newest. Their stored document is a small stub
// unless --full-documents: a GPU page reads only the newest upload's document,
// and a full copy for each would make the fill write gigabytes.
//
// Then, unless --no-fold, the queued uploads are folded into the aggregates
// with Storage::refresh, the same code the servers' refreshers run, and the
// time it took is printed.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ops/command_line.hpp"
#include "crowd/key_figures.hpp"
#include "storage/storage.hpp"
#include "upload/sha256.hpp"
#include "upload/validate.hpp"

namespace {

std::string hex128(std::mt19937_64 &rng) {
    char buf[33];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(rng()),
                  static_cast<unsigned long long>(rng()));
    return buf;
}

std::string date(long long seconds_since_epoch) {
    const std::time_t t = static_cast<std::time_t>(seconds_since_epoch);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// What the command line asks for.
struct FillFlags {
    std::string db, document_path;
    long long count = 0;
    double jitter = 0.03;
    int threads = 4;
    unsigned long long seed = 1;
    bool full_documents = false, fold = true;
};

const char *const kUsage =
    "usage: gmlab-server-fill --db URL --document RUN.json --count N [--jitter F] [--threads T]"
    " [--full-documents] [--seed S] [--no-fold]\n";

// -1 to go on, else the exit status 2 (the reason on stderr). No --help: the
// usage line is printed for any option it does not know.
int read_flags(int argc, char **argv, FillFlags &f) {
    CLI::App app("gmlab-server-fill", "gmlab-server-fill");
    app.set_help_flag();
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    app.add_option("--db", f.db);
    app.add_option("--document", f.document_path);
    app.add_option("--count", f.count)->check(gmserver::non_negative_number());
    app.add_option("--jitter", f.jitter);
    app.add_option("--threads", f.threads);
    app.add_option("--seed", f.seed);
    app.add_flag("--full-documents", f.full_documents);
    app.add_flag_callback("--no-fold", [&f] { f.fold = false; });
    if (const int status = gmserver::parse_command_line(app, argc, argv, "gmlab-server-fill", kUsage); status >= 0)
        return status;
    f.threads = std::max(1, f.threads);
    if (f.db.empty() || f.document_path.empty()) {
        std::cerr << "gmlab-server-fill: --db and --document are required\n";
        return 2;
    }
    return -1;
}

}  // namespace

int main(int argc, char **argv) {
    FillFlags flags;
    if (const int status = read_flags(argc, argv, flags); status >= 0) return status;
    const std::string &db = flags.db, &document_path = flags.document_path;
    const long long count = flags.count;
    const double jitter = flags.jitter;
    const int threads = flags.threads;
    const unsigned long long seed = flags.seed;
    const bool full_documents = flags.full_documents, fold = flags.fold;
    std::ifstream in(document_path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) {
        std::cerr << "gmlab-server-fill: cannot read " << document_path << "\n";
        return 1;
    }
    const gmserver::ValidatedUpload v = gmserver::validate_upload(text.str());
    if (!v.ok) {
        std::cerr << "gmlab-server-fill: " << document_path << ": " << v.error_message << "\n";
        return 1;
    }
    gmserver::StorageOptions options;
    options.background_refresh = false;
    std::unique_ptr<gmserver::Storage> storage;
    try {
        storage = gmserver::open_storage(db, options);
    } catch (const std::exception &e) {
        std::cerr << "gmlab-server-fill: " << e.what() << "\n";
        return 1;
    }
    const std::string stub = R"({"schema":"gmlab.run/1","note":"stored by gmlab-server-fill for the benchmark"})";
    // The upload's headline figures go with its points, as the server stores
    // them (the figure set), so that the views across models have them too.
    std::vector<gmserver::PointRow> base = v.points;
    for (gmserver::PointRow &r : gmserver::figure_rows("", gmserver::upload_figures(gmserver::judged_parts(v.document))))
        base.push_back(std::move(r));

    std::atomic<long long> next{0}, failures{0};
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            std::mt19937_64 rng(seed * 1000003 + static_cast<unsigned long long>(t));
            std::uniform_real_distribution<double> u(-1, 1);
            std::vector<gmserver::PointRow> points = base;
            for (long long i; (i = next++) < count;) {
                gmserver::StoredRun run;
                run.id = hex128(rng);
                run.delete_token_hash = gmserver::sha256_hex(hex128(rng));
                run.created_at = date(946684800 - count + i);  // before 2001-01-01, one second apart
                run.gpu = v.gpu;
                run.document = full_documents ? v.document : stub;
                const double f = 1 + jitter * u(rng);
                for (std::size_t k = 0; k < points.size(); ++k) {
                    points[k].run_id = run.id;
                    points[k].value = base[k].value * f * (1 + jitter / 3 * u(rng));
                }
                try {
                    storage->insert(run, points, nullptr);
                } catch (const std::exception &e) {
                    if (failures++ < 5) std::cerr << "gmlab-server-fill: " << e.what() << "\n";
                }
            }
        });
    }
    for (std::thread &th : pool) th.join();
    const double fill_s = seconds_since(t0);
    std::printf("filled %lld uploads of %zu points in %.1f s (%.0f/s, %d threads), %lld failed\n", count,
                base.size(), fill_s, count / std::max(fill_s, 1e-9), threads, failures.load());
    std::fflush(stdout);
    if (fold) {
        const auto t1 = std::chrono::steady_clock::now();
        std::size_t folded = 0;
        try {
            for (std::size_t n; (n = storage->refresh(1024)) > 0;) folded += n;
        } catch (const std::exception &e) {
            std::cerr << "gmlab-server-fill: folding: " << e.what() << "\n";
            return 1;
        }
        const double fold_s = seconds_since(t1);
        std::printf("folded %zu queued uploads into the aggregates in %.1f s (%.0f/s); %llu still queued\n", folded,
                    fold_s, folded / std::max(fold_s, 1e-9), static_cast<unsigned long long>(storage->pending()));
    }
    return failures > 0 ? 1 : 0;
}
