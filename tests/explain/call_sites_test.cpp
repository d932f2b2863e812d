// Call sites: the records the injection library writes for each launch's
// user line and operator, joined to kernels and counted launches by the front
// end; the operator read from PyTorch's NVTX ranges; which Python files are
// the user's; the site as the explanation prints it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "explain/explain_document.hpp"
#include "explain/explain_session.hpp"
#include "explain/names/kernel_name.hpp"
#include "explain/program/program_launch.hpp"
#include "explain/trace_records.hpp"
#include "explain/trace_summary.hpp"
#include "inject/sites/host_frames.hpp"
#include "inject/kernel_choice.hpp"
#include "inject/sites/nvtx_ranges.hpp"
#include "inject/site_key.hpp"
#include "inject/sites/python_frames.hpp"

using namespace gmexplain;

namespace {

std::string launch_line(const char *name, long correlation, long start, long end) {
    return std::string("{\"type\":\"kernel\",\"name\":\"") + name + "\",\"device\":0,\"grid\":[8,1,1],\"block\":[128,1,1]," +
           "\"start\":" + std::to_string(start) + ",\"end\":" + std::to_string(end) +
           ",\"correlation\":" + std::to_string(correlation) + "}";
}
std::string site_line(int number, const char *file, int line, const char *op, const char *backward = "") {
    return "{\"type\":\"callsite\",\"site\":" + std::to_string(number) + ",\"file\":\"" + file +
           "\",\"line\":" + std::to_string(line) + ",\"function\":\"forward\",\"op\":\"" + op + "\",\"backward\":\"" +
           backward + "\"}";
}
std::string launch_site_line(long correlation, int number) {
    return "{\"type\":\"launch_site\",\"correlation\":" + std::to_string(correlation) + ",\"site\":" + std::to_string(number) + "}";
}

}  // namespace

TEST(ExplainCallSites, OneKernelAtTwoLinesIsTwoKernels) {
    PassRecords r;
    // The kernel records arrive before the launch records that name their sites.
    for (const auto &l : {launch_line("_Z4copyv", 10, 0, 1000), launch_line("_Z4copyv", 11, 2000, 9000), launch_line("_Z4copyv", 12, 10000, 17000),
                          site_line(1, "train.py", 7, "aten::clone"), site_line(2, "train.py", 12, "aten::clone"),
                          launch_site_line(10, 1), launch_site_line(11, 2), launch_site_line(12, 2)})
        add_record(r, l, 42);
    resolve_call_sites(r);
    const auto k = summarize_kernels(r);
    ASSERT_EQ(k.size(), 2u);
    EXPECT_EQ(k[0].call_site.line, 12);
    EXPECT_EQ(k[0].launches, 2u);
    EXPECT_DOUBLE_EQ(k[0].total_ms, 0.014);
    EXPECT_EQ(k[1].call_site.line, 7);
    EXPECT_EQ(k[1].call_site.op, "aten::clone");
    EXPECT_NE(k[0].site, k[1].site);
}

TEST(ExplainCallSites, SitesAreNumberedPerProcessAndJoinedByContent) {
    PassRecords r;
    // Process 1 and process 2 number the same line differently.
    add_record(r, site_line(1, "a.py", 3, ""), 1);
    add_record(r, launch_line("_Z1kv", 5, 0, 10), 1);
    add_record(r, launch_site_line(5, 1), 1);
    add_record(r, site_line(1, "b.py", 9, ""), 2);
    add_record(r, site_line(2, "a.py", 3, ""), 2);
    add_record(r, launch_line("_Z1kv", 5, 20, 30), 2);
    add_record(r, launch_site_line(5, 2), 2);
    resolve_call_sites(r);
    ASSERT_EQ(r.kernels.size(), 2u);
    EXPECT_EQ(r.kernels[0].site, r.kernels[1].site);
    EXPECT_EQ(summarize_kernels(r).size(), 1u);
}

