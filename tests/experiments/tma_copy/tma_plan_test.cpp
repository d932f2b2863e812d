// tma_copy without a device: the ring's shared memory, the checks of bulk and
// tile sizes against shared memory and the tensor map's limits (each error
// naming the parameter and its allowed range), and the instruction floor.
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/experiment/registry.hpp"
#include "experiments/tma_copy/tma_plan.hpp"
#include "unit_checks.hpp"

using namespace gmlab;

namespace {

constexpr std::size_t kHopperShared = 232448;  // cudaDevAttrMaxSharedMemoryPerBlockOptin on H100 / H200

std::string ring_error(std::size_t size, int stages, std::size_t limit = kHopperShared) {
    return argument_error([&] { check_ring(size, stages, limit); });
}

std::string tile_error(std::size_t array, std::size_t size, std::size_t matrix_cols, std::size_t tile_cols) {
    return argument_error([&] { plan_tiles(array, size, matrix_cols, tile_cols); });
}

}  // namespace

TEST(TmaPlan, RingSharedBytesAlignEachStageAndAddABarrier) {
    EXPECT_EQ(ring_shared_bytes(1024, 1), 1024u + 8u);
    EXPECT_EQ(ring_shared_bytes(1024, 4), 4u * (1024u + 8u));
    EXPECT_EQ(ring_shared_bytes(48, 2), 2u * (128u + 8u));  // each buffer on a 128-byte boundary
    EXPECT_TRUE(ring_fits(64 * 1024, 3, kHopperShared));
    EXPECT_FALSE(ring_fits(64 * 1024, 4, kHopperShared));
    EXPECT_TRUE(ring_fits(56 * 1024, 4, kHopperShared));
    // The largest size reported fits, and 128 bytes more does not.
    for (int s = 1; s <= 4; ++s) {
        const std::size_t most = largest_fitting_size(s, kHopperShared);
        EXPECT_TRUE(ring_fits(most, s, kHopperShared)) << s;
        EXPECT_FALSE(ring_fits(most + kStageAlign, s, kHopperShared)) << s;
        EXPECT_EQ(most % 16, 0u);
    }
}

TEST(TmaPlan, BadRingsNameTheParameterAndTheRange) {
    EXPECT_EQ(ring_error(16 * 1024, 2), "");
    EXPECT_TRUE(contains(ring_error(1000, 1), "sizes must be a multiple of 16")) << ring_error(1000, 1);
    EXPECT_TRUE(contains(ring_error(0, 1), "sizes must be a multiple of 16"));
    const std::string big = ring_error(256 * 1024, 1);
    EXPECT_TRUE(contains(big, "sizes: 262144 bytes is more than the shared memory per block allows")) << big;
    EXPECT_TRUE(contains(big, "sizes must be in 16.." + std::to_string(largest_fitting_size(1, kHopperShared)))) << big;
    const std::string ring = ring_error(64 * 1024, 4);
    EXPECT_TRUE(contains(ring, "stages x sizes: 4 stages of 65536 bytes need 262176 bytes")) << ring;
    EXPECT_TRUE(contains(ring, "this device allows 232448")) << ring;
    EXPECT_TRUE(contains(ring, "with 4 stages sizes must be in 16.." + std::to_string(largest_fitting_size(4, kHopperShared)))) << ring;
    EXPECT_TRUE(contains(ring_error(1024, 5), "stages must be in 1..4, got 5"));
    EXPECT_TRUE(contains(ring_error(1024, 0), "stages must be in 1..4, got 0"));
}

TEST(TmaPlan, TilesDivideTheArrayWithinTheTensorMapLimits) {
    const TilePlan t = plan_tiles(1ull << 30, 16 * 1024, 8192, 64);
    EXPECT_EQ(t.box_cols, 64u);
    EXPECT_EQ(t.box_rows, 64u);  // 16 KiB / (64 x 4 bytes)
    EXPECT_EQ(t.cols, 8192u);
    EXPECT_EQ(t.rows, 32768u);
    EXPECT_EQ(t.tiles_x, 128u);
    EXPECT_EQ(t.tiles_y, 512u);
    EXPECT_EQ(t.tiles() * 16 * 1024, 1ull << 30);
    // The default sweep's ends fit the box limit of 256 rows.
    EXPECT_EQ(plan_tiles(1ull << 30, 1024, 8192, 64).box_rows, 4u);
    EXPECT_EQ(plan_tiles(1ull << 30, 64 * 1024, 8192, 64).box_rows, 256u);
    EXPECT_EQ(plan_tiles(64ull << 20, 64 * 1024, 8192, 64).tiles(), 1024u);
}

