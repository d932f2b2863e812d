// The model against the hardware counters across uploads: the counter rows'
// fields (storage/counter_rows.hpp), the aggregates keeping a series'
// headline and its counter rows apart, aggregates stored before counter rows
// still decoding and merging, and the point codec leaving counter rows out of
// what the export reads. Validation adding them: upload/counter_rows_validation_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "storage/aggregate.hpp"
#include "storage/counter_rows.hpp"
#include "storage/point_codec.hpp"

using namespace gmserver;
using nlohmann::json;

namespace {

const json *entry(const json &list, const std::string &name, const std::string &field) {
    for (const json &e : list)
        if (e["name"] == name && e["field"] == field) return &e;
    return nullptr;
}

}  // namespace

TEST(CounterRows, FieldsNameTheirKindAndFigure) {
    EXPECT_EQ(counter_field(CounterRow::Counted, "sectors_per_request_ld"), "counters.sectors_per_request_ld");
    EXPECT_EQ(counter_field(CounterRow::Model, "sectors_per_request_ld"), "model.sectors_per_request_ld");
    EXPECT_EQ(counter_field(CounterRow::Tolerance, "a.b"), "tolerance.a.b");
    std::string_view counter;
    EXPECT_EQ(counter_row("model.dram__bytes_read.sum", &counter), CounterRow::Model);
    EXPECT_EQ(counter, "dram__bytes_read.sum");
    for (const char *headline : {"bandwidth_gbs", "median_ms", "predicted.sectors_per_request", "counters.", "modelx"})
        EXPECT_EQ(counter_row(headline), CounterRow::None) << headline;
}

TEST(CounterRows, AggregatesKeepASeriesHeadlineAndItsCounterRowsApart) {
    std::vector<PointRow> rows;
    auto upload = [&](const std::string &run, double counted) {
        std::vector<PointRow> u = {{run, "stride_copy", "guide", "bandwidth_gbs", 1, 3000},
                                   {run, "stride_copy", "guide", "counters.sectors_per_request_ld", 1, counted},
                                   {run, "stride_copy", "guide", "model.sectors_per_request_ld", 1, 4},
                                   {run, "stride_copy", "guide", "tolerance.sectors_per_request_ld", 1, 0},
                                   {run, "stride_copy", "other", "bandwidth_gbs", 1, 1500}};
        rows.insert(rows.end(), u.begin(), u.end());
        return u;
    };
    HistogramAggregate h;
    h.fold_rows(upload("a", 4), +1);
    h.fold_rows(upload("b", 4), +1);
    const auto last = upload("c", 5);
    h.fold_rows(last, +1);
    Aggregator exact;
    for (const PointRow &r : rows) exact.add(r);
    for (const json &agg : {h.result(), exact.result()}) {
        // "series": one entry per name with its headline, in order, as every reader expects.
        ASSERT_EQ(agg["series"].size(), 2u) << agg.dump();
        EXPECT_EQ(agg["series"][0]["name"], "guide");
        EXPECT_EQ(agg["series"][0]["field"], "bandwidth_gbs");
        EXPECT_EQ(agg["series"][0]["points"][0]["median"], 3000.0);
        EXPECT_EQ(agg["series"][1]["name"], "other");
        ASSERT_EQ(agg["counters"].size(), 3u);
        const json *counted = entry(agg["counters"], "guide", "counters.sectors_per_request_ld");
        ASSERT_TRUE(counted);
        EXPECT_EQ((*counted)["points"][0]["n"], 3);
        EXPECT_EQ((*counted)["points"][0]["median"], 4.0);
        EXPECT_EQ((*counted)["points"][0]["q3"], 4.5);
        ASSERT_TRUE(entry(agg["counters"], "guide", "model.sectors_per_request_ld"));
        EXPECT_EQ(agg["uploads"], 3);
    }
    // Folded out again, the counter rows leave with their upload.
    h.fold_rows(last, -1);
    EXPECT_EQ((*entry(h.result()["counters"], "guide", "counters.sectors_per_request_ld"))["points"][0]["q3"], 4.0);
    // An aggregate without counter rows has no "counters": it reads as before.
    HistogramAggregate plain;
    plain.fold_rows({{"a", "stream", "copy", "bandwidth_gbs", 1, 3000}}, +1);
    EXPECT_FALSE(plain.result().contains("counters"));
}

