// Kernel names a person can read (tools/explain/names/): each demangled name of
// fixtures/kernel_names.json (captured from PyTorch, CuPy, Triton and the
// example programs, and a few written in the demangler's form) gets the short
// name listed beside it; every short name is one line within the bound; and
// kernels of one explanation whose short names meet are told apart.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "explain/explain_document.hpp"
#include "explain/explain_session.hpp"
#include "explain/names/kernel_name.hpp"

using namespace gmexplain;

namespace {

nlohmann::json kernel_names_fixture() {
    std::ifstream in(GMX_SOURCE_DIR "/tests/explain/fixtures/kernel_names.json");
    return nlohmann::json::parse(in);
}

std::vector<std::string> fixture_names(const std::string &from_prefix = "") {
    std::vector<std::string> out;
    const auto fixture = kernel_names_fixture();  // kept: a range-for would not keep the temporary alive
    for (const auto &e : fixture["names"])
        if (e["from"].get<std::string>().rfind(from_prefix, 0) == 0) out.push_back(e["name"].get<std::string>());
    return out;
}

const char *kCopyFloat =
    "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda("
    "at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}>("
    "at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() "
    "const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1}>(int, ...)";

const char *kXmma = "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize4x2x1_ffma_aligna4_alignc4_"
                    "execute_split_k_kernel__5x_cublas";

}  // namespace

TEST(KernelName, EachFixtureNameGetsItsShortName) {
    const auto fixture = kernel_names_fixture();
    ASSERT_GE(fixture["names"].size(), 80u);
    for (const auto &e : fixture["names"])
        EXPECT_EQ(short_kernel_name(e["name"].get<std::string>()), e["short"].get<std::string>()) << e["from"];
}

TEST(KernelName, ThePyTorchOperatorIsFoundInsideItsWrappers) {
    EXPECT_EQ(short_kernel_name(kCopyFloat), "elementwise_kernel<direct_copy_kernel_cuda>");
    EXPECT_EQ(short_kernel_name("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
                                "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)"),
              "vectorized_elementwise_kernel<CUDAFunctor_add>");
    EXPECT_EQ(short_kernel_name("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, "
                                "float, float, float>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, "
                                "at::native::MeanOps<float, float, float, float>, unsigned int, float, 4, 4>)"),
              "reduce_kernel<MeanOps>");
}

TEST(KernelName, IntegersAreKeptWhereNothingElseTellsKernelsApart) {
    EXPECT_EQ(short_kernel_name("void transpose<32, 8>(float*, float const*, int)"), "transpose<32, 8>");
    EXPECT_EQ(short_kernel_name("void transpose_tiled<0>(float const*, float*, int)"), "transpose_tiled<0>");
    EXPECT_EQ(short_kernel_name("void k<float, true>(float*)"), "k");  // element types and flags say little alone
    EXPECT_EQ(short_kernel_name("void k<1000000, 2000000, 3000000, 4000000>(float*)"), "k");  // too long to read at a glance
}

TEST(KernelName, PlainMangledAndUnreadableNamesStillGiveALine) {
    EXPECT_EQ(short_kernel_name("scale_strided(float const*, float*, int, int)"), "scale_strided");
    EXPECT_EQ(short_kernel_name("softmax_kernel"), "softmax_kernel");
    EXPECT_EQ(short_kernel_name("triton_poi_fused_add_0"), "triton_poi_fused_add_0");
    EXPECT_EQ(short_kernel_name("_Z13scale_stridedPKfPfii"), "scale_strided");
    EXPECT_EQ(short_kernel_name("_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastIZZZNS0_23direct"),
              "elementwise_kernel");  // cut short: the demangler refuses it
    EXPECT_EQ(short_kernel_name("void (anonymous namespace)::helper<(anonymous namespace)::Op>(int)"), "helper<Op>");
    EXPECT_EQ(short_kernel_name("  void k<1,\n2>(int)\t\n"), "k<1, 2>");  // one line, whatever the input
    EXPECT_EQ(short_kernel_name("void Foo<int>::operator<(int)"), "void Foo<int>::operator<(int)");  // not read: as it is
    EXPECT_EQ(short_kernel_name(""), "");
}

TEST(KernelName, EveryShortNameIsOneLineWithinTheBound) {
    auto names = fixture_names();
    names.push_back(std::string(300, 'k') + "\nsecond line");
    for (const std::size_t max : {kShortNameMax, std::size_t(40)})
        for (const auto &n : names) {
            const std::string s = short_kernel_name(n, max);
            EXPECT_FALSE(s.empty()) << n.substr(0, 80);
            EXPECT_LE(s.size(), max) << s;
            EXPECT_EQ(s.find('\n'), std::string::npos) << s;
        }
    // Too long even when short: the middle goes, the start and the end stay.
    const std::string xmma = short_kernel_name(kXmma);
    EXPECT_EQ(xmma.size(), kShortNameMax);
    EXPECT_EQ(xmma.rfind("sm80_xmma_gemm_f32f32", 0), 0u) << xmma;
    EXPECT_NE(xmma.find("..."), std::string::npos);
    EXPECT_EQ(xmma.substr(xmma.size() - 7), "_cublas") << xmma;
}

