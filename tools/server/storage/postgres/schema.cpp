// The PostgreSQL storage's schema: the tables, the migrations from earlier
// versions, and the named statements every connection prepares.
#include <string>
#include <vector>

#include "storage/point_codec.hpp"
#include "storage/postgres/internal.hpp"
#include "storage/schema_version.hpp"

namespace gmserver::postgres {

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

}  // namespace

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
        {"queue_state", "SELECT count(*), COALESCE(min(created_at), '') FROM agg_queue", 0},
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

// The schema, and the migrations from earlier versions, in one
// transaction under an advisory lock, to kSchemaVersion (kept in the table
// gmlab_schema): a database of a newer version is refused; one from before
// the versions was written by the release at version 1 or earlier, and the
// steps that release ran bring it to 1 (a database from before point_sets
// has its point rows packed; one from before the aggregates has every upload
// queued, so that the refreshers fold them all once); from 1 to 2 the
// aggregates are rebuilt (schema_version.hpp).
void PostgresStorage::create_schema(PGconn *c) {
    Transaction tx(c);
    Result lock(PQexec(c, ("SELECT pg_advisory_xact_lock(" + std::to_string(kSchemaLock) + ")").c_str()));
    check(c, lock, PGRES_TUPLES_OK, "schema lock");
    // The version first: a database of a newer server is refused before
    // anything in it changes (the transaction is rolled back).
    long long version = 0;
    {
        Result has(PQexec(c, "SELECT to_regclass('gmlab_schema') IS NOT NULL"));
        check(c, has, PGRES_TUPLES_OK, "schema version");
        if (has.text(0, 0) == "t") {
            Result v(PQexec(c, "SELECT COALESCE(max(version), 0) FROM gmlab_schema"));
            check(c, v, PGRES_TUPLES_OK, "schema version");
            version = std::strtoll(PQgetvalue(v.get(), 0, 0), nullptr, 10);
        }
    }
    if (version > kSchemaVersion)
        throw std::runtime_error(newer_schema_message("the database " + std::string(PQdb(c)), version));
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
    // Version 2: aggregates on the canonical axis, with the uploads' shapes
    // (schema_version.hpp). The stored ones are dropped and every counted
    // upload queued again; the refreshers rebuild them. The lock waits for a
    // fold of a replica of version 1 that is under way and holds the next
    // one off until this commits, so no upload is folded both by it and
    // again from the queue (what such a replica writes later, the newer
    // server reads: HistogramAggregate::decode).
    if (version < 2) {
        command(c, "LOCK TABLE agg_queue, aggregates, models IN EXCLUSIVE MODE");
        command(c, "DELETE FROM aggregates");
        command(c, "DELETE FROM models");
        command(c, "INSERT INTO agg_queue (run_id, gpu_key, created_at) SELECT id, gpu_key, created_at FROM runs r "
                   "WHERE NOT EXISTS (SELECT 1 FROM uncounted u WHERE u.run_id = r.id) ON CONFLICT DO NOTHING");
    }
    if (version < kSchemaVersion) {
        command(c, "CREATE TABLE IF NOT EXISTS gmlab_schema (version INTEGER NOT NULL)");
        command(c, "DELETE FROM gmlab_schema");
        command(c, ("INSERT INTO gmlab_schema (version) VALUES (" + std::to_string(kSchemaVersion) + ")").c_str());
    }
    tx.commit();
    schema_ready_ = true;
}

// Tables from before point_sets keep one row per point in "points", with
// its place in the upload in `ord`: packed into point_sets through a
// cursor (bounded memory), then the old table is dropped.
void PostgresStorage::migrate_point_rows(PGconn *c) {
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

}  // namespace gmserver::postgres
