// The maintained per-model aggregates: the histograms against the exact
// quantiles, folding in and out, their stored form, and the SQLite storage
// keeping them (queue, refresh, delete) and its rate-limit tokens.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include "storage/aggregate.hpp"
#include "storage/sqlite/sqlite_storage.hpp"

using namespace gmserver;
using nlohmann::json;

namespace {

std::string temp_db(const char *name) {
    const std::string path = testing::TempDir() + name;
    for (const char *suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
    return path;
}

// One upload's points: two series over four x, values scaled by `f`.
std::vector<PointRow> upload(const std::string &run, double f, const std::string &experiment = "stream") {
    std::vector<PointRow> out;
    for (double x : {1.0, 2.0, 4.0, 8.0}) {
        out.push_back({run, experiment, "copy", "bandwidth_gbs", x, 1000 * x * f});
        out.push_back({run, experiment, "triad", "bandwidth_gbs", x, 900 * x * f});
    }
    return out;
}

// The exact aggregate of these rows (type-7 quantiles over every value).
json exact(const std::vector<PointRow> &rows) {
    Aggregator a;
    for (const PointRow &r : rows) a.add(r);
    return a.result();
}

// Every point of `got` within `rel` of `want`, with the same n and the same
// series and x.
void expect_close(const json &got, const json &want, double rel) {
    ASSERT_EQ(got["series"].size(), want["series"].size());
    EXPECT_EQ(got["uploads"], want["uploads"]);
    for (std::size_t s = 0; s < want["series"].size(); ++s) {
        const json &gs = got["series"][s], &ws = want["series"][s];
        EXPECT_EQ(gs["name"], ws["name"]);
        EXPECT_EQ(gs["field"], ws["field"]);
        ASSERT_EQ(gs["points"].size(), ws["points"].size()) << ws["name"];
        for (std::size_t i = 0; i < ws["points"].size(); ++i) {
            const json &g = gs["points"][i], &w = ws["points"][i];
            EXPECT_EQ(g["x"].get<double>(), w["x"].get<double>());
            EXPECT_EQ(g["n"], w["n"]);
            for (const char *q : {"median", "q1", "q3"}) {
                const double a = g[q].get<double>(), b = w[q].get<double>();
                EXPECT_LE(std::fabs(a - b), rel * std::fabs(b)) << ws["name"] << " x=" << w["x"] << " " << q;
            }
        }
    }
}

StoredRun run_of(const std::string &id, const std::string &gpu_key, const std::string &created) {
    StoredRun r;
    r.id = id;
    r.delete_token_hash = "h";
    r.created_at = created;
    r.gpu.key = gpu_key;
    r.gpu.name = "NVIDIA H200";
    r.document = "{}";
    return r;
}

json aggregate_of(Storage &s, const std::string &key, const std::string &experiment) {
    const auto text = s.aggregate(key, experiment);
    return text ? json::parse(*text) : json();
}

}  // namespace

TEST(HistogramAggregate, QuantilesWithinTheBinWidthOfTheExactOnes) {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(0.9, 1.1);
    std::vector<PointRow> all;
    HistogramAggregate h;
    for (int i = 0; i < 300; ++i) {
        const auto rows = upload("r" + std::to_string(i), u(rng));
        h.fold_rows(rows, +1);
        all.insert(all.end(), rows.begin(), rows.end());
    }
    expect_close(h.result(), exact(all), HistogramAggregate::kRelativeWidth);
    EXPECT_EQ(h.uploads(), 300u);
}

TEST(HistogramAggregate, ExactForOneUploadAndForIdenticalOnes) {
    HistogramAggregate one;
    const auto rows = upload("a", 1.2345);
    one.fold_rows(rows, +1);
    expect_close(one.result(), exact(rows), 0);
    HistogramAggregate same;
    std::vector<PointRow> all;
    for (int i = 0; i < 5; ++i) {
        const auto r = upload("s" + std::to_string(i), 0.777);
        same.fold_rows(r, +1);
        all.insert(all.end(), r.begin(), r.end());
    }
    expect_close(same.result(), exact(all), 0);
}

TEST(HistogramAggregate, FoldingOutUndoesFoldingIn) {
    HistogramAggregate h;
    const auto a = upload("a", 1.0), b = upload("b", 1.5), c = upload("c", 0.5);
    h.fold_rows(a, +1);
    h.fold_rows(b, +1);
    h.fold_rows(c, +1);
    h.fold_rows(b, -1);
    std::vector<PointRow> rest = a;
    rest.insert(rest.end(), c.begin(), c.end());
    expect_close(h.result(), exact(rest), HistogramAggregate::kRelativeWidth);
    h.fold_rows(a, -1);
    h.fold_rows(c, -1);
    EXPECT_TRUE(h.empty());
    EXPECT_EQ(h.uploads(), 0u);
}

TEST(HistogramAggregate, IgnoresNonFiniteValuesAndCountsOnlyUploadsWithPoints) {
    HistogramAggregate h;
    h.fold_rows({{"x", "stream", "copy", "bandwidth_gbs", 1, NAN}, {"x", "stream", "copy", "bandwidth_gbs", INFINITY, 3}}, +1);
    EXPECT_TRUE(h.empty());
    EXPECT_EQ(h.uploads(), 0u);
    h.fold_rows({{"y", "stream", "copy", "bandwidth_gbs", 1, -2.5}, {"y", "stream", "copy", "bandwidth_gbs", 2, 0}}, +1);
    EXPECT_EQ(h.uploads(), 1u);
    const json r = h.result();
    EXPECT_EQ(r["series"][0]["points"][0]["median"].get<double>(), -2.5);
    EXPECT_EQ(r["series"][0]["points"][1]["median"].get<double>(), 0.0);
}

TEST(HistogramAggregate, BinKeysFollowTheValues) {
    EXPECT_EQ(bin_key(0), 0);
    EXPECT_LT(bin_key(-1e9), bin_key(-1));
    EXPECT_LT(bin_key(-1), 0);
    EXPECT_LT(0, bin_key(1e-300));
    EXPECT_LT(bin_key(1), bin_key(1.001));
    // Keys never decrease with the value, and values sharing a key lie
    // within the bin width of each other.
    double first = 1000;
    for (double v = 1000; v < 1010; v += 0.01) {
        ASSERT_LE(bin_key(first), bin_key(v));
        if (bin_key(v) != bin_key(first)) first = v;
        EXPECT_LT(v / first, 1 + HistogramAggregate::kRelativeWidth) << v;
    }
}

TEST(HistogramAggregate, StoredFormRoundTripsAndRejectsDamage) {
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(0.5, 2);
    HistogramAggregate h;
    for (int i = 0; i < 50; ++i) h.fold_rows(upload("r" + std::to_string(i), u(rng)), +1);
    const std::string data = h.encode();
    const HistogramAggregate back = HistogramAggregate::decode(data);
    EXPECT_EQ(back.result(), h.result());
    EXPECT_EQ(back.encode(), data);
    EXPECT_THROW(HistogramAggregate::decode(""), std::runtime_error);
    EXPECT_THROW(HistogramAggregate::decode("XXXX" + data.substr(4)), std::runtime_error);
    for (std::size_t cut : {std::size_t(5), data.size() / 2, data.size() - 1})
        EXPECT_THROW(HistogramAggregate::decode(data.substr(0, cut)), std::runtime_error) << cut;
    EXPECT_THROW(HistogramAggregate::decode(data + "x"), std::runtime_error);
}

TEST(SqliteAggregates, QueuedUploadsAreMergedThenFoldedAndDeletesSubtract) {
    const std::string path = temp_db("gm_aggregates.sqlite");
    StorageOptions manual;
    manual.background_refresh = false;
    auto s = open_sqlite_storage(path, manual);
    const std::string key = "nvidia-h200-cc9.0-140gib-6016bit";
    std::vector<PointRow> all;
    for (int i = 0; i < 6; ++i) {
        const std::string id = "r" + std::to_string(i);
        auto rows = upload(id, 1 + 0.01 * i);
        auto other = upload(id, 2, "transpose");
        rows.insert(rows.end(), other.begin(), other.end());
        ASSERT_EQ(s->insert(run_of(id, key, "2026-01-0" + std::to_string(i + 1)), rows, nullptr), InsertOutcome::Inserted);
        const auto stream = upload(id, 1 + 0.01 * i);
        all.insert(all.end(), stream.begin(), stream.end());
    }
    EXPECT_EQ(s->pending(), 6u);
    // Not folded yet: the reader merges the queue.
    expect_close(aggregate_of(*s, key, "stream"), exact(all), HistogramAggregate::kRelativeWidth);
    ASSERT_EQ(s->gpus().size(), 1u);
    EXPECT_EQ(s->gpus()[0].uploads, 6u);

    EXPECT_EQ(s->refresh(4), 4u);
    EXPECT_EQ(s->pending(), 2u);
    expect_close(aggregate_of(*s, key, "stream"), exact(all), HistogramAggregate::kRelativeWidth);
    EXPECT_EQ(s->gpus()[0].uploads, 6u);
    EXPECT_EQ(s->refresh(100), 2u);
    EXPECT_EQ(s->refresh(100), 0u);
    EXPECT_EQ(s->pending(), 0u);
    expect_close(aggregate_of(*s, key, "stream"), exact(all), HistogramAggregate::kRelativeWidth);
    EXPECT_EQ(aggregate_of(*s, key, "transpose")["uploads"], 6);
    EXPECT_TRUE(aggregate_of(*s, key, "nothing").is_null());
    EXPECT_TRUE(aggregate_of(*s, "other", "stream").is_null());

    // A folded upload is subtracted, a queued one just leaves the queue.
    ASSERT_TRUE(s->remove("r2"));
    ASSERT_EQ(s->insert(run_of("late", key, "2026-02-01"), upload("late", 3), nullptr), InsertOutcome::Inserted);
    ASSERT_TRUE(s->remove("late"));
    std::vector<PointRow> rest;
    for (const PointRow &p : all)
        if (p.run_id != "r2") rest.push_back(p);
    expect_close(aggregate_of(*s, key, "stream"), exact(rest), HistogramAggregate::kRelativeWidth);
    EXPECT_EQ(s->pending(), 0u);
    EXPECT_EQ(s->gpus()[0].uploads, 5u);
    EXPECT_EQ(aggregate_of(*s, key, "transpose")["uploads"], 5);

    // Reopened, the stored aggregates are there as they were.
    s.reset();
    s = open_sqlite_storage(path, manual);
    expect_close(aggregate_of(*s, key, "stream"), exact(rest), HistogramAggregate::kRelativeWidth);
    for (int i : {0, 1, 3, 4, 5}) ASSERT_TRUE(s->remove("r" + std::to_string(i)));
    EXPECT_TRUE(aggregate_of(*s, key, "stream").is_null());
    EXPECT_TRUE(s->gpus().empty());
}

TEST(SqliteAggregates, TheBackgroundRefresherFoldsNewUploads) {
    const std::string path = temp_db("gm_aggregates_bg.sqlite");
    auto s = open_sqlite_storage(path);
    for (int i = 0; i < 20; ++i) {
        const std::string id = "b" + std::to_string(i);
        ASSERT_EQ(s->insert(run_of(id, "gpu-b", "2026-03-01T00:00:" + std::to_string(10 + i)), upload(id, 1), nullptr),
                  InsertOutcome::Inserted);
    }
    // Bounded wait: the refresher gathers for 100 ms after an insert.
    for (int i = 0; i < 200 && s->pending() > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
    EXPECT_EQ(s->pending(), 0u);
    EXPECT_EQ(aggregate_of(*s, "gpu-b", "stream")["uploads"], 20);
}

TEST(SqliteAggregates, FilesFromBeforeTheAggregatesHaveEveryUploadQueued) {
    const std::string path = temp_db("gm_aggregates_old.sqlite");
    StorageOptions manual;
    manual.background_refresh = false;
    {
        auto s = open_sqlite_storage(path, manual);
        for (int i = 0; i < 3; ++i) {
            const std::string id = "o" + std::to_string(i);
            ASSERT_EQ(s->insert(run_of(id, "gpu-o", "2026-04-0" + std::to_string(i + 1)), upload(id, 1), nullptr),
                      InsertOutcome::Inserted);
        }
        EXPECT_EQ(s->refresh(10), 3u);
    }
    // The aggregate tables removed, as in a file of an earlier version.
    sqlite3 *db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "DROP TABLE agg_queue; DROP TABLE aggregates; DROP TABLE models;", nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
    auto s = open_sqlite_storage(path, manual);
    EXPECT_EQ(s->pending(), 3u);
    EXPECT_EQ(s->refresh(10), 3u);
    EXPECT_EQ(aggregate_of(*s, "gpu-o", "stream")["uploads"], 3);
    EXPECT_EQ(s->gpus()[0].uploads, 3u);
}

TEST(SqliteStorage, TokenBucketsPerClientAndKind) {
    auto s = open_sqlite_storage(temp_db("gm_tokens.sqlite"));
    int retry = 0;
    EXPECT_TRUE(s->take_token("1.2.3.4", true, 0.5, 2, &retry));
    EXPECT_TRUE(s->take_token("1.2.3.4", true, 0.5, 2, &retry));
    EXPECT_FALSE(s->take_token("1.2.3.4", true, 0.5, 2, &retry));
    EXPECT_GE(retry, 1);
    EXPECT_LE(retry, 2);
    EXPECT_TRUE(s->take_token("1.2.3.4", false, 0.5, 2, &retry)) << "reads have their own bucket";
    EXPECT_TRUE(s->take_token("5.6.7.8", true, 0.5, 2, &retry)) << "another client has its own bucket";
}
