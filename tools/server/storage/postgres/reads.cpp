// The PostgreSQL storage's reads: runs, models, points, and the aggregates
// as readers see them (the stored ones with the model's queued uploads merged
// in).
#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/point_codec.hpp"
#include "storage/postgres/internal.hpp"

namespace gmserver::postgres {

std::optional<StoredRun> PostgresStorage::get(const std::string &id) {
    if (id.find('\0') != std::string::npos) return std::nullopt;
    return with_connection([&](PGconn *c, bool &) -> std::optional<StoredRun> {
        Result r = exec(c, "get_run", {id}, PGRES_TUPLES_OK);
        if (r.rows() == 0) return std::nullopt;
        return run_from(r, 0);
    });
}

std::vector<GpuCount> PostgresStorage::gpus() {
    Result r = with_connection([&](PGconn *c, bool &) { return exec(c, "gpus", {}, PGRES_TUPLES_OK); });
    std::vector<GpuCount> out;
    out.reserve(r.rows());
    for (int i = 0; i < r.rows(); ++i) {
        GpuCount g;
        g.gpu = gpu_from(r, i, 0);
        g.uploads = r.u64(i, 7);
        out.push_back(std::move(g));
    }
    return out;
}

std::vector<PointRow> PostgresStorage::points(const std::string &gpu_key, const std::string &experiment) {
    std::vector<PointRow> out;
    for_each_point(gpu_key, experiment, [&](const PointRow &p) { out.push_back(p); });
    return out;
}

// Point sets arrive one at a time (libpq's single-row mode): a popular
// model has thousands, which a whole PGresult would hold at once.
void PostgresStorage::for_each_point(const std::string &gpu_key, const std::string &experiment,
                                     const std::function<void(const PointRow &)> &visit) {
    if (gpu_key.find('\0') != std::string::npos || experiment.find('\0') != std::string::npos) return;
    with_connection([&](PGconn *c, bool &committing) {
        const char *params[] = {gpu_key.c_str(), experiment.c_str()};
        if (!PQsendQueryPrepared(c, "points", 2, params, nullptr, nullptr, 1) || !PQsetSingleRowMode(c))
            throw std::runtime_error("postgres: points: " + trim(PQerrorMessage(c)));
        std::string error;
        // Every result is read, even after a failure, so that the connection
        // is idle again when it goes back to the pool.
        while (PGresult *raw = PQgetResult(c)) {
            Result r(raw);
            const ExecStatusType st = PQresultStatus(raw);
            if (st == PGRES_SINGLE_TUPLE && error.empty()) {
                // Rows have reached the caller: a retry would visit them twice.
                committing = true;
                try {
                    visit_stored_points("postgres", r.bytes(0, 1), r.text(0, 0), experiment, visit);
                } catch (const std::exception &e) {
                    error = e.what();
                }
            } else if (st != PGRES_SINGLE_TUPLE && st != PGRES_TUPLES_OK && error.empty()) {
                error = "postgres: points: " + trim(PQerrorMessage(c));
            }
        }
        if (!error.empty()) throw std::runtime_error(error);
        return 0;
    });
}

std::vector<StoredRun> PostgresStorage::runs_of(const std::string &gpu_key, std::size_t limit) {
    if (gpu_key.find('\0') != std::string::npos || limit == 0) return {};
    // LIMIT takes a signed bigint: clamp a "no limit" SIZE_MAX.
    const std::string lim = std::to_string(std::min<std::size_t>(limit, 1ull << 62));
    Result r = with_connection([&](PGconn *c, bool &) { return exec(c, "runs_of", {gpu_key, lim}, PGRES_TUPLES_OK); });
    std::vector<StoredRun> out;
    out.reserve(r.rows());
    for (int i = 0; i < r.rows(); ++i) {
        StoredRun s;
        s.id = r.text(i, 0);
        s.submission_id = r.text(i, 1);
        s.created_at = r.text(i, 2);
        s.gpu = gpu_from(r, i, 3);
        out.push_back(std::move(s));
    }
    return out;
}

std::uint64_t PostgresStorage::count() {
    Result r = with_connection([&](PGconn *c, bool &) { return exec(c, "count", {}, PGRES_TUPLES_OK); });
    return r.u64(0, 0);
}

std::optional<std::string> PostgresStorage::aggregate(const std::string &gpu_key, const std::string &experiment) {
    if (gpu_key.find('\0') != std::string::npos || experiment.find('\0') != std::string::npos) return std::nullopt;
    return with_connection([&](PGconn *c, bool &) -> std::optional<std::string> {
        Result r = exec(c, "aggregate", {gpu_key, experiment}, PGRES_TUPLES_OK);
        if (r.text(0, 1) != "t") {
            if (r.null(0, 0)) return std::nullopt;
            return r.text(0, 0);
        }
        // Uploads not folded yet: merged into a copy of the stored aggregate.
        const std::string limit = std::to_string(kMaxMergedPending);
        const HistogramAggregate h =
            merged_pending(exec(c, "aggregate_pending", {gpu_key, experiment, limit}, PGRES_TUPLES_OK, true), gpu_key);
        if (h.empty()) return std::nullopt;
        return h.result().dump();
    });
}

std::optional<std::string> PostgresStorage::aggregate_state(const std::string &gpu_key, const std::string &experiment) {
    if (gpu_key.find('\0') != std::string::npos || experiment.find('\0') != std::string::npos) return std::nullopt;
    return with_connection([&](PGconn *c, bool &) -> std::optional<std::string> {
        const std::string limit = std::to_string(kMaxMergedPending);
        Result p = exec(c, "aggregate_pending", {gpu_key, experiment, limit}, PGRES_TUPLES_OK, true);
        // Nothing queued: the stored histogram as it is.
        if (p.rows() == 1 && is_stored_state(p, 0)) return std::string(p.bytes(0, 1));
        const HistogramAggregate h = merged_pending(p, gpu_key);
        if (h.empty()) return std::nullopt;
        return h.encode();
    });
}

std::vector<std::pair<std::string, std::string>> PostgresStorage::aggregates_of_experiment(const std::string &experiment) {
    if (experiment.find('\0') != std::string::npos) return {};
    std::map<std::string, std::string> by_model;
    // The queue first: an upload folded between the two reads is then
    // still read again below, never missed.
    Result m = with_connection([&](PGconn *c, bool &) { return exec(c, "queued_models", {}, PGRES_TUPLES_OK); });
    Result r = with_connection([&](PGconn *c, bool &) { return exec(c, "results_of_experiment", {experiment}, PGRES_TUPLES_OK); });
    for (int i = 0; i < r.rows(); ++i) by_model.emplace(r.text(i, 0), r.text(i, 1));
    // Models with queued uploads: read again with them merged.
    std::vector<std::string> queued;
    for (int i = 0; i < m.rows(); ++i) queued.push_back(m.text(i, 0));
    return with_queued_merged(std::move(by_model), queued,
                              [&](const std::string &key) { return aggregate(key, experiment); });
}

std::vector<std::optional<std::string>> PostgresStorage::aggregates(const std::string &gpu_key,
                                                                    const std::vector<std::string> &experiments) {
    std::vector<std::optional<std::string>> out(experiments.size());
    if (gpu_key.find('\0') != std::string::npos) return out;
    std::map<std::string, std::size_t> index;
    BinaryArray names(kTextOid);
    for (std::size_t i = 0; i < experiments.size(); ++i) {
        if (experiments[i].find('\0') != std::string::npos || !index.emplace(experiments[i], i).second) continue;
        names.add(experiments[i]);
    }
    if (index.empty()) return out;
    const std::string arr = names.bytes();
    with_connection([&](PGconn *c, bool &) {
        if (exec(c, "model_queued", {gpu_key}, PGRES_TUPLES_OK).text(0, 0) != "t") {
            Result r = exec(c, "results_of", {gpu_key, Param(arr, true)}, PGRES_TUPLES_OK);
            for (int i = 0; i < r.rows(); ++i) {
                auto it = index.find(r.text(i, 0));
                if (it != index.end()) out[it->second] = r.text(i, 1);
            }
            return 0;
        }
        // Queued uploads: merged into copies of the stored histograms.
        const std::string limit = std::to_string(kMaxMergedPending);
        Result p = exec(c, "states_pending_of", {gpu_key, Param(arr, true), limit}, PGRES_TUPLES_OK, true);
        std::map<std::string, HistogramAggregate> h;
        PointSetFolder folder("postgres");
        // The stored histograms first, then the queued uploads into them
        // (in the order of the queue), whatever order the rows came in.
        for (int i = 0; i < p.rows(); ++i)
            if (is_stored_state(p, i)) h[p.text(i, 1)] = HistogramAggregate::decode(p.bytes(i, 2));
        for (int i = 0; i < p.rows(); ++i)
            if (!is_stored_state(p, i)) folder.fold(h[p.text(i, 1)], p.bytes(i, 2), +1, "an upload of " + gpu_key);
        for (const auto &[experiment, agg] : h) {
            auto it = index.find(experiment);
            if (it != index.end() && !agg.empty()) out[it->second] = agg.result().dump();
        }
        return 0;
    });
    return out;
}

std::uint64_t PostgresStorage::pending() {
    Result r = with_connection([&](PGconn *c, bool &) { return exec(c, "pending", {}, PGRES_TUPLES_OK); });
    return r.u64(0, 0);
}

QueueState PostgresStorage::queue_state() {
    Result r = with_connection([&](PGconn *c, bool &) { return exec(c, "queue_state", {}, PGRES_TUPLES_OK); });
    return {r.u64(0, 0), r.text(0, 1)};
}

// The stored histogram with the queued uploads' point sets folded into it.
HistogramAggregate PostgresStorage::merged_pending(const Result &p, const std::string &gpu_key) {
    HistogramAggregate h;
    for (int i = 0; i < p.rows(); ++i)
        if (is_stored_state(p, i)) h = HistogramAggregate::decode(p.bytes(i, 1));
    PointSetFolder folder("postgres");
    for (int i = 0; i < p.rows(); ++i)
        if (!is_stored_state(p, i)) folder.fold(h, p.bytes(i, 1), +1, "an upload of " + gpu_key);
    return h;
}

// The seven GPU columns (key, name, cc, memory, bus width, driver, runtime)
// that every query returning a GPU selects in this order from `first` on.
GpuIdentity PostgresStorage::gpu_from(const Result &r, int row, int first) {
    GpuIdentity g;
    g.key = r.text(row, first);
    g.name = r.text(row, first + 1);
    g.compute_capability = r.text(row, first + 2);
    g.memory_bytes = r.u64(row, first + 3);
    g.bus_width_bits = r.i32(row, first + 4);
    g.driver_version = r.text(row, first + 5);
    g.runtime_version = r.text(row, first + 6);
    return g;
}

StoredRun PostgresStorage::run_from(const Result &r, int row) {
    StoredRun s;
    s.id = r.text(row, 0);
    s.submission_id = r.text(row, 1);
    s.delete_token_hash = r.text(row, 2);
    s.created_at = r.text(row, 3);
    s.gpu = gpu_from(r, row, 4);
    // Uploads from before packed_document hold JSON text in document.
    if (r.null(row, 12)) {
        s.document = r.text(row, 11);
        return s;
    }
    std::size_t n = 0;
    unsigned char *packed = PQunescapeBytea(reinterpret_cast<const unsigned char *>(PQgetvalue(r.get(), row, 12)), &n);
    if (!packed) throw std::runtime_error("postgres: out of memory reading a document");
    try {
        s.document = decompress_document(std::string_view(reinterpret_cast<const char *>(packed), n));
    } catch (...) {
        PQfreemem(packed);
        throw;
    }
    PQfreemem(packed);
    return s;
}

}  // namespace gmserver::postgres
