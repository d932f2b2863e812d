// Application replay without a GPU: the metrics split into one-pass groups,
// the runs joined launch by launch, a program whose runs differ refused with
// a note, and --replay application explained from hand-made records (runs
// that agree are joined; runs that differ are refused, and counted with
// kernel replay where its records exist).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>

#include "temp_folder.hpp"
#include "explain/explain_document.hpp"
#include "explain/explain_session.hpp"
#include "explain/replay_join.hpp"
#include "inject/metric_groups.hpp"

using namespace gmexplain;

namespace {

// A chip where each metric costs a share of one pass: a list needs as many
// passes as its shares sum to, rounded up (0: a metric the chip cannot configure).
std::size_t passes_by_share(const std::vector<std::string> &metrics) {
    static const std::map<std::string, int> share = {{"a", 6}, {"b", 5}, {"c", 4}, {"d", 3}, {"big", 15}, {"e", 1}};
    int sum = 0;
    for (const auto &m : metrics) {
        auto it = share.find(m);
        if (it == share.end()) return 0;
        sum += it->second;
    }
    return static_cast<std::size_t>((sum + 9) / 10);
}

CounterRecord counted(const std::string &kernel, std::uint64_t launch, std::int64_t grid,
                      std::map<std::string, double> metrics, int pid = 100) {
    CounterRecord c;
    c.mangled = kernel;
    c.name = kernel;
    c.launch = launch;
    c.pid = pid;
    c.grid[0] = grid, c.grid[1] = 1, c.grid[2] = 1;
    c.block[0] = 256, c.block[1] = 1, c.block[2] = 1;
    c.passes = 1;
    c.replay = "application";
    c.metrics = std::move(metrics);
    return c;
}

// A run that launched _Z1kv `launches` times and _Z1jv twice and counted launch 0 of each.
ApplicationRun run_of(const std::string &metric, double value, std::uint64_t launches = 3, std::int64_t grid = 64) {
    ApplicationRun r;
    r.records.pids = {100};
    r.records.metric_groups = {{"m0"}, {"m1"}};
    r.records.launches = {{"_Z1kv", launches}, {"_Z1jv", 2}};
    r.records.counters = {counted("_Z1kv", 0, grid, {{metric, value}}), counted("_Z1jv", 0, 8, {{metric, value * 2}})};
    return r;
}

KernelRecord traced(const std::string &kernel, std::uint32_t correlation, std::int64_t grid) {
    KernelRecord k;
    k.mangled = kernel;
    k.pid = 50;
    k.correlation = correlation;
    k.grid[0] = grid, k.grid[1] = 1, k.grid[2] = 1;
    k.block[0] = 256, k.block[1] = 1, k.block[2] = 1;
    return k;
}

PassRecords trace_of(std::uint64_t k_launches) {
    PassRecords t;
    t.pids = {50};
    for (std::uint32_t i = 0; i < k_launches; ++i) t.kernels.push_back(traced("_Z1kv", 10 + i, 64));
    t.kernels.push_back(traced("_Z1jv", 1, 8));
    t.kernels.push_back(traced("_Z1jv", 2, 8));
    return t;
}

const std::vector<std::string> kChosen = {"_Z1kv", "_Z1jv"};

std::string refusal_of(const ApplicationJoin &j, const std::string &kernel) {
    for (const auto &r : j.refused)
        if (r.mangled == kernel) return r.reason;
    return "";
}

}  // namespace

TEST(ApplicationReplayGroups, FirstFitKeepsEachGroupAtOnePass) {
    const auto split = one_pass_groups({"a", "b", "c", "d", "e"}, passes_by_share);
    // a(6)+b(5) > 10: b starts a group; c(4) joins a; d(3) joins b; e(1) no longer fits a+c, joins b+d.
    ASSERT_EQ(split.groups.size(), 2u);
    EXPECT_EQ(split.groups[0], (std::vector<std::string>{"a", "c"}));
    EXPECT_EQ(split.groups[1], (std::vector<std::string>{"b", "d", "e"}));
    EXPECT_TRUE(split.too_large.empty());
    for (const auto &g : split.groups) EXPECT_EQ(passes_by_share(g), 1u);
}

