// Storage-level test of the PostgreSQL backend against a real server:
//   postgres_storage_test URL
// (run_with_postgres.sh starts a throwaway cluster and passes its URL).
// Prints one line per check and "N passed, M failed"; exits 1 on a failure.
#include "storage/postgres/postgres_storage.hpp"

#include <nlohmann/json.hpp>

#include "storage/aggregate.hpp"

#include <libpq-fe.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace gmserver;

namespace {

int passed = 0, failed = 0;

void check(bool ok, const std::string &what) {
    std::printf("%s %s\n", ok ? "PASS" : "FAIL", what.c_str());
    std::fflush(stdout);
    (ok ? passed : failed)++;
}

std::string hex_id(unsigned n, unsigned salt) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%08x%08x%016x", salt, n, n * 2654435761u);
    return buf;
}

GpuIdentity gpu(const std::string &key, const std::string &name, const std::string &driver) {
    GpuIdentity g;
    g.key = key;
    g.name = name;
    g.compute_capability = "9.0";
    g.memory_bytes = 150ull << 30;
    g.bus_width_bits = 6144;
    g.driver_version = driver;
    g.runtime_version = "12.4";
    return g;
}

StoredRun make_run(const std::string &id, const std::string &submission, const std::string &created,
                   const GpuIdentity &g, const std::string &doc) {
    StoredRun r;
    r.id = id;
    r.submission_id = submission;
    r.delete_token_hash = std::string(64, 'a') + "";
    r.delete_token_hash[0] = id[0];
    r.created_at = created;
    r.gpu = g;
    r.document = doc;
    return r;
}

PointRow point(const std::string &run, const std::string &exp, const std::string &series, double x, double v) {
    PointRow p;
    p.run_id = run;
    p.experiment = exp;
    p.series = series;
    p.field = "bandwidth_gbs";
    p.x = x;
    p.value = v;
    return p;
}

bool same_run(const StoredRun &a, const StoredRun &b) {
    return a.id == b.id && a.submission_id == b.submission_id && a.delete_token_hash == b.delete_token_hash &&
           a.created_at == b.created_at && a.gpu.key == b.gpu.key && a.gpu.name == b.gpu.name &&
           a.gpu.compute_capability == b.gpu.compute_capability && a.gpu.memory_bytes == b.gpu.memory_bytes &&
           a.gpu.bus_width_bits == b.gpu.bus_width_bits && a.gpu.driver_version == b.gpu.driver_version &&
           a.gpu.runtime_version == b.gpu.runtime_version && a.document == b.document;
}

template <class F>
bool throws(F f) {
    try {
        f();
    } catch (const std::exception &) {
        return true;
    }
    return false;
}

