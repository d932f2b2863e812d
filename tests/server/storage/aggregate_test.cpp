// The maintained per-model aggregates: the histograms against the exact
// quantiles, folding in and out, their stored form, and the SQLite storage
// keeping them (queue, refresh, delete) and its rate-limit tokens.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include "storage/aggregate.hpp"
#include "storage/canonical_axis.hpp"
#include "storage/sqlite/sqlite_storage.hpp"
#include "temp_files.hpp"

using namespace gmserver;
using nlohmann::json;

namespace {

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
    const std::string path = fresh_temp_path("gm_aggregates.sqlite");
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
    const std::string path = fresh_temp_path("gm_aggregates_bg.sqlite");
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
    const std::string path = fresh_temp_path("gm_aggregates_old.sqlite");
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

// ---- The canonical axis (storage/canonical_axis.hpp) -----------------------

TEST(CanonicalAxis, IntegersUpTo65536StayExactAndSoDoPowersOfTwoAndTheirSmallMultiples) {
    for (int i = 0; i <= 65536; ++i) {
        ASSERT_EQ(canonical_x(i), double(i)) << i;
        ASSERT_EQ(canonical_x(-i), -double(i)) << i;
    }
    for (int e = -60; e <= 80; ++e)
        for (double m : {1.0, 1.25, 1.5, 1.75, 1.875}) {  // 2^e, 5, 3, 7, 15 times 2^(e-3)
            const double x = std::ldexp(m, e);
            if (x >= 1 && x < 64 && x != std::floor(x)) continue;  // 1 .. 64: integers only
            ASSERT_EQ(canonical_x(x), x) << m << " 2^" << e;
            ASSERT_EQ(canonical_x(-x), -x) << m << " 2^" << e;
        }
    // What the committed H200 run sweeps: sizes in bytes, pitch widths, a
    // register cap of 255, 240 MiB.
    for (double x : {268435456.0, 536870912.0, 251658240.0, 1000.0, 1023.0, 1025.0, 4097.0, 32769.0, 255.0, 12928.0})
        EXPECT_EQ(canonical_x(x), x) << x;
    EXPECT_EQ(canonical_x(0.0), 0.0);
    EXPECT_FALSE(std::signbit(canonical_x(-0.0)));
}

TEST(CanonicalAxis, SlightlyShiftedValuesLandOnTheSamePoint) {
    std::vector<double> swept;
    for (int i = 1; i <= 16; ++i) swept.push_back(i);  // 16 * 1.02 is still nearest 16
    for (int e = -20; e <= 50; ++e) swept.push_back(std::ldexp(1.0, e));
    for (int e = 10; e <= 40; ++e) swept.push_back(3 * std::ldexp(1.0, e));  // 3 KiB ... 3 TiB
    for (double x : swept)
        for (int k = 1; k <= 20; ++k) {
            const double f = 1 + 0.001 * k;
            ASSERT_EQ(canonical_x(x * f), canonical_x(x)) << x << " * " << f;
            ASSERT_EQ(canonical_x(-x * f), canonical_x(-x)) << x << " * " << f;
            ASSERT_EQ(canonical_x(x / f), canonical_x(x)) << x << " / " << f;
        }
    // Off the grid (a working set of 82560 bytes): one point for the shifted
    // values, within 6.25 % of them.
    std::set<double> points;
    for (int k = 0; k <= 20; ++k) points.insert(canonical_x(82560 * (1 + 0.001 * k)));
    EXPECT_EQ(points.size(), 1u);
    EXPECT_LE(std::fabs(*points.begin() / 82560 - 1), 0.0625);
    // Between 1 and 64 a shifted value goes to the integer it came from, or
    // to a grid point within 2.5 %.
    EXPECT_EQ(canonical_x(25.3), 25);
    EXPECT_EQ(canonical_x(32.6), 32);
    EXPECT_EQ(canonical_x(31.3), 32);
    EXPECT_EQ(canonical_x(33.2), 33);
    EXPECT_EQ(canonical_x(2.3), 2);
}

TEST(CanonicalAxis, IsIdempotentAndMonotonic) {
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> exponent(-1070, 1020), mantissa(1, 2);
    std::vector<double> xs;
    for (int i = 0; i < 200000; ++i) xs.push_back(std::ldexp(mantissa(rng), static_cast<int>(exponent(rng))));
    for (double x : {0.5, 0.97, 64.4, 64.5, 65536.5, 1e300, 1.7976931348623157e308, 4.9e-324}) xs.push_back(x);
    for (double x = 0; x < 70; x += 0.001) xs.push_back(x);  // where integers and the grid meet
    std::sort(xs.begin(), xs.end());
    double previous = 0;
    for (double x : xs) {
        const double c = canonical_x(x);
        ASSERT_TRUE(std::isfinite(c)) << x;
        ASSERT_EQ(canonical_x(c), c) << x;
        ASSERT_LE(previous, c) << x;  // never decreasing: the order of x is kept
        ASSERT_EQ(canonical_x(-x), -c) << x;
        previous = c;
    }
}

TEST(CanonicalAxis, AnyNumberOfDistinctValuesMakesABoundedNumberOfPoints) {
    std::mt19937_64 rng(5);
    // Non-integers across 100 .. 1000 (3.3 octaves): at most 8 points an octave.
    std::uniform_real_distribution<double> mid(100, 1000);
    std::set<double> points;
    for (int i = 0; i < 100000; ++i) points.insert(canonical_x(mid(rng) + 0.5 * (i % 2 ? 1e-9 : 0.25)));
    EXPECT_LE(points.size(), 8u * 4);
    // Any double beyond 65536 up to 2^40 (integers too): 8 an octave, 24 octaves.
    std::uniform_real_distribution<double> large(65537, std::ldexp(1.0, 40));
    points.clear();
    for (int i = 0; i < 100000; ++i) points.insert(canonical_x(std::floor(large(rng))));
    EXPECT_LE(points.size(), 8u * 24 + 1);
    // Every finite double, either sign: the 65537 integers and 8 points per
    // binary octave (2098 octaves of normal and subnormal doubles) each.
    std::uniform_real_distribution<double> exponent(-1074, 1023), mantissa(1, 2);
    points.clear();
    for (int i = 0; i < 300000; ++i) points.insert(canonical_x(std::ldexp(mantissa(rng), static_cast<int>(exponent(rng)))));
    EXPECT_LE(points.size(), 65537u + 8u * 2098);
}

namespace {

// The H200-like shape of one upload: a series of 0..16, 20, 24, 28, 32
// (offsets, strides), one of powers of two (sizes) and one of 3 KiB
// multiples, each x times `shift`.
std::vector<int> offsets() {
    std::vector<int> out;
    for (int i = 0; i <= 16; ++i) out.push_back(i);
    for (int i : {20, 24, 28, 32}) out.push_back(i);
    return out;
}

std::vector<PointRow> swept_upload(const std::string &run, double shift, double value) {
    std::vector<PointRow> out;
    for (int i : offsets()) out.push_back({run, "e", "offsets", "bandwidth_gbs", i * shift, value + i});
    for (int e = 12; e <= 28; ++e) out.push_back({run, "e", "sizes", "bandwidth_gbs", std::ldexp(1.0, e) * shift, value * e});
    for (int k = 1; k <= 8; ++k) out.push_back({run, "e", "3 KiB", "bandwidth_gbs", 3072.0 * (1 << k) * shift, value / k});
    return out;
}

std::size_t point_count(const json &agg) {
    std::size_t n = 0;
    for (const json &s : agg["series"]) n += s["points"].size();
    return n;
}

}  // namespace

TEST(HistogramAggregate, ShiftedUploadsAddToTheSamePoints) {
    HistogramAggregate h;
    h.fold_rows(swept_upload("u0", 1, 100), +1);
    const json one = h.result();
    ASSERT_EQ(point_count(one), 21u + 17 + 8);
    for (int k = 1; k <= 20; ++k) h.fold_rows(swept_upload("u" + std::to_string(k), 1 + 0.001 * k, 100), +1);
    const json all = h.result();
    EXPECT_EQ(all["uploads"], 21);
    ASSERT_EQ(all["series"].size(), 3u);
    for (std::size_t s = 0; s < 3; ++s) {
        ASSERT_EQ(all["series"][s]["points"].size(), one["series"][s]["points"].size());
        for (std::size_t i = 0; i < one["series"][s]["points"].size(); ++i) {
            EXPECT_EQ(all["series"][s]["points"][i]["x"], one["series"][s]["points"][i]["x"]);
            EXPECT_EQ(all["series"][s]["points"][i]["n"], 21);
        }
    }
    EXPECT_FALSE(all.contains("left_out"));
    // Folded out again, point by point the same.
    for (int k = 1; k <= 20; ++k) h.fold_rows(swept_upload("u" + std::to_string(k), 1 + 0.001 * k, 100), -1);
    EXPECT_EQ(h.result(), one);
    // The exact aggregator uses the same axis.
    std::vector<PointRow> rows;
    for (int k = 0; k <= 20; ++k) {
        const auto u = swept_upload("u" + std::to_string(k), 1 + 0.001 * k, 100);
        rows.insert(rows.end(), u.begin(), u.end());
    }
    EXPECT_EQ(point_count(aggregate_points(rows)), point_count(one));
}

TEST(HistogramAggregate, NoMoreSeriesNorPointsThanTheFullestUploadHad) {
    HistogramAggregate h;
    for (int i = 0; i < 3; ++i) h.fold_rows(swept_upload("good" + std::to_string(i), 1, 100 + i), +1);
    const json good = h.result();
    // 20 uploads, each with x of its own (integers: exact on the axis) and
    // four series named for it.
    std::vector<std::vector<PointRow>> noise;
    for (int k = 0; k < 20; ++k) {
        std::vector<PointRow> u = swept_upload("noise" + std::to_string(k), 1, 50);
        for (int j = 0; j < 40; ++j) u.push_back({"noise", "e", "offsets", "bandwidth_gbs", 1000.0 + 40 * k + j, 1.0});
        for (int j = 0; j < 4; ++j) u.push_back({"noise", "e", "n" + std::to_string(k) + "-" + std::to_string(j), "bandwidth_gbs", 1, 1});
        h.fold_rows(u, +1);
        noise.push_back(std::move(u));
    }
    const json r = h.result();
    // The fullest upload had 7 series and 61 offsets. Shown: the 3 series in
    // all 23 uploads and the first 4 of the 80 in one upload each; of the
    // 821 offsets, the 21 in all 23 uploads and the 40 smallest of those in
    // one.
    ASSERT_EQ(r["series"].size(), 7u);
    EXPECT_EQ(r["series"][0]["name"], "offsets");
    EXPECT_EQ(r["series"][3]["name"], "n0-0");
    EXPECT_EQ(r["series"][6]["name"], "n0-3");
    const json &offset_points = r["series"][0]["points"];
    ASSERT_EQ(offset_points.size(), 61u);
    for (int i = 0; i < 21; ++i) EXPECT_EQ(offset_points[i]["n"], 23) << i;
    EXPECT_EQ(offset_points[21]["x"], 1000.0);
    EXPECT_EQ(offset_points[60]["x"], 1039.0);
    EXPECT_EQ(r["left_out"]["series"], 76);
    EXPECT_EQ(r["left_out"]["points"], 821 - 61);
    // No larger than the fullest upload.
    EXPECT_EQ(point_count(r), 61u + 17 + 8 + 4);
    // Folded out, the good uploads' aggregate is back as it was.
    for (const auto &u : noise) h.fold_rows(u, -1);
    EXPECT_EQ(h.result(), good);
}

namespace {

// A stored aggregate in the form of schema version 1 ("GMH1": no shapes, x
// as uploaded), written byte by byte: one series with one value at each x.
std::string gmh1_state(const std::vector<std::pair<double, double>> &x_values) {
    auto varint = [](std::string &out, std::uint64_t v) {
        while (v >= 0x80) {
            out.push_back(static_cast<char>((v & 0x7f) | 0x80));
            v >>= 7;
        }
        out.push_back(static_cast<char>(v));
    };
    auto f64 = [](std::string &out, double v) {
        char b[8];
        std::memcpy(b, &v, 8);
        out.append(b, 8);
    };
    std::string out = "GMH1";
    varint(out, x_values.size());  // uploads: one value each
    varint(out, 1);
    for (const char *text : {"copy", "bandwidth_gbs"}) {
        varint(out, std::strlen(text));
        out += text;
    }
    varint(out, x_values.size());
    for (const auto &[x, v] : x_values) {
        f64(out, x);
        varint(out, 1);  // one bin
        const std::int64_t key = bin_key(v);
        varint(out, (static_cast<std::uint64_t>(key) << 1) ^ static_cast<std::uint64_t>(key >> 63));
        varint(out, 1u << 1);  // n = 1, no dsum
        f64(out, v);
    }
    return out;
}

}  // namespace

TEST(HistogramAggregate, ReadsTheFormOfSchemaVersion1OntoTheCanonicalAxis) {
    // x as uploaded: 4096 and a shifted 4100.096 (one point now), and 5000.
    const HistogramAggregate h = HistogramAggregate::decode(gmh1_state({{4096, 10}, {4100.096, 20}, {5000, 30}}));
    const json r = h.result();
    ASSERT_EQ(r["series"].size(), 1u);
    const json &points = r["series"][0]["points"];
    ASSERT_EQ(points.size(), 2u);
    EXPECT_EQ(points[0]["x"], 4096.0);
    EXPECT_EQ(points[0]["n"], 2);
    EXPECT_EQ(points[0]["median"], 15.0);
    EXPECT_EQ(points[1]["x"], 5000.0);
    EXPECT_FALSE(r.contains("left_out"));  // no shapes kept: nothing it holds is left out
    // Written again in the current form, and read back the same.
    EXPECT_EQ(h.encode().substr(0, 4), "GMH2");
    EXPECT_EQ(HistogramAggregate::decode(h.encode()).result(), r);
}

TEST(SqliteAggregates, AnUpgradeFromSchemaVersion1RebuildsTheAggregates) {
    const std::string path = fresh_temp_path("gm_aggregates_v1.sqlite");
    StorageOptions manual;
    manual.background_refresh = false;
    {
        auto s = open_sqlite_storage(path, manual);
        for (int i = 0; i < 4; ++i) {
            const std::string id = "v" + std::to_string(i);
            ASSERT_EQ(s->insert(run_of(id, "gpu-v", "2026-05-0" + std::to_string(i + 1)),
                                swept_upload(id, 1 + 0.001 * i, 100), nullptr),
                      InsertOutcome::Inserted);
        }
        EXPECT_EQ(s->refresh(10), 4u);
        ASSERT_TRUE(s->set_counted("v3", false));  // held: stays out after the upgrade
    }
    // As a server of version 1 left it: its own aggregate (x as uploaded),
    // here a state of one point, and a count of its own.
    {
        sqlite3 *db = nullptr;
        ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        sqlite3_stmt *st = nullptr;
        const std::string old = gmh1_state({{4100.096, 1}});
        ASSERT_EQ(sqlite3_prepare_v2(db, "UPDATE aggregates SET state = ?, result = '{}'", -1, &st, nullptr), SQLITE_OK);
        sqlite3_bind_blob(st, 1, old.data(), static_cast<int>(old.size()), SQLITE_TRANSIENT);
        ASSERT_EQ(sqlite3_step(st), SQLITE_DONE);
        sqlite3_finalize(st);
        ASSERT_EQ(sqlite3_exec(db, "UPDATE models SET uploads = 99; PRAGMA user_version = 1", nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
    }
    auto s = open_sqlite_storage(path, manual);
    EXPECT_EQ(s->pending(), 3u);  // the counted uploads, queued again
    EXPECT_EQ(s->gpus()[0].uploads, 3u);
    EXPECT_EQ(s->refresh(10), 3u);
    HistogramAggregate want;
    for (int i = 0; i < 3; ++i) want.fold_rows(swept_upload("v" + std::to_string(i), 1 + 0.001 * i, 100), +1);
    EXPECT_EQ(aggregate_of(*s, "gpu-v", "e"), want.result());
    EXPECT_EQ(s->gpus()[0].uploads, 3u);
    // Opened again: nothing more to rebuild.
    s.reset();
    s = open_sqlite_storage(path, manual);
    EXPECT_EQ(s->pending(), 0u);
    EXPECT_EQ(aggregate_of(*s, "gpu-v", "e"), want.result());
    sqlite3 *db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    sqlite3_stmt *v = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &v, nullptr), SQLITE_OK);
    ASSERT_EQ(sqlite3_step(v), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int(v, 0), 2);
    sqlite3_finalize(v);
    sqlite3_close(db);
}

TEST(SqliteStorage, TokenBucketsPerClientAndKind) {
    auto s = open_sqlite_storage(fresh_temp_path("gm_tokens.sqlite"));
    int retry = 0;
    EXPECT_TRUE(s->take_token("1.2.3.4", true, 0.5, 2, &retry));
    EXPECT_TRUE(s->take_token("1.2.3.4", true, 0.5, 2, &retry));
    EXPECT_FALSE(s->take_token("1.2.3.4", true, 0.5, 2, &retry));
    EXPECT_GE(retry, 1);
    EXPECT_LE(retry, 2);
    EXPECT_TRUE(s->take_token("1.2.3.4", false, 0.5, 2, &retry)) << "reads have their own bucket";
    EXPECT_TRUE(s->take_token("5.6.7.8", true, 0.5, 2, &retry)) << "another client has its own bucket";
}
