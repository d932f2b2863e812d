// The view across models, host logic: headline figures of a document, the
// robust outlier rule, CSV cells that cannot become formulas, the moderator
// token, and the SQLite crowd tables (status, figures, moderation log, exports
// that leave held uploads out).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "crowd/crowd.hpp"
#include "crowd/crowd_store.hpp"
#include "crowd/key_figures.hpp"
#include "crowd/outliers.hpp"
#include "storage/sqlite/sqlite_storage.hpp"
#include "temp_files.hpp"

using namespace gmserver;
using nlohmann::json;

namespace {

json small_run(double copy_gbs, double offset_ratio, double clock_measured) {
    return {{"device", {{"theoretical_bandwidth_gbs", 2000.0}, {"sm_clock_mhz", 1500.0}}},
            {"results",
             json::array({{{"experiment", {{"name", "stream"}}}, {"summary", {{"copy_gbs", copy_gbs}, {"triad_gbs", copy_gbs * 1.01}}}, {"series", json::array()}},
                          {{"experiment", {{"name", "offset_copy"}}}, {"summary", {{"guide_w4_offset1_over_offset0", offset_ratio}}}, {"series", json::array()}},
                          {{"experiment", {{"name", "latency"}}}, {"summary", {{"sm_clock_mhz_measured", clock_measured}}}, {"series", json::array()}}})}};
}

double value_of(const std::vector<FigureValue> &v, const std::string &figure) {
    for (const FigureValue &f : v)
        if (f.figure == figure) return f.value;
    return -1;
}

}  // namespace

TEST(KeyFigures, SummaryValuesAndTheirNormalisedForms) {
    const auto figs = upload_figures(small_run(1600, 0.9, 1500));
    EXPECT_DOUBLE_EQ(value_of(figs, "copy_gbs"), 1600);
    EXPECT_DOUBLE_EQ(value_of(figs, "copy_gbs/theoretical"), 0.8);
    EXPECT_DOUBLE_EQ(value_of(figs, "copy_gbs/copy"), 1.0);
    EXPECT_NEAR(value_of(figs, "triad_gbs/copy"), 1.01, 1e-12);
    EXPECT_DOUBLE_EQ(value_of(figs, "guide_w4_offset1_over_offset0"), 0.9);
    // A ratio has no normalised forms.
    EXPECT_EQ(value_of(figs, "guide_w4_offset1_over_offset0/copy"), -1);
}

TEST(KeyFigures, ThrottledClockIsAHealthProblem) {
    EXPECT_TRUE(health_problems(small_run(1600, 0.9, 1490)).empty());
    const auto problems = health_problems(small_run(1600, 0.9, 900));
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("throttled"), std::string::npos);
}

// A run's own NVML readings (each result's gpu_state.warnings) make it a
// health problem that names the experiment and the reason; a gpu_state block
// without warnings does not.
TEST(KeyFigures, NvmlWarningsAreAHealthProblem) {
    json doc = small_run(1600, 0.9, 1500);
    doc["results"][0]["gpu_state"] = {{"source", "nvml"}, {"warnings", json::array()}};
    EXPECT_TRUE(health_problems(doc).empty());
    doc["results"][1]["gpu_state"] = {{"source", "nvml"},
                                      {"warnings", json::array({"power limits held the clocks down for 12.0 ms while it measured"})}};
    const auto problems = health_problems(doc);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("degraded GPU state: 1 warning"), std::string::npos) << problems[0];
    EXPECT_NE(problems[0].find("offset_copy: power limits"), std::string::npos) << problems[0];
}

TEST(KeyFigures, WideRepetitionsAreUnstable) {
    json doc = small_run(1600, 0.9, 1500);
    json points = json::array();
    for (int i = 0; i < 5; ++i)
        points.push_back(json{{"time_ms", json{{"median", 1.0}, {"quantiles", json::array({0.5, 0.6, 0.7, 0.8, 1.0, 1.2, 1.4, 1.6, 1.9})}}}});
    doc["results"][0]["series"] = json::array({{{"points", points}}});
    const auto problems = health_problems(doc);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("unstable"), std::string::npos);
}

