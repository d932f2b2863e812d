// alignment on small inputs.
#include <string>

#include "gpu_fixture.hpp"

using nlohmann::json;

TEST_F(GpuTest, AlignmentCopiesEveryRecordShape) {
    json doc = run("alignment", R"({"records": 100003, "offsets": [1, 2, 4, 8, 12]})");
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["verification"]["passed"].get<bool>());
    EXPECT_EQ(doc["series"].size(), 9u + 2u);
    for (const char *k : {"aligned_over_packed_r8", "aligned_over_packed_r12", "aligned_over_packed_r16",
                          "misaligned16_o4_over_aligned", "misaligned8_o1_over_aligned"})
        EXPECT_TRUE(doc["summary"].contains(k)) << k;
    for (const json &s : doc["series"])
        for (const json &p : s["points"]) EXPECT_GE(p["values"]["loads_per_record"].get<double>(), 1);
}
