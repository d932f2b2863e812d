// The alignment experiment without a device: the load table of its kernels is
// consistent, and bad input names the allowed values.
#include <string>

#include <gtest/gtest.h>

#include "experiments/alignment/alignment.cuh"
#include "unit_checks.hpp"

using namespace gmlab;

TEST(AlignmentTable, EntriesAreConsistent) {
    for (const auto &k : kernels::kAlignmentKernels) {
        SCOPED_TRACE(k.kernel);
        EXPECT_GE(k.stride, k.data);
        EXPECT_EQ(k.stride % k.load_bytes, 0);
        // The loads cover the record's data and at most its padding.
        EXPECT_GE(k.loads_per_record * k.load_bytes, k.data);
        EXPECT_LE(k.loads_per_record * k.load_bytes, k.stride);
        EXPECT_GE(k.stores_per_record, 1);
    }
    for (int data : {8, 12, 16})
        for (const char *v : {"packed", "aligned", "vector"}) EXPECT_GE(kernels::alignment_kernel_index(v, data, 0), 0) << v << data;
    for (int data : {8, 16})
        for (int w : {1, 2, 4, 8}) EXPECT_GE(kernels::alignment_kernel_index("misaligned", data, w), 0) << data << " " << w;
    EXPECT_EQ(kernels::alignment_kernel_index("misaligned", 12, 4), -1);
    EXPECT_EQ(kernels::alignment_kernel_index("vector", 10, 0), -1);
}

TEST(AlignmentParams, BadInputNamesTheAllowedValues) {
    EXPECT_EQ(param_error("alignment", {{"record_sizes", {10}}}), "record_sizes must be one of 8, 12, 16, got 10");
    EXPECT_NE(param_error("alignment", {{"offsets", {0}}}).find("offsets must be in 1..15, got 0"), std::string::npos);
    EXPECT_NE(param_error("alignment", {{"offsets", {16}}}).find("offsets must be in 1..15, got 16"), std::string::npos);
    EXPECT_NE(param_error("alignment", {{"misaligned_sizes", {12}}}).find("must be one of 8, 16"), std::string::npos);
}