TEST(ExplainCallSites, CountedLaunchesBelongToTheirSite) {
    PassRecords r;
    add_record(r, site_line(1, "train.py", 7, "aten::clone"), 42);
    add_record(r, site_line(2, "train.py", 12, "aten::clone"), 42);
    add_record(r, "{\"type\":\"counters\",\"name\":\"_Z4copyv\",\"launch\":0,\"site\":2,\"metrics\":{}}", 42);
    add_record(r, "{\"type\":\"counters\",\"name\":\"_Z4copyv\",\"launch\":0,\"metrics\":{}}", 42);
    resolve_call_sites(r);
    ASSERT_EQ(r.counters.size(), 2u);
    KernelSummary at7, at12;
    at7.mangled = at12.mangled = "_Z4copyv";
    for (const auto &[key, s] : r.sites) (s.line == 7 ? at7 : at12).site = key;
    EXPECT_EQ(at12.site.find("train.py:12"), 0u);
    EXPECT_TRUE(counts_for(r.counters[0], at12));
    EXPECT_FALSE(counts_for(r.counters[0], at7));
    EXPECT_TRUE(counts_for(r.counters[1], at7));  // a record without a site counts for any site of its kernel
}

TEST(ExplainCallSites, OperatorAndAutogradSequenceFromNvtxRanges) {
    const auto forward = operator_context({"aten::linear, seq = 4", "aten::addmm, seq = 5", "aten::copy_"});
    EXPECT_EQ(forward.op, "aten::linear");  // what the user's line called
    EXPECT_EQ(forward.inner_op, "aten::copy_");  // whose kernel it is
    EXPECT_EQ(forward.forward_seq, 4);
    EXPECT_EQ(forward.backward_seq, -1);
    const auto backward = operator_context({"autograd::engine::evaluate_function: AddmmBackward0, seq = 5", "AddmmBackward0",
                                            "aten::mm, seq = 9"});
    EXPECT_EQ(backward.op, "aten::mm");
    EXPECT_EQ(backward.backward_seq, 5);
    EXPECT_EQ(backward.backward_node, "AddmmBackward0");
    EXPECT_EQ(backward.forward_seq, -1);
    EXPECT_EQ(operator_context({}).op, "");
    EXPECT_EQ(operator_context({"my range"}).forward_seq, -1);
}

TEST(ExplainCallSites, UserFilesAreNotLibrariesOrGeneratedCode) {
    EXPECT_TRUE(is_user_python_file("/home/me/train.py"));
    EXPECT_TRUE(is_user_python_file("examples/explain/outside/torch_training_step.py"));
    EXPECT_FALSE(is_user_python_file("/usr/lib/python3/dist-packages/torch/nn/modules/module.py"));
    EXPECT_FALSE(is_user_python_file("/venv/lib/python3.12/site-packages/triton/runtime/jit.py"));
    EXPECT_FALSE(is_user_python_file("/usr/lib/python3.12/threading.py"));
    EXPECT_FALSE(is_user_python_file("/tmp/torchinductor_me/ab/cabcdef.py"));
    EXPECT_FALSE(is_user_python_file("<frozen importlib._bootstrap>"));
    EXPECT_FALSE(is_user_python_file("/opt/gmlab/lib/gmlab_explain_python/sitecustomize.py"));
    EXPECT_FALSE(is_user_python_file(""));
}

