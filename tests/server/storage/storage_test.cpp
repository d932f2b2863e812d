// The SQLite storage's encodings: packed points, compressed documents, and
// files written before either (JSON text documents, one row per point).
#include <gtest/gtest.h>

#include "gzip_for_tests.hpp"

#include <sqlite3.h>

#include <cstdio>
#include <string>
#include <vector>

#include "storage/point_codec.hpp"
#include "storage/sqlite/sqlite_storage.hpp"
#include "temp_files.hpp"

using namespace gmserver;

namespace {

std::vector<PointRow> sample_points() {
    return {{"r", "stride_copy", "ilp4 4-byte", "bandwidth_gbs", 1, 4117.5},
            {"r", "stride_copy", "ilp4 4-byte", "bandwidth_gbs", 2, 1447.25},
            {"r", "stride_copy", "guide 4-byte", "median_ms", 32, 1e-3},
            {"r", "stride_copy", "ilp4 4-byte", "bandwidth_gbs", -0.0, 1e300}};
}

std::vector<PointRow> decode_all(const std::string &blob, bool *ok) {
    std::vector<PointRow> out;
    *ok = decode_points(blob, "run", "stride_copy", [&](const PointRow &p) { out.push_back(p); });
    return out;
}

}  // namespace

TEST(PointCodec, RoundTripsExactly) {
    const auto in = sample_points();
    std::vector<const PointRow *> refs;
    for (const auto &p : in) refs.push_back(&p);
    bool ok = false;
    const auto out = decode_all(encode_points(refs), &ok);
    ASSERT_TRUE(ok);
    ASSERT_EQ(out.size(), in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        EXPECT_EQ(out[i].run_id, "run");
        EXPECT_EQ(out[i].experiment, "stride_copy");
        EXPECT_EQ(out[i].series, in[i].series);
        EXPECT_EQ(out[i].field, in[i].field);
        EXPECT_EQ(out[i].x, in[i].x);
        EXPECT_EQ(out[i].value, in[i].value);
    }
}

TEST(PointCodec, RejectsDamagedBlobsWithoutVisiting) {
    const auto in = sample_points();
    std::vector<const PointRow *> refs;
    for (const auto &p : in) refs.push_back(&p);
    const std::string blob = encode_points(refs);
    bool ok = true;
    for (std::size_t cut : {std::size_t(0), std::size_t(3), blob.size() / 2, blob.size() - 1}) {
        EXPECT_TRUE(decode_all(blob.substr(0, cut), &ok).empty()) << cut;
        EXPECT_FALSE(ok) << cut;
    }
    std::string bad_index = blob;
    bad_index[bad_index.size() - 24] = '\x7f';  // first byte of the last point's series index
    EXPECT_TRUE(decode_all(bad_index, &ok).empty());
    EXPECT_FALSE(ok);
    EXPECT_TRUE(decode_all(blob + "x", &ok).empty());
    EXPECT_FALSE(ok);
}

TEST(DocumentCompression, RoundTripsAndRejectsOtherData) {
    std::string doc = "{\"schema\":\"gmlab.run/1\",\"results\":[";
    for (int i = 0; i < 2000; ++i) doc += "{\"x\":" + std::to_string(i) + ",\"median\":1.5},";
    doc += "{}]}";
    const std::string z = compress_document(doc);
    EXPECT_LT(z.size(), doc.size() / 4);
    EXPECT_EQ(decompress_document(z), doc);
    EXPECT_THROW(decompress_document("{\"not\":\"zstd\"}"), std::runtime_error);
    EXPECT_THROW(decompress_document(z.substr(0, z.size() / 2)), std::runtime_error);
}

// A run of an H200 whose document is 100,000 copies of `pad` in a string.
StoredRun padded_run(const std::string &id, char pad) {
    StoredRun run;
    run.id = id;
    run.delete_token_hash = "h";
    run.created_at = "2026-11-23T00:00:00Z";
    run.gpu.key = "nvidia-h200-cc9.0-140gib-6016bit";
    run.document = std::string("{\"schema\":\"gmlab.run/1.2\",\"pad\":\"") + std::string(100000, pad) + "\"}";
    return run;
}

