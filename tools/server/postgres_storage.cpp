// Storage over PostgreSQL through libpq: the same two tables and the same
// semantics as the SQLite backend. Every statement is prepared once per
// connection and executed with parameters; values never become SQL text.
#include "postgres_storage.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

namespace gmserver {

bool is_postgres_url(const std::string &url) {
    return url.rfind("postgres://", 0) == 0 || url.rfind("postgresql://", 0) == 0;
}

namespace {

// points.run_id carries no FOREIGN KEY: its per-row check doubled the time of
// an insert (an upload has hundreds of points). Points are only written in
// the transaction that writes their run, and remove_run deletes both in one
// statement, so no point outlives its run.
//
// points.ord is the point's place in its upload: PostgreSQL has no rowid, and
// readers show series in the order of the document, as SQLite returns them.
//
// Several server processes may start at once against one database: the
// advisory lock serialises the CREATE ... IF NOT EXISTS statements, which
// otherwise can fail on a concurrent catalog insert.
const char *const kSchema = R"SQL(
SELECT pg_advisory_xact_lock(7246315502771);
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
    document          TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS points (
    run_id     TEXT NOT NULL,
    experiment TEXT NOT NULL,
    series     TEXT NOT NULL,
    field      TEXT NOT NULL,
    x          DOUBLE PRECISION NOT NULL,
    value      DOUBLE PRECISION NOT NULL,
    ord        INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS runs_gpu ON runs(gpu_key, created_at);
CREATE INDEX IF NOT EXISTS points_run ON points(run_id);
CREATE INDEX IF NOT EXISTS points_experiment ON points(experiment, run_id);
)SQL";

const char *const kRunColumns =
    "id, COALESCE(submission_id, ''), delete_token_hash, created_at, gpu_key, gpu_name, cc, "
    "memory_bytes, bus_width, driver, runtime, document";

// Named statements, prepared on every new connection.
struct Statement {
    const char *name;
    std::string sql;
    int params;
};

const std::vector<Statement> &statements() {
    static const std::vector<Statement> all = {
        // ON CONFLICT on submission_id: a concurrent insert of the same
        // submission waits for the first one and then inserts nothing.
        {"insert_run",
         "INSERT INTO runs (id, submission_id, delete_token_hash, created_at, gpu_key, gpu_name, cc, "
         "memory_bytes, bus_width, driver, runtime, document) "
         "VALUES ($1, NULLIF($2, ''), $3, $4, $5, $6, $7, $8::bigint, $9::integer, $10, $11, $12) "
         "ON CONFLICT (submission_id) DO NOTHING RETURNING id",
         12},
        // All points of a run in one statement: the columns travel as arrays.
        {"insert_points",
         "INSERT INTO points (run_id, experiment, series, field, x, value, ord) "
         "SELECT $1, e, s, f, x, v, o FROM unnest($2::text[], $3::text[], $4::text[], "
         "$5::float8[], $6::float8[]) WITH ORDINALITY AS t(e, s, f, x, v, o)",
         6},
        {"get_run", std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = $1", 1},
        {"get_by_submission", std::string("SELECT ") + kRunColumns + " FROM runs WHERE submission_id = $1", 1},
        // One statement, so one transaction: the points, then the run (whose
        // row count is the statement's).
        {"remove_run", "WITH gone AS (DELETE FROM points WHERE run_id = $1) DELETE FROM runs WHERE id = $1", 1},
        // The identity shown for a model is that of its most recent upload.
        // Most uploaded models first, as the SQLite backend lists them.
        {"gpus",
         "SELECT * FROM (SELECT DISTINCT ON (gpu_key) gpu_key, gpu_name, cc, memory_bytes, bus_width, driver, "
         "runtime, count(*) OVER (PARTITION BY gpu_key) AS n FROM runs "
         "ORDER BY gpu_key, created_at DESC, id DESC) latest ORDER BY n DESC, gpu_key",
         0},
        {"points",
         "SELECT p.run_id, p.experiment, p.series, p.field, p.x, p.value FROM points p "
         "JOIN runs r ON r.id = p.run_id WHERE r.gpu_key = $1 AND p.experiment = $2 "
         "ORDER BY r.created_at, p.run_id, p.ord",
         2},
        {"runs_of",
         "SELECT id, COALESCE(submission_id, ''), created_at, gpu_key, gpu_name, cc, memory_bytes, "
         "bus_width, driver, runtime FROM runs WHERE gpu_key = $1 "
         "ORDER BY created_at DESC, id LIMIT $2::bigint",
         2},
        {"count", "SELECT count(*) FROM runs", 0},
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
    std::string text(int row, int col) const { return std::string(PQgetvalue(r_, row, col), PQgetlength(r_, row, col)); }
    std::uint64_t u64(int row, int col) const { return std::strtoull(PQgetvalue(r_, row, col), nullptr, 10); }
    int i32(int row, int col) const { return static_cast<int>(std::strtol(PQgetvalue(r_, row, col), nullptr, 10)); }
    double f64(int row, int col) const { return std::strtod(PQgetvalue(r_, row, col), nullptr); }

private:
    PGresult *r_;
};

// libpq passes parameters as C strings: an embedded NUL would silently cut a
// value short, and PostgreSQL text cannot hold one anyway.
void check_text(const std::string &s, const char *what) {
    if (s.find('\0') != std::string::npos)
        throw std::runtime_error(std::string("postgres: ") + what + " contains a NUL character");
}

// A one-dimensional array literal of text elements, every element quoted.
std::string text_array(const std::vector<PointRow> &points, std::string PointRow::*member) {
    std::string out = "{";
    for (std::size_t i = 0; i < points.size(); ++i) {
        const std::string &s = points[i].*member;
        check_text(s, "a point's name");
        if (i) out += ',';
        out += '"';
        for (char c : s) {
            if (c == '"' || c == '\\') out += '\\';
            out += c;
        }
        out += '"';
    }
    out += '}';
    return out;
}

std::string float_text(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

std::string float_array(const std::vector<PointRow> &points, double PointRow::*member) {
    std::string out = "{";
    for (std::size_t i = 0; i < points.size(); ++i) {
        if (i) out += ',';
        out += float_text(points[i].*member);
    }
    out += '}';
    return out;
}

class PostgresStorage final : public Storage {
public:
    explicit PostgresStorage(std::string url) : url_(std::move(url)) {
        Lease first(*this);  // connects and creates the schema, or throws
    }

    ~PostgresStorage() override {
        for (PGconn *c : idle_) PQfinish(c);
    }

    InsertOutcome insert(const StoredRun &run, const std::vector<PointRow> &points, StoredRun *existing) override {
        const std::string memory = std::to_string(run.gpu.memory_bytes);
        const std::string bus = std::to_string(run.gpu.bus_width_bits);
        const std::vector<const std::string *> fields = {
            &run.id, &run.submission_id, &run.delete_token_hash, &run.created_at, &run.gpu.key,
            &run.gpu.name, &run.gpu.compute_capability, &memory, &bus, &run.gpu.driver_version,
            &run.gpu.runtime_version, &run.document};
        for (const std::string *f : fields) check_text(*f, "a run field");

        std::string exps, series, names, xs, values;
        if (!points.empty()) {
            exps = text_array(points, &PointRow::experiment);
            series = text_array(points, &PointRow::series);
            names = text_array(points, &PointRow::field);
            xs = float_array(points, &PointRow::x);
            values = float_array(points, &PointRow::value);
        }
        return with_connection([&](PGconn *c, bool &committing) {
            command(c, "BEGIN");
            try {
                Result r = run_prepared(c, "insert_run", fields, PGRES_TUPLES_OK);
                if (r.rows() == 0) {
                    command(c, "ROLLBACK");
                    if (existing) {
                        Result e = run_prepared(c, "get_by_submission", {&run.submission_id}, PGRES_TUPLES_OK);
                        if (e.rows() != 1) throw std::runtime_error("postgres: duplicate submission vanished");
                        *existing = run_from(e, 0);
                    }
                    return InsertOutcome::DuplicateSubmission;
                }
                if (!points.empty())
                    run_prepared(c, "insert_points", {&run.id, &exps, &series, &names, &xs, &values},
                                 PGRES_COMMAND_OK);
                committing = true;  // from here on the outcome may be unknown: no retry
                command(c, "COMMIT");
            } catch (...) {
                // Leave the connection idle for its next user (a no-op warning if
                // no transaction is open; a broken connection is dropped anyway).
                PQclear(PQexec(c, "ROLLBACK"));
                throw;
            }
            return InsertOutcome::Inserted;
        });
    }

    std::optional<StoredRun> get(const std::string &id) override {
        if (id.find('\0') != std::string::npos) return std::nullopt;
        return with_connection([&](PGconn *c, bool &) -> std::optional<StoredRun> {
            Result r = run_prepared(c, "get_run", {&id}, PGRES_TUPLES_OK);
            if (r.rows() == 0) return std::nullopt;
            return run_from(r, 0);
        });
    }

    bool remove(const std::string &id) override {
        if (id.find('\0') != std::string::npos) return false;
        return with_connection([&](PGconn *c, bool &) {
            Result r = run_prepared(c, "remove_run", {&id}, PGRES_COMMAND_OK);
            return std::strtoull(PQcmdTuples(r.get()), nullptr, 10) > 0;
        });
    }

    std::vector<GpuCount> gpus() override {
        Result r = with_connection([&](PGconn *c, bool &) { return run_prepared(c, "gpus", {}, PGRES_TUPLES_OK); });
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

    // Rows arrive one at a time (libpq's single-row mode): a popular model has
    // millions of points, which a whole PGresult would hold in memory at once.
    void for_each_point(const std::string &gpu_key, const std::string &experiment,
                        const std::function<void(const PointRow &)> &visit) override {
        if (gpu_key.find('\0') != std::string::npos || experiment.find('\0') != std::string::npos) return;
        with_connection([&](PGconn *c, bool &committing) {
            const char *params[] = {gpu_key.c_str(), experiment.c_str()};
            if (!PQsendQueryPrepared(c, "points", 2, params, nullptr, nullptr, 0) || !PQsetSingleRowMode(c))
                throw std::runtime_error("postgres: points: " + trim(PQerrorMessage(c)));
            PointRow p;
            std::string error;
            // Every result is read, even after a failure, so that the connection
            // is idle again when it goes back to the pool.
            while (PGresult *raw = PQgetResult(c)) {
                Result r(raw);
                const ExecStatusType st = PQresultStatus(raw);
                if (st == PGRES_SINGLE_TUPLE && error.empty()) {
                    // Rows have reached the caller: a retry would visit them twice.
                    committing = true;
                    p.run_id = r.text(0, 0);
                    p.experiment = r.text(0, 1);
                    p.series = r.text(0, 2);
                    p.field = r.text(0, 3);
                    p.x = r.f64(0, 4);
                    p.value = r.f64(0, 5);
                    try {
                        visit(p);
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
        Result r = with_connection(
            [&](PGconn *c, bool &) { return run_prepared(c, "runs_of", {&gpu_key, &lim}, PGRES_TUPLES_OK); });
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
        Result r = with_connection([&](PGconn *c, bool &) { return run_prepared(c, "count", {}, PGRES_TUPLES_OK); });
        return r.u64(0, 0);
    }

private:
    // The pool: connections are opened on demand up to kMaxConnections and
    // reused; a caller beyond that waits for one to come back.
    static constexpr std::size_t kMaxConnections = 8;

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

    // Runs op(connection, committing) on a pooled connection. A pooled
    // connection may have died since its last use (a server restart, an idle
    // timeout on the way); when op fails on a broken connection before it set
    // `committing`, it runs once more on a new connection. (A DELETE that did
    // run before the connection broke then reports false on the retry.)
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
            if (!idle_.empty()) {
                PGconn *c = idle_.back();
                idle_.pop_back();
                if (!fresh) return c;
                PQfinish(c);  // make room for the new one
                --open_;
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
            // Documents are up to several MB: lz4 compresses them about twice
            // as fast as the default pglz, which halves the time of an insert.
            // Servers built without lz4 (or older than 14) keep pglz.
            PQclear(PQexec(c, "SET default_toast_compression = 'lz4'"));
            // points() sorts every point of a model's uploads for one
            // experiment (hundreds of thousands of rows with 10,000 uploads):
            // in memory rather than in temporary files.
            command(c, "SET work_mem = '32MB'");
            if (!schema_ready_) exec_script(c, kSchema);
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

    // The schema script runs once, in one transaction, before the statements
    // that refer to the tables are prepared.
    void exec_script(PGconn *c, const char *sql) {
        command(c, "BEGIN");
        Result r(PQexec(c, sql));
        if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) {
            PQclear(PQexec(c, "ROLLBACK"));
            throw std::runtime_error("postgres: creating the tables: " + trim(PQerrorMessage(c)));
        }
        command(c, "COMMIT");
        schema_ready_ = true;
    }

    static void command(PGconn *c, const char *sql) {
        Result r(PQexec(c, sql));
        check(c, r, PGRES_COMMAND_OK, sql);
    }

    static Result run_prepared(PGconn *c, const char *name, const std::vector<const std::string *> &params,
                               ExecStatusType want) {
        std::vector<const char *> values;
        values.reserve(params.size());
        for (const std::string *p : params) values.push_back(p->c_str());
        Result r(PQexecPrepared(c, name, static_cast<int>(values.size()), values.data(), nullptr, nullptr, 0));
        check(c, r, want, name);
        return r;
    }

    static void check(PGconn *c, const Result &r, ExecStatusType want, const char *what) {
        if (PQresultStatus(r.get()) != want)
            throw std::runtime_error(std::string("postgres: ") + what + ": " + trim(PQerrorMessage(c)));
    }

    static std::string trim(std::string s) {
        while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
        return s;
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
        s.document = r.text(row, 11);
        return s;
    }

    const std::string url_;
    std::mutex mutex_;
    std::condition_variable available_;
    std::vector<PGconn *> idle_;
    std::size_t open_ = 0;
    bool schema_ready_ = false;  // set in the constructor, before any sharing
};

}  // namespace

std::unique_ptr<Storage> open_postgres_storage(const std::string &url) {
    return std::make_unique<PostgresStorage>(url);
}

}  // namespace gmserver
