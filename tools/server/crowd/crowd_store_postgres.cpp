// CrowdStore on PostgreSQL: the same tables as crowd_store_sqlite.cpp, on a
// connection of its own (behind a mutex; these are short statements), and a
// fresh connection for each export, its packed point sets read in libpq's
// single-row mode.
#include <libpq-fe.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "crowd/crowd_store.hpp"
#include "storage/database_errors.hpp"
#include "storage/point_codec.hpp"
#include "storage/storage.hpp"

namespace gmserver {
namespace {

const char *const kCrowdSchema = R"SQL(
SELECT pg_advisory_xact_lock(7246315502772);
CREATE TABLE IF NOT EXISTS upload_status (
    run_id TEXT PRIMARY KEY, gpu_key TEXT NOT NULL, created_at TEXT NOT NULL, status TEXT NOT NULL, reason TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS upload_status_held ON upload_status(status, gpu_key);
CREATE TABLE IF NOT EXISTS moderation_log (
    seq BIGSERIAL PRIMARY KEY, at TEXT NOT NULL, run_id TEXT NOT NULL, action TEXT NOT NULL, reason TEXT NOT NULL, actor TEXT NOT NULL);
)SQL";

class Res {
public:
    explicit Res(PGresult *r) : r_(r) {}
    ~Res() { PQclear(r_); }
    Res(const Res &) = delete;
    Res &operator=(const Res &) = delete;
    Res(Res &&o) noexcept : r_(std::exchange(o.r_, nullptr)) {}
    PGresult *get() const { return r_; }
    int rows() const { return PQntuples(r_); }
    std::string text(int row, int col) const { return std::string(PQgetvalue(r_, row, col), PQgetlength(r_, row, col)); }
    double f64(int row, int col) const { return std::strtod(PQgetvalue(r_, row, col), nullptr); }

private:
    PGresult *r_;
};

std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}

// Text parameters must not hold NUL (libpq would cut them there).
void check_text(const std::string &s) {
    if (s.find('\0') != std::string::npos) throw std::runtime_error("postgres: a text value holds a NUL byte");
}

PGconn *connect(const std::string &url) {
    PGconn *c = PQconnectdb(url.c_str());
    if (PQstatus(c) != CONNECTION_OK) {
        const std::string msg = trim(PQerrorMessage(c));
        PQfinish(c);
        count_database_error();
        throw std::runtime_error("postgres: cannot connect: " + msg);
    }
    // Quiet the NOTICEs of IF NOT EXISTS (the storage's connections do the same).
    PQclear(PQexec(c, "SET client_min_messages = warning"));
    return c;
}

class PostgresCrowdStore final : public CrowdStore {
public:
    explicit PostgresCrowdStore(std::string url) : url_(std::move(url)), c_(connect(url_)) {
        command("BEGIN");
        Res r(PQexec(c_, kCrowdSchema));
        if (PQresultStatus(r.get()) != PGRES_COMMAND_OK && PQresultStatus(r.get()) != PGRES_TUPLES_OK) {
            const std::string msg = trim(PQerrorMessage(c_));
            PQclear(PQexec(c_, "ROLLBACK"));
            throw std::runtime_error("postgres: creating the crowd tables: " + msg);
        }
        command("COMMIT");
    }
    ~PostgresCrowdStore() override { PQfinish(c_); }

    std::optional<UploadStatus> status(const std::string &run_id) override {
        if (run_id.find('\0') != std::string::npos) return std::nullopt;
        std::lock_guard<std::mutex> lock(mu_);
        Res r = query("SELECT run_id, gpu_key, created_at, status, reason FROM upload_status WHERE run_id = $1", {run_id}, PGRES_TUPLES_OK);
        if (r.rows() == 0) return std::nullopt;
        return UploadStatus{r.text(0, 0), r.text(0, 1), r.text(0, 2), r.text(0, 3), r.text(0, 4)};
    }

    std::unordered_set<std::string> not_accepted(const std::string &gpu_key) override {
        if (gpu_key.find('\0') != std::string::npos) return {};
        std::lock_guard<std::mutex> lock(mu_);
        Res r = query("SELECT run_id FROM upload_status WHERE status <> 'accepted' AND gpu_key = $1", {gpu_key}, PGRES_TUPLES_OK);
        std::unordered_set<std::string> out;
        for (int i = 0; i < r.rows(); ++i) out.insert(r.text(i, 0));
        return out;
    }

    bool moderate(const UploadStatus &st, const std::string &action, const std::string &reason, const std::string &actor,
                  const std::string &at) override {
        for (const std::string *s : {&st.run_id, &st.gpu_key, &st.created_at, &st.status, &st.reason, &action, &reason, &actor, &at}) check_text(*s);
        std::lock_guard<std::mutex> lock(mu_);
        bool known = false;
        transaction([&] {
            known = query("SELECT 1 FROM runs WHERE id = $1", {st.run_id}, PGRES_TUPLES_OK).rows() > 0;
            if (!known) return;
            put_status(st);
            append_log(at, st.run_id, action, reason, actor);
        });
        return known;
    }

    void forget(const std::string &run_id, const std::string &reason, const std::string &actor, const std::string &at) override {
        for (const std::string *s : {&run_id, &reason, &actor, &at}) check_text(*s);
        std::lock_guard<std::mutex> lock(mu_);
        transaction([&] {
            query("DELETE FROM upload_status WHERE run_id = $1", {run_id}, PGRES_COMMAND_OK);
            append_log(at, run_id, "delete", reason, actor);
        });
    }

    std::vector<ModerationEntry> log(std::size_t limit) override {
        return five_column_rows<ModerationEntry>(
            "SELECT at, run_id, action, reason, actor FROM moderation_log ORDER BY seq DESC LIMIT $1::bigint", limit);
    }