TEST(ExplainCallSites, TextNamesLineSourceAndOperator) {
    const std::string file = ::testing::TempDir() + "gmx_site.py";
    {
        std::ofstream out(file);
        out << "import torch\n\n    y = x.t().contiguous()   \n";
    }
    CallSiteRecord s;
    s.file = file;
    s.line = 3;
    s.function = "Model.forward";
    s.op = "aten::clone";
    const auto j = call_site_json(s);
    EXPECT_EQ(j["source"], "y = x.t().contiguous()");
    EXPECT_EQ(call_site_text(j), "at " + file + ":3 in Model.forward: y = x.t().contiguous()  [aten::clone]");
    s.inner_op = "aten::copy_";
    EXPECT_EQ(call_site_text(call_site_json(s)), "at " + file + ":3 in Model.forward: y = x.t().contiguous()  [aten::clone > aten::copy_]");
    s.inner_op.clear();
    s.backward = "CloneBackward0";
    EXPECT_NE(call_site_text(call_site_json(s)).find("[aten::clone, backward: CloneBackward0]"), std::string::npos);
    s.line = 0;
    s.backward.clear();
    EXPECT_EQ(call_site_text(call_site_json(s)), "in Model.forward  [aten::clone]");
    s.function.clear();
    EXPECT_EQ(call_site_text(call_site_json(s)), "at an unknown line  [aten::clone]");
    EXPECT_EQ(call_site_text(nullptr), "");
    std::remove(file.c_str());
}

TEST(ExplainCallSites, GraphKernelsTakeTheLineThatCapturedThem) {
    PassRecords r;
    // Captured at line 20 (node 7), instantiated (node 9 is 7's clone), replayed from line 30.
    for (const auto &l : {site_line(1, "serve.py", 20, "aten::clone"), site_line(2, "serve.py", 30, ""),
                          std::string("{\"type\":\"node_site\",\"node\":7,\"site\":1}"),
                          std::string("{\"type\":\"node_clone\",\"node\":9,\"original\":7}"),
                          std::string("{\"type\":\"kernel\",\"name\":\"_Z1kv\",\"graph\":3,\"graph_node\":9,\"correlation\":50,"
                                      "\"start\":0,\"end\":100}"),
                          std::string("{\"type\":\"kernel\",\"name\":\"_Z1gv\",\"graph\":3,\"graph_node\":11,\"correlation\":50,"
                                      "\"start\":100,\"end\":200}"),
                          launch_site_line(50, 2)})
        add_record(r, l, 42);
    resolve_call_sites(r);
    ASSERT_EQ(r.kernels.size(), 2u);
    EXPECT_EQ(r.sites.at(r.kernels[0].site).line, 20);  // the capture's line
    EXPECT_EQ(r.sites.at(r.kernels[1].site).line, 30);  // no node site: the graph launch's line
}

TEST(ExplainCallSites, CountedGraphLaunchRangesJoinTheirKernels) {
    PassRecords r;
    for (const auto &l : {site_line(1, "serve.py", 20, ""), std::string("{\"type\":\"node_site\",\"node\":7,\"site\":1}"),
                          std::string("{\"type\":\"kernel\",\"name\":\"_Z1kv\",\"graph\":3,\"graph_node\":7,\"correlation\":50,"
                                      "\"start\":0,\"end\":100}"),
                          std::string("{\"type\":\"kernel\",\"name\":\"_Z1gv\",\"graph\":3,\"correlation\":50,\"start\":100,\"end\":300}"),
                          // The profiler names a range by the kernel (demangled here).
                          std::string("{\"type\":\"counters\",\"name\":\"k()\",\"correlation\":50,\"graph_range\":0,"
                                      "\"metrics\":{\"gpu__time_duration.sum\":2000}}")})
        add_record(r, l, 42);
    resolve_call_sites(r);
    ASSERT_EQ(r.counters.size(), 1u);
    EXPECT_TRUE(r.counters[0].graph);
    EXPECT_EQ(r.counters[0].mangled, "_Z1kv");
    EXPECT_EQ(r.sites.at(r.counters[0].site).line, 20);
    // The counted kernel's time is the profiler's; its graph neighbour keeps its traced time.
    const auto k = summarize_kernels(r);
    ASSERT_EQ(k.size(), 2u);
    for (const auto &s : k) EXPECT_DOUBLE_EQ(s.total_ms, s.mangled == "_Z1kv" ? 0.002 : 0.0002);
}

