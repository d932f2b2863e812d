// gmlab explain's bad inputs and what it makes of records: each bad input
// gives its own exit code and a message naming it; records are explained
// into a valid document.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "temp_folder.hpp"
#include "explain/explain_document.hpp"
#include "explain/explain_session.hpp"

using namespace gmexplain;

namespace {

std::string temp_folder() { return gmexplain_test::temp_folder("gmx-test"); }

std::string write_file(const std::string &path, const std::string &text, bool executable) {
    std::ofstream(path) << text;
    chmod(path.c_str(), executable ? 0755 : 0644);
    return path;
}

Options program(const std::vector<std::string> &argv) {
    Options o;
    o.argv = argv;
    o.injection = GMX_INJECTION;
    return o;
}

const char *kTrace = R"({"type":"process","pid":7}
{"type":"device","id":0,"name":"NVIDIA H200","sm_count":132}
{"type":"kernel","name":"_Z6stridePKfPfi","device":0,"grid":[4096,1,1],"block":[256,1,1],"registers":16,"start":1000,"end":301000}
{"type":"kernel","name":"_Z4tinyv","device":0,"grid":[1,1,1],"block":[32,1,1],"registers":8,"start":400000,"end":401000}
{"type":"exit","pid":7}
)";

std::string records(const std::string &counters) {
    const std::string dir = temp_folder();
    write_file(dir + "/trace-7.jsonl", kTrace, false);
    write_file(dir + "/counters-8.jsonl", counters, false);
    return dir;
}

}  // namespace

TEST(ExplainBadInput, ProgramNotFound) {
    const auto o = explain(program({"/nonexistent/gmx-program"}));
    EXPECT_EQ(o.exit_code, kProgramNotFound);
    EXPECT_NE(o.message.find("/nonexistent/gmx-program"), std::string::npos);
    EXPECT_EQ(explain(program({"gmx-no-such-program-on-path"})).exit_code, kProgramNotFound);
}

TEST(ExplainBadInput, NotExecutable) {
    const auto o = explain(program({GMX_SOURCE_DIR "/README.md"}));
    EXPECT_EQ(o.exit_code, kProgramNotExecutable);
    EXPECT_NE(o.message.find("not an executable"), std::string::npos);
}

TEST(ExplainBadInput, ScriptWithoutItsInterpreter) {
    const std::string dir = temp_folder();
    const auto bare = explain(program({write_file(dir + "/bare.py", "print(1)\n", true)}));
    EXPECT_EQ(bare.exit_code, kScriptWithoutInterpreter);
    EXPECT_NE(bare.message.find("python3"), std::string::npos) << bare.message;
    const auto missing = explain(program({write_file(dir + "/missing.sh", "#!/no/such/interpreter\n", true)}));
    EXPECT_EQ(missing.exit_code, kScriptWithoutInterpreter);
    EXPECT_NE(missing.message.find("/no/such/interpreter"), std::string::npos);
}

TEST(ExplainBadInput, OptionsOutOfRange) {
    auto o = program({"/bin/true"});
    o.kernels = 0;
    auto r = explain(o);
    EXPECT_EQ(r.exit_code, kExplainUsage);
    EXPECT_NE(r.message.find("--kernels 0"), std::string::npos);
    o.kernels = 5;
    o.launch_count = 0;
    EXPECT_EQ(explain(o).exit_code, kExplainUsage);
    o.launch_count = 1;
    o.kernel_regex = "(";
    r = explain(o);
    EXPECT_EQ(r.exit_code, kExplainUsage);
    EXPECT_NE(r.message.find("--kernel-regex"), std::string::npos);
    o.kernel_regex.clear();
    o.replay = "both";
    EXPECT_EQ(explain(o).exit_code, kExplainUsage);
    EXPECT_EQ(explain(program({})).exit_code, kExplainUsage);
}

TEST(ExplainBadInput, NotACudaProgram) {
    const auto o = explain(program({"/bin/true"}));
    EXPECT_EQ(o.exit_code, kNotCudaProgram);
    EXPECT_NE(o.message.find("never initialised CUDA"), std::string::npos);
    // A program that fails before any CUDA call: its own status passes through.
    EXPECT_EQ(explain(program({"/bin/sh", "-c", "exit 9"})).exit_code, 9);
}

TEST(ExplainBadInput, InjectionLibraryMissing) {
    auto o = program({"/bin/true"});
    o.injection = "/nonexistent/libgmlab_explain_inject.so";
    const auto r = explain(o);
    EXPECT_EQ(r.exit_code, kInjectionUnavailable);
    EXPECT_NE(r.message.find("GMLAB_EXPLAIN_INJECTION"), std::string::npos);
}

TEST(ExplainRecords, RegexMatchingNothingAndNoKernel) {
    Options o;
    o.from_records = records("");
    o.kernel_regex = "no_such_kernel";
    const auto r = explain(o);
    EXPECT_EQ(r.exit_code, kRegexMatchedNothing);
    EXPECT_NE(r.message.find("2 kernels"), std::string::npos) << r.message;

    const std::string dir = temp_folder();
    write_file(dir + "/trace-1.jsonl", "{\"type\":\"process\",\"pid\":1}\n", false);
    Options none;
    none.from_records = dir;
    EXPECT_EQ(explain(none).exit_code, kNoKernelLaunched);
}

