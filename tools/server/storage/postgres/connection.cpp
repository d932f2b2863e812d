// The PostgreSQL storage's connections: a small pool, each connection set up
// (and the schema made ready) as it opens, and the helpers that run
// statements on them.
#include <cstdio>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "storage/postgres/internal.hpp"
#include "storage/postgres/postgres_storage.hpp"

namespace gmserver::postgres {

PostgresStorage::PostgresStorage(std::string url, const StorageOptions &options) : url_(std::move(url)) {
    { Lease first(*this); }  // connects and creates or migrates the schema, or throws
    if (options.background_refresh)
        refresher_ = std::make_unique<BackgroundRefresher>([this](std::size_t n) { return refresh(n); }, kRefreshBatch,
                                                           kRefreshPoll, kRefreshGather);
}

PostgresStorage::~PostgresStorage() {
    refresher_.reset();
    for (PGconn *c : idle_) PQfinish(c);
}

// fresh: a new connection, never an idle one (which may be as broken as
// the one that just failed).
PGconn *PostgresStorage::acquire(bool fresh) {
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

void PostgresStorage::drop_idle() {
    std::vector<PGconn *> old;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        old.swap(idle_);
        open_ -= old.size();
    }
    available_.notify_all();
    for (PGconn *c : old) PQfinish(c);
}

void PostgresStorage::release(PGconn *c) {
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

PGconn *PostgresStorage::connect() {
    PGconn *c = PQconnectdb(url_.c_str());
    if (PQstatus(c) != CONNECTION_OK) {
        std::string why = c ? PQerrorMessage(c) : "out of memory";
        PQfinish(c);
        count_database_error();
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

void PostgresStorage::command(PGconn *c, const char *sql) {
    Result r(PQexec(c, sql));
    check(c, r, PGRES_COMMAND_OK, sql);
}

// A prepared statement; binary_result: every column in binary form (bytea
// as it is, text as it is; no numbers in such queries).
Result PostgresStorage::exec(PGconn *c, const char *name, const std::vector<Param> &params, ExecStatusType want,
                             bool binary_result) {
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

void PostgresStorage::check(PGconn *c, const Result &r, ExecStatusType want, const char *what) {
    if (PQresultStatus(r.get()) != want) {
        count_database_error();
        throw std::runtime_error(std::string("postgres: ") + what + ": " + trim(PQerrorMessage(c)));
    }
}

std::string PostgresStorage::trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}

std::string PostgresStorage::float_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

}  // namespace gmserver::postgres

namespace gmserver {

bool is_postgres_url(const std::string &url) {
    return url.rfind("postgres://", 0) == 0 || url.rfind("postgresql://", 0) == 0;
}

std::unique_ptr<Storage> open_postgres_storage(const std::string &url, const StorageOptions &options) {
    return std::make_unique<postgres::PostgresStorage>(url, options);
}

}  // namespace gmserver
