// Pass 3 (--lines) without a GPU: the lines pass's records read back, the
// source lines added to the document and printed under the kernel's
// findings, the kernels without line info and a pass that could not run.
// Two kinds of records: the HAND-WRITTEN ones below (made up to cover each
// case; not captured), and fixtures/lines-* (captured by
// scripts/explain-lines-gpu.sh on an H100, CUDA 13.0).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "explain/explain_document.hpp"
#include "explain/explain_session.hpp"
#include "explain/source_lines.hpp"

using namespace gmexplain;
using nlohmann::json;

namespace {

// Hand-written: a strided load on line 42 (16 sectors per request where 4
// suffice), a clean store on line 43, a 8-way conflicted shared load on line 50
// and a spill on line 60.
const char *kHandWrittenLines[] = {
    R"({"type":"process","pid":9,"pass":"lines"})",
    R"({"type":"line","name":"_Z7stridedPf","file":"/src/strided.cu","line":42,"instructions":2000,)"
    R"("global_ld_requests":100,"global_ld_sectors":1600,"global_ld_ideal_sectors":400})",
    R"({"type":"line","name":"_Z7stridedPf","file":"/src/strided.cu","line":43,"instructions":1000,)"
    R"("global_st_requests":100,"global_st_sectors":400,"global_st_ideal_sectors":400})",
    R"({"type":"line","name":"_Z7stridedPf","file":"/src/strided.cu","line":50,"instructions":500,)"
    R"("shared_requests":100,"shared_wavefronts":800,"shared_ideal_wavefronts":100})",
    R"({"type":"line","name":"_Z7stridedPf","file":"/src/strided.cu","line":60,"instructions":300,)"
    R"("local_ld":10,"local_st":10,"local_sectors":80})",
    R"({"type":"lines_no_info","name":"_Z6nolinev","instructions":20,"cubins":1})",
    R"({"type":"launches","name":"_Z7stridedPf","count":3})",
    R"({"type":"launches","name":"_Z6nolinev","count":1})",
    R"({"type":"note","text":"lines: SASS metrics not available on chip X: smsp__sass_sectors_mem_local"})",
};

LinesRecords hand_written() {
    LinesRecords r;
    for (const char *line : kHandWrittenLines) add_lines_record(r, line, 9);
    return r;
}

// A document as explain_analysis builds it, cut to what the lines need.
json document_of(const std::vector<std::string> &mangled) {
    json doc = {{"kernels", json::array()}, {"notes", json::array()}, {"passes", json::object()}};
    for (const auto &m : mangled) doc["kernels"].push_back({{"mangled", m}, {"counted", true}});
    doc["kernels"].push_back({{"mangled", "_Z5otherv"}, {"counted", false}, {"not_counted", "not among the 5 kernels chosen"}});
    return doc;
}

json explained(const std::string &fixture, bool lines) {
    Options o;
    o.from_records = GMX_SOURCE_DIR "/tests/explain/fixtures/" + fixture;
    o.lab_run = GMX_SOURCE_DIR "/results/nvidia-h100-80gb-hbm3-standard-suite.json";
    o.measure = kMeasureNever;
    o.lines = lines;
    const auto r = explain(o);
    EXPECT_EQ(check_explain_document(r.document), "") << fixture << ": " << r.message;
    return r.document;
}

}  // namespace

TEST(ExplainLines, HandWrittenRecordsAreRead) {
    const LinesRecords r = hand_written();
    ASSERT_EQ(r.pids, std::vector<int>{9});
    ASSERT_EQ(r.lines.size(), 4u);
    EXPECT_EQ(r.lines[0].path, "/src/strided.cu");
    EXPECT_EQ(r.lines[0].line, 42u);
    EXPECT_DOUBLE_EQ(r.lines[0].ld_sectors, 1600);
    EXPECT_DOUBLE_EQ(r.lines[2].shared_wavefronts, 800);
    EXPECT_DOUBLE_EQ(r.lines[3].local_sectors, 80);
    EXPECT_DOUBLE_EQ(r.without_line_info.at("_Z6nolinev"), 20);
    EXPECT_EQ(r.launches.at("_Z7stridedPf"), 3u);
    EXPECT_EQ(r.notes.size(), 1u);
    EXPECT_TRUE(r.unavailable.empty());
}