    std::vector<UploadStatus> held(std::size_t limit) override {
        return five_column_rows<UploadStatus>("SELECT run_id, gpu_key, created_at, status, reason FROM upload_status"
                                              " WHERE status = 'held' ORDER BY created_at DESC LIMIT $1::bigint",
                                              limit);
    }

    void export_points(const std::string &experiment, const std::function<bool(const ExportRow &)> &visit) override {
        if (experiment.find('\0') != std::string::npos) return;
        PGconn *c = connect(url_);
        struct Finish {
            PGconn *c;
            ~Finish() { PQfinish(c); }
        } finish{c};
        // One REPEATABLE READ transaction: a consistent snapshot.
        Res b(PQexec(c, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
        const char *params[] = {experiment.c_str(), kFiguresSet.c_str()};
        // Binary results: the packed point sets arrive as their bytes, text as is.
        if (!PQsendQueryParams(c,
                               "SELECT p.run_id, r.gpu_key, r.created_at, p.experiment, p.data"
                               " FROM point_sets p JOIN runs r ON r.id = p.run_id WHERE ($1 = '' OR p.experiment = $1) AND p.experiment <> $2"
                               " AND NOT EXISTS (SELECT 1 FROM upload_status s WHERE s.run_id = p.run_id AND s.status <> 'accepted')",
                               2, nullptr, params, nullptr, nullptr, 1) ||
            !PQsetSingleRowMode(c)) {
            count_database_error();
            throw std::runtime_error("postgres: export: " + trim(PQerrorMessage(c)));
        }
        ExportRow row;
        bool go_on = true;
        std::string error;
        // The connection is closed at the end: rows left unread when the client
        // went away are simply dropped with it.
        while (go_on) {
            PGresult *raw = PQgetResult(c);
            if (!raw) break;
            Res r(raw);
            const ExecStatusType st = PQresultStatus(raw);
            if (st == PGRES_SINGLE_TUPLE) {
                row.run_id = r.text(0, 0);
                row.gpu_key = r.text(0, 1);
                row.created_at = r.text(0, 2);
                row.experiment = r.text(0, 3);
                const std::string_view blob(PQgetvalue(raw, 0, 4), static_cast<std::size_t>(PQgetlength(raw, 0, 4)));
                if (!visit_export_rows(blob, row, go_on, visit)) {
                    error = "postgres: export: the stored points of run " + row.run_id + " are damaged";
                    break;
                }
            } else if (st != PGRES_TUPLES_OK) {
                error = "postgres: export: " + trim(PQerrorMessage(c));
                break;
            }
        }
        if (!error.empty()) throw std::runtime_error(error);
    }

private:
    // A query's rows as T, each made of its five text columns in order;
    // $1 is the LIMIT (at most 2^30).
    template <class T>
    std::vector<T> five_column_rows(const char *sql, std::size_t limit) {
        std::lock_guard<std::mutex> lock(mu_);
        Res r = query(sql, {std::to_string(std::min<std::size_t>(limit, 1u << 30))}, PGRES_TUPLES_OK);
        std::vector<T> out;
        for (int i = 0; i < r.rows(); ++i) out.push_back({r.text(i, 0), r.text(i, 1), r.text(i, 2), r.text(i, 3), r.text(i, 4)});
        return out;
    }

    // The upload's status row, new or replacing its earlier one.
    void put_status(const UploadStatus &st) {
        query("INSERT INTO upload_status (run_id, gpu_key, created_at, status, reason) VALUES ($1,$2,$3,$4,$5)"
              " ON CONFLICT (run_id) DO UPDATE SET status = EXCLUDED.status, reason = EXCLUDED.reason",
              {st.run_id, st.gpu_key, st.created_at, st.status, st.reason}, PGRES_COMMAND_OK);
    }

    void command(const char *sql) {
        Res r(PQexec(c_, sql));
        if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) {
            count_database_error();
            throw std::runtime_error(std::string("postgres: ") + sql + ": " + trim(PQerrorMessage(c_)));
        }
    }

    Res query(const char *sql, const std::vector<std::string> &params, ExecStatusType want) {
        reconnect_if_needed();
        std::vector<const char *> values;
        for (const std::string &p : params) {
            check_text(p);
            values.push_back(p.c_str());
        }
        Res r(PQexecParams(c_, sql, static_cast<int>(values.size()), nullptr, values.data(), nullptr, nullptr, 0));
        if (PQresultStatus(r.get()) != want) {
            count_database_error();
            throw std::runtime_error(std::string("postgres: ") + trim(PQerrorMessage(c_)));
        }
        return r;
    }

    void reconnect_if_needed() {
        if (PQstatus(c_) == CONNECTION_OK) return;
        PQreset(c_);
        if (PQstatus(c_) != CONNECTION_OK) {
            count_database_error();
            throw std::runtime_error("postgres: connection lost: " + trim(PQerrorMessage(c_)));
        }
    }

    void append_log(const std::string &at, const std::string &run_id, const std::string &action, const std::string &reason, const std::string &actor) {
        query("INSERT INTO moderation_log (at, run_id, action, reason, actor) VALUES ($1,$2,$3,$4,$5)", {at, run_id, action, reason, actor},
              PGRES_COMMAND_OK);
    }

    template <class F>
    void transaction(F f) {
        reconnect_if_needed();
        command("BEGIN");
        try {
            f();
            command("COMMIT");
        } catch (...) {
            PQclear(PQexec(c_, "ROLLBACK"));
            throw;
        }
    }

    const std::string url_;
    PGconn *c_;
    std::mutex mu_;
};

}  // namespace

std::unique_ptr<CrowdStore> open_postgres_crowd_store(const std::string &url) { return std::make_unique<PostgresCrowdStore>(url); }

}  // namespace gmserver
