// The host side of the tma_copy experiment that needs no device: which copy
// paths there are, how much shared memory a ring of stages takes, the checks
// of bulk and tile sizes against shared memory and the tensor map's limits,
// and the instruction floor each path's loop structure implies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace gmlab {

// The four ways the experiment moves bytes global -> shared -> global.
enum class CopyPath {
    Bulk,       // cp.async.bulk (1D, TMA) both ways, an mbarrier per stage
    Tensor,     // cp.async.bulk.tensor.2d (TMA through a tensor map) both ways
    CpAsync,    // cp.async (16 bytes a thread) in, ld.shared + st.global out
    Registers,  // ld.global + st.shared in, ld.shared + st.global out
};

// "bulk", "tensor", "cp_async", "registers".
const char *path_name(CopyPath p);
// The inverse; throws Error(GM_ERROR_INVALID_ARGUMENT) for another name.
CopyPath path_from_name(const std::string &name);
// Bulk and Tensor: the Tensor Memory Accelerator's paths.
inline bool is_tma(CopyPath p) { return p == CopyPath::Bulk || p == CopyPath::Tensor; }

// Each stage's buffer starts on a 128-byte boundary (the tensor copy's
// shared-memory operand must be 128-byte aligned); one 8-byte mbarrier per
// stage follows the buffers.
inline constexpr std::size_t kStageAlign = 128;
inline constexpr int kMaxStages = 4;
// Shared bytes one block needs for `stages` buffers of `size` bytes.
std::size_t ring_shared_bytes(std::size_t size, int stages);
// Whether that ring fits `shared_limit` bytes (the per-block opt-in limit).
bool ring_fits(std::size_t size, int stages, std::size_t shared_limit);
// The largest size (a multiple of 16) whose ring of `stages` fits; 0 if none.
std::size_t largest_fitting_size(int stages, std::size_t shared_limit);

// Throws Error(GM_ERROR_INVALID_ARGUMENT) naming the parameter and its allowed
// range when `size` is not a multiple of 16 (bulk copies move whole 16-byte
// units), when `stages` is outside 1..kMaxStages, or when the ring does not
// fit `shared_limit`.
void check_ring(std::size_t size, int stages, std::size_t shared_limit);

// The 2D view of the array that the tensor path copies: rows of matrix_cols
// 4-byte elements, tiles (the tensor map's box) of box_cols x box_rows
// elements, box_cols = tile_cols and box_rows = size / (4 x tile_cols).
struct TilePlan {
    std::uint32_t box_cols = 0, box_rows = 0;
    std::uint64_t cols = 0, rows = 0;
    std::uint64_t tiles_x = 0, tiles_y = 0;
    std::uint64_t tiles() const { return tiles_x * tiles_y; }
};

inline constexpr std::uint32_t kMaxBoxDim = 256;  // cuTensorMapEncodeTiled: each box dimension at most 256
// Throws Error(GM_ERROR_INVALID_ARGUMENT) naming the parameter and what is
// allowed when: tile_cols is not a multiple of 4 in 4..256 (a box row must be
// whole 16-byte units); size is not whole rows of tile_cols elements, or is
// more than 256 of them; matrix_cols is not a multiple of 4 (the row stride
// must be a multiple of 16 bytes) or too large; array_bytes is not whole rows;
// the tile does not divide the array in either dimension.
TilePlan plan_tiles(std::size_t array_bytes, std::size_t size, std::size_t matrix_cols, std::size_t tile_cols);

// A floor on the warp instructions issued per byte copied, from each path's
// loop structure: the TMA paths issue, per chunk of `size` bytes and for the
// whole block, one expect-tx arrive, one copy in, one barrier wait, one copy
// out, one commit and one wait for the copy out to have read shared memory
// (6 / size); cp.async needs per 16-byte vector of each lane one cp.async, one
// shared load and one global store (3 warp instructions per 512 bytes), the
// register path one more (a global load and a shared store instead of the
// cp.async: 4 per 512 bytes). Address arithmetic, loop control and barrier
// polling come on top, so the counters read more; the floor shows the scale.
double inst_per_byte_floor(CopyPath p, std::size_t size);

// The target the issue sets for the TMA paths: at most this share of the
// instructions per byte that cp.async needs.
inline constexpr double kTmaInstructionTarget = 1.0 / 8.0;

}  // namespace gmlab