TEST(ExplainCallSites, CppCallSiteIsTheExecutablesFrameReadByAddr2line) {
    const HostFrame frame = program_frame();  // the line named
    char exe[4096] = "";
    ASSERT_GT(readlink("/proc/self/exe", exe, sizeof exe - 1), 0);
    EXPECT_EQ(frame.module, std::string(exe));
    ASSERT_FALSE(frame.addresses.empty());
    // This test is built with -g: addr2line finds this file and line (where installed).
    const HostLine line = host_source_line(frame.module, frame.addresses.front());
    if (std::system("command -v addr2line >/dev/null 2>&1") == 0) {
        EXPECT_NE(line.file.find("call_sites_test.cpp"), std::string::npos) << line.file;
        EXPECT_EQ(source_line(line.file, line.line).find("program_frame();  // the line named"),
                  std::string("const HostFrame frame = ").size());
    }
    CallSiteRecord s;
    s.file = frame.module;
    s.addresses = frame.addresses;
    const auto j = call_site_json(s);
    EXPECT_EQ(j["executable"], frame.module);
    EXPECT_EQ(j["address"], frame.addresses.front());  // the test's own function: not the runtime's
    // Named as a kernel's host stub, the innermost frame is skipped.
    const auto as_stub = call_site_json(s, line.function);
    if (!line.function.empty() && frame.addresses.size() > 1) EXPECT_NE(as_stub["address"], frame.addresses.front());
    EXPECT_EQ(host_source_line("/nonexistent/program", 0x1234).line, 0);
}

TEST(ExplainCallSites, BackwardNodesAsPyTorchNamesThem) {
    // The node's own range carries the sequence number of the forward operator that made it.
    const auto own = operator_context({"MmBackward0, seq = 7, op_id = 40", "aten::mm, op_id = 41"});
    EXPECT_EQ(own.backward_node, "MmBackward0");
    EXPECT_EQ(own.backward_seq, 7);
    EXPECT_EQ(own.op, "aten::mm");
    const auto both = operator_context({"autograd::engine::evaluate_function: AddmmBackward0",
                                        "AddmmBackward0, seq = 5", "aten::mm"});
    EXPECT_EQ(both.backward_node, "AddmmBackward0");
    EXPECT_EQ(both.backward_seq, 5);
    EXPECT_EQ(both.forward_seq, -1);
    EXPECT_EQ(operator_context({"aten::backward_op_of_mine, seq = 3"}).backward_node, "");  // not a node's name
}

TEST(ExplainCallSites, ACountedGraphLaunchKeepsOneRecordOfEachOfItsKernels) {
    PassRecords r;
    auto graph_kernel = [](const char *name, int correlation, int start) {
        return std::string("{\"type\":\"kernel\",\"name\":\"") + name + "\",\"graph\":2,\"graph_node\":9,\"correlation\":" +
               std::to_string(correlation) + ",\"start\":" + std::to_string(start) + ",\"end\":" + std::to_string(start + 100) + "}";
    };
    for (const auto &l : {site_line(1, "serve.py", 20, ""), site_line(2, "serve.py", 22, ""),
                          std::string("{\"type\":\"node_site\",\"node\":4,\"site\":1}"),
                          std::string("{\"type\":\"node_site\",\"node\":9,\"site\":2}"),  // the clone, made at instantiation
                          std::string("{\"type\":\"node_clone\",\"node\":9,\"original\":4}"),
                          graph_kernel("_Z1kv", 5, 0),
                          // The counted launch (6): five replays and the profiler's own kernels.
                          graph_kernel("_Z1kv", 6, 1000), graph_kernel("_Z1kv", 6, 2000), graph_kernel("WaitNs", 6, 3000),
                          graph_kernel("tools_memcmp", 6, 4000), graph_kernel("_Z1kv", 6, 5000),
                          // The profiler's one range for the whole graph, named "0".
                          std::string("{\"type\":\"counters\",\"name\":\"0\",\"correlation\":6,\"graph_range\":0,"
                                      "\"metrics\":{\"gpu__time_duration.sum\":50000}}")})
        add_record(r, l, 42);
    resolve_call_sites(r);
    ASSERT_EQ(r.kernels.size(), 2u);  // launch 5, and one record of launch 6
    EXPECT_EQ(r.counters[0].mangled, "_Z1kv");
    EXPECT_EQ(r.sites.at(r.kernels[0].site).line, 20);  // the capture's line, not the instantiation's
    const auto k = summarize_kernels(r);
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].launches, 2u);
    EXPECT_DOUBLE_EQ(k[0].total_ms, 0.0001 + 0.05);
}

