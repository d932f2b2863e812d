// offset_copy and stride_copy on small inputs: outputs verified, and the
// guide's sector predictions where it makes them.
#include "gpu_fixture.hpp"

using nlohmann::json;

TEST_F(GpuTest, OffsetCopyPredictsOneMoreSectorWhenMisaligned) {
    json doc = run("offset_copy", R"({"elements": 1000003, "offsets": "0,1,8,31,32", "word_sizes": [4, 16]})");
    ASSERT_FALSE(doc.is_null());
    expect_sane_points(doc);
    EXPECT_EQ(doc["series"].size(), 4u);  // guide and ilp4 for two word sizes
    const json *s = series_named(doc, "guide, 4-byte words");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ((*s)["points"][0]["predicted"]["sectors_per_request"].get<int>(), 4);
    EXPECT_EQ((*s)["points"][1]["predicted"]["sectors_per_request"].get<int>(), 5);
    EXPECT_EQ((*s)["points"][2]["predicted"]["sectors_per_request"].get<int>(), 4);  // 32 bytes: aligned again
    EXPECT_TRUE(doc["summary"].contains("guide_w4_offset1_over_offset0"));
}

TEST_F(GpuTest, StrideCopyCoversEveryWordSize) {
    json doc = run("stride_copy", R"({"elements": 500001, "strides": [1, 2, 7, 32]})");
    ASSERT_FALSE(doc.is_null());
    expect_sane_points(doc);
    EXPECT_EQ(doc["series"].size(), 6u);
    const json *s = series_named(doc, "guide, 4-byte words");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ((*s)["points"][0]["predicted"]["sectors_per_request"].get<int>(), 4);
    EXPECT_EQ((*s)["points"][1]["predicted"]["sectors_per_request"].get<int>(), 8);
    EXPECT_EQ((*s)["points"][3]["predicted"]["sectors_per_request"].get<int>(), 32);
    // Striding by 32 words cannot be faster than the contiguous copy.
    EXPECT_LT((*s)["points"][3]["bandwidth_gbs"].get<double>(), (*s)["points"][0]["bandwidth_gbs"].get<double>());
}