// The upload path judges the parts simdjson reads out of the text: the same
// figures and the same problems as from the whole document, whatever else the
// points carry and in either form (deciles or samples).
TEST(KeyFigures, JudgedPartsJudgeAsTheWholeDocument) {
    json doc = small_run(1600, 0.9, 900);
    doc["device"]["name"] = "NVIDIA H200";
    json points = json::array();
    for (int i = 0; i < 4; ++i)
        points.push_back(json{{"x", i},
                              {"bandwidth_gbs", 100.0 + i},
                              {"values", {{"offset_bytes", 4 * i}}},
                              {"counters", {{"sectors_per_request_ld", 4.0}}},
                              {"time_ms", json{{"median", 1.0}, {"n", 12},
                                               {"quantiles", json::array({0.5, 0.6, 0.7, 0.8, 1.0, 1.2, 1.4, 1.6, 1.9})}}}});
    json samples = json::array();
    for (int i = 0; i < 12; ++i) samples.push_back(1.0 + 0.5 * i);
    points.push_back(json{{"time_ms", json{{"median", 2.0}, {"samples", samples}}}});
    doc["results"][1]["series"] = json::array({{{"name", "guide"}, {"points", points}}});
    doc["results"][1]["notes"] = json::array({"a note"});
    const json parts = judged_parts(doc.dump());
    ASSERT_TRUE(parts.is_object());
    // One spread per point: (1.9 - 0.5) / 1 from the deciles of the first
    // four, (6.0 - 1.5) / 2 from the samples of the fifth.
    ASSERT_EQ(parts["point_spreads"].size(), 5u);
    EXPECT_DOUBLE_EQ(parts["point_spreads"][0].get<double>(), 1.4);
    EXPECT_DOUBLE_EQ(parts["point_spreads"][4].get<double>(), 2.25);
    EXPECT_FALSE(parts["results"][1].contains("series"));
    const auto full = upload_figures(doc), judged = upload_figures(parts);
    ASSERT_EQ(full.size(), judged.size());
    for (std::size_t i = 0; i < full.size(); ++i) {
        EXPECT_EQ(full[i].experiment, judged[i].experiment);
        EXPECT_EQ(full[i].figure, judged[i].figure);
        EXPECT_DOUBLE_EQ(full[i].value, judged[i].value);
    }
    const auto problems = health_problems(parts);
    EXPECT_EQ(problems, health_problems(doc));
    EXPECT_EQ(problems.size(), 2u);  // throttled and unstable
    EXPECT_TRUE(judged_parts("not json").is_null());
}

TEST(Outliers, PercentileAndRobustRule) {
    std::vector<double> v;
    for (int i = 0; i < 20; ++i) v.push_back(0.919 - 0.001 * i);  // 0.900 .. 0.919, any order
    ModelValues model;
    model[{"offset_copy", "r"}] = distribution_of(v);
    ASSERT_EQ((model[{"offset_copy", "r"}].size()), 20u);  // 0.1 % apart: a bin each
    const auto typical = standings({{"offset_copy", "r", 0.91}}, model);
    ASSERT_EQ(typical.size(), 1u);
    EXPECT_EQ(typical[0].n, 20u);
    EXPECT_NEAR(typical[0].percentile, 52.5, 1e-9);  // 10 below, one equal counted half
    EXPECT_NEAR(typical[0].median, 0.9095, 1e-12);
    EXPECT_FALSE(typical[0].unusual);
    const auto odd = standings({{"offset_copy", "r", 0.5}}, model);
    EXPECT_TRUE(odd[0].unusual);
    EXPECT_TRUE(odd[0].extreme);
    EXPECT_EQ(odd[0].percentile, 0);
    EXPECT_NE(hold_reason(odd, {}).find("outlier"), std::string::npos);
    EXPECT_EQ(hold_reason(typical, {}), "");
    // Too few uploads: placed, but not judged.
    ModelValues few;
    few[{"offset_copy", "r"}] = distribution_of({0.9, 0.91});
    const auto unjudged = standings({{"offset_copy", "r", 0.1}}, few);
    EXPECT_FALSE(unjudged[0].judged);
    EXPECT_FALSE(unjudged[0].extreme);
}