TEST(ApplicationReplayGroups, MetricsThatAloneNeedSeveralPassesOrCannotBeConfiguredAreLeftOut) {
    const auto split = one_pass_groups({"big", "a", "unknown"}, passes_by_share);
    ASSERT_EQ(split.groups.size(), 1u);
    EXPECT_EQ(split.groups[0], (std::vector<std::string>{"a"}));
    EXPECT_EQ(split.too_large, (std::vector<std::string>{"big", "unknown"}));
    // A metric named twice (the rules' and gpu__time_duration.sum added again) is collected once.
    EXPECT_EQ(one_pass_groups({"a", "e", "a"}, passes_by_share).groups, (std::vector<std::vector<std::string>>{{"a", "e"}}));
    // The same metrics always give the same groups: every run builds the same split.
    EXPECT_EQ(one_pass_groups({"a", "b", "c", "d", "e"}, passes_by_share).groups,
              one_pass_groups({"a", "b", "c", "d", "e"}, passes_by_share).groups);
}

TEST(ApplicationReplayJoin, EqualRunsAreJoinedLaunchByLaunch) {
    const PassRecords trace = trace_of(3);
    const auto j = join_application_runs({run_of("m0", 10), run_of("m1", 20)}, &trace, 0, kChosen);
    EXPECT_EQ(j.failure, "");
    EXPECT_TRUE(j.refused.empty());
    ASSERT_EQ(j.counting.counters.size(), 2u);
    const CounterRecord &k = j.counting.counters[0];
    EXPECT_EQ(k.mangled, "_Z1kv");
    EXPECT_EQ(k.metrics.at("m0"), 10);
    EXPECT_EQ(k.metrics.at("m1"), 20);
    EXPECT_EQ(k.passes, 2u);  // one run of the program per group
    EXPECT_EQ(k.replay, "application");
    EXPECT_EQ(j.counting.counters[1].metrics.at("m1"), 40);
    EXPECT_EQ(j.groups.size(), 2u);
    EXPECT_EQ(j.counting.launches.at("_Z1kv"), 3u);
}

TEST(ApplicationReplayJoin, ALaunchCountThatDiffersRefusesThatKernelOnly) {
    const PassRecords trace = trace_of(3);
    const auto j = join_application_runs({run_of("m0", 10), run_of("m1", 20, 5)}, &trace, 0, kChosen);
    ASSERT_EQ(j.refused.size(), 1u);
    EXPECT_EQ(refusal_of(j, "_Z1kv"), "run 2 launched it 5 time(s) where run 1 launched it 3");
    ASSERT_EQ(j.counting.counters.size(), 1u);  // _Z1jv still joined
    EXPECT_EQ(j.counting.counters[0].mangled, "_Z1jv");
    const std::string note = refusal_note(j.refused[0], "counted with kernel replay instead (--replay kernel)");
    EXPECT_EQ(note, "application replay refused for k: run 2 launched it 5 time(s) where run 1 launched it 3 "
                    "(the program is not deterministic); counted with kernel replay instead (--replay kernel)");
}

TEST(ApplicationReplayJoin, TheTraceRunIsTheFirstCheck) {
    const PassRecords trace = trace_of(4);
    const auto j = join_application_runs({run_of("m0", 10), run_of("m1", 20)}, &trace, 0, kChosen);
    EXPECT_EQ(refusal_of(j, "_Z1kv"), "run 1 launched it 3 time(s) where the trace run launched it 4");
    // The trace's launch 0 of _Z1kv with another grid than the counted one.
    PassRecords other_grid = trace_of(3);
    other_grid.kernels[0].grid[0] = 128;
    const auto g = join_application_runs({run_of("m0", 10), run_of("m1", 20)}, &other_grid, 0, kChosen);
    EXPECT_EQ(refusal_of(g, "_Z1kv"),
              "run 1 counted launch 0 with grid 64x1x1, block 256x1x1 where the trace run's launch 0 had grid 128x1x1, block 256x1x1");
    EXPECT_EQ(refusal_of(g, "_Z1jv"), "");
}

TEST(ApplicationReplayJoin, AGridThatDiffersBetweenRunsIsRefused) {
    const auto j = join_application_runs({run_of("m0", 10), run_of("m1", 20, 3, 32)}, nullptr, 0, kChosen);
    EXPECT_EQ(refusal_of(j, "_Z1kv"),
              "run 2 counted launch 0 with grid 32x1x1, block 256x1x1 where run 1 counted launch 0 with grid 64x1x1, block 256x1x1");
}