TEST(TmaPlan, BadTilesNameTheParameterAndWhatIsAllowed) {
    const std::size_t g = 1ull << 30;
    EXPECT_TRUE(contains(tile_error(g, 1024, 8192, 6), "tile_cols must be a multiple of 4 in 4..256"));
    EXPECT_TRUE(contains(tile_error(g, 1024, 8192, 512), "tile_cols must be a multiple of 4 in 4..256"));
    const std::string rows = tile_error(g, 128 * 1024, 8192, 64);
    EXPECT_TRUE(contains(rows, "would be 512 rows")) << rows;
    EXPECT_TRUE(contains(rows, "at most 256 rows")) << rows;
    EXPECT_TRUE(contains(rows, "sizes must be in 256..65536")) << rows;
    EXPECT_TRUE(contains(tile_error(g, 1000, 8192, 64), "not whole rows of tile_cols (64)"));
    EXPECT_TRUE(contains(tile_error(g, 1024, 8190, 64), "matrix_cols must be a multiple of 4"));
    const std::string cols = tile_error(8196 * 4 * 64, 1024, 8196, 64);  // 64 whole rows of 8196 elements
    EXPECT_TRUE(contains(cols, "matrix_cols (8196) is not a multiple of tile_cols (64)")) << cols;
    EXPECT_TRUE(contains(tile_error(g, 1024, 8196, 64), "array_bytes (1073741824) must be whole rows of matrix_cols (8196)"));
    EXPECT_TRUE(contains(tile_error(g + 64, 1024, 8192, 64), "array_bytes (1073741888) must be whole rows of matrix_cols"));
    // 3 rows of 8192 elements do not hold whole 4-row tiles.
    const std::string divide = tile_error(3 * 8192 * 4, 1024, 8192, 64);
    EXPECT_TRUE(contains(divide, "do not divide the array's 3 rows")) << divide;
}

TEST(TmaPlan, InstructionFloorFallsWithTheBulkSize) {
    EXPECT_DOUBLE_EQ(inst_per_byte_floor(CopyPath::Bulk, 1024), 6.0 / 1024);
    EXPECT_DOUBLE_EQ(inst_per_byte_floor(CopyPath::Tensor, 64 * 1024), 6.0 / 65536);
    EXPECT_DOUBLE_EQ(inst_per_byte_floor(CopyPath::CpAsync, 1024), 3.0 / 512);
    EXPECT_DOUBLE_EQ(inst_per_byte_floor(CopyPath::Registers, 64 * 1024), 4.0 / 512);
    // The floor meets the 1/8 target from 8 KiB up: 6 / size <= 3 / 512 / 8.
    EXPECT_GT(inst_per_byte_floor(CopyPath::Bulk, 4096) / inst_per_byte_floor(CopyPath::CpAsync, 4096), kTmaInstructionTarget);
    EXPECT_LE(inst_per_byte_floor(CopyPath::Bulk, 8192) / inst_per_byte_floor(CopyPath::CpAsync, 8192), kTmaInstructionTarget);
    for (CopyPath p : {CopyPath::Bulk, CopyPath::Tensor, CopyPath::CpAsync, CopyPath::Registers})
        EXPECT_EQ(path_from_name(path_name(p)), p);
    EXPECT_TRUE(contains(argument_error([] { path_from_name("dma"); }), "paths must be bulk, tensor, cp_async or registers"));
}

TEST(TmaCopyParams, BadInputNamesTheAllowedValues) {
    EXPECT_EQ(param_error("tma_copy", {{"sizes", {1024, 16384}}, {"stages", {1, 3}}}), "");
    EXPECT_TRUE(contains(param_error("tma_copy", {{"sizes", {1000}}}), "sizes must be a multiple of 16, got 1000"));
    EXPECT_TRUE(contains(param_error("tma_copy", {{"sizes", {0}}}), "sizes must be in 16..262144, got 0"));
    EXPECT_TRUE(contains(param_error("tma_copy", {{"stages", {5}}}), "stages must be in 1..4, got 5"));
    EXPECT_TRUE(contains(param_error("tma_copy", {{"tile_cols", 512}}), "tile_cols must be in 4..256, got 512"));
    EXPECT_TRUE(contains(param_error("tma_copy", {{"tile_cols", 6}}), "tile_cols must be a multiple of 4, got 6"));
    EXPECT_TRUE(contains(param_error("tma_copy", {{"matrix_cols", 8190}}), "matrix_cols must be a multiple of 4, got 8190"));
    EXPECT_TRUE(contains(param_error("tma_copy", {{"array_bytes", "1000"}}), "array_bytes must be in"));
    EXPECT_TRUE(contains(param_error("tma_copy", {{"paths", {"dma"}}}), "paths must be one of"));
}

// Where a key could be an instance of more than one declared figure (a plain
// name and a pattern with axes, or two patterns), it resolves to its own
// declaration; and the experiment declares its chart.
TEST(TmaCopyFigures, EachSummaryKeyResolvesToItsOwnFigure) {
    const Experiment &e = find_experiment("tma_copy");
    const std::pair<std::string, std::string> key_and_figure[] = {
        {"tma_over_stream_copy", "tma_over_stream_copy"},
        {"cp_async_over_stream_copy", "{path}_over_stream_copy"},
        {"registers_over_stream_copy", "{path}_over_stream_copy"},
        {"bulk_best_gbs", "{path}_best_gbs"},
        {"tma_gbs", "tma_gbs"},
        {"tensor_inst_per_byte", "{path}_inst_per_byte"},
        {"tma_over_cp_async_inst_size_kib", "tma_over_cp_async_inst_size_kib"},
        {"tma_over_cp_async_inst_floor", "tma_over_cp_async_inst_floor"},
    };
    for (const auto &[key, name] : key_and_figure) {
        const Figure *f = declared_figure(e, key);
        ASSERT_NE(f, nullptr) << key;
        EXPECT_EQ(f->name, name) << key;
    }
    ASSERT_TRUE(e.chart.has_value());
    EXPECT_EQ(e.chart->leave_out, (std::vector<std::string>{"copy", "cudaMemcpy"}));
}