TEST(ExplainLines, LinesWithExcessAreListedWorstFirst) {
    json doc = document_of({"_Z7stridedPf"});
    add_source_lines(doc, hand_written(), 1.5);
    const json &lines = doc["kernels"][0]["lines"];
    // Line 43's stores are coalesced: not listed. Worst first by the sectors
    // and wavefronts over the ideal: 1200 (line 42), 700 (line 50), 80 (line 60).
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0]["line"], 42);
    EXPECT_EQ(lines[0]["file"], "strided.cu");
    EXPECT_EQ(lines[0]["issues"], json::array({"global_sectors"}));
    EXPECT_DOUBLE_EQ(lines[0]["global_loads"]["sectors_per_request"].get<double>(), 16.0);
    EXPECT_DOUBLE_EQ(lines[0]["global_loads"]["ideal_sectors_per_request"].get<double>(), 4.0);
    EXPECT_EQ(lines[1]["line"], 50);
    EXPECT_EQ(lines[1]["issues"], json::array({"shared_bank_conflicts"}));
    EXPECT_DOUBLE_EQ(lines[1]["shared"]["conflict_ways"].get<double>(), 8.0);
    EXPECT_EQ(lines[2]["line"], 60);
    EXPECT_EQ(lines[2]["issues"], json::array({"local_memory"}));
    EXPECT_EQ(doc["kernels"][0]["lines_measured"], 4);
    EXPECT_EQ(doc["kernels"][0]["lines_launches"], 3);
    // A kernel that was not chosen gets nothing.
    EXPECT_FALSE(doc["kernels"][1].contains("lines"));
    EXPECT_FALSE(doc["kernels"][1].contains("lines_missing"));
    EXPECT_EQ(doc["passes"]["lines"]["lines"], 4);
    EXPECT_TRUE(doc["passes"]["lines"]["available"].get<bool>());

    const std::string text = source_lines_text(doc["kernels"][0]);
    EXPECT_NE(text.find("line 42 of strided.cu: loads use 16.0 sectors per request where 4.0 suffice"), std::string::npos) << text;
    EXPECT_NE(text.find("line 50 of strided.cu: shared accesses take 8.0 wavefronts per request where 1.0 suffice"),
              std::string::npos) << text;
    EXPECT_NE(text.find("line 60 of strided.cu: local memory"), std::string::npos) << text;
    EXPECT_EQ(text.find("line 43"), std::string::npos) << text;
}

TEST(ExplainLines, TopLimitsTheList) {
    json doc = document_of({"_Z7stridedPf"});
    add_source_lines(doc, hand_written(), 0, 1);
    ASSERT_EQ(doc["kernels"][0]["lines"].size(), 1u);
    EXPECT_EQ(doc["kernels"][0]["lines"][0]["line"], 42);
}

TEST(ExplainLines, KernelWithoutLineInfoSaysAddLineinfo) {
    json doc = document_of({"_Z6nolinev"});
    add_source_lines(doc, hand_written(), 0);
    const json &k = doc["kernels"][0];
    EXPECT_FALSE(k.contains("lines"));
    EXPECT_NE(k["lines_missing"].get<std::string>().find("built without -lineinfo"), std::string::npos);
    EXPECT_NE(source_lines_text(k).find("add -lineinfo"), std::string::npos);
    bool noted = false;
    for (const auto &n : doc["notes"]) noted = noted || n.get<std::string>().find("built without -lineinfo: _Z6nolinev") == 0;
    EXPECT_TRUE(noted) << doc["notes"].dump();
}

TEST(ExplainLines, PassThatCouldNotRunIsANoteAndTheRestStands) {
    LinesRecords r;
    add_lines_record(r, R"({"type":"process","pid":3})", 3);
    add_lines_record(r, R"({"type":"lines_unavailable","reason":"cuptiSassMetricsSetConfig failed: not supported"})", 3);
    json doc = document_of({"_Z7stridedPf"});
    doc["kernels"][0]["findings"] = json::array({{{"rule", "uncoalesced_global"}}});
    add_source_lines(doc, r, 0);
    EXPECT_NE(doc["kernels"][0]["lines_missing"].get<std::string>().find("not supported"), std::string::npos);
    EXPECT_EQ(doc["kernels"][0]["findings"].size(), 1u);
    EXPECT_FALSE(doc["passes"]["lines"]["available"].get<bool>());
    EXPECT_NE(doc["notes"][0].get<std::string>().find("source lines not available"), std::string::npos);
}

