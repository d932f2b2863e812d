// Storage over PostgreSQL through libpq: the same tables and the same
// semantics as the SQLite backend, made for several server processes on one
// database. Every statement is prepared once per connection and executed with
// parameters; values never become SQL text.
//
// Everything that must hold across replicas is in the database: idempotency
// (runs.submission_id is UNIQUE), delete tokens (their hashes in runs), rate
// limits (rate_buckets, one atomic statement per request) and the aggregates
// (agg_queue, aggregates, models; see fold_model()).
//
// This header is the storage's class and its libpq helpers, shared by its
// parts (others call open_postgres_storage in postgres_storage.hpp):
//   connection.cpp  the pool of connections, and running statements on them
//   schema.cpp      the tables, the migrations and the prepared statements
//   writes.cpp      insert, remove, set_counted, rate-limit tokens
//   reads.cpp       runs, models, points and the aggregates as readers see them
//   refresh.cpp     the queue folded into the stored aggregates
#pragma once

#include <libpq-fe.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/aggregate.hpp"
#include "storage/backend_shared.hpp"
#include "storage/database_errors.hpp"
#include "storage/refresher.hpp"
#include "storage/storage.hpp"

namespace gmserver::postgres {

// Named statements, prepared on every new connection.
struct Statement {
    const char *name;
    std::string sql;
    int params;
};

// Every statement the storage prepares (schema.cpp).
const std::vector<Statement> &statements();

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
inline void check_text(const std::string &s, const char *what) {
    if (s.find('\0') != std::string::npos)
        throw std::runtime_error(std::string("postgres: ") + what + " contains a NUL character");
}

inline void put_be32(std::string &out, std::uint32_t v) {
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
    PostgresStorage(std::string url, const StorageOptions &options);
    ~PostgresStorage() override;

    InsertOutcome insert(const StoredRun &run, const std::vector<PointRow> &points, StoredRun *existing) override;
    std::optional<StoredRun> get(const std::string &id) override;
    // In one transaction, holding the model's lock (so no fold of the model
    // runs meanwhile): a run still queued leaves the queue; a folded one is
    // subtracted from the stored aggregates. Then its rows go.
    bool remove(const std::string &id) override;
    // --- Moderation: uploads left out of the aggregates (crowd/crowd.hpp) ---
    // In one transaction holding the model's lock, as remove(): leaving out
    // takes the run from the queue, or subtracts it if folded; counting again
    // queues it for the refresher.
    bool set_counted(const std::string &id, bool counted) override;
    std::vector<GpuCount> gpus() override;
    std::vector<PointRow> points(const std::string &gpu_key, const std::string &experiment) override;
    // Point sets arrive one at a time (libpq's single-row mode): a popular
    // model has thousands, which a whole PGresult would hold at once.
    void for_each_point(const std::string &gpu_key, const std::string &experiment,
                        const std::function<void(const PointRow &)> &visit) override;
    std::vector<StoredRun> runs_of(const std::string &gpu_key, std::size_t limit) override;
    std::uint64_t count() override;
    bool take_token(const std::string &client, bool write, double rate, double burst, int *retry_after_s) override;
    std::optional<std::string> aggregate(const std::string &gpu_key, const std::string &experiment) override;
    std::optional<std::string> aggregate_state(const std::string &gpu_key, const std::string &experiment) override;
    std::vector<std::pair<std::string, std::string>> aggregates_of_experiment(const std::string &experiment) override;
    std::vector<std::optional<std::string>> aggregates(const std::string &gpu_key,
                                                       const std::vector<std::string> &experiments) override;
    std::size_t refresh(std::size_t max_runs) override;
    std::uint64_t pending() override;
    QueueState queue_state() override;

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
    class States : public ModelStates {
    public:
        States(PostgresStorage &s, PGconn *c, const std::string &gpu_key);
        // Loads the states of these experiments (one statement for a batch).
        void load(const std::set<std::string> &experiments);
        void save();

    private:
        PostgresStorage &s_;
        PGconn *c_;
    };

    // In one transaction holding the model's lock: change(c, gpu_key) with
    // the model of run `id`, committed when it returns. False, with nothing
    // changed, when there is no such run.
    bool change_run(const std::string &id, const std::function<bool(PGconn *, const std::string &)> &change);

    // A run already folded into its model's aggregates leaves them: its point
    // sets are folded out and the model counts one upload less. Inside the
    // caller's transaction, holding the model's lock.
    void subtract_folded(PGconn *c, const std::string &id, const std::string &gpu_key);

    // Rows of "aggregate_pending": the stored histogram (k = 0) and the point
    // sets of queued uploads (k = 1).
    static bool is_stored_state(const Result &p, int row) { return p.bytes(row, 0) == std::string_view("\0\0\0\0", 4); }
    // The stored histogram with the queued uploads' point sets folded into it.
    static HistogramAggregate merged_pending(const Result &p, const std::string &gpu_key);

    // Folds up to `limit` of the model's queued uploads, oldest first, in one
    // transaction holding the model's advisory lock: their queue rows are
    // deleted, their points added to the stored histograms, the aggregates'
    // JSON rewritten and the model's count raised, all committed together.
    // Exactly once: a queue row is folded by the transaction that deleted it,
    // and folds (and deletes) of one model never overlap; an upload that
    // commits meanwhile is not seen by this fold and stays queued for the next.
    // Another process folding the model already: 0, it is left to that one.
    std::size_t fold_model(const std::string &gpu_key, std::size_t limit);

    // Now and then (every 60 s per process) the full buckets are deleted, so
    // that many distinct clients cannot grow the table without bound.
    void maybe_sweep_tokens();

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
    PGconn *acquire(bool fresh);
    void drop_idle();
    void release(PGconn *c);
    PGconn *connect();

    // The schema, and the migrations from earlier versions, in one
    // transaction under an advisory lock, to kSchemaVersion: a database of a
    // newer version is refused before anything changes; a database from
    // before point_sets has its point rows packed; one from before the
    // aggregates has every upload queued, so that the refreshers fold them
    // all once.
    void create_schema(PGconn *c);

    // Tables from before point_sets keep one row per point in "points", with
    // its place in the upload in `ord`: packed into point_sets through a
    // cursor (bounded memory), then the old table is dropped.
    static void migrate_point_rows(PGconn *c);

    static void command(PGconn *c, const char *sql);
    // A prepared statement; binary_result: every column in binary form (bytea
    // as it is, text as it is; no numbers in such queries).
    static Result exec(PGconn *c, const char *name, const std::vector<Param> &params, ExecStatusType want,
                       bool binary_result = false);
    static std::uint64_t affected(const Result &r) { return std::strtoull(PQcmdTuples(r.get()), nullptr, 10); }
    static void check(PGconn *c, const Result &r, ExecStatusType want, const char *what);
    static std::string trim(std::string s);
    static std::string float_text(double v);

    // The seven GPU columns (key, name, cc, memory, bus width, driver, runtime)
    // that every query returning a GPU selects in this order from `first` on.
    static GpuIdentity gpu_from(const Result &r, int row, int first);
    static StoredRun run_from(const Result &r, int row);

    const std::string url_;
    std::mutex mutex_;
    std::condition_variable available_;
    std::vector<PGconn *> idle_;
    std::size_t open_ = 0;
    bool schema_ready_ = false;  // set in the constructor, before any sharing
    std::atomic<std::chrono::steady_clock::rep> last_sweep_{0};
    std::unique_ptr<BackgroundRefresher> refresher_;  // last: stopped first
};

}  // namespace gmserver::postgres