void run_tests(const std::string &url) {
    check(throws([] { open_postgres_storage("postgresql://nobody:x@127.0.0.1:1/none?connect_timeout=2"); }),
          "open: an unreachable server throws");
    check(is_postgres_url("postgres://h/db") && is_postgres_url("postgresql://h/db") &&
              !is_postgres_url("sqlite:x.db") && !is_postgres_url("results.sqlite"),
          "is_postgres_url: takes both schemes and nothing else");

    auto db = open_postgres_storage(url);
    check(db != nullptr, "open: creates the tables");
    check(!throws([&] { open_postgres_storage(url); }), "open: a second open of the same database works");
    check(db->count() == 0, "count: a new database is empty");

    // Text that would break string-built SQL or array literals.
    const std::string nasty = "x'); DROP TABLE runs; -- \"q\" \\ {a,b} <script>\xc3\xa9";
    const GpuIdentity h200 = gpu("nvidia h200|9.0|141|6144", "NVIDIA H200 " + nasty, "550.54");
    const std::string doc = "{\"schema\":\"gmlab.run/1\",\"note\":\"" + nasty + "\"}";
    StoredRun a = make_run(hex_id(1, 1), "sub-a", "2026-01-01T00:00:01Z", h200, doc);
    std::vector<PointRow> pa = {point(a.id, "stream", "copy", 1024, 0.1), point(a.id, "stream", "copy", 2048, 1e300),
                                point(a.id, "stream", nasty, 4096, -2.5),
                                point(a.id, "transpose", "naive", 32, 123.456789012345678)};

    StoredRun existing;
    check(db->insert(a, pa, &existing) == InsertOutcome::Inserted, "insert: a new run is inserted");
    auto got = db->get(a.id);
    check(got && same_run(*got, a), "get: every field comes back unchanged, injection text included");
    check(!db->get(hex_id(999, 9)), "get: an unknown id gives nothing");
    check(!db->get("' OR '1'='1"), "get: an injected id matches nothing");
    check(db->count() == 1, "count: one after one insert");

    StoredRun dup = make_run(hex_id(2, 1), "sub-a", "2026-01-01T00:00:02Z", h200, "{}");
    check(db->insert(dup, {point(dup.id, "stream", "copy", 1, 1)}, &existing) == InsertOutcome::DuplicateSubmission,
          "insert: a repeated submission_id is a duplicate");
    check(existing.id == a.id && existing.delete_token_hash == a.delete_token_hash,
          "insert: a duplicate returns the stored run's id and token hash");
    check(!db->get(dup.id) && db->count() == 1, "insert: a duplicate stores nothing");
    check(db->points(h200.key, "stream").size() == 3, "insert: a duplicate's points are not stored");

    auto pts = db->points(h200.key, "stream");
    std::map<double, PointRow> by_x;
    for (const PointRow &p : pts) by_x[p.x] = p;
    check(pts.size() == 3 && by_x[1024].value == 0.1 && by_x[2048].value == 1e300 && by_x[4096].value == -2.5 &&
              by_x[4096].series == nasty && by_x[1024].run_id == a.id && by_x[1024].field == "bandwidth_gbs",
          "points: values, names and run ids round-trip exactly");
    auto tp = db->points(h200.key, "transpose");
    check(tp.size() == 1 && tp[0].value == 123.456789012345678, "points: only the requested experiment");
    check(db->points(h200.key, "' OR 1=1 --").empty(), "points: an injected experiment name matches nothing");

    // Runs without a submission_id never collide with each other.
    StoredRun n1 = make_run(hex_id(3, 1), "", "2026-01-01T00:00:03Z", h200, "{\"n\":1}");
    StoredRun n2 = make_run(hex_id(4, 1), "", "2026-01-01T00:00:04Z", gpu(h200.key, "NVIDIA H200", "560.1"), "{}");
    check(db->insert(n1, {}, &existing) == InsertOutcome::Inserted &&
              db->insert(n2, {}, &existing) == InsertOutcome::Inserted,
          "insert: runs without submission_id are all stored");
    got = db->get(n1.id);
    check(got && got->submission_id.empty() && same_run(*got, n1), "get: an empty submission_id comes back empty");

    const GpuIdentity a100 = gpu("nvidia a100|8.0|80|5120", "NVIDIA A100-SXM4-80GB", "535.1");
    StoredRun c = make_run(hex_id(5, 1), "sub-c", "2026-01-01T00:00:00Z", a100, "{}");
    check(db->insert(c, {point(c.id, "stream", "copy", 1024, 7)}, &existing) == InsertOutcome::Inserted,
          "insert: a second GPU model");

    // Series come back in the order of the upload (SQLite's rowid order),
    // oldest upload first: pages list series as they first appear.
    const GpuIdentity t4 = gpu("nvidia t4|7.5|16|256", "Tesla T4", "535.1");
    StoredRun o1 = make_run(hex_id(10, 1), "sub-o1", "2026-01-01T00:00:02Z", t4, "{}");
    StoredRun o2 = make_run(hex_id(11, 1), "sub-o2", "2026-01-01T00:00:01Z", t4, "{}");
    db->insert(o1, {point(o1.id, "e", "zeta", 2, 1), point(o1.id, "e", "alpha", 1, 2), point(o1.id, "e", "mid", 3, 3)},
               &existing);
    db->insert(o2, {point(o2.id, "e", "beta", 1, 4), point(o2.id, "e", "zeta", 1, 5)}, &existing);
    auto ordered = db->points(t4.key, "e");
    std::string seq;
    for (const PointRow &p : ordered) seq += p.series + ",";
    check(seq == "beta,zeta,zeta,alpha,mid,", "points: in upload order, oldest upload first (" + seq + ")");
    db->remove(o1.id);
    db->remove(o2.id);

    auto gs = db->gpus();
    std::map<std::string, GpuCount> by_key;
    for (const GpuCount &g : gs) by_key[g.gpu.key] = g;
    check(gs.size() == 2 && by_key[h200.key].uploads == 3 && by_key[a100.key].uploads == 1,
          "gpus: one entry per model with its upload count");
    check(gs.size() == 2 && gs[0].gpu.key == h200.key, "gpus: the most uploaded model first");
    check(by_key[h200.key].gpu.driver_version == "560.1" && by_key[h200.key].gpu.name == "NVIDIA H200" &&
              by_key[h200.key].gpu.memory_bytes == (150ull << 30) && by_key[h200.key].gpu.bus_width_bits == 6144,
          "gpus: the identity is that of the most recent upload");
    check(db->points(a100.key, "stream").size() == 1 && db->points(a100.key, "stream")[0].value == 7,
          "points: only the requested GPU model");

    auto ro = db->runs_of(h200.key, 10);
    check(ro.size() == 3 && ro[0].id == n2.id && ro[1].id == n1.id && ro[2].id == a.id &&
              ro[2].created_at == a.created_at,
          "runs_of: a model's runs, newest first");
    check(db->runs_of(h200.key, 2).size() == 2 && db->runs_of(h200.key, 2)[0].id == n2.id,
          "runs_of: the limit is honoured");
    check(db->runs_of("no such gpu", 10).empty(), "runs_of: an unknown model has none");

    // A failing insert leaves nothing behind and the pool stays usable.
    StoredRun clash = make_run(a.id, "sub-clash", "2026-01-01T00:00:09Z", h200, "{}");
    check(throws([&] { db->insert(clash, {point(clash.id, "stream", "copy", 9, 9)}, &existing); }),
          "insert: a clashing run id throws");
    StoredRun bad = make_run(hex_id(6, 1), "sub-bad", "2026-01-01T00:00:09Z", h200, "{}");
    check(throws([&] { db->insert(bad, {point(bad.id, std::string("st\0ream", 7), "copy", 9, 9)}, &existing); }),
          "insert: a NUL byte in a point name throws");
    check(!db->get(bad.id) && db->count() == 4 && db->points(h200.key, "stream").size() == 3,
          "insert: a failed insert stores neither run nor points");
    check(db->insert(bad, {}, &existing) == InsertOutcome::Inserted && db->remove(bad.id),
          "insert: the same submission can be stored after a failure");

    check(db->remove(a.id), "remove: an existing run is removed");
    check(!db->get(a.id) && db->points(h200.key, "stream").empty() && db->points(h200.key, "transpose").empty(),
          "remove: its points go with it");
    check(!db->remove(a.id) && !db->remove("' OR 1=1 --"), "remove: removing again or an unknown id is false");
    check(db->count() == 3 && db->gpus().size() == 2, "count: the removed run is gone");
    StoredRun again = make_run(hex_id(7, 1), "sub-a", "2026-01-01T00:00:10Z", h200, "{}");
    check(db->insert(again, {}, &existing) == InsertOutcome::Inserted,
          "remove: a removed run's submission_id is free again");

    // A large document and many points in one insert.
    std::vector<PointRow> many;
    StoredRun big = make_run(hex_id(8, 1), "sub-big", "2026-01-01T00:00:11Z", a100,
                             "{\"samples\":\"" + std::string(6 << 20, 'x') + "\"}");
    for (int i = 0; i < 20000; ++i) many.push_back(point(big.id, "big", "s" + std::to_string(i % 7), i, i * 0.5));
    check(db->insert(big, many, &existing) == InsertOutcome::Inserted, "insert: a 6 MB document with 20000 points");
    got = db->get(big.id);
    check(got && got->document == big.document && db->points(a100.key, "big").size() == 20000,
          "get: the large run comes back whole");

    // Concurrent inserts from several threads: all distinct runs stored, and
    // of racing inserts of one submission exactly one wins.
    const std::uint64_t before = db->count();
    const int threads = 12, per_thread = 25;
    std::atomic<int> errors{0}, inserted{0}, duplicates{0};
    std::vector<std::string> race_ids(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            try {
                for (int i = 0; i < per_thread; ++i) {
                    StoredRun r = make_run(hex_id(1000 + t * per_thread + i, 2), "conc-" + std::to_string(t) + "-" +
                                           std::to_string(i), "2026-02-01T00:00:00Z", h200, "{}");
                    std::vector<PointRow> p;
                    for (int k = 0; k < 50; ++k) p.push_back(point(r.id, "conc", "copy", k, t));
                    StoredRun ex;
                    if (db->insert(r, p, &ex) != InsertOutcome::Inserted) errors++;
                }
                StoredRun r = make_run(hex_id(5000 + t, 3), "race", "2026-02-01T00:00:01Z", h200, "{}");
                StoredRun ex;
                if (db->insert(r, {point(r.id, "race", "copy", 1, 1)}, &ex) == InsertOutcome::Inserted) {
                    inserted++;
                    race_ids[t] = r.id;
                } else {
                    duplicates++;
                    race_ids[t] = ex.id;
                }
            } catch (const std::exception &e) {
                std::printf("thread %d: %s\n", t, e.what());
                errors++;
            }
        });
    }
    for (auto &th : pool) th.join();
    check(errors == 0 && db->count() == before + threads * per_thread + 1,
          "concurrency: 12 threads x 25 inserts all stored, no errors");
    check(db->points(h200.key, "conc").size() == std::size_t(threads * per_thread * 50),
          "concurrency: every point of every run stored");
    std::set<std::string> winners(race_ids.begin(), race_ids.end());
    check(inserted == 1 && duplicates == threads - 1 && winners.size() == 1 && db->points(h200.key, "race").size() == 1,
          "concurrency: of 12 racing inserts of one submission exactly one is stored, all see its id");

    // The server drops every connection (as on a restart): the pool notices
    // and reconnects instead of failing requests.
    {
        PGconn *admin = PQconnectdb(url.c_str());
        PGresult *r = PQexec(admin, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                    "WHERE pid <> pg_backend_pid() AND datname = current_database()");
        const bool killed = PQresultStatus(r) == PGRES_TUPLES_OK && std::atoi(PQgetvalue(r, 0, 0)) >= 2;
        PQclear(r);
        PQfinish(admin);
        check(killed, "reconnect: the server terminated the pool's connections");
        std::uint64_t n = 0;
        check(!throws([&] { n = db->count(); }) && n == before + threads * per_thread + 1,
              "reconnect: a read after the connections died succeeds");
        StoredRun after = make_run(hex_id(9, 1), "sub-after", "2026-03-01T00:00:00Z", h200, "{}");
        check(db->insert(after, {point(after.id, "after", "copy", 1, 1)}, &existing) == InsertOutcome::Inserted &&
                  db->get(after.id) && db->points(h200.key, "after").size() == 1,
              "reconnect: inserts and reads work again");
    }
}