TEST(Outliers, DistributionsMergeValuesOfOneBin) {
    Distribution d;
    for (double x : {1.0, 1.0001, 2.0, 0.5, 1.00005}) add_value(d, x);
    ASSERT_EQ(d.size(), 3u);  // 1, 1.00005 and 1.0001 share a 0.05 % bin
    EXPECT_EQ(count_of(d), 5u);
    EXPECT_DOUBLE_EQ(d[0].mean, 0.5);
    EXPECT_NEAR(d[1].mean, 1.00005, 1e-12);
    EXPECT_EQ(d[1].n, 3u);
    EXPECT_NEAR(distribution_quantile(d, 0.5), 1.00005, 1e-12);
    EXPECT_DOUBLE_EQ(distribution_quantile(d, 0.0), 0.5);
    EXPECT_DOUBLE_EQ(distribution_quantile(d, 1.0), 2.0);
    // The median absolute deviation from bins: ten values at the median, one far off.
    ModelValues model;
    std::vector<double> many(10, 1.0);
    many.push_back(3.0);
    model[{"e", "f"}] = distribution_of(many);
    const auto s = standings({{"e", "f", 1.5}}, model);
    ASSERT_TRUE(s[0].judged);
    // MAD 0, floored at 1 % of the median: z = 0.6745 * 0.5 / 0.01.
    EXPECT_NEAR(s[0].z, 0.6745 * 0.5 / 0.01, 1e-9);
    EXPECT_TRUE(s[0].extreme);
}

TEST(KeyFigures, FigureRowsRoundTripTheirNames) {
    const auto rows = figure_rows("r1", {{"stream", "copy_gbs/theoretical", 0.9}, {"offset_copy", "r", 1.5}});
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].experiment, kFiguresSet);
    EXPECT_EQ(rows[0].run_id, "r1");
    EXPECT_EQ(rows[0].field, "figure");
    EXPECT_EQ(rows[1].value, 1.5);
    std::string e, f;
    ASSERT_TRUE(split_figure_series(rows[0].series, &e, &f));
    EXPECT_EQ(e, "stream");
    EXPECT_EQ(f, "copy_gbs/theoretical");
    EXPECT_FALSE(split_figure_series("no-slash", &e, &f));
    EXPECT_FALSE(split_figure_series("/x", &e, &f));
}