TEST(ExplainLines, KernelTheLinesRunDidNotLaunch) {
    LinesRecords r;
    add_lines_record(r, R"({"type":"process","pid":3})", 3);
    json doc = document_of({"_Z7stridedPf"});
    add_source_lines(doc, r, 0);
    EXPECT_NE(doc["kernels"][0]["lines_missing"].get<std::string>().find("did not launch it"), std::string::npos);
}

TEST(ExplainLines, CleanKernelSaysNoLineHasAnIssue) {
    LinesRecords r;
    add_lines_record(r, R"({"type":"process","pid":3})", 3);
    add_lines_record(r, R"({"type":"line","name":"_Z4copyPf","file":"c.cu","line":5,"global_ld_requests":10,)"
                        R"("global_ld_sectors":40,"global_ld_ideal_sectors":40})", 3);
    json doc = document_of({"_Z4copyPf"});
    add_source_lines(doc, r, 0);
    EXPECT_TRUE(doc["kernels"][0]["lines"].empty());
    EXPECT_NE(source_lines_text(doc["kernels"][0]).find("none of its 1 lines"), std::string::npos);
}

TEST(ExplainLines, UnreadableLineIsNotFatal) {
    LinesRecords r;
    EXPECT_THROW(add_lines_record(r, "{\"type\":\"line\",", 3), std::exception);
    EXPECT_TRUE(r.lines.empty());
}

// The records captured on an H100 (scripts/explain-lines-gpu.sh): each planted
// example's line is named, with the figures the SASS metrics gave.
TEST(ExplainLines, CapturedStridedAccessNamesItsLoadLine) {
    const json doc = explained("lines-strided_access", true);
    const json &k = doc["kernels"][0];
    ASSERT_TRUE(k.contains("lines")) << k.dump();
    ASSERT_EQ(k["lines"].size(), 1u);
    EXPECT_EQ(k["lines"][0]["file"], "strided_access.cu");
    EXPECT_EQ(k["lines"][0]["line"], 9);
    EXPECT_DOUBLE_EQ(k["lines"][0]["global_loads"]["sectors_per_request"].get<double>(), 16.0);
    EXPECT_DOUBLE_EQ(k["lines"][0]["global_stores"]["sectors_per_request"].get<double>(), 4.0);
    EXPECT_TRUE(doc["options"]["lines"].get<bool>());
    const std::string text = explanation_text(doc);
    EXPECT_NE(text.find("line 9 of strided_access.cu: loads use 16.0 sectors per request where 4.0 suffice"),
              std::string::npos) << text;
}

TEST(ExplainLines, CapturedBankConflictsNameTheTransposedRead) {
    const json k = explained("lines-bank_conflicts", true)["kernels"][0];
    ASSERT_EQ(k["lines"].size(), 1u);
    EXPECT_EQ(k["lines"][0]["line"], 16);  // out[...] = tile[threadIdx.x][j]
    EXPECT_EQ(k["lines"][0]["issues"], json::array({"shared_bank_conflicts"}));
    EXPECT_DOUBLE_EQ(k["lines"][0]["shared"]["conflict_ways"].get<double>(), 32.0);
}

TEST(ExplainLines, CapturedLocalMemoryNamesTheBinsLines) {
    const json k = explained("lines-local_memory", true)["kernels"][0];
    ASSERT_EQ(k["lines"].size(), 3u);
    EXPECT_EQ(k["lines"][0]["line"], 13);  // bins[...] += 1.0f
    for (const auto &l : k["lines"]) EXPECT_EQ(l["issues"], json::array({"local_memory"}));
}

TEST(ExplainLines, CapturedWithoutLineinfoSaysSo) {
    const json doc = explained("lines-strided_access-nolineinfo", true);
    EXPECT_NE(doc["kernels"][0]["lines_missing"].get<std::string>().find("built without -lineinfo"), std::string::npos);
    // The counters' finding stands.
    EXPECT_EQ(doc["kernels"][0]["findings"][0]["rule"], "uncoalesced_global");
}