// Two storages on one database, as two server processes hold them: shared
// rate-limit buckets, and aggregates folded exactly once with both folding at
// the same time, deletes through either.
void replica_tests(const std::string &url) {
    StorageOptions manual;
    manual.background_refresh = false;
    auto a = open_postgres_storage(url, manual), b = open_postgres_storage(url, manual);
    int retry = 0;
    bool ok = true;
    for (int i = 0; i < 4; ++i) ok = ok && (i % 2 ? b : a)->take_token("10.9.8.7", true, 0.01, 4, &retry);
    check(ok, "replicas: a burst of 4 is taken alternately from both");
    check(!a->take_token("10.9.8.7", true, 0.01, 4, &retry) && !b->take_token("10.9.8.7", true, 0.01, 4, &retry) &&
              retry >= 90,
          "replicas: then both refuse, with a retry time from the shared bucket (" + std::to_string(retry) + " s)");
    check(a->take_token("10.9.8.7", false, 0.01, 4, &retry) && b->take_token("10.9.8.6", true, 0.01, 4, &retry),
          "replicas: reads and other clients have buckets of their own");

    const GpuIdentity g = gpu("replica-gpu", "NVIDIA R", "1");
    const int runs = 40;
    std::vector<PointRow> all;
    for (int i = 0; i < runs; ++i) {
        StoredRun r = make_run(hex_id(i, 77), "", "2026-05-01T00:00:" + std::to_string(10 + i) + "Z", g, "{}");
        std::vector<PointRow> p;
        for (int x = 1; x <= 8; x *= 2) p.push_back(point(r.id, "stream", "copy", x, 100.0 * x * (1 + 0.001 * i)));
        StoredRun ex;
        (i % 2 ? b : a)->insert(r, p, &ex);
        all.insert(all.end(), p.begin(), p.end());
    }
    const auto merged = a->aggregate(g.key, "stream");
    check(merged && nlohmann::json::parse(*merged)["uploads"] == runs,
          "replicas: queued uploads of both are merged into the answer before any fold");
    const auto several = b->aggregates(g.key, {"nothing", "stream"});
    check(several.size() == 2 && !several[0] && several[1] && *several[1] == *merged,
          "aggregates: several experiments at once, queued uploads merged, as aggregate() answers each");
    // Both fold at once, in small batches: every upload is folded once.
    std::atomic<std::size_t> folded{0};
    std::atomic<int> errors{0};
    std::vector<std::thread> folders;
    for (Storage *s : {a.get(), b.get()})
        for (int t = 0; t < 2; ++t)
            folders.emplace_back([&, s] {
                try {
                    // Until the queue is empty (or 60 s): a fold that finds the
                    // model locked by another one returns 0, and on a busy
                    // machine a fixed number of tries can run out first.
                    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
                    while (std::chrono::steady_clock::now() < give_up) {
                        const std::size_t n = s->refresh(3);
                        folded += n;
                        if (n == 0) {
                            if (s->pending() == 0) break;
                            std::this_thread::sleep_for(std::chrono::milliseconds(2));
                        }
                    }
                } catch (const std::exception &e) {
                    std::printf("folding: %s\n", e.what());
                    errors++;
                }
            });
    for (auto &th : folders) th.join();
    check(errors == 0 && a->pending() == 0, "replicas: concurrent folds from both empty the queue without errors");
    check(folded >= std::size_t(runs), "replicas: every queued upload was folded (" + std::to_string(folded) + ")");
    const auto fa = a->aggregate(g.key, "stream"), fb = b->aggregate(g.key, "stream");
    nlohmann::json want = [&] {
        Aggregator x;
        for (const PointRow &p : all) x.add(p);
        return x.result();
    }();
    bool close = fa && fb && *fa == *fb;
    if (close) {
        const nlohmann::json got = nlohmann::json::parse(*fa);
        close = got["uploads"] == runs && got["series"].size() == 1 &&
                got["series"][0]["points"].size() == want["series"][0]["points"].size();
        for (std::size_t i = 0; close && i < want["series"][0]["points"].size(); ++i) {
            const auto &gp = got["series"][0]["points"][i], &wp = want["series"][0]["points"][i];
            close = gp["n"] == runs && std::fabs(gp["median"].get<double>() - wp["median"].get<double>()) <=
                                           HistogramAggregate::kRelativeWidth * wp["median"].get<double>();
        }
    }
    check(close, "replicas: both read the same folded aggregate, each upload counted once, medians within the bins");
    const auto folded_several = a->aggregates(g.key, {"stream", "nothing"});
    check(folded_several.size() == 2 && folded_several[0] && fa && *folded_several[0] == *fa && !folded_several[1],
          "aggregates: several experiments at once from the stored results");
    std::uint64_t uploads = 0;
    for (const GpuCount &c : b->gpus())
        if (c.gpu.key == g.key) uploads = c.uploads;
    check(uploads == std::uint64_t(runs), "replicas: the model's count is every upload once");
    // A run folded by either, deleted through the other, leaves both.
    check(b->remove(hex_id(0, 77)) && a->remove(hex_id(1, 77)), "replicas: deletes through either");
    const auto after = a->aggregate(g.key, "stream");
    check(after && nlohmann::json::parse(*after)["uploads"] == runs - 2 &&
              nlohmann::json::parse(*after)["series"][0]["points"][0]["n"] == runs - 2,
          "replicas: a delete subtracts the upload from the stored aggregate");
}