TEST(Csv, FormulaCellsStayText) {
    EXPECT_EQ(csv_cell("nvidia-h200"), "nvidia-h200");
    EXPECT_EQ(csv_cell("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
    EXPECT_EQ(csv_cell("+1"), "\"'+1\"");
    EXPECT_EQ(csv_cell("-1"), "\"'-1\"");
    EXPECT_EQ(csv_cell("@SUM(A1)"), "\"'@SUM(A1)\"");
    EXPECT_EQ(csv_cell("a,b"), "\"a,b\"");
    EXPECT_EQ(csv_cell("line\nbreak"), "\"line\nbreak\"");
}

TEST(Moderator, TokenMustMatchExactly) {
    EXPECT_TRUE(moderator_authorised("Bearer 0123456789abcdef", "0123456789abcdef"));
    EXPECT_FALSE(moderator_authorised("Bearer 0123456789abcdeX", "0123456789abcdef"));
    EXPECT_FALSE(moderator_authorised("Bearer 0123456789abcde", "0123456789abcdef"));
    EXPECT_FALSE(moderator_authorised("Bearer ", ""));
    EXPECT_FALSE(moderator_authorised("0123456789abcdef", "0123456789abcdef"));
}

TEST(CrowdStoreSqlite, StatusModerationAndExport) {
    const std::string path = fresh_temp_path("gm_crowd.sqlite");
    StorageOptions manual;
    manual.background_refresh = false;
    auto storage = open_sqlite_storage(path, manual);
    auto crowd = open_sqlite_crowd_store(path);
    auto store = [&](const std::string &id, double value) {
        StoredRun run;
        run.id = id;
        run.delete_token_hash = "h";
        run.created_at = "2026-11-23T00:00:0" + id.substr(0, 1) + "Z";
        run.gpu.key = "m";
        run.document = "{}";
        std::vector<PointRow> points = {{id, "stream", "copy", "bandwidth_gbs", 1, value}, {id, "stream", "triad", "bandwidth_gbs", 1, value + 1}};
        for (PointRow &r : figure_rows(id, {{"stream", "copy_gbs", value}})) points.push_back(r);
        storage->insert(run, points, nullptr);
        return run;
    };
    const StoredRun a = store("1", 100), b = store("2", 200);
    // As the server does: an accepted upload has no status row, a held one
    // gets its row with the log entry.
    ASSERT_TRUE(crowd->moderate({b.id, "m", b.created_at, "held", "outlier: test"}, "hold", "outlier: test", "outlier rule",
                                "2026-11-23T00:30:00Z"));
    ASSERT_TRUE(storage->set_counted(b.id, false));
    storage->refresh(100);

    // The figure sets of counted uploads are in the model's aggregate.
    const auto summaries = storage->aggregates_of_experiment(kFiguresSet);
    ASSERT_EQ(summaries.size(), 1u);
    EXPECT_EQ(summaries[0].first, "m");
    const auto agg = nlohmann::json::parse(summaries[0].second);
    EXPECT_EQ(agg["series"][0]["name"], "stream/copy_gbs");
    EXPECT_EQ(agg["series"][0]["points"][0]["n"], 1);
    EXPECT_EQ(agg["series"][0]["points"][0]["median"], 100);
    const auto state = storage->aggregate_state("m", kFiguresSet);
    ASSERT_TRUE(state.has_value());
    EXPECT_EQ(HistogramAggregate::decode(*state).result(), agg);
    EXPECT_TRUE(storage->aggregates_of_experiment("stream").size() == 1u);
    EXPECT_FALSE(storage->aggregate_state("other", kFiguresSet).has_value());

    EXPECT_EQ(crowd->not_accepted("m").count("2"), 1u);
    ASSERT_EQ(crowd->held(10).size(), 1u);

    std::vector<ExportRow> rows;
    crowd->export_points("", [&](const ExportRow &r) {
        rows.push_back(r);
        return true;
    });
    ASSERT_EQ(rows.size(), 2u);  // the held upload's points are left out, and every figure set
    EXPECT_EQ(rows[0].run_id, "1");
    EXPECT_EQ(rows[0].gpu_key, "m");
    EXPECT_EQ(rows[0].created_at, a.created_at);
    EXPECT_EQ(rows[0].experiment, "stream");
    EXPECT_EQ(rows[1].experiment, "stream");
    // Stopping early visits no more rows.
    std::size_t seen = 0;
    crowd->export_points("stream", [&](const ExportRow &) { return ++seen < 1; });
    EXPECT_EQ(seen, 1u);

    EXPECT_TRUE(crowd->moderate({b.id, "m", b.created_at, "accepted", ""}, "accept", "checked", "moderator", "2026-11-23T01:00:00Z"));
    EXPECT_FALSE(crowd->moderate({"nope", "m", "", "accepted", ""}, "accept", "checked", "moderator", "2026-11-23T01:00:00Z"));
    ASSERT_TRUE(storage->set_counted(b.id, true));
    storage->refresh(100);
    const auto both = nlohmann::json::parse(storage->aggregates_of_experiment(kFiguresSet).at(0).second);
    EXPECT_EQ(both["series"][0]["points"][0]["n"], 2);
    EXPECT_EQ(both["series"][0]["points"][0]["median"], 150);
    rows.clear();
    crowd->export_points("stream", [&](const ExportRow &r) {
        rows.push_back(r);
        return true;
    });
    EXPECT_EQ(rows.size(), 4u);
    crowd->forget(a.id, "deleted by its owner", "owner", "2026-11-23T02:00:00Z");
    const auto log = crowd->log(10);
    ASSERT_EQ(log.size(), 3u);
    EXPECT_EQ(log[0].action, "delete");
    EXPECT_EQ(log[1].action, "accept");
    EXPECT_EQ(log[1].reason, "checked");
    EXPECT_EQ(log[1].at, "2026-11-23T01:00:00Z");
    EXPECT_EQ(log[2].action, "hold");
    EXPECT_FALSE(crowd->status(a.id).has_value());
}