// The stored form of a stride_copy aggregate of two uploads, as encoded before
// counter rows existed (series matched by name alone) and before the uploads'
// shapes were kept ("GMH1", schema version 1), with its API answer.
const char kOldBlob[] =
    "\x47\x4d\x48\x31\x02\x02\x13\x67\x75\x69\x64\x65\x2c\x20\x34\x2d\x62\x79\x74\x65\x20\x77\x6f\x72\x64\x73\x0d\x62\x61\x6e"
    "\x64\x77\x69\x64\x74\x68\x5f\x67\x62\x73\x02\x00\x00\x00\x00\x00\x00\xf0\x3f\x02\xa0\x8c\xf6\x01\x02\x00\x00\x00\x00\x00"
    "\x70\xa7\x40\x02\x02\x00\x00\x00\x00\x00\x71\xa7\x40\x00\x00\x00\x00\x00\x00\x00\x40\x02\xcc\xf6\xf5\x01\x02\x00\x00\x00"
    "\x00\x00\x70\x97\x40\x82\x02\x02\x00\x00\x00\x00\x00\x00\x99\x40\x13\x67\x75\x69\x64\x65\x2c\x20\x38\x2d\x62\x79\x74\x65"
    "\x20\x77\x6f\x72\x64\x73\x0d\x62\x61\x6e\x64\x77\x69\x64\x74\x68\x5f\x67\x62\x73\x01\x00\x00\x00\x00\x00\x00\xf0\x3f\x01"
    "\xa4\x8d\xf6\x01\x04\x00\x00\x00\x00\x00\x38\xa8\x40";
const char kOldResult[] =
    R"({"quantiles":"linear interpolation between closest ranks (type 7) over values kept in bins of 0.05 % relative width: )"
    R"(within 0.05 % of the exact value, exact where a bin holds one distinct value","resolution":0.0005,"series":[)"
    R"({"field":"bandwidth_gbs","name":"guide, 4-byte words","points":[{"median":3000.25,"n":2,"q1":3000.125,"q3":3000.375,"x":1.0},)"
    R"({"median":1550.0,"n":2,"q1":1525.0,"q3":1575.0,"x":2.0}]},{"field":"bandwidth_gbs","name":"guide, 8-byte words","points":)"
    R"([{"median":3100.0,"n":2,"q1":3100.0,"q3":3100.0,"x":1.0}]}],"uploads":2})";

TEST(CounterRows, AnAggregateStoredBeforeCounterRowsDecodesAndTakesThem) {
    const std::string blob(kOldBlob, sizeof kOldBlob - 1);
    ASSERT_EQ(blob.size(), 163u);
    HistogramAggregate h = HistogramAggregate::decode(blob);
    EXPECT_EQ(h.result(), json::parse(kOldResult));
    // Written again in the current form (with the uploads' shapes), it reads
    // back the same.
    EXPECT_EQ(h.encode().substr(0, 4), "GMH2");
    EXPECT_EQ(HistogramAggregate::decode(h.encode()).result(), json::parse(kOldResult));
    // A new upload with counter rows: its headline joins the stored series,
    // its counter rows come in beside them.
    h.fold_rows({{"c", "stride_copy", "guide, 4-byte words", "bandwidth_gbs", 2, 1600},
                 {"c", "stride_copy", "guide, 4-byte words", "counters.sectors_per_request_ld", 2, 8},
                 {"c", "stride_copy", "guide, 4-byte words", "model.sectors_per_request_ld", 2, 8},
                 {"c", "stride_copy", "guide, 8-byte words", "bandwidth_gbs", 1, 3100}},
                +1);
    const json agg = h.result();
    ASSERT_EQ(agg["series"].size(), 2u);
    EXPECT_EQ(agg["series"][0]["points"][1]["n"], 3);
    EXPECT_EQ(agg["series"][0]["points"][1]["median"], 1600.0);
    EXPECT_EQ(agg["counters"].size(), 2u);
    EXPECT_EQ(agg["uploads"], 3);
    EXPECT_EQ(HistogramAggregate::decode(h.encode()).result(), agg);
}

TEST(CounterRows, ThePointCodecHandsCounterRowsToTheAggregatesOnly) {
    const std::vector<PointRow> rows = {{"r", "stride_copy", "guide", "bandwidth_gbs", 1, 3000},
                                        {"r", "stride_copy", "guide", "counters.sectors_per_request_ld", 1, 4},
                                        {"r", "stride_copy", "guide", "model.sectors_per_request_ld", 1, 4},
                                        {"r", "stride_copy", "guide", "bandwidth_gbs", 2, 1600}};
    std::vector<const PointRow *> refs;
    for (const PointRow &r : rows) refs.push_back(&r);
    const std::string blob = encode_points(refs);
    std::vector<PointRow> headline, all;
    ASSERT_TRUE(decode_points(blob, "r", "stride_copy", [&](const PointRow &p) { headline.push_back(p); }));
    ASSERT_TRUE(decode_points(blob, "r", "stride_copy", [&](const PointRow &p) { all.push_back(p); }, true));
    ASSERT_EQ(headline.size(), 2u);
    EXPECT_EQ(headline[0].field, "bandwidth_gbs");
    EXPECT_EQ(headline[1].x, 2.0);
    EXPECT_EQ(all.size(), 4u);
    std::vector<std::string> strings;
    std::vector<HistogramAggregate::Point> points;
    ASSERT_TRUE(decode_point_set(blob, strings, points));
    EXPECT_EQ(points.size(), 4u);
}