void exec_sql(PGconn *c, const std::string &sql) {
    PGresult *r = PQexec(c, sql.c_str());
    const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
    const std::string why = ok ? "" : PQerrorMessage(c);
    PQclear(r);
    if (!ok) throw std::runtime_error("sql: " + sql + ": " + why);
}

// Documents: a client's gzip kept as it came, zstd otherwise, and a database
// from before packed_document (JSON text in runs.document) read and written.
void document_tests(const std::string &url) {
    auto db = open_postgres_storage(url);
    const GpuIdentity g = gpu("doc-model", "Doc model", "1");
    std::string doc = "{\"schema\":\"gmlab.run/1.2\",\"pad\":\"";
    for (int i = 0; i < 5000; ++i) doc += std::to_string(i % 97) + ",";
    doc += "\"}";
    StoredRun plain = make_run(hex_id(1, 0xd0c), "", "2026-11-23T00:00:01Z", g, doc);
    check(db->insert(plain, {point(plain.id, "stream", "copy", 1, 1)}, nullptr) == InsertOutcome::Inserted,
          "documents: a run without a gzip form is inserted (compressed by the storage)");
    // One gzip member, as decode_body keeps a client's body (level 6 here).
    StoredRun zipped = make_run(hex_id(2, 0xd0c), "", "2026-11-23T00:00:02Z", g, doc);
    {
        z_stream z{};
        deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
        zipped.document_compressed.resize(deflateBound(&z, doc.size()) + 64);
        z.next_in = reinterpret_cast<Bytef *>(doc.data());
        z.avail_in = static_cast<uInt>(doc.size());
        z.next_out = reinterpret_cast<Bytef *>(zipped.document_compressed.data());
        z.avail_out = static_cast<uInt>(zipped.document_compressed.size());
        deflate(&z, Z_FINISH);
        zipped.document_compressed.resize(z.total_out);
        deflateEnd(&z);
    }
    check(db->insert(zipped, {point(zipped.id, "stream", "copy", 1, 1)}, nullptr) == InsertOutcome::Inserted,
          "documents: a run with its client's gzip is inserted");
    auto a = db->get(plain.id), b = db->get(zipped.id);
    check(a && a->document == doc && b && b->document == doc, "documents: both read back as the exact JSON text");

    PGconn *c = PQconnectdb(url.c_str());
    PGresult *r = PQexec(c, ("SELECT substr(packed_document, 1, 4) = '\\x28b52ffd'::bytea, "
                             "substr(packed_document, 1, 2) = '\\x1f8b'::bytea, document IS NULL FROM runs WHERE id IN ('" +
                             plain.id + "', '" + zipped.id + "') ORDER BY id").c_str());
    check(PQntuples(r) == 2 && std::string(PQgetvalue(r, 0, 0)) == "t" && std::string(PQgetvalue(r, 1, 1)) == "t" &&
              std::string(PQgetvalue(r, 0, 2)) == "t",
          "documents: stored as zstd and as the client's gzip, no JSON text");
    PQclear(r);

    // A database as an earlier build left it: document TEXT NOT NULL, no packed_document.
    exec_sql(c, "DROP DATABASE IF EXISTS gmlab_before_packed");
    exec_sql(c, "CREATE DATABASE gmlab_before_packed");
    PQfinish(c);
    const std::string old_url = url.substr(0, url.rfind('/') + 1) + "gmlab_before_packed";
    PGconn *o = PQconnectdb(old_url.c_str());
    exec_sql(o, "CREATE TABLE runs (id TEXT PRIMARY KEY, submission_id TEXT UNIQUE, delete_token_hash TEXT NOT NULL, "
                "created_at TEXT NOT NULL, gpu_key TEXT NOT NULL, gpu_name TEXT NOT NULL, cc TEXT NOT NULL, "
                "memory_bytes BIGINT NOT NULL, bus_width INTEGER NOT NULL, driver TEXT NOT NULL, runtime TEXT NOT NULL, "
                "document TEXT NOT NULL)");
    exec_sql(o, "INSERT INTO runs VALUES ('" + hex_id(3, 0xd0c) + "', NULL, 'h', '2026-01-01T00:00:00Z', 'doc-model', "
                "'Doc model', '9.0', 1, 1, '1', '1', '{\"schema\":\"gmlab.run/1\",\"old\":true}')");
    PQfinish(o);
    auto old = open_postgres_storage(old_url);
    auto before = old->get(hex_id(3, 0xd0c));
    check(before && before->document == "{\"schema\":\"gmlab.run/1\",\"old\":true}",
          "documents: an upload stored as JSON text before packed_document still reads back");
    StoredRun after = make_run(hex_id(4, 0xd0c), "", "2026-11-23T00:00:04Z", g, doc);
    check(old->insert(after, {point(after.id, "stream", "copy", 1, 1)}, nullptr) == InsertOutcome::Inserted &&
              old->get(after.id) && old->get(after.id)->document == doc,
          "documents: the migrated database takes new uploads");
}