// Records captured on an H100 (driver 580.159, CUDA 13.0) by
// scripts/explain-sites-gpu.sh: each kernel at its user line and operator.
namespace {
const std::string kSitesFixtures = GMX_SOURCE_DIR "/tests/explain/fixtures/sites-h100/";
const KernelSummary *at_line(const std::vector<KernelSummary> &kernels, const std::string &name_part, int line) {
    for (const auto &k : kernels)
        if (k.name.find(name_part) != std::string::npos && k.call_site.line == line) return &k;
    return nullptr;
}
}  // namespace

TEST(ExplainCallSitesRecorded, TorchTrainingStepKernelsAtTheirLines) {
    const PassRecords r = read_pass(kSitesFixtures + "torch_training_step", "single");
    const auto kernels = summarize_kernels(r);
    const auto *copy = at_line(kernels, "direct_copy_kernel_cuda", 26);  // transposed = table.t().contiguous()
    ASSERT_NE(copy, nullptr);
    EXPECT_EQ(copy->call_site.op, "aten::copy_");
    EXPECT_EQ(copy->launches, 5u);
    EXPECT_EQ(copy->short_name, "elementwise_kernel<direct_copy_kernel_cuda>");
    const auto *gather = at_line(kernels, "_scatter_gather_elementwise_kernel", 28);  // torch.index_select(table.t(), ...)
    ASSERT_NE(gather, nullptr);
    EXPECT_EQ(gather->call_site.op, "aten::gather");
    // The same copy kernel also runs inside the layer's forward (line 20): a kernel of its own there.
    EXPECT_NE(at_line(kernels, "direct_copy_kernel_cuda", 20), nullptr);
    // The forward's GEMMs at the line that called the layer; the optimizer's kernels at optimizer.step().
    const auto *gemm = at_line(kernels, "sm80_xmma_gemm", 20);
    ASSERT_NE(gemm, nullptr);
    EXPECT_EQ(gemm->call_site.op, "aten::addmm");
    EXPECT_NE(at_line(kernels, "multi_tensor_apply_kernel", 22), nullptr);
    // Counted launches join their kernel at its site: the copy at line 26 was counted (in the run after).
    const PassRecords counting = read_pass(kSitesFixtures + "torch_training_step", "counters");
    EXPECT_TRUE(std::any_of(counting.counters.begin(), counting.counters.end(),
                            [&](const CounterRecord &c) { return counts_for(c, *copy); }));
    EXPECT_FALSE(std::any_of(counting.counters.begin(), counting.counters.end(), [&](const CounterRecord &c) {
        return counts_for(c, *at_line(kernels, "direct_copy_kernel_cuda", 20)) && c.site == copy->site;
    }));
}

TEST(ExplainCallSitesRecorded, JaxKernelsAtTheLineThatCalledTheJittedFunction) {
    const PassRecords r = read_pass(kSitesFixtures + "jax_program", "single");
    const auto kernels = summarize_kernels(r);
    EXPECT_NE(at_line(kernels, "input_reduce_fusion", 20), nullptr);  // out = transposed_mean(a)
    // XLA's autotuning timer is listed, never chosen.
    EXPECT_TRUE(std::any_of(kernels.begin(), kernels.end(), [](const KernelSummary &k) { return never_counted(k.mangled); }));
}