// A program that crashed before its records were written (the injection
// library recorded the signal, the kernels' records were lost with the
// process): the crash is said, not "no kernel", with the exit a crash has.
TEST(ExplainRecords, AProgramEndedByASignalIsSaidSoNotNoKernel) {
    const std::string dir = temp_folder();
    write_file(dir + "/single-7.jsonl", "{\"type\":\"process\",\"pid\":7}\n{\"type\":\"signal\",\"signal\":11}\n", false);
    Options o;
    o.from_records = dir;
    const auto r = explain(o);
    EXPECT_EQ(r.exit_code, 128 + 11);
    EXPECT_NE(r.message.find("ended by signal 11"), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("GMLAB_EXPLAIN_GRAPHS=0"), std::string::npos) << r.message;
    EXPECT_EQ(r.message.find("never launched"), std::string::npos) << r.message;
    // The stack the handler wrote beside the records says where.
    write_file(dir + "/single-7.stack", "/usr/local/cuda/lib64/libcupti.so.13(+0x3e1f0)[0x7f000003e1f0]\n", false);
    const auto with_stack = explain(o);
    EXPECT_NE(with_stack.message.find("the crashing thread's stack: libcupti.so.13"), std::string::npos) << with_stack.message;
}

TEST(ExplainRecords, CountersNotPermittedKeepsTheTraceAndSaysHowToFixIt) {
    Options o;
    o.from_records = records(R"({"type":"process","pid":8}
{"type":"counters_unavailable","reason":"ERR_NVGPUCTRPERM: cuptiProfilerGetCounterAvailability failed: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"}
)");
    const auto r = explain(o);
    EXPECT_EQ(r.exit_code, 0);
    ASSERT_EQ(check_explain_document(r.document), "");
    EXPECT_FALSE(r.document["passes"]["counters"]["available"].get<bool>());
    bool said = false;
    for (const auto &n : r.document["notes"]) said = said || n.get<std::string>().find("NVreg_RestrictProfilingToAdminUsers=0") != std::string::npos;
    EXPECT_TRUE(said);
    EXPECT_EQ(r.document["kernels"][0]["counted"], false);
    EXPECT_EQ(r.document["kernels"].size(), 2u);
}

TEST(ExplainRecords, CountedKernelGetsItsFindingsAndTextNamesIt) {
    Options o;
    o.from_records = records(R"({"type":"process","pid":8}
{"type":"counters","name":"_Z6stridePKfPfi","launch":0,"passes":2,"chip":"GH100","metrics":{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum":16000000,"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum":1000000,"sm__sass_data_bytes_mem_global_op_ld.sum":128000000,"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum":4000000,"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum":1000000,"sm__sass_data_bytes_mem_global_op_st.sum":128000000}}
)");
    o.lab_run = GMX_SOURCE_DIR "/results/nvidia-h200-standard-suite.json";
    const auto r = explain(o);
    ASSERT_EQ(check_explain_document(r.document), "");
    const auto &k = r.document["kernels"][0];
    EXPECT_EQ(k["name"], "stride(float const*, float*, int)");
    EXPECT_EQ(k["short_name"], "stride");
    EXPECT_EQ(k["mangled"], "_Z6stridePKfPfi");
    ASSERT_TRUE(k["counted"].get<bool>());
    ASSERT_EQ(k["findings"].size(), 1u);
    EXPECT_EQ(k["findings"][0]["rule"], "uncoalesced_global");
    EXPECT_TRUE(k["findings"][0]["cost"]["found"].get<bool>());
    EXPECT_GT(k["findings"][0]["gain_ms"].get<double>(), 0);
    EXPECT_EQ(r.document["kernels"][1]["counted"], false);  // not launched in the counting run: said so
    const std::string text = explanation_text(r.document);
    EXPECT_NE(text.find("#1 stride\n"), std::string::npos) << text;  // the short name: no parameter list
    EXPECT_EQ(text.find("stride(float const*"), std::string::npos);
    EXPECT_NE(text.find("stride 4 reaches"), std::string::npos) << text;
}

TEST(ExplainRecords, WithoutALabRunNoGainIsPrinted) {
    setenv("GMLAB_RUNS_DIR", "/nonexistent", 1);
    setenv("XDG_STATE_HOME", "/nonexistent", 1);
    Options o;
    o.from_records = records(R"({"type":"counters","name":"_Z6stridePKfPfi","launch":0,"metrics":{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum":16000000,"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum":1000000,"sm__sass_data_bytes_mem_global_op_ld.sum":128000000}}
)");
    const auto r = explain(o);
    ASSERT_EQ(check_explain_document(r.document), "") << r.message;
    ASSERT_EQ(r.document["kernels"][0]["findings"].size(), 1u);
    const auto &f = r.document["kernels"][0]["findings"][0];
    EXPECT_FALSE(f["cost"]["found"].get<bool>());
    EXPECT_TRUE(f["gain_ms"].is_null());
    EXPECT_NE(f["cost"]["missing"].get<std::string>().find("NVIDIA H200"), std::string::npos);
    EXPECT_TRUE(r.document["summary"]["estimated_gain_ms"].is_null());
}