// A database of schema version 1: its aggregates (x as uploaded) and the
// models' folded counts are rebuilt on the canonical axis when a server of
// version 2 opens it; a held upload stays out.
void upgrade_tests(const std::string &url) {
    PGconn *c = PQconnectdb(url.c_str());
    exec_sql(c, "DROP DATABASE IF EXISTS gmlab_schema_v1");
    exec_sql(c, "CREATE DATABASE gmlab_schema_v1");
    PQfinish(c);
    const std::string v1_url = url.substr(0, url.rfind('/') + 1) + "gmlab_schema_v1";
    StorageOptions manual;
    manual.background_refresh = false;
    const GpuIdentity g = gpu("v1-model", "V1 model", "1");
    auto shifted = [](const std::string &run, int k) {
        std::vector<PointRow> rows;
        for (double x : {1.0, 2.0, 4096.0, 268435456.0}) rows.push_back(point(run, "stream", "copy", x * (1 + 0.001 * k), 100 + k));
        return rows;
    };
    {
        auto db = open_postgres_storage(v1_url, manual);
        for (int k = 0; k < 4; ++k) {
            const StoredRun r = make_run(hex_id(k, 0x51), "", "2026-11-24T00:00:0" + std::to_string(k) + "Z", g, "{}");
            check(db->insert(r, shifted(r.id, k), nullptr) == InsertOutcome::Inserted, "upgrade: upload " + std::to_string(k));
        }
        db->refresh(100);
        check(db->set_counted(hex_id(3, 0x51), false), "upgrade: one upload held");
    }
    PGconn *o = PQconnectdb(v1_url.c_str());
    exec_sql(o, "UPDATE aggregates SET result = '{}', state = '\\x00'::bytea");
    exec_sql(o, "UPDATE models SET uploads = 99");
    exec_sql(o, "UPDATE gmlab_schema SET version = 1");
    auto db = open_postgres_storage(v1_url, manual);
    PGresult *v = PQexec(o, "SELECT max(version) FROM gmlab_schema");
    check(PQntuples(v) == 1 && std::string(PQgetvalue(v, 0, 0)) == "2", "upgrade: the database is at schema version 2");
    PQclear(v);
    PQfinish(o);
    check(db->pending() == 3 && db->gpus().size() == 1 && db->gpus()[0].uploads == 3,
          "upgrade: the counted uploads are queued again, the model counts 3");
    db->refresh(100);
    HistogramAggregate want;
    for (int k = 0; k < 3; ++k) want.fold_rows(shifted(hex_id(k, 0x51), k), +1);
    const auto got = db->aggregate(g.key, "stream");
    check(got && nlohmann::json::parse(*got) == want.result() && want.result()["series"][0]["points"].size() == 4,
          "upgrade: the aggregate is rebuilt, one point per canonical x");
    check(db->pending() == 0 && db->gpus()[0].uploads == 3, "upgrade: folded, the model still counts 3");
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s POSTGRES_URL\n", argv[0]);
        return 2;
    }
    try {
        run_tests(argv[1]);
        replica_tests(argv[1]);
        document_tests(argv[1]);
        upgrade_tests(argv[1]);
    } catch (const std::exception &e) {
        check(false, std::string("unexpected exception: ") + e.what());
    }
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
