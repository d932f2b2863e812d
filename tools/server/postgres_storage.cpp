// Storage over PostgreSQL through libpq: the same tables and the same
// semantics as the SQLite backend, made for several server processes on one
// database. Every statement is prepared once per connection and executed with
// parameters; values never become SQL text.
//
// Everything that must hold across replicas is in the database: idempotency
// (runs.submission_id is UNIQUE), delete tokens (their hashes in runs), rate
// limits (rate_buckets, one atomic statement per request) and the aggregates
// (agg_queue, aggregates, models; see fold_model()).
#include "postgres_storage.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "aggregate.hpp"
#include "point_codec.hpp"
#include "rate_limit.hpp"
#include "refresher.hpp"

namespace gmserver {

bool is_postgres_url(const std::string &url) {
    return url.rfind("postgres://", 0) == 0 || url.rfind("postgresql://", 0) == 0;
}

namespace {

// Several server processes may start at once against one database: the
// advisory lock serialises the schema statements (CREATE ... IF NOT EXISTS can
// fail on a concurrent catalog insert) and the migrations.
//
// point_sets: one row per (run, experiment) with the points packed
// (point_codec.hpp), as in SQLite: an upload is about 25 rows instead of one
// per point. It carries no FOREIGN KEY (its per-row check costs); rows are
// only written in the statement that writes their run, and remove() deletes
// both in one transaction. `data` is stored uncompressed (EXTERNAL): doubles do
// not compress, and trying costs. They are read by run; a model's are found
// through runs_gpu (the index by model that earlier versions had is dropped:
// it cost every insert two dozen index entries for no read the server makes).
//
// agg_queue: the uploads not yet folded into the aggregates, written in the
// statement that stores the run. aggregates: per (model, experiment) the
// histograms (state) and the API's JSON (result). models: per model the count
// of folded uploads. rate_buckets: UNLOGGED (no WAL; emptied after a crash of
// PostgreSQL, which only resets the limits).
const char *const kSchema = R"SQL(
CREATE TABLE IF NOT EXISTS runs (
    id                TEXT PRIMARY KEY,
    submission_id     TEXT UNIQUE,
    delete_token_hash TEXT NOT NULL,
    created_at        TEXT NOT NULL,
    gpu_key           TEXT NOT NULL,
    gpu_name          TEXT NOT NULL,
    cc                TEXT NOT NULL,
    memory_bytes      BIGINT NOT NULL,
    bus_width         INTEGER NOT NULL,
    driver            TEXT NOT NULL,
    runtime           TEXT NOT NULL,
    document          TEXT
);
CREATE INDEX IF NOT EXISTS runs_gpu ON runs(gpu_key, created_at);
CREATE TABLE IF NOT EXISTS point_sets (
    run_id     TEXT NOT NULL,
    gpu_key    TEXT NOT NULL,
    experiment TEXT NOT NULL,
    data       BYTEA NOT NULL
);
CREATE INDEX IF NOT EXISTS point_sets_run ON point_sets(run_id);
DROP INDEX IF EXISTS point_sets_model;
CREATE TABLE IF NOT EXISTS agg_queue (
    run_id     TEXT PRIMARY KEY,
    gpu_key    TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS agg_queue_model ON agg_queue(gpu_key, created_at, run_id);
CREATE TABLE IF NOT EXISTS aggregates (
    gpu_key    TEXT NOT NULL,
    experiment TEXT NOT NULL,
    uploads    BIGINT NOT NULL,
    state      BYTEA NOT NULL,
    result     TEXT NOT NULL,
    PRIMARY KEY (gpu_key, experiment)
);
CREATE INDEX IF NOT EXISTS aggregates_experiment ON aggregates(experiment);
CREATE TABLE IF NOT EXISTS models (
    gpu_key TEXT PRIMARY KEY,
    uploads BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS uncounted (
    run_id  TEXT PRIMARY KEY,
    gpu_key TEXT NOT NULL
);
CREATE UNLOGGED TABLE IF NOT EXISTS rate_buckets (
    key    TEXT PRIMARY KEY,
    tokens DOUBLE PRECISION NOT NULL,
    at     DOUBLE PRECISION NOT NULL,
    rate   DOUBLE PRECISION NOT NULL,
    burst  DOUBLE PRECISION NOT NULL,
    ok     BOOLEAN NOT NULL
);
)SQL";

constexpr long long kSchemaLock = 7246315502771;
// The first key of the two-key advisory locks that serialise the folds and
// deletes of one model (the second is hashtext(gpu_key); a collision only
// serialises two models).
constexpr int kModelLockClass = 0x474d4147;  // "GMAG"

const char *const kRunColumns =
    "id, COALESCE(submission_id, ''), delete_token_hash, created_at, gpu_key, gpu_name, cc, "
    "memory_bytes, bus_width, driver, runtime, document, packed_document";

// Named statements, prepared on every new connection.
struct Statement {
    const char *name;
    std::string sql;
    int params;
};

const std::vector<Statement> &statements() {
    static const std::vector<Statement> all = {
        // The run, its point sets and its queue entry in one statement (so one
        // round trip and one transaction). ON CONFLICT on submission_id: a
        // concurrent insert of the same submission waits for the first one and
        // then inserts nothing, and neither do the other two parts.
        {"insert_run",
         "WITH r AS (INSERT INTO runs (id, submission_id, delete_token_hash, created_at, gpu_key, gpu_name, cc, "
         "memory_bytes, bus_width, driver, runtime, packed_document) "
         "VALUES ($1, NULLIF($2, ''), $3, $4, $5, $6, $7, $8::bigint, $9::integer, $10, $11, $12::bytea) "
         "ON CONFLICT (submission_id) DO NOTHING RETURNING id, gpu_key, created_at), "
         "q AS (INSERT INTO agg_queue (run_id, gpu_key, created_at) SELECT id, gpu_key, created_at FROM r), "
         "p AS (INSERT INTO point_sets (run_id, gpu_key, experiment, data) "
         "SELECT r.id, r.gpu_key, t.e, t.d FROM r, unnest($13::text[], $14::bytea[]) AS t(e, d)) "
         "SELECT id FROM r",
         14},
        {"get_run", std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = $1", 1},
        {"get_by_submission", std::string("SELECT ") + kRunColumns + " FROM runs WHERE submission_id = $1", 1},
        {"run_model", "SELECT gpu_key FROM runs WHERE id = $1", 1},
        {"lock_run", "SELECT 1 FROM runs WHERE id = $1 FOR UPDATE", 1},
        {"unqueue_run", "DELETE FROM agg_queue WHERE run_id = $1", 1},
        {"run_point_sets", "SELECT experiment, data FROM point_sets WHERE run_id = $1", 1},
        {"delete_point_sets", "DELETE FROM point_sets WHERE run_id = $1", 1},
        {"delete_run", "DELETE FROM runs WHERE id = $1", 1},
        {"unfold_model", "UPDATE models SET uploads = uploads - 1 WHERE gpu_key = $1 AND uploads > 0", 1},
        // Moderation (set_counted): uploads left out of the aggregates.
        {"uncounted_has", "SELECT 1 FROM uncounted WHERE run_id = $1", 1},
        {"uncount", "INSERT INTO uncounted (run_id, gpu_key) VALUES ($1, $2) ON CONFLICT DO NOTHING", 2},
        {"recount", "DELETE FROM uncounted WHERE run_id = $1", 1},
        {"requeue_run", "INSERT INTO agg_queue (run_id, gpu_key, created_at) SELECT id, gpu_key, created_at FROM runs WHERE id = $1 "
                        "ON CONFLICT DO NOTHING", 1},
        // Counts: every upload is either folded (models) or queued, never both;
        // one statement reads both as of one moment. The identity shown for a
        // model is that of its most recent upload. Most uploads first.
        {"gpus",
         "SELECT l.gpu_key, l.gpu_name, l.cc, l.memory_bytes, l.bus_width, l.driver, l.runtime, c.n FROM "
         "(SELECT k, sum(n)::bigint AS n FROM (SELECT gpu_key AS k, uploads AS n FROM models UNION ALL "
         "SELECT gpu_key, count(*) FROM agg_queue GROUP BY gpu_key) u GROUP BY k HAVING sum(n) > 0) c "
         "CROSS JOIN LATERAL (SELECT gpu_key, gpu_name, cc, memory_bytes, bus_width, driver, runtime FROM runs "
         "WHERE gpu_key = c.k ORDER BY created_at DESC, id DESC LIMIT 1) l ORDER BY c.n DESC, c.k",
         0},
        // A model's point sets through its runs (runs_gpu, point_sets_run).
        {"points",
         "SELECT p.run_id, p.data FROM runs r JOIN point_sets p ON p.run_id = r.id AND p.experiment = $2 "
         "WHERE r.gpu_key = $1 ORDER BY r.created_at, p.run_id",
         2},
        {"runs_of",
         "SELECT id, COALESCE(submission_id, ''), created_at, gpu_key, gpu_name, cc, memory_bytes, "
         "bus_width, driver, runtime FROM runs WHERE gpu_key = $1 "
         "ORDER BY created_at DESC, id LIMIT $2::bigint",
         2},
        {"count", "SELECT count(*) FROM runs", 0},
        {"pending", "SELECT count(*) FROM agg_queue", 0},
        // Refill and take in one statement: the row lock of ON CONFLICT ... DO
        // UPDATE serialises the requests of one client across replicas, and
        // the database's clock is the one clock they share. Every SET
        // expression sees the row as it was.
        {"take_token",
         "INSERT INTO rate_buckets AS b (key, tokens, at, rate, burst, ok) "
         "VALUES ($1, $3::float8 - 1, extract(epoch FROM clock_timestamp())::float8, $2::float8, $3::float8, true) "
         "ON CONFLICT (key) DO UPDATE SET "
         "tokens = CASE WHEN least(EXCLUDED.burst, b.tokens + greatest(0, EXCLUDED.at - b.at) * EXCLUDED.rate) >= 1 "
         "THEN least(EXCLUDED.burst, b.tokens + greatest(0, EXCLUDED.at - b.at) * EXCLUDED.rate) - 1 "
         "ELSE least(EXCLUDED.burst, b.tokens + greatest(0, EXCLUDED.at - b.at) * EXCLUDED.rate) END, "
         "ok = least(EXCLUDED.burst, b.tokens + greatest(0, EXCLUDED.at - b.at) * EXCLUDED.rate) >= 1, "
         "at = EXCLUDED.at, rate = EXCLUDED.rate, burst = EXCLUDED.burst "
         "RETURNING ok, tokens",
         3},
        // Buckets that have refilled are the same as no bucket.
        {"sweep_tokens",
         "DELETE FROM rate_buckets WHERE tokens + (extract(epoch FROM clock_timestamp())::float8 - at) * rate >= burst",
         0},
        // The aggregate as stored, and whether the model has queued uploads.
        {"aggregate",
         "SELECT (SELECT result FROM aggregates WHERE gpu_key = $1 AND experiment = $2), "
         "EXISTS (SELECT 1 FROM agg_queue WHERE gpu_key = $1)",
         2},
        // The stored histograms (k = 0) and the point sets of the oldest queued
        // uploads (k = 1), in one statement: one snapshot.
        {"aggregate_pending",
         "SELECT 0 AS k, state FROM aggregates WHERE gpu_key = $1 AND experiment = $2 UNION ALL "
         "(SELECT 1, p.data FROM (SELECT run_id, created_at FROM agg_queue WHERE gpu_key = $1 "
         "ORDER BY created_at, run_id LIMIT $3::bigint) q JOIN point_sets p ON p.run_id = q.run_id "
         "AND p.experiment = $2 ORDER BY q.created_at, q.run_id)",
         3},
        // aggregates(): whether the model has queued uploads; the stored
        // results of several experiments; and, when it has, their stored
        // histograms (k = 0) and the point sets of the oldest queued uploads
        // (k = 1) in one statement (one snapshot).
        {"model_queued", "SELECT EXISTS (SELECT 1 FROM agg_queue WHERE gpu_key = $1)", 1},
        {"results_of", "SELECT experiment, result FROM aggregates WHERE gpu_key = $1 AND experiment = ANY($2::text[])", 2},
        {"states_pending_of",
         "SELECT 0 AS k, experiment, state FROM aggregates WHERE gpu_key = $1 AND experiment = ANY($2::text[]) UNION ALL "
         "(SELECT 1, p.experiment, p.data FROM (SELECT run_id, created_at FROM agg_queue WHERE gpu_key = $1 "
         "ORDER BY created_at, run_id LIMIT $3::bigint) q JOIN point_sets p ON p.run_id = q.run_id "
         "AND p.experiment = ANY($2::text[]) ORDER BY q.created_at, q.run_id)",
         3},
        // aggregates_of_experiment(): one experiment's stored result of every model.
        {"results_of_experiment", "SELECT gpu_key, result FROM aggregates WHERE experiment = $1", 1},
        {"queued_models", "SELECT DISTINCT gpu_key FROM agg_queue", 0},
        {"try_lock_model", "SELECT pg_try_advisory_xact_lock(" + std::to_string(kModelLockClass) + ", hashtext($1))", 1},
        {"lock_model", "SELECT pg_advisory_xact_lock(" + std::to_string(kModelLockClass) + ", hashtext($1))", 1},
        // Takes the model's oldest queued uploads off the queue; their point
        // sets are read by the list of their ids, in a statement of its own
        // (fold_model says why).
        {"dequeue_runs",
         "DELETE FROM agg_queue WHERE run_id IN (SELECT run_id FROM agg_queue WHERE gpu_key = $1 "
         "ORDER BY created_at, run_id LIMIT $2::bigint) RETURNING run_id, created_at",
         2},
        {"point_sets_of_runs", "SELECT run_id, experiment, data FROM point_sets WHERE run_id = ANY($1::text[])", 1},
        {"load_states", "SELECT experiment, state FROM aggregates WHERE gpu_key = $1 AND experiment = ANY($2::text[])", 2},
        {"save_states",
         "INSERT INTO aggregates (gpu_key, experiment, uploads, state, result) "
         "SELECT $1, e, u, s, r FROM unnest($2::text[], $3::int8[], $4::bytea[], $5::text[]) AS t(e, u, s, r) "
         "ON CONFLICT (gpu_key, experiment) DO UPDATE SET uploads = EXCLUDED.uploads, state = EXCLUDED.state, "
         "result = EXCLUDED.result",
         5},
        {"drop_states", "DELETE FROM aggregates WHERE gpu_key = $1 AND experiment = ANY($2::text[])", 2},
        {"fold_model",
         "INSERT INTO models (gpu_key, uploads) VALUES ($1, $2::bigint) "
         "ON CONFLICT (gpu_key) DO UPDATE SET uploads = models.uploads + EXCLUDED.uploads",
         2},
    };
    return all;
}

// Owns one PGresult.
class Result {
public:
    explicit Result(PGresult *r) : r_(r) {}
    ~Result() { PQclear(r_); }
    Result(const Result &) = delete;
    Result &operator=(const Result &) = delete;
    Result(Result &&o) noexcept : r_(std::exchange(o.r_, nullptr)) {}
    PGresult *get() const { return r_; }
    int rows() const { return PQntuples(r_); }
    bool null(int row, int col) const { return PQgetisnull(r_, row, col); }
    std::string text(int row, int col) const { return std::string(PQgetvalue(r_, row, col), PQgetlength(r_, row, col)); }
    std::string_view bytes(int row, int col) const {
        return std::string_view(PQgetvalue(r_, row, col), static_cast<std::size_t>(PQgetlength(r_, row, col)));
    }
    std::uint64_t u64(int row, int col) const { return std::strtoull(PQgetvalue(r_, row, col), nullptr, 10); }
    int i32(int row, int col) const { return static_cast<int>(std::strtol(PQgetvalue(r_, row, col), nullptr, 10)); }
    double f64(int row, int col) const { return std::strtod(PQgetvalue(r_, row, col), nullptr); }

private:
    PGresult *r_;
};

// libpq passes text parameters as C strings: an embedded NUL would silently cut
// a value short, and PostgreSQL text cannot hold one anyway.
void check_text(const std::string &s, const char *what) {
    if (s.find('\0') != std::string::npos)
        throw std::runtime_error(std::string("postgres: ") + what + " contains a NUL character");
}

void put_be32(std::string &out, std::uint32_t v) {
    const char b[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
    out.append(b, 4);
}

// A one-dimensional array in PostgreSQL's binary format (array_send): no
// quoting or escaping of its elements, bytea travels as it is.
class BinaryArray {
public:
    explicit BinaryArray(std::uint32_t element_oid) : oid_(element_oid) {}
    void add(std::string_view element) {
        put_be32(body_, static_cast<std::uint32_t>(element.size()));
        body_.append(element.data(), element.size());
        ++n_;
    }
    void add_int8(std::int64_t v) {
        char b[8];
        for (int i = 0; i < 8; ++i) b[i] = char(std::uint64_t(v) >> (56 - 8 * i));
        add(std::string_view(b, 8));
    }
    std::string bytes() const {
        std::string out;
        put_be32(out, n_ ? 1 : 0);  // dimensions
        put_be32(out, 0);           // no NULLs
        put_be32(out, oid_);
        if (n_) {
            put_be32(out, n_);
            put_be32(out, 1);  // lower bound
        }
        return out + body_;
    }

private:
    std::uint32_t oid_, n_ = 0;
    std::string body_;
};
constexpr std::uint32_t kInt8Oid = 20, kTextOid = 25, kByteaOid = 17;

// A statement parameter: text (format 0) or binary (format 1).
struct Param {
    const char *data;
    std::size_t size;
    bool binary = false;
    // Text parameters go as C strings (std::string's own, no copy).
    Param(const std::string &s) : data(s.c_str()), size(s.size()) {}  // NOLINT: the common case
    Param(const std::string &s, bool b) : data(s.data()), size(s.size()), binary(b) {}
};

class PostgresStorage final : public Storage {
public:
    PostgresStorage(std::string url, const StorageOptions &options) : url_(std::move(url)) {
        { Lease first(*this); }  // connects and creates or migrates the schema, or throws
        if (options.background_refresh)
            refresher_ = std::make_unique<BackgroundRefresher>([this](std::size_t n) { return refresh(n); }, kRefreshBatch,
                                                               kRefreshPoll, kRefreshGather);
    }

    ~PostgresStorage() override {
        refresher_.reset();
        for (PGconn *c : idle_) PQfinish(c);
    }

    InsertOutcome insert(const StoredRun &run, const std::vector<PointRow> &points, StoredRun *existing) override {
        const std::string memory = std::to_string(run.gpu.memory_bytes);
        const std::string bus = std::to_string(run.gpu.bus_width_bits);
        for (const std::string *f : {&run.id, &run.submission_id, &run.delete_token_hash, &run.created_at, &run.gpu.key,
                                     &run.gpu.name, &run.gpu.compute_capability, &run.gpu.driver_version,
                                     &run.gpu.runtime_version})
            check_text(*f, "a run field");
        // The document goes compressed (the client's gzip as it came, or zstd),
        // into a column PostgreSQL does not compress again.
        const std::string document = packed_document(run);
        // Points packed per experiment, before any connection is taken.
        std::map<std::string, std::vector<const PointRow *>> by_experiment;
        for (const PointRow &p : points) by_experiment[p.experiment].push_back(&p);
        BinaryArray experiments(kTextOid), sets(kByteaOid);
        for (const auto &[experiment, rows] : by_experiment) {
            check_text(experiment, "an experiment name");
            experiments.add(experiment);
            sets.add(encode_points(rows));
        }
        const std::string exps = experiments.bytes(), data = sets.bytes();
        const InsertOutcome outcome = with_connection([&](PGconn *c, bool &committing) {
            // One statement is one transaction: once it is sent its outcome may
            // be unknown, so it is never retried.
            committing = true;
            Result r = exec(c, "insert_run",
                            {run.id, run.submission_id, run.delete_token_hash, run.created_at, run.gpu.key, run.gpu.name,
                             run.gpu.compute_capability, memory, bus, run.gpu.driver_version, run.gpu.runtime_version,
                             Param(document, true), Param(exps, true), Param(data, true)},
                            PGRES_TUPLES_OK);
            if (r.rows() > 0) return InsertOutcome::Inserted;
            if (existing) {
                Result e = exec(c, "get_by_submission", {run.submission_id}, PGRES_TUPLES_OK);
                if (e.rows() != 1) throw std::runtime_error("postgres: duplicate submission vanished");
                *existing = run_from(e, 0);
            }
            return InsertOutcome::DuplicateSubmission;
        });
        if (outcome == InsertOutcome::Inserted && refresher_) refresher_->poke();
        return outcome;
    }

    std::optional<StoredRun> get(const std::string &id) override {
        if (id.find('\0') != std::string::npos) return std::nullopt;
        return with_connection([&](PGconn *c, bool &) -> std::optional<StoredRun> {
            Result r = exec(c, "get_run", {id}, PGRES_TUPLES_OK);
            if (r.rows() == 0) return std::nullopt;
            return run_from(r, 0);
        });
    }

    // In one transaction, holding the model's lock (so no fold of the model
    // runs meanwhile): a run still queued leaves the queue; a folded one is
    // subtracted from the stored aggregates. Then its rows go.
    bool remove(const std::string &id) override {
        if (id.find('\0') != std::string::npos) return false;
        return with_connection([&](PGconn *c, bool &committing) {
            Result k = exec(c, "run_model", {id}, PGRES_TUPLES_OK);
            if (k.rows() == 0) return false;
            const std::string gpu_key = k.text(0, 0);
            Transaction tx(c);
            exec(c, "lock_model", {gpu_key}, PGRES_TUPLES_OK);
            // A concurrent delete of the same run may have won the lock.
            if (exec(c, "lock_run", {id}, PGRES_TUPLES_OK).rows() == 0) return false;
            // One left out of the aggregates (set_counted) is in neither.
            const bool was_uncounted = affected(exec(c, "recount", {id}, PGRES_COMMAND_OK)) > 0;
            if (affected(exec(c, "unqueue_run", {id}, PGRES_COMMAND_OK)) == 0 && !was_uncounted) {
                subtract_folded(c, id, gpu_key);
            }
            exec(c, "delete_point_sets", {id}, PGRES_COMMAND_OK);
            const bool deleted = affected(exec(c, "delete_run", {id}, PGRES_COMMAND_OK)) > 0;
            committing = true;  // from here on the outcome may be unknown: no retry
            tx.commit();
            return deleted;
        });
    }

    // A run already folded into its model's aggregates leaves them: its point
    // sets are folded out and the model counts one upload less. Inside the
    // caller's transaction, holding the model's lock.
    void subtract_folded(PGconn *c, const std::string &id, const std::string &gpu_key) {
        States states(*this, c, gpu_key);
        Result sets = exec(c, "run_point_sets", {id}, PGRES_TUPLES_OK, true);
        for (int i = 0; i < sets.rows(); ++i) states.fold(sets.text(i, 0), sets.bytes(i, 1), -1);
        states.save();
        exec(c, "unfold_model", {gpu_key}, PGRES_COMMAND_OK);
    }

    // --- Moderation: uploads left out of the aggregates (crowd.hpp) ---
    // In one transaction holding the model's lock, as remove(): leaving out
    // takes the run from the queue, or subtracts it if folded; counting again
    // queues it for the refresher.
    bool set_counted(const std::string &id, bool counted) override {
        if (id.find('\0') != std::string::npos) return false;
        bool requeued = false;
        const bool found = with_connection([&](PGconn *c, bool &committing) {
            requeued = false;
            Result k = exec(c, "run_model", {id}, PGRES_TUPLES_OK);
            if (k.rows() == 0) return false;
            const std::string gpu_key = k.text(0, 0);
            Transaction tx(c);
            exec(c, "lock_model", {gpu_key}, PGRES_TUPLES_OK);
            if (exec(c, "lock_run", {id}, PGRES_TUPLES_OK).rows() == 0) return false;
            const bool uncounted = exec(c, "uncounted_has", {id}, PGRES_TUPLES_OK).rows() > 0;
            if (!counted && !uncounted) {
                if (affected(exec(c, "unqueue_run", {id}, PGRES_COMMAND_OK)) == 0) subtract_folded(c, id, gpu_key);
                exec(c, "uncount", {id, gpu_key}, PGRES_COMMAND_OK);
            } else if (counted && uncounted) {
                exec(c, "recount", {id}, PGRES_COMMAND_OK);
                exec(c, "requeue_run", {id}, PGRES_COMMAND_OK);
                requeued = true;
            }
            committing = true;
            tx.commit();
            return true;
        });
        if (requeued && refresher_) refresher_->poke();
        return found;
    }

    std::vector<GpuCount> gpus() override {
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

    std::vector<PointRow> points(const std::string &gpu_key, const std::string &experiment) override {
        std::vector<PointRow> out;
        for_each_point(gpu_key, experiment, [&](const PointRow &p) { out.push_back(p); });
        return out;
    }

    // Point sets arrive one at a time (libpq's single-row mode): a popular
    // model has thousands, which a whole PGresult would hold at once.
    void for_each_point(const std::string &gpu_key, const std::string &experiment,
                        const std::function<void(const PointRow &)> &visit) override {
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
                    const std::string run_id = r.text(0, 0);
                    try {
                        if (!decode_points(r.bytes(0, 1), run_id, experiment, visit))
                            error = "postgres: the stored points of run " + run_id + " are damaged";
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

    std::vector<StoredRun> runs_of(const std::string &gpu_key, std::size_t limit) override {
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

    std::uint64_t count() override {
        Result r = with_connection([&](PGconn *c, bool &) { return exec(c, "count", {}, PGRES_TUPLES_OK); });
        return r.u64(0, 0);
    }

    bool take_token(const std::string &client, bool write, double rate, double burst, int *retry_after_s) override {
        if (rate <= 0) return true;
        if (burst < 1) burst = 1;
        const std::string key = (write ? "w " : "r ") + client;
        if (key.find('\0') != std::string::npos) return false;
        const std::string r = float_text(rate), b = float_text(burst);
        maybe_sweep_tokens();
        Result res = with_connection([&](PGconn *c, bool &) { return exec(c, "take_token", {key, r, b}, PGRES_TUPLES_OK); });
        if (res.rows() == 1 && res.text(0, 0) == "t") return true;
        if (retry_after_s) *retry_after_s = retry_after_seconds(res.rows() == 1 ? res.f64(0, 1) : 0, rate);
        return false;
    }

    std::optional<std::string> aggregate(const std::string &gpu_key, const std::string &experiment) override {
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

    std::optional<std::string> aggregate_state(const std::string &gpu_key, const std::string &experiment) override {
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

    std::vector<std::pair<std::string, std::string>> aggregates_of_experiment(const std::string &experiment) override {
        if (experiment.find('\0') != std::string::npos) return {};
        std::map<std::string, std::string> by_model;
        // The queue first: an upload folded between the two reads is then
        // still read again below, never missed.
        Result m = with_connection([&](PGconn *c, bool &) { return exec(c, "queued_models", {}, PGRES_TUPLES_OK); });
        Result r = with_connection([&](PGconn *c, bool &) { return exec(c, "results_of_experiment", {experiment}, PGRES_TUPLES_OK); });
        for (int i = 0; i < r.rows(); ++i) by_model.emplace(r.text(i, 0), r.text(i, 1));
        // Models with queued uploads: read again with them merged.
        for (int i = 0; i < m.rows(); ++i) {
            const std::string key = m.text(i, 0);
            if (std::optional<std::string> merged = aggregate(key, experiment)) by_model[key] = std::move(*merged);
            else by_model.erase(key);
        }
        return {by_model.begin(), by_model.end()};
    }

    std::vector<std::optional<std::string>> aggregates(const std::string &gpu_key,
                                                       const std::vector<std::string> &experiments) override {
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
            std::vector<std::string> strings;
            std::vector<HistogramAggregate::Point> points;
            // The stored histograms first, then the queued uploads into them
            // (in the order of the queue), whatever order the rows came in.
            for (int i = 0; i < p.rows(); ++i)
                if (p.bytes(i, 0) == std::string_view("\0\0\0\0", 4))
                    h[p.text(i, 1)] = HistogramAggregate::decode(p.bytes(i, 2));
            for (int i = 0; i < p.rows(); ++i) {
                if (p.bytes(i, 0) == std::string_view("\0\0\0\0", 4)) continue;
                if (!decode_point_set(p.bytes(i, 2), strings, points))
                    throw std::runtime_error("postgres: the stored points of an upload of " + gpu_key + " are damaged");
                h[p.text(i, 1)].fold(strings, points, +1);
            }
            for (const auto &[experiment, agg] : h) {
                auto it = index.find(experiment);
                if (it != index.end() && !agg.empty()) out[it->second] = agg.result().dump();
            }
            return 0;
        });
        return out;
    }

    std::size_t refresh(std::size_t max_runs) override {
        Result m = with_connection([&](PGconn *c, bool &) { return exec(c, "queued_models", {}, PGRES_TUPLES_OK); });
        std::size_t folded = 0;
        for (int i = 0; i < m.rows() && folded < max_runs; ++i) {
            const std::string key = m.text(i, 0);
            while (folded < max_runs) {
                const std::size_t n = fold_model(key, std::min(max_runs - folded, kRefreshBatch));
                folded += n;
                if (n == 0) break;
            }
        }
        return folded;
    }

    std::uint64_t pending() override {
        Result r = with_connection([&](PGconn *c, bool &) { return exec(c, "pending", {}, PGRES_TUPLES_OK); });
        return r.u64(0, 0);
    }

private:
    // The pool: connections are opened on demand up to kMaxConnections and
    // reused; a caller beyond that waits for one to come back.
    static constexpr std::size_t kMaxConnections = 8;
    // Uploads folded per transaction (about 5 MB of point sets).
    static constexpr std::size_t kRefreshBatch = 256;

    class Lease {
    public:
        explicit Lease(PostgresStorage &s, bool fresh = false) : s_(s), c_(s.acquire(fresh)) {}
        ~Lease() { s_.release(c_); }
        Lease(const Lease &) = delete;
        Lease &operator=(const Lease &) = delete;
        PGconn *get() const { return c_; }

    private:
        PostgresStorage &s_;
        PGconn *c_;
    };

    // BEGIN, and ROLLBACK unless commit() was called (a connection left in a
    // failed transaction is not handed to the next caller anyway).
    class Transaction {
    public:
        explicit Transaction(PGconn *c, const char *begin = "BEGIN") : c_(c) { command(c_, begin); }
        ~Transaction() {
            if (!done_) PQclear(PQexec(c_, "ROLLBACK"));
        }
        void commit() {
            done_ = true;
            command(c_, "COMMIT");
        }

    private:
        PGconn *c_;
        bool done_ = false;
    };

    // The stored aggregates of one model's experiments, loaded as a fold or a
    // delete needs them, written back by save(); inside the model's lock.
    class States {
    public:
        States(PostgresStorage &s, PGconn *c, std::string gpu_key) : s_(s), c_(c), key_(std::move(gpu_key)) {}
        // Loads the states of these experiments (one statement for a batch).
        void load(const std::set<std::string> &experiments) {
            BinaryArray names(kTextOid);
            for (const std::string &e : experiments)
                if (!states_.count(e)) names.add(e);
            const std::string arr = names.bytes();
            Result r = s_.exec(c_, "load_states", {key_, Param(arr, true)}, PGRES_TUPLES_OK, true);
            for (int i = 0; i < r.rows(); ++i) states_[r.text(i, 0)] = HistogramAggregate::decode(r.bytes(i, 1));
            for (const std::string &e : experiments) states_.try_emplace(e);
        }
        void fold(const std::string &experiment, std::string_view blob, int sign) {
            if (!states_.count(experiment)) load({experiment});
            if (!decode_point_set(blob, strings_, points_))
                throw std::runtime_error("postgres: the stored points of an upload of " + key_ + " are damaged");
            states_[experiment].fold(strings_, points_, sign);
        }
        void save() {
            BinaryArray put_names(kTextOid), uploads(kInt8Oid), blobs(kByteaOid), results(kTextOid), drop_names(kTextOid);
            bool any_put = false, any_drop = false;
            for (const auto &[experiment, h] : states_) {
                if (h.empty()) {
                    drop_names.add(experiment);
                    any_drop = true;
                    continue;
                }
                put_names.add(experiment);
                uploads.add_int8(static_cast<std::int64_t>(h.uploads()));
                blobs.add(h.encode());
                results.add(h.result().dump());
                any_put = true;
            }
            if (any_put) {
                const std::string a = put_names.bytes(), b = uploads.bytes(), d = blobs.bytes(), e = results.bytes();
                s_.exec(c_, "save_states", {key_, Param(a, true), Param(b, true), Param(d, true), Param(e, true)},
                        PGRES_COMMAND_OK);
            }
            if (any_drop) {
                const std::string a = drop_names.bytes();
                s_.exec(c_, "drop_states", {key_, Param(a, true)}, PGRES_COMMAND_OK);
            }
        }

    private:
        PostgresStorage &s_;
        PGconn *c_;
        const std::string key_;
        std::map<std::string, HistogramAggregate> states_;
        std::vector<std::string> strings_;
        std::vector<HistogramAggregate::Point> points_;
    };

    // Folds up to `limit` of the model's queued uploads, oldest first, in one
    // transaction holding the model's advisory lock: their queue rows are
    // deleted, their points added to the stored histograms, the aggregates'
    // JSON rewritten and the model's count raised, all committed together.
    // Exactly once: a queue row is folded by the transaction that deleted it,
    // and folds (and deletes) of one model never overlap; an upload that
    // commits meanwhile is not seen by this fold and stays queued for the next.
    // Another process folding the model already: 0, it is left to that one.
    // Rows of "aggregate_pending": the stored histogram (k = 0) and the point
    // sets of queued uploads (k = 1).
    static bool is_stored_state(const Result &p, int row) { return p.bytes(row, 0) == std::string_view("\0\0\0\0", 4); }
    // The stored histogram with the queued uploads' point sets folded into it.
    static HistogramAggregate merged_pending(const Result &p, const std::string &gpu_key) {
        HistogramAggregate h;
        for (int i = 0; i < p.rows(); ++i)
            if (is_stored_state(p, i)) h = HistogramAggregate::decode(p.bytes(i, 1));
        std::vector<std::string> strings;
        std::vector<HistogramAggregate::Point> points;
        for (int i = 0; i < p.rows(); ++i) {
            if (is_stored_state(p, i)) continue;
            if (!decode_point_set(p.bytes(i, 1), strings, points))
                throw std::runtime_error("postgres: the stored points of an upload of " + gpu_key + " are damaged");
            h.fold(strings, points, +1);
        }
        return h;
    }

    std::size_t fold_model(const std::string &gpu_key, std::size_t limit) {
        return with_connection([&](PGconn *c, bool &committing) -> std::size_t {
            Transaction tx(c);
            if (exec(c, "try_lock_model", {gpu_key}, PGRES_TUPLES_OK).text(0, 0) != "t") return 0;
            const std::string lim = std::to_string(limit);
            Result q = exec(c, "dequeue_runs", {gpu_key, lim}, PGRES_TUPLES_OK, true);
            if (q.rows() == 0) return 0;
            // The point sets by an explicit list of the dequeued runs. Joined
            // to the DELETE's result in one statement, they were read with a
            // plan made for a guess of how many rows the DELETE returns: once
            // point_sets had statistics (about 2.4 million rows), a fold of 256
            // uploads took seconds instead of tens of milliseconds (measured
            // with 90,000 queued).
            BinaryArray ids(kTextOid);
            for (int i = 0; i < q.rows(); ++i) ids.add(q.bytes(i, 0));
            const std::string arr = ids.bytes();
            Result d = exec(c, "point_sets_of_runs", {Param(arr, true)}, PGRES_TUPLES_OK, true);
            std::map<std::string_view, std::vector<int>> sets_of;  // run id -> its rows in d
            std::set<std::string> experiments;
            for (int i = 0; i < d.rows(); ++i) {
                sets_of[d.bytes(i, 0)].push_back(i);
                experiments.insert(d.text(i, 1));
            }
            States states(*this, c, gpu_key);
            states.load(experiments);
            // Folded in the order of the queue: (created_at, run_id).
            std::vector<int> order(static_cast<std::size_t>(q.rows()));
            for (int i = 0; i < q.rows(); ++i) order[static_cast<std::size_t>(i)] = i;
            std::sort(order.begin(), order.end(), [&](int a, int b) {
                const std::string_view ca = q.bytes(a, 1), cb = q.bytes(b, 1);
                if (ca != cb) return ca < cb;
                return q.bytes(a, 0) < q.bytes(b, 0);
            });
            for (int r : order) {
                const auto it = sets_of.find(q.bytes(r, 0));
                if (it == sets_of.end()) continue;  // a run without points
                for (int i : it->second) states.fold(d.text(i, 1), d.bytes(i, 2), +1);
            }
            const std::size_t runs = static_cast<std::size_t>(q.rows());
            states.save();
            exec(c, "fold_model", {gpu_key, std::to_string(runs)}, PGRES_COMMAND_OK);
            committing = true;
            tx.commit();
            return runs;
        });
    }

    // Now and then (every 60 s per process) the full buckets are deleted, so
    // that many distinct clients cannot grow the table without bound.
    void maybe_sweep_tokens() {
        const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
        auto last = last_sweep_.load();
        if (now - last < std::chrono::steady_clock::duration(std::chrono::seconds(60)).count()) return;
        if (!last_sweep_.compare_exchange_strong(last, now)) return;
        with_connection([&](PGconn *c, bool &) { return exec(c, "sweep_tokens", {}, PGRES_COMMAND_OK); });
    }

    // Runs op(connection, committing) on a pooled connection. A pooled
    // connection may have died since its last use (a server restart, an idle
    // timeout on the way); when op fails on a broken connection before it set
    // `committing`, it runs once more on a new connection.
    template <class Op>
    auto with_connection(Op op) -> decltype(op(nullptr, std::declval<bool &>())) {
        for (int attempt = 0;; ++attempt) {
            Lease c(*this, attempt > 0);
            bool committing = false;
            try {
                return op(c.get(), committing);
            } catch (const std::runtime_error &) {
                if (attempt > 0 || committing || PQstatus(c.get()) == CONNECTION_OK) throw;
                // The other idle connections most likely broke the same way.
                drop_idle();
            }
        }
    }

    // fresh: a new connection, never an idle one (which may be as broken as
    // the one that just failed).
    PGconn *acquire(bool fresh) {
        {
            std::unique_lock<std::mutex> lock(mutex_);
            available_.wait(lock, [&] { return !idle_.empty() || open_ < kMaxConnections; });
            while (!idle_.empty()) {
                PGconn *c = idle_.back();
                idle_.pop_back();
                // A connection the server has closed meanwhile (a restart,
                // pg_terminate_backend) has its end of file waiting: reading
                // it, without blocking, marks the connection bad.
                const bool alive = PQconsumeInput(c) && PQstatus(c) == CONNECTION_OK && !PQisBusy(c);
                if (alive && !fresh) return c;
                PQfinish(c);  // make room for a new one
                --open_;
                if (fresh) break;
            }
            ++open_;  // reserve the slot, connect outside the lock
        }
        try {
            return connect();
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex_);
            --open_;
            available_.notify_one();
            throw;
        }
    }

    void drop_idle() {
        std::vector<PGconn *> old;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            old.swap(idle_);
            open_ -= old.size();
        }
        available_.notify_all();
        for (PGconn *c : old) PQfinish(c);
    }

    void release(PGconn *c) {
        // A connection that broke or was left inside a transaction is not
        // handed to the next caller.
        const bool healthy = PQstatus(c) == CONNECTION_OK && PQtransactionStatus(c) == PQTRANS_IDLE;
        if (!healthy) PQfinish(c);
        std::lock_guard<std::mutex> lock(mutex_);
        if (healthy)
            idle_.push_back(c);
        else
            --open_;
        available_.notify_one();
    }

    PGconn *connect() {
        PGconn *c = PQconnectdb(url_.c_str());
        if (PQstatus(c) != CONNECTION_OK) {
            std::string why = c ? PQerrorMessage(c) : "out of memory";
            PQfinish(c);
            throw std::runtime_error("postgres: cannot connect: " + trim(why));
        }
        try {
            // Quiet the NOTICEs of IF NOT EXISTS; text columns are UTF-8.
            command(c, "SET client_min_messages = warning");
            command(c, "SET client_encoding = 'UTF8'");
            // Large text (the aggregates' answers; documents stored before
            // packed_document): lz4 compresses about twice as fast as the
            // default pglz. Servers built without lz4 (or older than 14) keep pglz.
            PQclear(PQexec(c, "SET default_toast_compression = 'lz4'"));
            if (!schema_ready_) create_schema(c);
            for (const Statement &s : statements()) {
                Result r(PQprepare(c, s.name, s.sql.c_str(), s.params, nullptr));
                check(c, r, PGRES_COMMAND_OK, s.name);
            }
        } catch (...) {
            PQfinish(c);
            throw;
        }
        return c;
    }

    // The schema, and the migrations from earlier versions, in one
    // transaction under an advisory lock: a database from before point_sets
    // has its point rows packed; one from before the aggregates has every
    // upload queued, so that the refreshers fold them all once.
    void create_schema(PGconn *c) {
        Transaction tx(c);
        Result lock(PQexec(c, ("SELECT pg_advisory_xact_lock(" + std::to_string(kSchemaLock) + ")").c_str()));
        check(c, lock, PGRES_TUPLES_OK, "schema lock");
        Result before(PQexec(c, "SELECT to_regclass('agg_queue') IS NULL, to_regclass('points') IS NOT NULL, "
                                "to_regclass('point_sets') IS NULL, NOT EXISTS (SELECT 1 FROM pg_attribute WHERE "
                                "attrelid = to_regclass('runs') AND attname = 'packed_document' AND NOT attisdropped)"));
        check(c, before, PGRES_TUPLES_OK, "schema");
        const bool new_queue = before.text(0, 0) == "t", old_points = before.text(0, 1) == "t",
                   new_sets = before.text(0, 2) == "t", new_packed = before.text(0, 3) == "t";
        Result r(PQexec(c, kSchema));
        if (PQresultStatus(r.get()) != PGRES_COMMAND_OK)
            throw std::runtime_error("postgres: creating the tables: " + trim(PQerrorMessage(c)));
        if (new_sets) command(c, "ALTER TABLE point_sets ALTER COLUMN data SET STORAGE EXTERNAL");
        // Documents stored compressed by the server (a client's gzip or zstd):
        // out of line, not compressed again. Earlier uploads keep their text.
        if (new_packed) {
            command(c, "ALTER TABLE runs ADD COLUMN packed_document BYTEA");
            command(c, "ALTER TABLE runs ALTER COLUMN packed_document SET STORAGE EXTERNAL");
            command(c, "ALTER TABLE runs ALTER COLUMN document DROP NOT NULL");
        }
        if (old_points) migrate_point_rows(c);
        if (new_queue)
            command(c, "INSERT INTO agg_queue (run_id, gpu_key, created_at) SELECT id, gpu_key, created_at FROM runs");
        tx.commit();
        schema_ready_ = true;
    }

    // Tables from before point_sets keep one row per point in "points", with
    // its place in the upload in `ord`: packed into point_sets through a
    // cursor (bounded memory), then the old table is dropped.
    static void migrate_point_rows(PGconn *c) {
        command(c, "DECLARE old_points NO SCROLL CURSOR FOR SELECT p.run_id, r.gpu_key, p.experiment, p.series, p.field, "
                   "p.x::text, p.value::text FROM points p JOIN runs r ON r.id = p.run_id "
                   "ORDER BY p.run_id, p.experiment, p.ord");
        const char *insert = "INSERT INTO point_sets (run_id, gpu_key, experiment, data) "
                             "SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bytea[])";
        std::vector<PointRow> rows;
        std::string gpu_key;
        BinaryArray ids(kTextOid), keys(kTextOid), exps(kTextOid), blobs(kByteaOid);
        std::size_t batched = 0;
        auto write = [&] {
            if (!batched) return;
            const std::string a = ids.bytes(), b = keys.bytes(), e = exps.bytes(), d = blobs.bytes();
            const char *values[] = {a.data(), b.data(), e.data(), d.data()};
            const int lengths[] = {int(a.size()), int(b.size()), int(e.size()), int(d.size())};
            const int formats[] = {1, 1, 1, 1};
            Result r(PQexecParams(c, insert, 4, nullptr, values, lengths, formats, 0));
            check(c, r, PGRES_COMMAND_OK, "migrating points");
            ids = BinaryArray(kTextOid), keys = BinaryArray(kTextOid), exps = BinaryArray(kTextOid),
            blobs = BinaryArray(kByteaOid);
            batched = 0;
        };
        auto flush = [&] {
            if (rows.empty()) return;
            std::vector<const PointRow *> refs;
            for (const PointRow &p : rows) refs.push_back(&p);
            ids.add(rows.front().run_id);
            keys.add(gpu_key);
            exps.add(rows.front().experiment);
            blobs.add(encode_points(refs));
            rows.clear();
            if (++batched >= 1000) write();
        };
        for (;;) {
            Result r(PQexec(c, "FETCH 20000 FROM old_points"));
            check(c, r, PGRES_TUPLES_OK, "migrating points");
            if (r.rows() == 0) break;
            for (int i = 0; i < r.rows(); ++i) {
                PointRow p{r.text(i, 0), r.text(i, 2), r.text(i, 3), r.text(i, 4), r.f64(i, 5), r.f64(i, 6)};
                if (!rows.empty() && (rows.front().run_id != p.run_id || rows.front().experiment != p.experiment)) flush();
                gpu_key = r.text(i, 1);
                rows.push_back(std::move(p));
            }
        }
        flush();
        write();
        command(c, "CLOSE old_points");
        command(c, "DROP TABLE points");
    }

    static void command(PGconn *c, const char *sql) {
        Result r(PQexec(c, sql));
        check(c, r, PGRES_COMMAND_OK, sql);
    }

    // A prepared statement; binary_result: every column in binary form (bytea
    // as it is, text as it is; no numbers in such queries).
    static Result exec(PGconn *c, const char *name, const std::vector<Param> &params, ExecStatusType want,
                       bool binary_result = false) {
        std::vector<const char *> values;
        std::vector<int> lengths, formats;
        for (const Param &p : params) {
            values.push_back(p.data);
            lengths.push_back(static_cast<int>(p.size));
            formats.push_back(p.binary ? 1 : 0);
        }
        Result r(PQexecPrepared(c, name, static_cast<int>(values.size()), values.data(), lengths.data(), formats.data(),
                                binary_result ? 1 : 0));
        check(c, r, want, name);
        return r;
    }

    static std::uint64_t affected(const Result &r) { return std::strtoull(PQcmdTuples(r.get()), nullptr, 10); }

    static void check(PGconn *c, const Result &r, ExecStatusType want, const char *what) {
        if (PQresultStatus(r.get()) != want)
            throw std::runtime_error(std::string("postgres: ") + what + ": " + trim(PQerrorMessage(c)));
    }

    static std::string trim(std::string s) {
        while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
        return s;
    }

    static std::string float_text(double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.17g", v);
        return buf;
    }

    // The seven GPU columns (key, name, cc, memory, bus width, driver, runtime)
    // that every query returning a GPU selects in this order from `first` on.
    static GpuIdentity gpu_from(const Result &r, int row, int first) {
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

    static StoredRun run_from(const Result &r, int row) {
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

    const std::string url_;
    std::mutex mutex_;
    std::condition_variable available_;
    std::vector<PGconn *> idle_;
    std::size_t open_ = 0;
    bool schema_ready_ = false;  // set in the constructor, before any sharing
    std::atomic<std::chrono::steady_clock::rep> last_sweep_{0};
    std::unique_ptr<BackgroundRefresher> refresher_;  // last: stopped first
};

}  // namespace

std::unique_ptr<Storage> open_postgres_storage(const std::string &url, const StorageOptions &options) {
    return std::make_unique<PostgresStorage>(url, options);
}

}  // namespace gmserver