TEST(SqliteStorage, StoresPointsAndCompressedDocuments) {
    const std::string path = fresh_temp_path("gm_storage_roundtrip.sqlite");
    auto store = open_sqlite_storage(path);
    const StoredRun run = padded_run("0123456789abcdef0123456789abcdef", 'a');
    auto points = sample_points();
    points.push_back({"r", "stream", "copy", "bandwidth_gbs", 0, 4196});
    for (auto &p : points) p.run_id = run.id;
    ASSERT_EQ(store->insert(run, points, nullptr), InsertOutcome::Inserted);
    EXPECT_EQ(store->get(run.id)->document, run.document);
    EXPECT_EQ(store->points(run.gpu.key, "stride_copy").size(), 4u);
    EXPECT_EQ(store->points(run.gpu.key, "stream").size(), 1u);
    EXPECT_TRUE(store->points("other", "stream").empty());
    EXPECT_TRUE(store->remove(run.id));
    EXPECT_TRUE(store->points(run.gpu.key, "stream").empty());
}

TEST(SqliteStorage, KeepsAClientsGzipAndReadsItBack) {
    const std::string path = fresh_temp_path("gm_storage_gzip.sqlite");
    auto store = open_sqlite_storage(path);
    StoredRun run = padded_run("00112233445566778899aabbccddeeff", 'b');
    run.document_compressed = test_support::gzip(run.document);
    ASSERT_TRUE(is_compressed_document(run.document_compressed));
    ASSERT_EQ(store->insert(run, sample_points(), nullptr), InsertOutcome::Inserted);
    const auto back = store->get(run.id);
    ASSERT_TRUE(back);
    EXPECT_EQ(back->document, run.document);
    EXPECT_TRUE(back->document_compressed.empty());
    EXPECT_EQ(decompress_document(run.document_compressed), run.document);
}

TEST(SqliteStorage, ReadsFilesFromBeforePackedPoints) {
    const std::string path = fresh_temp_path("gm_storage_old.sqlite");
    sqlite3 *db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    const char *old_schema =
        "CREATE TABLE runs (id TEXT PRIMARY KEY, submission_id TEXT UNIQUE, delete_token_hash TEXT NOT NULL,"
        " created_at TEXT NOT NULL, gpu_key TEXT NOT NULL, gpu_name TEXT NOT NULL, cc TEXT NOT NULL,"
        " memory_bytes INTEGER NOT NULL, bus_width INTEGER NOT NULL, driver TEXT NOT NULL, runtime TEXT NOT NULL,"
        " document TEXT NOT NULL);"
        "CREATE TABLE points (run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, experiment TEXT NOT NULL,"
        " series TEXT NOT NULL, field TEXT NOT NULL, x REAL NOT NULL, value REAL NOT NULL);"
        "INSERT INTO runs VALUES ('aa','s1','h','2026','gpu-a','A','9.0',1,1,'','','{\"old\":true}');"
        "INSERT INTO runs VALUES ('bb',NULL,'h','2026','gpu-a','A','9.0',1,1,'','','{\"old\":2}');"
        "INSERT INTO points VALUES ('aa','stream','copy','bandwidth_gbs',0,100);"
        "INSERT INTO points VALUES ('aa','stream','triad','bandwidth_gbs',3,103);"
        "INSERT INTO points VALUES ('bb','stream','copy','bandwidth_gbs',0,200);"
        "INSERT INTO points VALUES ('aa','stride_copy','ilp4','bandwidth_gbs',2,50);";
    ASSERT_EQ(sqlite3_exec(db, old_schema, nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);

    auto store = open_sqlite_storage(path);
    EXPECT_EQ(store->get("aa")->document, "{\"old\":true}");
    double sum = 0;
    std::size_t n = 0;
    store->for_each_point("gpu-a", "stream", [&](const PointRow &p) { sum += p.value, ++n; });
    EXPECT_EQ(n, 3u);
    EXPECT_EQ(sum, 403);
    EXPECT_EQ(store->points("gpu-a", "stride_copy").size(), 1u);
    EXPECT_EQ(store->count(), 2u);
}
