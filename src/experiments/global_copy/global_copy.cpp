// Experiment family "global memory access": the guide's offset (misaligned) and
// strided copy kernels, with the 32-byte sector model's prediction per point.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/device/host_memory.hpp"
#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "core/units.hpp"
#include "experiments/global_copy/global_copy.cuh"
#include "experiments/global_copy/sectors.hpp"
#include "shared_kernels/copy_ops.cuh"
#include "shared_kernels/fill_pattern.cuh"
#include "shared_kernels/pattern.hpp"

namespace gmlab {

namespace {

using kernels::CopyVariant;
constexpr std::uint32_t kSeed = 0x5eed;

// The counters that explain a copy point, declared beside its predictions:
// every warp request of the loads and of the stores should touch exactly the
// sectors the model predicts; DRAM bytes show what the sector model leaves out.
CounterSet copy_counters() {
    return (counter_sets::global_sectors() + counter_sets::dram())
        .agree("sectors_per_request_ld", "sectors_per_request")
        .agree("sectors_per_request_st", "sectors_per_request");
}

CopyVariant variant_of(const std::string &name) { return name == "ilp4" ? CopyVariant::Ilp4 : CopyVariant::Guide; }

std::string hex(std::uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

// Checks host[t] == pattern_word(first_u32 + index(t)) for the n_u32 words of
// `host`, where index maps a position of the downloaded copy to a u32 index of
// the input array.
template <class Index>
void check_words(const std::uint32_t *host, std::uint64_t n_u32, Index index, const std::string &what, Result &out) {
    const std::uint64_t bad = first_mismatch(n_u32, [&](std::uint64_t t) { return host[t] == pattern_word(index(t), kSeed); });
    if (bad < n_u32) verification_failed(what, bad, hex(pattern_word(index(bad), kSeed)), hex(host[bad]));
    out.verified(n_u32, "every copied word compared with the host's pattern generator");
}

std::size_t elements_for(ContextState &ctx, const Params &params, int word_size) {
    return params.is_auto("elements") ? default_working_set(ctx.info()) / static_cast<std::size_t>(word_size)
                                      : params.size("elements");
}

Series make_series(const std::string &variant, int word_size, const char *x_name, std::size_t n, int block) {
    Series s;
    s.name = variant + ", " + std::to_string(word_size) + "-byte words";
    s.variant = variant;
    s.x_name = x_name;
    s.x_unit = "words";
    s.quantity = Quantity::DramBandwidth;
    s.attributes = {{"word_size", word_size}, {"elements", n}, {"block_size", block}};
    return s;
}

// The headline figures: the bandwidth at one swept value over another, per
// kernel and word size. Same bytes at both points, so the bandwidth ratio is
// the inverse time ratio.
const Figure kOffset1OverOffset0{"{variant}_w{word}_offset1_over_offset0", "ratio", Better::Higher,
                                 "bandwidth of a copy misaligned by one word over the aligned copy's"};
const Figure kStride2OverStride1{"{variant}_w{word}_stride2_over_stride1", "ratio", Better::Higher,
                                 "bandwidth of a copy of every second word over the dense copy's"};
const Figure kStride32OverStride1{"{variant}_w{word}_stride32_over_stride1", "ratio", Better::Higher,
                                  "bandwidth of a copy of every 32nd word over the dense copy's"};

void record_ratio(Result &out, const Series &s, double at, double base, const Figure &figure) {
    const Point *p_at = nullptr, *p_base = nullptr;
    for (const Point &p : s.points) {
        if (p.x == at) p_at = &p;
        if (p.x == base) p_base = &p;
    }
    if (!p_at || !p_base) return;
    const std::string word = std::to_string(s.attributes["word_size"].get<int>());
    out.record(figure, p_base->time_ms.median / p_at->time_ms.median, {{"variant", s.variant}, {"word", word}});
}

// One word size's arrays, and how a point of the sweep is launched and
// checked on them: what differs between the offset and the stride copy.
class CopyArrays {
public:
    virtual ~CopyArrays() = default;
    virtual std::size_t elements() const = 0;
    // The point's launch, its check, the bytes it moves and the model's prediction.
    virtual CheckedLaunch checked(CopyVariant variant, const std::string &vname, long long x, Result &out) = 0;
    virtual void predict(long long x, Point &p) const = 0;
};

// The axes both copies sweep: a series per word size and kernel, each along
// the copy's own offsets or strides.
const SweepAxes kOffsetAxes{{"word_sizes", "variants"}, "offsets"};
const SweepAxes kStrideAxes{{"word_sizes", "variants"}, "strides"};

// The sweep both copies share: for each word size its arrays, for each kernel
// a series, for each swept value a point measured through the core's point
// protocol (poison, run once, check, time, count).
template <class MakeArrays>
void sweep_copies(ContextState &ctx, const Params &params, Result &out, const SweepAxes &axes, const char *x_name,
                  MakeArrays make_arrays, void (*figures)(Result &, const Series &)) {
    const int block = static_cast<int>(params.integer("block_size"));
    const Sweep sweep(params, axes);
    const std::vector<long long> xs = sweep.xs();
    const CounterSet counters = copy_counters();
    std::unique_ptr<CopyArrays> arrays;
    for (const Combination &c : sweep.combinations()) {
        const int w = static_cast<int>(c.integer("word_sizes"));
        if (c.starts("word_sizes")) {
            arrays.reset();  // one word size's arrays at a time: free them before the next are planned
            arrays = make_arrays(w);
        }
        const std::size_t n = arrays->elements();
        const std::string &vname = c.text("variants");
        Series s = make_series(vname, w, x_name, n, block);
        for (long long x : xs) {
            Point p;
            p.x = static_cast<double>(x);
            p.bytes = 2.0 * static_cast<double>(n) * w;
            arrays->predict(x, p);
            measure_checked(ctx, arrays->checked(variant_of(vname), vname, x, out), p, out, &counters);
            s.points.push_back(std::move(p));
        }
        figures(out, s);
        out.series.push_back(std::move(s));
    }
}

class OffsetArrays : public CopyArrays {
public:
    OffsetArrays(ContextState &ctx, const Params &params, int w, long long max_offset)
        : w_(w), block_(static_cast<int>(params.integer("block_size"))), n_(elements_for(ctx, params, w)),
          bytes_((n_ + static_cast<std::size_t>(max_offset)) * static_cast<std::size_t>(w)),
          in_((require_memory(ctx, 2 * bytes_, "offset_copy (" + std::to_string(n_) + " words of " + std::to_string(w) +
                                                   " bytes, two arrays)"),
               DeviceArray(ctx, bytes_))),
          out_(ctx, bytes_), staging_(n_ * static_cast<std::size_t>(w), "offset_copy's verification") {
        GM_CUDA(kernels::launch_fill_pattern(in_.as<std::uint32_t>(), bytes_ / 4, kSeed, ctx.stream()));
    }
    std::size_t elements() const override { return n_; }
    void predict(long long off, Point &p) const override {
        p.predicted["sectors_per_request"] = sectors_per_request(w_, 1, static_cast<std::size_t>(off));
        p.predicted["efficiency"] = sector_efficiency(w_, 1, static_cast<std::size_t>(off));
    }
    CheckedLaunch checked(CopyVariant variant, const std::string &vname, long long off, Result &out) override {
        CheckedLaunch c;
        c.launch = [this, variant, off](cudaStream_t stream) {
            return kernels::launch_offset_copy(variant, w_, out_.get(), in_.get(), n_, static_cast<int>(off), block_, stream);
        };
        c.poison = {{out_.get(), bytes_}};
        std::uint32_t *host = staging_.as<std::uint32_t>();
        c.download = download_to(host, out_.as<char>() + off * w_, n_ * w_);
        const std::uint64_t k = static_cast<std::uint64_t>(w_) / 4;  // u32 lanes per word
        const std::uint64_t first = static_cast<std::uint64_t>(off) * k;
        c.check = [this, host, k, first, vname, off, &out] {
            check_words(host, n_ * k, [&](std::uint64_t t) { return first + t; },
                        "offset_copy " + vname + " offset " + std::to_string(off), out);
        };
        return c;
    }

private:
    int w_, block_;
    std::size_t n_, bytes_;
    DeviceArray in_, out_;
    StagingBuffer staging_;
};

void run_offset_copy(ContextState &ctx, const Params &params, Result &out) {
    const std::vector<long long> offsets = params.integers("offsets");
    const long long max_offset = *std::max_element(offsets.begin(), offsets.end());
    sweep_copies(
        ctx, params, out, kOffsetAxes, "offset",
        [&](int w) { return std::make_unique<OffsetArrays>(ctx, params, w, max_offset); },
        [](Result &r, const Series &s) { record_ratio(r, s, 1, 0, kOffset1OverOffset0); });
    out.notes.push_back("guide: the guide's offsetCopy, one word per thread (the faithful reproduction). "
                        "ilp4: four independent words per thread with the same warp access pattern, which keeps "
                        "more bytes in flight so that a bandwidth-bound device shows the cost of the extra sectors.");
    out.notes.push_back("Prediction (compute capability 6.0 and later): a warp of 4-byte words touches 4 32-byte "
                        "sectors when aligned and 5 when not. The guide measured misaligned copies at about 9/10 "
                        "of aligned on a V100, not 4/5, because neighbouring warps reuse the lines in L1 and L2.");
}

// Elements for the stride copy: as asked, or the automatic choice reduced to
// what the memory budget holds at the largest stride (with a note).
std::size_t stride_elements(ContextState &ctx, const Params &params, int w, std::size_t max_stride, Result &out) {
    std::size_t n = elements_for(ctx, params, w);
    const std::size_t word = static_cast<std::size_t>(w);
    // Two strided arrays plus the dense copy used to check the output.
    const std::size_t plan = 2 * (((n - 1) * max_stride + 1) * word) + n * word;
    if (params.is_auto("elements") && plan > ctx.memory_budget()) {
        n = ctx.memory_budget() / (2 * max_stride * word + word);
        out.notes.push_back("elements for " + std::to_string(w) + "-byte words reduced to " + std::to_string(n) +
                            " to fit the memory budget at stride " + std::to_string(max_stride));
    }
    if (n == 0) fail(GM_ERROR_OUT_OF_MEMORY, "stride_copy: no device memory left for one element");
    return n;
}

class StrideArrays : public CopyArrays {
public:
    StrideArrays(ContextState &ctx, const Params &params, int w, std::size_t max_stride, std::size_t n)
        : ctx_(ctx), w_(w), block_(static_cast<int>(params.integer("block_size"))), n_(n),
          bytes_(((n - 1) * max_stride + 1) * static_cast<std::size_t>(w)),
          in_((require_memory(ctx, 2 * bytes_ + n * static_cast<std::size_t>(w),
                              "stride_copy (" + std::to_string(n) + " words of " + std::to_string(w) +
                                  " bytes at stride up to " + std::to_string(max_stride) + ")"),
               DeviceArray(ctx, bytes_))),
          out_(ctx, bytes_), dense_(ctx, n * static_cast<std::size_t>(w)),
          staging_(n * static_cast<std::size_t>(w), "stride_copy's verification") {
        GM_CUDA(kernels::launch_fill_pattern(in_.as<std::uint32_t>(), bytes_ / 4, kSeed, ctx.stream()));
    }
    std::size_t elements() const override { return n_; }
    void predict(long long stride, Point &p) const override {
        p.predicted["sectors_per_request"] = sectors_per_request(w_, static_cast<std::size_t>(stride), 0);
        p.predicted["efficiency"] = sector_efficiency(w_, static_cast<std::size_t>(stride), 0);
    }
    CheckedLaunch checked(CopyVariant variant, const std::string &vname, long long stride_ll, Result &out) override {
        const std::size_t stride = static_cast<std::size_t>(stride_ll);
        CheckedLaunch c;
        c.launch = [this, variant, stride](cudaStream_t stream) {
            return kernels::launch_stride_copy(variant, w_, out_.get(), in_.get(), n_, stride, block_, stream);
        };
        c.poison = {{out_.get(), bytes_}};
        std::uint32_t *host = staging_.as<std::uint32_t>();
        // Gather the strided output densely on the device, then compare on the host.
        c.download = [this, host, stride](cudaStream_t st) {
            GM_CUDA(kernels::launch_strided_copy(dense_.get(), 0, 1, out_.get(), 0, stride, n_, w_,
                                                 ctx_.info().multiprocessors, st));
            GM_CUDA(cudaMemcpyAsync(host, dense_.get(), n_ * w_, cudaMemcpyDeviceToHost, st));
        };
        const std::uint64_t k = static_cast<std::uint64_t>(w_) / 4;
        c.check = [this, host, k, stride, vname, &out] {
            check_words(host, n_ * k, [&](std::uint64_t t) { return (t / k) * stride * k + t % k; },
                        "stride_copy " + vname + " stride " + std::to_string(stride), out);
        };
        return c;
    }

private:
    ContextState &ctx_;
    int w_, block_;
    std::size_t n_, bytes_;
    DeviceArray in_, out_, dense_;
    StagingBuffer staging_;
};

void run_stride_copy(ContextState &ctx, const Params &params, Result &out) {
    const std::vector<long long> strides = params.integers("strides");
    const std::size_t max_stride = static_cast<std::size_t>(*std::max_element(strides.begin(), strides.end()));
    sweep_copies(
        ctx, params, out, kStrideAxes, "stride",
        [&](int w) {
            const std::size_t n = stride_elements(ctx, params, w, max_stride, out);
            return std::make_unique<StrideArrays>(ctx, params, w, max_stride, n);
        },
        [](Result &r, const Series &s) {
            record_ratio(r, s, 2, 1, kStride2OverStride1);
            record_ratio(r, s, 32, 1, kStride32OverStride1);
        });
    out.notes.push_back("guide: the guide's strideCopy, one word per thread. ilp4: four independent words per "
                        "thread with the same warp access pattern.");
    out.notes.push_back("Bandwidth counts the useful bytes (each copied word read once and written once), as the "
                        "guide does. The sector model predicts efficiency falling as 1/stride until every thread "
                        "needs its own 32-byte sector. DRAM is read in units larger than a sector (Nsight Compute "
                        "showed about 2x the touched sectors at stride 2 and 3x at stride 32 on an H200), so "
                        "measured bandwidth falls below the sector model's prediction at large strides.");
}

Experiment copy_experiment(const char *name, const char *section, const char *summary, ParamSpec sweep,
                           const SweepAxes &axes, std::vector<long long> default_words,
                           void (*run)(ContextState &, const Params &, Result &)) {
    Experiment e;
    e.name = name;
    e.guide_section = section;
    e.summary = summary;
    ParamSpec words = int_list_param("word_sizes", default_words, 4, 16, "bytes per word", "bytes");
    words.allowed = {4, 8, 16};
    ParamSpec block = int_param("block_size", 256, 32, 1024, "threads per block", "threads");
    block.multiple_of = 32;
    e.params = {
        std::move(sweep),
        std::move(words),
        enum_list_param("variants", {"guide", "ilp4"}, {"guide", "ilp4"},
                        "kernels: guide (one word per thread) and ilp4 (four per thread)"),
        size_param("elements", 0, 0, 1LL << 36, "words copied per launch; 0 chooses max(4 x L2, 64 MiB) of them"),
        std::move(block),
    };
    e.axes = axes;
    e.run = run;
    return e;
}

// How reports draw a copy sweep: bandwidth against the sector model's
// efficiency, and the sectors per request counted against the model's.
Chart sector_model_chart(const char *x_title, bool y_log, const char *explanation) {
    Chart c;
    c.kind = "line";
    c.x_title = x_title;
    c.y_log = y_log;
    c.prediction = "predicted.efficiency";
    c.prediction_label = "sector model";
    c.counter = "counters.sectors_per_request_ld";
    c.counter_model = "predicted.sectors_per_request";
    c.counter_inverse = true;  // more sectors per request, lower efficiency
    c.explanation = explanation;
    return c;
}

// How reports draw offset_copy's result and what they say it shows.
Chart offset_copy_chart() {
    return sector_model_chart(
        "offset (words)", false,
        "A warp whose 4-byte words start off a 32-byte boundary touches 5 sectors instead of 4. The guide measured "
        "about 9/10 of the aligned bandwidth on a V100 rather than 4/5, because neighbouring warps reuse the cached lines. "
        "The guide's one-word-per-thread kernel often cannot fill DRAM on its own; ilp4 keeps more bytes in flight.");
}

// How reports draw stride_copy's result and what they say it shows.
Chart stride_copy_chart() {
    return sector_model_chart(
        "stride (words)", true,
        "Copying every stride-th word wastes the rest of each 32-byte sector: the useful bandwidth falls as 1/stride "
        "until every thread needs a sector of its own. DRAM is read in units larger than a sector, so large strides fall "
        "below the sector model.");
}

}  // namespace

void add_global_copy_experiments(std::vector<Experiment> &out) {
    std::vector<long long> offsets, strides;
    for (int i = 0; i <= 32; ++i) offsets.push_back(i);
    // Every stride to 8 (where 4-byte words reach a sector per thread), then
    // every second to 16 and every fourth to 32: the curves are smooth there,
    // and the 17 strides left out cost half the experiment's time.
    for (int i = 1; i <= 8; ++i) strides.push_back(i);
    for (int i : {10, 12, 14, 16, 20, 24, 28, 32}) strides.push_back(i);
    Experiment offset = copy_experiment(
        "offset_copy", "Best Practices Guide: Coalesced Access to Global Memory, A Sequential but Misaligned Access Pattern",
        "Copy whose threads start `offset` words past an aligned base: misaligned warps touch one more 32-byte sector.",
        int_list_param("offsets", offsets, 0, 32, "offsets swept, in words", "words"),
        kOffsetAxes, {4}, run_offset_copy);
    offset.quick = {{"offsets", {0, 1, 32}}, {"elements", 4 * kMiB}};
    offset.figures = {kOffset1OverOffset0};
    offset.compared = {
        {"guide_w4_offset1_over_offset0", "offset 1 / offset 0 (guide kernel)"},
        {"ilp4_w4_offset1_over_offset0", "offset 1 / offset 0 (4 words per thread)"},
    };
    offset.chart = offset_copy_chart();
    out.push_back(std::move(offset));
    Experiment stride = copy_experiment(
        "stride_copy", "Best Practices Guide: Coalesced Access to Global Memory, Strided Accesses",
        "Copy of every `stride`-th word: efficiency falls as 1/stride until every thread needs its own sector.",
        int_list_param("strides", strides, 1, 32, "strides swept, in words", "words"), kStrideAxes, {4, 8, 16},
        run_stride_copy);
    stride.quick = {{"strides", {1, 2, 32}}, {"elements", kMiB}};
    stride.figures = {kStride2OverStride1, kStride32OverStride1};
    stride.compared = {
        {"guide_w4_stride2_over_stride1", "stride 2 / stride 1, 4-byte words"},
        {"guide_w4_stride32_over_stride1", "stride 32 / stride 1, 4-byte words"},
        {"guide_w16_stride2_over_stride1", "stride 2 / stride 1, 16-byte words"},
    };
    stride.chart = stride_copy_chart();
    out.push_back(std::move(stride));
}

}  // namespace gmlab
