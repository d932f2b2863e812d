// No counter figure outside its range: the L2 hit share is hits / (hits +
// misses) of one range, and a share outside 0..1 or a percentage outside
// 0..100 is left out of the point with the reason in the result's
// counters.errors. Through the fake CUPTI (src/core/counters/fake_cupti.cpp).
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <cupti_result.h>

#include "core/counters/counters.hpp"
#include "core/experiment/result.hpp"

namespace gmlab {
namespace {

struct FakeLoader {
    explicit FakeLoader(CuptiLoader loader) { set_cupti_loader_for_testing(std::move(loader)); }
    ~FakeLoader() { set_cupti_loader_for_testing(nullptr); }
};

int ok_probe() { return 0; }

bool mentions(const std::vector<std::string> &errors, const std::string &a, const std::string &b) {
    return std::any_of(errors.begin(), errors.end(),
                       [&](const std::string &e) { return e.find(a) != std::string::npos && e.find(b) != std::string::npos; });
}

TEST(CounterRanges, TheL2HitShareIsHitsOverHitsAndMisses) {
    const CounterSet set = counter_sets::dram();
    // CUPTI's ratio metric, which read above 100 % over short ranges, is no longer asked for.
    EXPECT_EQ(std::count(set.metrics.begin(), set.metrics.end(), "lts__t_sector_hit_rate.pct"), 0);
    std::map<std::string, double> v = {{"dram__bytes_read.sum", 256}, {"dram__bytes_write.sum", 0},
                                       {"lts__t_sectors_lookup_hit.sum", 30}, {"lts__t_sectors_lookup_miss.sum", 10}};
    std::vector<std::string> errors;
    evaluate_counter_set(set, v, {}, &errors);
    EXPECT_DOUBLE_EQ(v.at("l2_hit_share"), 0.75);
    EXPECT_TRUE(errors.empty());
    // No lookups at all: no share rather than 0 / 0.
    std::map<std::string, double> none = {{"lts__t_sectors_lookup_hit.sum", 0}, {"lts__t_sectors_lookup_miss.sum", 0}};
    evaluate_counter_set(set, none, {}, &errors);
    EXPECT_EQ(none.count("l2_hit_share"), 0u);
    // All hits and all misses are the ends of the range, both kept.
    std::map<std::string, double> all = {{"lts__t_sectors_lookup_hit.sum", 64}, {"lts__t_sectors_lookup_miss.sum", 0}};
    evaluate_counter_set(set, all, {}, &errors);
    EXPECT_DOUBLE_EQ(all.at("l2_hit_share"), 1.0);
    EXPECT_TRUE(errors.empty());
}

TEST(CounterRanges, RangesFollowTheName) {
    std::string why;
    EXPECT_TRUE(counter_in_range("lts__t_sector_hit_rate.pct", 100));
    EXPECT_FALSE(counter_in_range("lts__t_sector_hit_rate.pct", 257.5, &why));
    EXPECT_NE(why.find("0..100"), std::string::npos) << why;
    EXPECT_NE(why.find("257.5"), std::string::npos) << why;
    EXPECT_FALSE(counter_in_range("sm__warps_active.avg.pct_of_peak_sustained_active", 100.5));
    EXPECT_TRUE(counter_in_range("sm__warps_active.avg.pct_of_peak_sustained_active", 62.5));
    EXPECT_TRUE(counter_in_range("l1_global_hit_share", 0.0));
    EXPECT_FALSE(counter_in_range("l1_global_hit_share", 1.0001, &why));
    EXPECT_NE(why.find("0..1"), std::string::npos) << why;
    EXPECT_FALSE(counter_in_range("reused_hit_share", -0.1));
    // Counts and ratios of counts have no upper end, but are never negative or not a number.
    EXPECT_TRUE(counter_in_range("dram__bytes_read.sum", 1e12));
    EXPECT_TRUE(counter_in_range("sectors_per_request_ld", 32));
    EXPECT_FALSE(counter_in_range("dram__bytes_read.sum", -1));
    EXPECT_FALSE(counter_in_range("wavefronts_per_request_ld", NAN));
}

TEST(CounterRanges, AFigureOutsideItsRangeIsLeftOutOnceWithTheReason) {
    CounterSet set = counter_sets::l1_global_hits();
    DerivedCounter per_set;  // a share of a known count, as cache_hints' reused_hit_share
    per_set.name = "reused_hit_share";
    per_set.numerator = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum";
    per_set.divisor = 10;
    set.derived.push_back(per_set);
    set = set.agree("reused_hit_share", "hit_share", 0.1);
    std::map<std::string, double> v = {{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 100},
                                       {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", 25},
                                       {"l1tex__t_sector_hit_rate.pct", 257.5}};
    std::vector<std::string> errors;
    const auto checks = evaluate_counter_set(set, v, {{"hit_share", 1.0}}, &errors);
    EXPECT_DOUBLE_EQ(v.at("l1_global_hit_share"), 0.25);
    EXPECT_EQ(v.count("l1tex__t_sector_hit_rate.pct"), 0u);
    EXPECT_EQ(v.count("reused_hit_share"), 0u);  // 2.5: more hits than the set has sectors
    EXPECT_TRUE(checks.empty());                 // nothing compared with a figure that was left out
    ASSERT_EQ(errors.size(), 2u);
    EXPECT_TRUE(mentions(errors, "l1tex__t_sector_hit_rate.pct left out", "257.5"));
    EXPECT_TRUE(mentions(errors, "reused_hit_share left out", "0..1"));
    // The next point's bad value is not a new line.
    std::map<std::string, double> w = {{"l1tex__t_sector_hit_rate.pct", 130.4}};
    evaluate_counter_set(set, w, {}, &errors);
    EXPECT_EQ(errors.size(), 2u);
    EXPECT_TRUE(w.empty());
}

// The path of a counted point: the fake profiler returns the metrics, the
// counter set derives and guards them, the result document carries what is
// left and says why the rest is not there.
TEST(CounterRanges, ThroughTheFakeProfilerIntoTheResult) {
    const std::map<std::string, double> returned = {{"lts__t_sectors_lookup_hit.sum", 90},
                                                    {"lts__t_sectors_lookup_miss.sum", 10},
                                                    {"l1tex__t_sector_hit_rate.pct", 257.5},
                                                    {"sm__warps_active.avg.pct_of_peak_sustained_active", 101.0}};
    FakeLoader fake([returned] {
        CuptiLoad l;
        l.api = fake_cupti_api("", CUPTI_SUCCESS, 4096, returned);
        l.library = "fake";
        return l;
    });
    CounterSession session(nullptr, 0);
    ASSERT_TRUE(session.availability(ok_probe).available);
    const CounterSet set = counter_sets::dram() + counter_sets::l1_global_hits() + counter_sets::occupancy();
    Result r;
    r.experiment = "latency";
    r.counters_mode = "on";
    r.counters_available = true;
    Point p;
    p.x = 4096;
    p.values["latency_cycles"] = 32;
    p.counters = session.count(set.metrics, ok_probe);
    EXPECT_DOUBLE_EQ(p.counters.at("l1tex__t_sector_hit_rate.pct"), 257.5);  // as the profiler gave it
    p.counter_checks = evaluate_counter_set(set, p.counters, p.predicted, &r.counter_errors);
    Series s;
    s.name = "chase";
    s.quantity = Quantity::Latency;
    s.y_field = "latency_cycles";
    s.points.push_back(p);
    r.series.push_back(s);
    const nlohmann::json doc = to_json(r);
    const nlohmann::json &c = doc["series"][0]["points"][0]["counters"];
    EXPECT_DOUBLE_EQ(c["l2_hit_share"].get<double>(), 0.9);
    EXPECT_DOUBLE_EQ(c["l1_global_hit_share"].get<double>(), 1.0);  // 4096 hits of 4096 sectors
    EXPECT_FALSE(c.contains("l1tex__t_sector_hit_rate.pct"));
    EXPECT_FALSE(c.contains("sm__warps_active.avg.pct_of_peak_sustained_active"));
    for (auto it = c.begin(); it != c.end(); ++it) EXPECT_TRUE(counter_in_range(it.key(), it.value().get<double>())) << it.key();
    ASSERT_TRUE(doc["counters"].contains("errors"));
    const auto errors = doc["counters"]["errors"].get<std::vector<std::string>>();
    EXPECT_EQ(errors.size(), 2u);
    EXPECT_TRUE(mentions(errors, "l1tex__t_sector_hit_rate.pct", "0..100"));
    EXPECT_TRUE(mentions(errors, "sm__warps_active.avg.pct_of_peak_sustained_active", "101"));
    check_result_document(doc);
}

}  // namespace
}  // namespace gmlab