TEST(ApplicationReplayJoin, ADifferentOrderOfCountedLaunchesIsRefused) {
    ApplicationRun swapped = run_of("m1", 20);
    std::swap(swapped.records.counters[0], swapped.records.counters[1]);
    const auto j = join_application_runs({run_of("m0", 10), swapped}, nullptr, 0, kChosen);
    EXPECT_EQ(j.refused.size(), 2u);
    EXPECT_NE(refusal_of(j, "_Z1kv").find("another order"), std::string::npos);
}

TEST(ApplicationReplayJoin, AnExitThatDiffersRefusesEveryKernel) {
    ApplicationRun crashed = run_of("m1", 20);
    crashed.exit_status = 139;
    const auto j = join_application_runs({run_of("m0", 10), crashed}, nullptr, 0, kChosen);
    ASSERT_EQ(j.refused.size(), 2u);
    EXPECT_EQ(refusal_of(j, "_Z1jv"), "run 2 exited with 139 where run 1 exited with 0");
    EXPECT_TRUE(j.counting.counters.empty());
    const PassRecords trace = trace_of(3);
    EXPECT_EQ(refusal_of(join_application_runs({run_of("m0", 10), run_of("m1", 20)}, &trace, 3, kChosen), "_Z1kv"),
              "run 1 exited with 0 where the trace run exited with 3");
}

TEST(ApplicationReplayJoin, ProcessesAreMatchedInTheOrderOfTheirIds) {
    // Two processes each run: their pids differ between runs, their order does not.
    ApplicationRun a = run_of("m0", 10), b = run_of("m1", 20);
    a.records.pids = {100, 101};
    a.records.counters.push_back(counted("_Z1kv", 0, 64, {{"m0", 11}}, 101));
    b.records.pids = {200, 201};
    for (auto &c : b.records.counters) c.pid = 200;
    b.records.counters.push_back(counted("_Z1kv", 0, 64, {{"m1", 21}}, 201));
    a.records.launches["_Z1kv"] = b.records.launches["_Z1kv"] = 6;
    const auto j = join_application_runs({a, b}, nullptr, 0, kChosen);
    EXPECT_TRUE(j.refused.empty());
    ASSERT_EQ(j.counting.counters.size(), 3u);
    EXPECT_EQ(j.counting.counters[2].metrics.at("m0"), 11);
    EXPECT_EQ(j.counting.counters[2].metrics.at("m1"), 21);
}

TEST(ApplicationReplayJoin, ARunThatCouldNotCountOrTooFewRunsIsAFailure) {
    ApplicationRun denied = run_of("m0", 10);
    denied.records.counters_unavailable = "ERR_NVGPUCTRPERM: denied";
    auto j = join_application_runs({denied}, nullptr, 0, kChosen);
    EXPECT_EQ(j.failure, "run 1: ERR_NVGPUCTRPERM: denied");
    EXPECT_EQ(j.counting.counters_unavailable, j.failure);
    j = join_application_runs({run_of("m0", 10)}, nullptr, 0, kChosen);
    EXPECT_EQ(j.failure, "the metrics need 2 run(s), 1 ran");
}

// --- explained from hand-made records -------------------------------------

namespace {

const char *kReplayTrace = R"({"type":"process","pid":7}
{"type":"device","id":0,"name":"NVIDIA H200","sm_count":132}
{"type":"kernel","name":"_Z6stridePKfPfi","device":0,"grid":[4096,1,1],"block":[256,1,1],"registers":16,"start":1000,"end":301000,"correlation":5}
{"type":"kernel","name":"_Z6stridePKfPfi","device":0,"grid":[4096,1,1],"block":[256,1,1],"registers":16,"start":401000,"end":701000,"correlation":6}
{"type":"exit","pid":7}
)";

std::string counters_line(const std::string &metrics, int grid = 4096) {
    return R"({"type":"counters","name":"_Z6stridePKfPfi","launch":0,"passes":1,"chip":"GH100","grid":[)" +
           std::to_string(grid) + R"(,1,1],"block":[256,1,1],"replay":"application","metrics":{)" + metrics + "}}\n";
}