// Two chosen kernels of one context (captured on an H100): the first lines
// run collected fill_ones, the first launched, and not table_gather;
// table_gather's run of its own (lines-kernel-0/) collected it. Both have their lines, and
// neither has a line with an issue (coalesced stores; a gather of whole lines).
TEST(ExplainLines, CapturedSecondKernelOfAContextHasItsLinesFromItsOwnRun) {
    const json doc = explained("lines-l2_eviction", true);
    int with_lines = 0;
    for (const auto &k : doc["kernels"]) {
        if (!k.value("counted", false)) continue;
        ASSERT_TRUE(k.contains("lines")) << k.dump();
        EXPECT_TRUE(k["lines"].empty()) << k.dump();
        EXPECT_GT(k["lines_measured"].get<int>(), 0);
        ++with_lines;
    }
    EXPECT_EQ(with_lines, 2);
    EXPECT_EQ(doc["passes"]["lines"]["processes"], 2);
}

TEST(ExplainLines, WithoutTheOptionTheDocumentHasNoLines) {
    const json doc = explained("lines-strided_access", false);
    EXPECT_FALSE(doc["kernels"][0].contains("lines"));
    EXPECT_FALSE(doc["passes"].contains("lines"));
    EXPECT_FALSE(doc["options"]["lines"].get<bool>());
}

TEST(ExplainLines, RecordsWithoutALinesPassAreANote) {
    const json doc = explained("strided_access-planted", true);
    EXPECT_NE(doc["kernels"][0]["lines_missing"].get<std::string>().find("no records of the lines pass"), std::string::npos);
    EXPECT_FALSE(doc["passes"]["lines"]["ran"].get<bool>());
}

// Hand-written: the first lines run launched two chosen kernels and collected
// the first only; the second's run of its own (lines-kernel-0/) collected it.
TEST(ExplainLines, AKernelTheFirstRunMissedIsReadFromItsOwnRun) {
    char pattern[] = "/tmp/gmx-lines-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    const std::string folder = pattern;
    auto write = [](const std::string &path, const std::vector<std::string> &lines) {
        std::ofstream out(path);
        for (const auto &l : lines) out << l << "\n";
    };
    const std::string first_line = R"({"type":"line","name":"_Z5firstv","file":"a.cu","line":7,"instructions":10,)"
                                   R"("global_ld_requests":10,"global_ld_sectors":40,"global_ld_ideal_sectors":40})";
    const std::string second_line = R"({"type":"line","name":"_Z6secondv","file":"a.cu","line":20,"instructions":10,)"
                                    R"("global_ld_requests":10,"global_ld_sectors":160,"global_ld_ideal_sectors":40})";
    write(folder + "/lines-100.jsonl", {R"({"type":"process","pid":100,"pass":"lines"})", first_line,
                                        R"({"type":"launches","name":"_Z5firstv","count":2})",
                                        R"({"type":"launches","name":"_Z6secondv","count":2})"});
    const LinesRecords first = read_lines(folder);
    EXPECT_EQ(kernels_without_lines(first, {"_Z5firstv", "_Z6secondv", "_Z9notlaunchv"}),
              std::vector<std::string>{"_Z6secondv"});

    const std::string own = lines_rerun_folder(folder, 0);
    ASSERT_EQ(mkdir(own.c_str(), 0755), 0);
    write(own + "/lines-101.jsonl", {R"({"type":"process","pid":101,"pass":"lines"})", second_line,
                                     R"({"type":"launches","name":"_Z6secondv","count":2})"});
    const LinesRecords all = read_lines_with_reruns(folder);
    EXPECT_EQ(all.pids, (std::vector<int>{100, 101}));
    ASSERT_EQ(all.lines.size(), 2u);
    EXPECT_EQ(all.lines[1].mangled, "_Z6secondv");
    EXPECT_EQ(all.launches.at("_Z6secondv"), 2u);  // the first run's count, not the sum
    EXPECT_TRUE(kernels_without_lines(all, {"_Z5firstv", "_Z6secondv"}).empty());

    json doc = document_of({"_Z5firstv", "_Z6secondv"});
    add_source_lines(doc, all, 1.0);
    EXPECT_TRUE(doc["kernels"][0]["lines"].empty());
    ASSERT_EQ(doc["kernels"][1]["lines"].size(), 1u);
    EXPECT_EQ(doc["kernels"][1]["lines"][0]["line"], 20);
    std::remove((own + "/lines-101.jsonl").c_str());
    rmdir(own.c_str());
    std::remove((folder + "/lines-100.jsonl").c_str());
    rmdir(folder.c_str());
}
