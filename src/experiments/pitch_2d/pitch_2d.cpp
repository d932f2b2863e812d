// Experiment family "pitched 2D arrays": rows whose width is not a multiple of
// 32 words, packed back to back (most rows start off a 128-byte boundary) or
// padded by cudaMallocPitch; each warp copies one row.
#include "experiments/pitch_2d/pitch_2d.hpp"

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "experiments/common/point_checks.hpp"
#include "experiments/pitch_2d/pitch_2d.cuh"
#include "shared_kernels/pattern.hpp"

namespace gmlab {

std::size_t pitch_2d_bytes(std::size_t width, std::size_t height, std::size_t elem, std::size_t max_pitch) {
    if (width == 0) invalid("width must be at least 1, got 0");
    if (height == 0) invalid("height must be at least 1, got 0");
    constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
    if (width > kMax / elem) invalid("width " + std::to_string(width) + " x " + std::to_string(elem) + " bytes overflows");
    const std::size_t row = width * elem;
    if (row > max_pitch)
        invalid("a row of width " + std::to_string(width) + " is " + std::to_string(row) +
                " bytes, more than this device's largest pitch of " + std::to_string(max_pitch) + " bytes");
    if (height > kMax / row)
        invalid("width " + std::to_string(width) + " x height " + std::to_string(height) + " x " + std::to_string(elem) +
                " bytes overflows");
    return row * height;
}

namespace {

constexpr std::uint32_t kSeed = 2024;
constexpr std::size_t kElem = sizeof(std::uint32_t);

// A cudaMallocPitch allocation, counted against the context like DeviceArray.
class PitchedArray {
public:
    PitchedArray(ContextState &ctx, std::size_t width_bytes, std::size_t height) : ctx_(&ctx) {
        GM_CUDA(cudaMallocPitch(&ptr_, &pitch_, width_bytes, height));
        bytes_ = pitch_ * height;
        ctx.note_alloc(bytes_);
    }
    ~PitchedArray() {
        if (ptr_) {
            cudaFree(ptr_);
            ctx_->note_free(bytes_);
        }
    }
    PitchedArray(const PitchedArray &) = delete;
    PitchedArray &operator=(const PitchedArray &) = delete;
    std::uint32_t *get() const { return static_cast<std::uint32_t *>(ptr_); }
    std::size_t pitch() const { return pitch_; }

private:
    ContextState *ctx_;
    void *ptr_ = nullptr;
    std::size_t pitch_ = 0, bytes_ = 0;
};

// Fraction of the first rows (at most 4096) whose start is off a 128-byte
// line: each warp access of such a row spans one more sector.
double misaligned_row_fraction(std::size_t pitch, std::size_t height) {
    std::size_t misaligned = 0;
    const std::size_t sample = std::min<std::size_t>(height, 4096);
    for (std::size_t r = 0; r < sample; ++r) misaligned += (r * pitch * kElem) % 128 != 0;
    return static_cast<double>(misaligned) / static_cast<double>(sample);
}

// Copies the array (pitch in words) on the device through the core's point
// protocol: the output's rows poisoned, one copy checked against the host's
// pattern, then timed and counted.
Point measure(ContextState &ctx, std::uint32_t *in, std::uint32_t *out, std::size_t pitch, std::size_t width, std::size_t height,
              std::vector<std::uint32_t> &host, const std::string &what, Result &res) {
    cudaStream_t st = ctx.stream();
    const int sms = ctx.info().multiprocessors;
    GM_CUDA(kernels::launch_fill_rows(in, pitch, width, height, kSeed, sms, st));
    const std::uint64_t total = static_cast<std::uint64_t>(width) * height;
    CheckedLaunch point;
    point.launch = [&](cudaStream_t s) { return kernels::launch_row_copy(in, pitch, out, pitch, width, height, sms, s); };
    // The whole pitched allocation, padding included: the kernel writes only
    // the rows' words, and the check reads only those.
    point.poison = {{out, pitch * kElem * height}};
    point.download = [&](cudaStream_t s) {
        GM_CUDA(cudaMemcpy2DAsync(host.data(), width * kElem, out, pitch * kElem, width * kElem, height, cudaMemcpyDeviceToHost, s));
    };
    point.check = [&] {
        verify_equal(host.data(), total, [&](std::uint64_t i) { return pattern_word(i, kSeed); }, what,
                     "every element compared with the host's pattern", res);
    };
    Point p;
    p.x = static_cast<double>(width);
    p.bytes = 2.0 * static_cast<double>(total) * kElem;
    p.values["height"] = static_cast<double>(height);
    p.values["pitch_bytes"] = static_cast<double>(pitch * kElem);
    p.predicted["misaligned_row_fraction"] = misaligned_row_fraction(pitch, height);
    // Counters: misaligned rows show as more sectors per request.
    const CounterSet counters = counter_sets::global_sectors() + counter_sets::dram();
    measure_checked(ctx, point, p, res, &counters);
    return p;
}

const Figure kPitchedOverPacked{"pitched_over_packed_w{width}", "ratio", Better::Higher,
                                "bandwidth of pitched rows (cudaMallocPitch) over packed rows of the same width"};

void run_pitch_2d(ContextState &ctx, const Params &params, Result &out) {
    int max_pitch = 0;
    GM_CUDA(cudaDeviceGetAttribute(&max_pitch, cudaDevAttrMaxPitch, ctx.device()));
    const std::size_t target = default_working_set(ctx.info());
    Series packed, pitched;
    packed.name = "packed rows (cudaMalloc, rows width x 4 bytes apart)";
    packed.variant = "packed";
    pitched.name = "pitched rows (cudaMallocPitch)";
    pitched.variant = "pitched";
    for (Series *s : {&packed, &pitched}) {
        s->x_name = "width";
        s->x_unit = "4-byte elements";
        s->quantity = Quantity::DramBandwidth;
        s->attributes = {{"element_bytes", kElem}, {"block_size", kernels::kPitchBlock}, {"rows_per_warp", 1}};
    }
    for (long long w_ll : params.integers("widths")) {
        const std::size_t width = static_cast<std::size_t>(w_ll);
        std::size_t height = params.is_auto("height") ? std::max<std::size_t>(1, target / (width * kElem)) : params.size("height");
        const std::size_t bytes = pitch_2d_bytes(width, height, kElem, static_cast<std::size_t>(max_pitch));
        // cudaMallocPitch pads rows to its alignment (512 bytes on current devices): plan for that much.
        const std::size_t padded_row = (width * kElem + 511) / 512 * 512;
        if (height > std::numeric_limits<std::size_t>::max() / 2 / padded_row) invalid("height " + std::to_string(height) + " overflows");
        require_memory(ctx, 2 * std::max(bytes, padded_row * height),
                       "pitch_2d (" + std::to_string(width) + " x " + std::to_string(height) + " words, two arrays)");
        std::vector<std::uint32_t> host(width * height);
        {
            DeviceArray in(ctx, bytes), o(ctx, bytes);
            packed.points.push_back(measure(ctx, in.as<std::uint32_t>(), o.as<std::uint32_t>(), width, width, height, host,
                                            "pitch_2d packed width " + std::to_string(width), out));
        }
        {
            PitchedArray in(ctx, width * kElem, height), o(ctx, width * kElem, height);
            if (in.pitch() != o.pitch() || in.pitch() % kElem != 0)
                fail(GM_ERROR_INTERNAL, "cudaMallocPitch gave pitches " + std::to_string(in.pitch()) + " and " + std::to_string(o.pitch()));
            pitched.points.push_back(measure(ctx, in.get(), o.get(), in.pitch() / kElem, width, height, host,
                                             "pitch_2d pitched width " + std::to_string(width), out));
        }
        const double ratio = packed.points.back().time_ms.median / pitched.points.back().time_ms.median;
        out.record(kPitchedOverPacked, ratio, {{"width", std::to_string(width)}});  // bandwidth ratio, same bytes
    }
    out.series.push_back(std::move(packed));
    out.series.push_back(std::move(pitched));
    out.notes.push_back("Each warp copies one row of 4-byte words, 4 x 32 words in flight per lane. Packed rows start "
                        "width x 4 bytes apart, so for a width that is not a multiple of 32 most rows start off a 128-byte "
                        "line and every warp access of them touches one more 32-byte sector (predicted "
                        "misaligned_row_fraction). cudaMallocPitch pads each row to pitch_bytes, so every row starts aligned.");
    out.notes.push_back("pitched_over_packed_w<width> is the bandwidth ratio at that width (the same bytes are moved). "
                        "Neighbouring rows share the straddled sectors in L2, so the cost is usually well below the 5/4 the "
                        "sector count suggests.");
}

// How reports draw pitch_2d's result and what they say it shows.
Chart pitch_2d_chart() {
    Chart c;
    c.kind = "line";
    c.x_title = "width (4-byte elements)";
    c.x_log = true;
    c.explanation = "Rows of a width that is not a multiple of 32 start off the 128-byte lines when packed, so each warp's "
                    "row access touches an extra sector; cudaMallocPitch pads each row so that every row starts aligned. "
                    "The guide recommends the pitched allocation for 2D arrays accessed by rows.";
    return c;
}

}  // namespace

void add_pitch_2d_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "pitch_2d";
    e.guide_section = "Programming Guide: Device Memory Accesses (two-dimensional arrays, cudaMallocPitch)";
    e.summary = "Row-wise copy of 2D arrays whose width is not a multiple of 32: packed rows vs rows padded by cudaMallocPitch.";
    e.params = {int_list_param("widths", {1000, 1023, 1025, 4097, 32769}, 1, 1LL << 30, "row widths swept", "elements"),
                size_param("height", 0, 0, 1LL << 31, "rows; 0: as many as make max(4 x L2, 64 MiB) per array")};
    e.axes = {{}, "widths"};  // Its series run along the widths.
    e.run = run_pitch_2d;
    e.quick = {{"widths", {1000, 1025}}, {"height", 1024}};
    e.figures = {kPitchedOverPacked};
    e.compared = {
        {"pitched_over_packed_w1025", "pitched / packed rows, width 1025"},
    };
    e.chart = pitch_2d_chart();
    out.push_back(std::move(e));
}

}  // namespace gmlab