std::string app_run(int pid, int group, const std::string &metrics, int launches = 2, int grid = 4096) {
    return "{\"type\":\"process\",\"pid\":" + std::to_string(pid) + "}\n" +
           R"({"type":"metric_groups","chip":"GH100","group":)" + std::to_string(group) +
           R"(,"groups":[["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum","l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"],["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum","l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"]],"too_large":[]})" +
           "\n" + counters_line(metrics, grid) + R"({"type":"launches","name":"_Z6stridePKfPfi","count":)" +
           std::to_string(launches) + "}\n{\"type\":\"exit\",\"pid\":" + std::to_string(pid) + "}\n";
}

const std::string kLoads = R"("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum":16000000,"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum":1000000)";
const std::string kStores = R"("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum":4000000,"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum":1000000)";

std::string replay_folder(int second_run_launches) {
    const std::string dir = gmexplain_test::temp_folder("gmx-replay");
    std::ofstream(dir + "/trace-7.jsonl") << kReplayTrace;
    std::ofstream(dir + "/appreplay0-8.jsonl") << app_run(8, 0, kLoads);
    std::ofstream(dir + "/appreplay1-9.jsonl") << app_run(9, 1, kStores, second_run_launches);
    return dir;
}

bool has_note(const nlohmann::json &doc, const std::string &text) {
    for (const auto &n : doc["notes"])
        if (n.get<std::string>().find(text) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST(ApplicationReplayRecords, RunsThatAgreeAreJoinedIntoOneCountedLaunch) {
    Options o;
    o.from_records = replay_folder(2);
    const auto r = explain(o);
    ASSERT_EQ(check_explain_document(r.document), "");
    EXPECT_EQ(r.exit_code, 0);
    const auto &counters = r.document["passes"]["counters"];
    EXPECT_EQ(counters["replay"], "application");
    EXPECT_EQ(counters["application"]["runs"], 2);
    EXPECT_EQ(counters["application"]["groups"].size(), 2u);
    EXPECT_TRUE(counters["application"]["refused"].empty());
    EXPECT_EQ(r.document["options"]["replay"], "application");
    EXPECT_EQ(r.document["passes"]["mode"], "two");  // application replay implies the trace first
    const auto &k = r.document["kernels"][0];
    ASSERT_TRUE(k["counted"].get<bool>());
    EXPECT_EQ(k["replay"], "application");
    EXPECT_EQ(k["replay_passes"], 2);
    EXPECT_EQ(k["counters"]["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"], 16000000);
    EXPECT_EQ(k["counters"]["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"], 4000000);
    EXPECT_FALSE(has_note(r.document, "application replay refused"));
}

TEST(ApplicationReplayRecords, RunsThatDifferAreRefusedWithANote) {
    Options o;
    o.from_records = replay_folder(3);
    const auto r = explain(o);
    ASSERT_EQ(check_explain_document(r.document), "");
    EXPECT_EQ(r.exit_code, 0);  // a refusal is said, not an error: the program's own status stands
    const auto &refused = r.document["passes"]["counters"]["application"]["refused"];
    ASSERT_EQ(refused.size(), 1u);
    EXPECT_EQ(refused[0]["reason"], "run 2 launched it 3 time(s) where run 1 launched it 2");
    EXPECT_EQ(refused[0]["instead"], "not counted");
    const auto &k = r.document["kernels"][0];
    EXPECT_FALSE(k["counted"].get<bool>());
    EXPECT_EQ(k["not_counted"], "application replay refused: run 2 launched it 3 time(s) where run 1 launched it 2");
    EXPECT_TRUE(has_note(r.document, "application replay refused for stride: run 2 launched it 3 "
                                     "time(s) where run 1 launched it 2 (the program is not deterministic); not counted "
                                     "(use --replay kernel)"));
    EXPECT_NE(explanation_text(r.document).find("application replay refused"), std::string::npos);
}

TEST(ApplicationReplayRecords, ARefusedKernelIsCountedWithKernelReplayWhereThatRunExists) {
    Options o;
    o.from_records = replay_folder(3);
    std::ofstream(o.from_records + "/counters-10.jsonl")
        << "{\"type\":\"process\",\"pid\":10}\n"
        << R"({"type":"counters","name":"_Z6stridePKfPfi","launch":0,"passes":2,"chip":"GH100","replay":"kernel","metrics":{)"
        << kLoads << "," << kStores << "}}\n";
    const auto r = explain(o);
    ASSERT_EQ(check_explain_document(r.document), "");
    const auto &k = r.document["kernels"][0];
    ASSERT_TRUE(k["counted"].get<bool>());
    EXPECT_EQ(k["replay"], "kernel");
    EXPECT_EQ(r.document["passes"]["counters"]["application"]["refused"][0]["instead"], "kernel replay");
    EXPECT_TRUE(has_note(r.document, "counted with kernel replay instead (--replay kernel)"));
}

TEST(ApplicationReplayOptions, ApplicationIsAcceptedAndOtherReplaysAreNot) {
    Options o;
    o.argv = {"/nonexistent/program"};
    o.injection = GMX_INJECTION;
    o.replay = "application";
    EXPECT_EQ(explain(o).exit_code, kProgramNotFound);  // past validation: the program is what is missing
    o.replay = "both";
    const auto r = explain(o);
    EXPECT_EQ(r.exit_code, kExplainUsage);
    EXPECT_NE(r.message.find("must be kernel or application"), std::string::npos);
}

// --- records captured on an H100 (scripts/explain-replay-gpu.sh) --------------

namespace {

nlohmann::json explained_fixture(const std::string &name) {
    Options o;
    o.from_records = GMX_SOURCE_DIR "/tests/explain/fixtures/" + name;
    o.lab_run = GMX_SOURCE_DIR "/results/nvidia-h100-80gb-hbm3-standard-suite.json";
    o.measure = kMeasureNever;
    const auto r = explain(o);
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.message;
    EXPECT_EQ(check_explain_document(r.document), "") << name;
    return r.document;
}

std::vector<std::string> rules_named(const nlohmann::json &kernel) {
    std::vector<std::string> out;
    for (const auto &f : kernel["findings"]) out.push_back(f["rule"]);
    return out;
}

}  // namespace

TEST(ApplicationReplayCaptured, SameCountsAndFindingsAsKernelReplay) {
    for (const std::string example : {"strided_access", "bank_conflicts"}) {
        const auto app = explained_fixture("replay-" + example);
        const auto kernel = explained_fixture("replay-" + example + "-kernel");
        EXPECT_EQ(app["passes"]["counters"]["replay"], "application");
        EXPECT_EQ(app["passes"]["counters"]["application"]["runs"], 6);
        EXPECT_TRUE(app["passes"]["counters"]["application"]["refused"].empty());
        const auto &a = app["kernels"][0];
        const auto &k = kernel["kernels"][0];
        ASSERT_TRUE(a["counted"].get<bool>()) << example;
        EXPECT_EQ(a["replay"], "application");
        EXPECT_EQ(rules_named(a), rules_named(k)) << example;
        EXPECT_FALSE(rules_named(a).empty()) << example;
        // The global-memory counts the rules read are the same launch's, exactly.
        for (const char *m : {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
                              "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "sm__sass_data_bytes_mem_global_op_ld.sum",
                              "smsp__inst_executed.sum"})
            EXPECT_EQ(a["counters"][m], k["counters"][m]) << example << " " << m;
        for (const auto &[m, v] : k["counters"].items())
            EXPECT_NEAR(a["counters"][m].get<double>(), v.get<double>(), 0.05 * v.get<double>() + 1) << example << " " << m;
    }
}

TEST(ApplicationReplayCaptured, TheNondeterministicExampleIsRefusedAndItsFixedTwinJoined) {
    const auto planted = explained_fixture("replay-nondeterministic");
    const auto &refused = planted["passes"]["counters"]["application"]["refused"];
    ASSERT_EQ(refused.size(), 1u);
    EXPECT_EQ(refused[0]["kernel"], "accumulate(float*, int)");
    EXPECT_EQ(refused[0]["reason"], "run 2 launched it 3 time(s) where run 1 launched it 4");
    EXPECT_EQ(refused[0]["instead"], "kernel replay");
    EXPECT_EQ(planted["kernels"][0]["replay"], "kernel");
    EXPECT_TRUE(planted["kernels"][0]["counted"].get<bool>());
    EXPECT_TRUE(has_note(planted, "counted with kernel replay instead (--replay kernel)"));

    const auto fixed = explained_fixture("replay-nondeterministic-fixed");
    EXPECT_TRUE(fixed["passes"]["counters"]["application"]["refused"].empty());
    EXPECT_EQ(fixed["kernels"][0]["replay"], "application");
}
