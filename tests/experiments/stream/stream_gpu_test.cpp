// The stream experiment on a small array: output verified, compared with
// cudaMemcpy, kernel and unroll choices honoured.
#include "gpu_fixture.hpp"

using nlohmann::json;

TEST_F(GpuTest, StreamVerifiesAndComparesWithMemcpy) {
    json doc = run("stream", R"({"array_bytes": "16MiB"})");
    ASSERT_FALSE(doc.is_null());
    expect_sane_points(doc);
    EXPECT_EQ(doc["series"].size(), 5u);  // copy, scale, add, triad, cudaMemcpy
    EXPECT_TRUE(doc["summary"].contains("copy_over_memcpy"));
    const json *add = series_named(doc, "add");
    ASSERT_NE(add, nullptr);
    EXPECT_EQ((*add)["points"][0]["bytes"].get<double>(), 3.0 * 16 * 1024 * 1024);
}

TEST_F(GpuTest, StreamHonoursKernelAndUnrollChoices) {
    for (int unroll : {1, 2, 8}) {
        json doc = run("stream", R"({"array_bytes": "4MiB", "kernels": "triad", "include_memcpy": false, "unroll": )" +
                                     std::to_string(unroll) + "}");
        ASSERT_FALSE(doc.is_null());
        ASSERT_EQ(doc["series"].size(), 1u);
        EXPECT_EQ(doc["series"][0]["attributes"]["unroll"].get<int>(), unroll);
    }
}