TEST(KernelName, KernelsOfOneExplanationAreToldApart) {
    const auto names = fixture_names();
    const auto shown = distinct_short_names(names);
    ASSERT_EQ(shown.size(), names.size());
    EXPECT_EQ(std::set<std::string>(shown.begin(), shown.end()).size(), names.size());
    for (const auto &s : shown) EXPECT_LE(s.size(), kShortNameMax) << s;
    // Names that met no other keep their short name.
    EXPECT_EQ(shown[0], short_kernel_name(names[0]));
}

TEST(KernelName, NamesThatMeetAreWrittenWithTheirTemplateArguments) {
    const std::string fill = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<T>, std::array<char*, 1ul> >"
                             "(int, at::native::FillFunctor<T>, std::array<char*, 1ul>)";
    auto with = [&](const std::string &t) {
        std::string s = fill;
        for (auto at = s.find("<T>"); at != std::string::npos; at = s.find("<T>")) s.replace(at + 1, 1, t);
        return s;
    };
    const std::string half = std::string(kCopyFloat).replace(std::string(kCopyFloat).find("{lambda(float)#1}>(at"), 17,
                                                             "{lambda(c10::Half)#1}");
    const auto shown = distinct_short_names({with("float"), with("unsigned char"), kCopyFloat, half, "softmax_kernel"});
    EXPECT_EQ(shown[0], "vectorized_elementwise_kernel<4, FillFunctor<float>>");
    EXPECT_EQ(shown[1], "vectorized_elementwise_kernel<4, FillFunctor<unsigned char>>");
    EXPECT_EQ(shown[2], "elementwise_kernel<128, 2, gpu_kernel_impl_nocast<direct_copy_kernel_cuda::{lambda(float)#1}>>");
    EXPECT_EQ(shown[3], "elementwise_kernel<128, 2, gpu_kernel_impl_nocast<direct_copy_kernel_cuda::{lambda(c10::Half)#1}>>");
    EXPECT_EQ(shown[4], "softmax_kernel");
}

TEST(KernelName, NamesAlikeInFullAreNumbered) {
    // Two kernels whose names demangle alike (one from each of two modules), and one too long to tell apart in 100 characters.
    const std::string other_xmma = std::string(kXmma).replace(std::string(kXmma).find("split_k_"), 8, "");
    const auto shown = distinct_short_names({"void scale(float*)", "scale(float*)", "softmax_kernel", "void scale(float*)"});
    EXPECT_EQ(shown, (std::vector<std::string>{"scale", "scale (2)", "softmax_kernel", "scale (3)"}));
    const auto narrow = distinct_short_names({kXmma, other_xmma}, 30);
    EXPECT_NE(narrow[0], narrow[1]);
    EXPECT_LE(narrow[1].size(), 30u);
    EXPECT_EQ(narrow[1].substr(narrow[1].size() - 4), " (2)");
}

TEST(KernelName, TheDocumentAndTheTextOfAPyTorchProgram) {
    Options o;
    o.from_records = GMX_SOURCE_DIR "/tests/explain/fixtures/torch_training_step";
    o.lab_run = GMX_SOURCE_DIR "/results/nvidia-h200-standard-suite.json";
    o.measure = kMeasureNever;
    const auto r = explain(o);
    ASSERT_EQ(check_explain_document(r.document), "") << r.message;
    std::set<std::string> shown;
    for (const auto &k : r.document["kernels"]) {
        // The whole names stay in the document; the short one is beside them, one of a kind.
        EXPECT_FALSE(k["name"].get<std::string>().empty());
        EXPECT_FALSE(k["mangled"].get<std::string>().empty());
        EXPECT_LE(k["short_name"].get<std::string>().size(), kShortNameMax);
        EXPECT_TRUE(shown.insert(k["short_name"].get<std::string>()).second) << k["short_name"];
    }
    const std::string text = explanation_text(r.document);
    for (const auto &k : r.document["kernels"]) {
        const std::string library = k.value("library", "");
        const std::string heading = "#" + std::to_string(k["rank"].get<int>()) + " " + k["short_name"].get<std::string>() +
                                    (library.empty() ? "" : " (" + library + ")") + "\n";
        EXPECT_NE(text.find(heading), std::string::npos) << heading;
        if (k["name"] != k["short_name"]) EXPECT_EQ(text.find(k["name"].get<std::string>()), std::string::npos);
    }
    EXPECT_EQ(text.find("gpu_kernel_impl_nocast"), std::string::npos);
    EXPECT_EQ(text.find("at::native::"), std::string::npos);
}

TEST(KernelName, ADocumentWithoutShortNamesGetsThemWhenRead) {
    nlohmann::json doc = {{"kernels", {{{"name", "void scale(float*)"}}, {{"name", "scale(float*)"}}, {{"name", kCopyFloat}}}}};
    add_short_names(doc);
    EXPECT_EQ(doc["kernels"][0]["short_name"], "scale");
    EXPECT_EQ(doc["kernels"][1]["short_name"], "scale (2)");
    EXPECT_EQ(doc["kernels"][2]["short_name"], "elementwise_kernel<direct_copy_kernel_cuda>");
    EXPECT_EQ(kernel_display_name(doc["kernels"][2]), "elementwise_kernel<direct_copy_kernel_cuda>");
    EXPECT_EQ(kernel_display_name({{"name", kCopyFloat}}), "elementwise_kernel<direct_copy_kernel_cuda>");
}