TEST(ExplainCallSitesRecorded, GraphCountedAsOneRangeJoinsItsOneKernelAtItsCaptureSite) {
    const PassRecords r = read_pass(kSitesFixtures + "graph_strided-planted", "single");
    const auto kernels = summarize_kernels(r);
    ASSERT_EQ(kernels.size(), 1u);  // the replay's extra records and the profiler's kernels dropped
    EXPECT_EQ(kernels[0].short_name, "scale_in_graph");
    EXPECT_EQ(kernels[0].launches, 20u);
    EXPECT_EQ(kernels[0].graph_launches, 20u);
    ASSERT_EQ(r.counters.size(), 1u);
    EXPECT_TRUE(counts_for(r.counters[0], kernels[0]));
    // The capture's site (the launch inside cudaStreamBeginCapture/EndCapture), not the instantiation's.
    ASSERT_FALSE(kernels[0].call_site.addresses.empty());
    EXPECT_EQ(kernels[0].call_site.addresses.front(), 67939u);
}

// The training step's records explained again: cuBLAS's and CUTLASS's GEMMs
// (global loads through asynchronous copies, which the SASS byte counter does
// not see) get no coalescing finding; the user's transpose and gather do.
TEST(ExplainCallSitesRecorded, LibraryGemmsAreNotToldToCoalesce) {
    Options o;
    o.from_records = kSitesFixtures + "torch_training_step";
    o.lab_run = GMX_SOURCE_DIR "/results/nvidia-h100-80gb-hbm3-standard-suite.json";
    o.measure = kMeasureNever;
    const auto r = explain(o);
    ASSERT_EQ(check_explain_document(r.document), "") << r.message;
    int libraries = 0;
    for (const auto &k : r.document["kernels"]) {
        const std::string name = k["name"], library = k.value("library", "");
        const auto findings = k.value("findings", nlohmann::json::array());
        if (!library.empty()) {
            ++libraries;
            EXPECT_TRUE(findings.empty()) << name;
        }
        const bool user_pattern = name.find("direct_copy_kernel_cuda") != std::string::npos && k["call_site"]["line"] == 26;
        if (user_pattern) {
            ASSERT_EQ(findings.size(), 1u);
            EXPECT_EQ(findings[0]["rule"], "uncoalesced_global");
        }
    }
    EXPECT_GE(libraries, 3);
    EXPECT_EQ(kernel_library("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas"), "cuBLAS");
    EXPECT_EQ(kernel_library("void cutlass::Kernel2<cutlass_80_simt_sgemm_128x256_8x4_nt_align1>(cutlass_80_simt_sgemm_128x256_8x4_nt_align1::Params)"), "CUTLASS");
    EXPECT_EQ(kernel_library("scale_strided(float const*, float*, int, int)"), "");
}

namespace {
std::string two_sites(std::uint32_t number) {
    return number == 1 ? site_key("a.py", 7, "f", "aten::clone", "", "", {}) : site_key("a.py", 12, "f", "aten::clone", "", "", {});
}
}  // namespace

TEST(ExplainCallSites, TheCountingRunCountsAKernelAtTheSiteItIsNamedFor) {
    KernelChoice choice;
    choice.choose(true, {"_Z4copyv\t" + two_sites(2), "_Z5otherv"}, "", 64, two_sites);
    EXPECT_FALSE(choice.wanted("_Z4copyv", 1));  // the clean line 7
    EXPECT_TRUE(choice.wanted("_Z4copyv", 2));   // the line 12 it was chosen at
    EXPECT_FALSE(choice.wanted("_Z4copyv", 0));  // a launch without a site
    EXPECT_TRUE(choice.wanted("_Z5otherv", 1));  // named without a site: every site
    EXPECT_TRUE(choice.wanted("_Z5otherv", 0));
    // The front end's key of the same site is the injection library's.
    CallSiteRecord s;
    s.file = "a.py";
    s.line = 12;
    s.function = "f";
    s.op = "aten::clone";
    EXPECT_EQ(s.key(), two_sites(2));
}
