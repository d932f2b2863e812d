#include "experiments/tma_copy/tma_plan.hpp"

#include "core/error.hpp"

namespace gmlab {

namespace {

std::string num(std::uint64_t v) { return std::to_string(v); }

std::size_t round_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

}  // namespace

const char *path_name(CopyPath p) {
    switch (p) {
    case CopyPath::Bulk: return "bulk";
    case CopyPath::Tensor: return "tensor";
    case CopyPath::CpAsync: return "cp_async";
    case CopyPath::Registers: return "registers";
    }
    return "?";
}

CopyPath path_from_name(const std::string &name) {
    for (CopyPath p : {CopyPath::Bulk, CopyPath::Tensor, CopyPath::CpAsync, CopyPath::Registers})
        if (name == path_name(p)) return p;
    invalid("paths must be bulk, tensor, cp_async or registers, got '" + name + "'");
}

std::size_t ring_shared_bytes(std::size_t size, int stages) {
    return static_cast<std::size_t>(stages) * (round_up(size, kStageAlign) + 8);
}

bool ring_fits(std::size_t size, int stages, std::size_t shared_limit) {
    return stages >= 1 && ring_shared_bytes(size, stages) <= shared_limit;
}

std::size_t largest_fitting_size(int stages, std::size_t shared_limit) {
    if (stages < 1) return 0;
    const std::size_t per_stage = shared_limit / static_cast<std::size_t>(stages);
    if (per_stage < 8 + 16) return 0;
    // Buffers are rounded up to kStageAlign: the largest multiple of it that
    // fits beside the barrier, or of 16 below one alignment unit.
    const std::size_t room = per_stage - 8;
    return room >= kStageAlign ? room / kStageAlign * kStageAlign : room / 16 * 16;
}

void check_ring(std::size_t size, int stages, std::size_t shared_limit) {
    if (stages < 1 || stages > kMaxStages)
        invalid("stages must be in 1.." + std::to_string(kMaxStages) + ", got " + std::to_string(stages));
    if (size < 16 || size % 16 != 0)
        invalid("sizes must be a multiple of 16 bytes (bulk copies move whole 16-byte units), got " + num(size));
    if (!ring_fits(size, stages, shared_limit)) {
        const std::size_t one = largest_fitting_size(1, shared_limit), most = largest_fitting_size(stages, shared_limit);
        if (!ring_fits(size, 1, shared_limit))
            invalid("sizes: " + num(size) + " bytes is more than the shared memory per block allows (" + num(shared_limit) +
                    " bytes on this device, with its barrier): sizes must be in 16.." + num(one));
        invalid("stages x sizes: " + std::to_string(stages) + " stages of " + num(size) + " bytes need " +
                num(ring_shared_bytes(size, stages)) + " bytes of shared memory per block, this device allows " +
                num(shared_limit) + ": with " + std::to_string(stages) + " stages sizes must be in 16.." + num(most));
    }
}

TilePlan plan_tiles(std::size_t array_bytes, std::size_t size, std::size_t matrix_cols, std::size_t tile_cols) {
    if (tile_cols < 4 || tile_cols > kMaxBoxDim || tile_cols % 4 != 0)
        invalid("tile_cols must be a multiple of 4 in 4.." + num(kMaxBoxDim) +
                " (a tensor map's box is at most 256 elements wide, and a box row whole 16-byte units), got " + num(tile_cols));
    if (matrix_cols < tile_cols || matrix_cols % 4 != 0)
        invalid("matrix_cols must be a multiple of 4 (the tensor map's row stride, matrix_cols x 4 bytes, must be a "
                "multiple of 16) and at least tile_cols (" + num(tile_cols) + "), got " + num(matrix_cols));
    const std::size_t row_bytes = tile_cols * 4;
    if (size % row_bytes != 0)
        invalid("sizes: a tile of " + num(size) + " bytes is not whole rows of tile_cols (" + num(tile_cols) +
                ") 4-byte elements; sizes for the tensor path must be multiples of " + num(row_bytes));
    const std::size_t box_rows = size / row_bytes;
    if (box_rows > kMaxBoxDim)
        invalid("sizes: a tile of " + num(size) + " bytes would be " + num(box_rows) + " rows of " + num(tile_cols) +
                " elements; a tensor map's box has at most " + num(kMaxBoxDim) + " rows, so with tile_cols " +
                num(tile_cols) + " sizes must be in " + num(row_bytes) + ".." + num(row_bytes * kMaxBoxDim));
    const std::size_t matrix_row_bytes = matrix_cols * 4;
    if (array_bytes < matrix_row_bytes || array_bytes % matrix_row_bytes != 0)
        invalid("array_bytes (" + num(array_bytes) + ") must be whole rows of matrix_cols (" + num(matrix_cols) +
                ") 4-byte elements, a multiple of " + num(matrix_row_bytes));
    TilePlan t;
    t.box_cols = static_cast<std::uint32_t>(tile_cols);
    t.box_rows = static_cast<std::uint32_t>(box_rows);
    t.cols = matrix_cols;
    t.rows = array_bytes / matrix_row_bytes;
    if (t.cols % t.box_cols != 0)
        invalid("matrix_cols (" + num(t.cols) + ") is not a multiple of tile_cols (" + num(t.box_cols) +
                "): the tile does not divide the array");
    if (t.rows % t.box_rows != 0)
        invalid("sizes: a tile of " + num(size) + " bytes has " + num(t.box_rows) + " rows, which do not divide the array's " +
                num(t.rows) + " rows (array_bytes / (4 x matrix_cols)): the tile does not divide the array");
    // cuTensorMapEncodeTiled: each global dimension at most 2^32, strides below 2^40.
    if (t.rows > (1ull << 32) || t.cols > (1ull << 32) || matrix_row_bytes >= (1ull << 40))
        invalid("array_bytes and matrix_cols give a " + num(t.rows) + " x " + num(t.cols) +
                " matrix; a tensor map allows at most 2^32 in each dimension");
    t.tiles_x = t.cols / t.box_cols;
    t.tiles_y = t.rows / t.box_rows;
    return t;
}

double inst_per_byte_floor(CopyPath p, std::size_t size) {
    switch (p) {
    case CopyPath::Bulk:
    case CopyPath::Tensor: return size > 0 ? 6.0 / static_cast<double>(size) : 0.0;
    case CopyPath::CpAsync: return 3.0 / 512.0;
    case CopyPath::Registers: return 4.0 / 512.0;
    }
    return 0.0;
}

}  // namespace gmlab
