// Experiment family "memory spaces": the latency of every memory space the
// guide lists, measured one way on this device (one thread, dependent
// accesses, clock64), in the guide's order, with the deviations from that
// order said in the notes.
#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/experiment/registry.hpp"
#include "experiments/common/chase.hpp"
#include "experiments/latency/latency.cuh"
#include "experiments/common/latency_model.hpp"

namespace gmlab {

namespace {

using kernels::LoadPath;
using kernels::Space;
constexpr std::uint64_t kSeed = 0x737061636573ull;  // "spaces"
constexpr std::size_t kLine = 128;
constexpr std::size_t kL1RingBytes = 32 * 1024, kL2RingBytes = 4 * 1024 * 1024;

// The constant ring is a __constant__ symbol of the process: whoever writes
// it holds this until the chases reading it have finished.
std::mutex &constant_ring_mutex() {
    static std::mutex m;
    return m;
}

// A 1D texture of 32-bit words over linear device memory, released on every path.
class LinearTexture {
public:
    LinearTexture(void *ptr, std::size_t bytes) {
        cudaResourceDesc res{};
        res.resType = cudaResourceTypeLinear;
        res.res.linear.devPtr = ptr;
        res.res.linear.desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindUnsigned);
        res.res.linear.sizeInBytes = bytes;
        cudaTextureDesc td{};
        td.readMode = cudaReadModeElementType;
        GM_CUDA(cudaCreateTextureObject(&tex_, &res, &td, nullptr));
    }
    ~LinearTexture() {
        if (tex_) cudaDestroyTextureObject(tex_);
    }
    LinearTexture(const LinearTexture &) = delete;
    LinearTexture &operator=(const LinearTexture &) = delete;
    cudaTextureObject_t get() const { return tex_; }

private:
    cudaTextureObject_t tex_ = 0;
};

// The headline figures: each space's latency, whether the guide's order
// holds, and the clock the cycles were converted at.
const Figure kSpaceCycles{"{space}_cycles", "cycles", Better::Lower,
                          "SM cycles per dependent access to one memory space: registers (a multiply-add), shared, "
                          "constant, l1, l2, dram (global memory), local or texture"};
const Figure kSpaceNs{"{space}_ns", "ns", Better::Lower,
                      "nanoseconds per dependent access to one memory space (registers, shared, constant, l1, l2, dram, "
                      "local, texture), its cycles at the SM clock measured during the chases"};
const Figure kGuideOrderHolds{"guide_order_holds", "flag", Better::Neither,
                              "1 where the measured latencies keep the guide's order (registers, shared, constant, then "
                              "global, local and texture), 0 where they depart from it"};

struct Measured {
    std::string variant, name;
    std::vector<kernels::ChaseSample> samples;
    int local_bytes = -1;  // for the local-memory kernel
};

// The guide's order of the memory spaces against the measured one: the
// summary's guide_order_holds and the notes that say where they part.
void add_order_notes(Result &out, std::map<std::string, double> &cyc, int local_bytes, unsigned hops, double ghz) {
    // Where the measurement departs from the guide's order, say so.
    auto c = [&](const char *v) { return std::to_string(static_cast<long long>(std::llround(cyc[v]))); };
    std::vector<std::string> deviations;
    if (!(cyc["registers"] < cyc["shared"])) deviations.push_back("registers (" + c("registers") + " cycles) are not faster than shared memory (" + c("shared") + ")");
    if (!(cyc["shared"] < cyc["constant"])) deviations.push_back("a constant cache hit (" + c("constant") + " cycles) is not slower than shared memory (" + c("shared") + ")");
    for (const char *v : {"l1", "l2", "dram", "local", "texture"})
        if (!(cyc["constant"] < cyc[v]))
            deviations.push_back(std::string("a constant cache hit (") + c("constant") + " cycles) is not faster than " + v + " (" + c(v) + ")");
    out.record(kGuideOrderHolds, deviations.empty() ? 1.0 : 0.0);
    std::vector<std::pair<double, std::string>> ranked;
    for (const auto &[v, y] : cyc) ranked.push_back({y, v});
    std::sort(ranked.begin(), ranked.end());
    std::string fastest;
    for (const auto &[y, v] : ranked) fastest += (fastest.empty() ? "" : " < ") + v + " " + std::to_string(static_cast<long long>(std::llround(y)));
    out.notes.push_back("Measured, fastest first (cycles): " + fastest + ".");
    out.notes.push_back("The guide's order is registers, shared, constant, then global, local and texture memory" +
                        std::string(deviations.empty() ? ": it holds here." : "; here it departs from it: " + [&] {
                            std::string t;
                            for (const auto &d : deviations) t += (t.empty() ? "" : "; ") + d;
                            return t;
                        }() + "."));
    out.notes.push_back("Local memory is off-chip in the guide's table, as slow as global memory; but it is cached: a small local "
                        "array (" + std::to_string(local_bytes) + " local bytes per thread) that stays in L1 reads at " +
                        c("local") + " cycles, an L1 hit's " + c("l1") + ", against DRAM's " + c("dram") +
                        ". A local array too large for L1 pays L2 or DRAM latency like any global access.");
    out.notes.push_back("The texture path (" + c("texture") + " cycles) shares L1 with global loads (" + c("l1") +
                        "); its hit costs more for the texture unit's addressing, and pays off for 2D locality, filtering and "
                        "conversions (see the texture experiment), not latency.");
    out.notes.push_back("Every space is a chain of dependent accesses by one thread, walked once untimed and then " +
                        std::to_string(hops) + " times timed with clock64; registers are a chain of dependent multiply-adds, "
                        "so theirs is the arithmetic latency. Nanoseconds use the SM clock measured during the run (" +
                        std::to_string(static_cast<long long>(std::llround(ghz * 1e3))) + " MHz). Bandwidths are measured "
                        "elsewhere: DRAM by stream, shared memory by bank_conflicts, L2 by l2_persist.");
}

// Where the spaces' rings live on the device, and their sizes.
struct SpaceArrays {
    std::size_t dram_bytes = 0, tex_bytes = 0, tex_align = 0;
    DeviceArray ring, next_d, offsets_d, tex_d;
};

// The chases of every memory space, in the order they run.
class SpacesSweep {
public:
    SpacesSweep(ContextState &ctx, SpaceArrays &a, unsigned hops, Result &out)
        : ctx_(ctx), a_(a), hops_(hops), out_(out), runner_(ctx) {}

    std::vector<Measured> run() {
        GM_CUDA(kernels::prefer_l1_for_chase());
        registers();
        for (Space space : {Space::Shared, Space::Local}) offsets_ring(space);
        constant();
        global_memory();
        texture();
        return std::move(m_);
    }
    const ChaseRunner &runner() const { return runner_; }

private:
    // Registers: a chain of dependent multiply-adds.
    void registers() {
        std::uint32_t x = 1;
        for (unsigned i = 0; i < hops_; ++i) x = kernels::register_step(x);
        const unsigned hops = hops_;
        auto launch = [hops](kernels::ChaseSample *o, cudaStream_t s) {
            return kernels::launch_space_chase(Space::Registers, nullptr, 0, 1, hops, o, s);
        };
        m_.push_back({"registers", "registers (dependent integer multiply-add)", runner_.run(launch, false, x, "memory_spaces registers", out_)});
    }

    // Shared and local memory: rings of 4-byte nodes (byte offsets) copied in by the kernel.
    void offsets_ring(Space space) {
        const int nodes = space == Space::Shared ? kernels::kSharedNodes : kernels::kLocalNodes;
        const std::vector<std::uint32_t> next = single_cycle(nodes, kSeed + nodes);
        std::vector<std::uint32_t> offsets(nodes);
        for (int k = 0; k < nodes; ++k) offsets[k] = next[k] * 4u;
        GM_CUDA(cudaMemcpyAsync(a_.offsets_d.get(), offsets.data(), offsets.size() * 4, cudaMemcpyHostToDevice, ctx_.stream()));
        auto launch = [&, space](kernels::ChaseSample *o, cudaStream_t s) {
            return kernels::launch_space_chase(space, a_.offsets_d.as<std::uint32_t>(), 0, 0, hops_, o, s);
        };
        const bool shared = space == Space::Shared;
        Measured r{shared ? "shared" : "local", shared ? "shared memory" : "local memory (a 1 KiB per-thread array)",
                   runner_.run(launch, false, walk(next, 0, hops_), std::string("memory_spaces ") + (shared ? "shared" : "local"), out_)};
        if (!shared) {
            cudaFuncAttributes attr{};
            GM_CUDA(kernels::space_chase_attributes(Space::Local, &attr));
            r.local_bytes = static_cast<int>(attr.localSizeBytes);
        }
        m_.push_back(std::move(r));
    }

    // Constant memory: a ring of one node per 64 bytes in a __constant__ array.
    void constant() {
        const std::vector<std::uint32_t> next = single_cycle(kernels::kConstantNodes, kSeed + 1);
        std::vector<std::uint32_t> words(static_cast<std::size_t>(kernels::kConstantNodes) * kernels::kConstantStrideWords, 0);
        for (int k = 0; k < kernels::kConstantNodes; ++k) words[k * kernels::kConstantStrideWords] = next[k] * kernels::kConstantStrideWords * 4u;
        std::lock_guard<std::mutex> lock(constant_ring_mutex());
        GM_CUDA(kernels::set_constant_ring(words.data(), ctx_.stream()));
        auto launch = [&](kernels::ChaseSample *o, cudaStream_t s) { return kernels::launch_space_chase(Space::Constant, nullptr, 0, 0, hops_, o, s); };
        m_.push_back({"constant", "constant cache", runner_.run(launch, false, walk(next, 0, hops_), "memory_spaces constant", out_)});
    }

    // Global memory: an L1 hit, an L2 hit (L1 bypassed), and DRAM (cold).
    void global_memory() {
        struct GlobalCase {
            const char *variant, *name;
            std::size_t bytes;
            LoadPath path;
            bool cold;
        };
        const GlobalCase globals[] = {
            {"l1", "L1 (global, ld.ca, 32 KiB ring)", kL1RingBytes, LoadPath::Cached, false},
            {"l2", "L2 (global, ld.cg, 4 MiB ring)", kL2RingBytes, LoadPath::Bypass, false},
            {"dram", "global memory (DRAM: L2 flushed)", a_.dram_bytes, LoadPath::Bypass, true},
        };
        cudaStream_t st = ctx_.stream();
        for (const GlobalCase &g : globals) {
            const std::size_t lines = g.bytes / kLine;
            const std::vector<std::uint32_t> next = single_cycle(lines, kSeed ^ lines);
            GM_CUDA(cudaMemcpyAsync(a_.next_d.get(), next.data(), lines * 4, cudaMemcpyHostToDevice, st));
            GM_CUDA(kernels::launch_build_ring(a_.ring.as<unsigned long long>(), kLine / 8, a_.next_d.as<std::uint32_t>(), lines, st));
            // Warm cases walk the whole ring untimed first (as the other spaces
            // do): only this thread's own loads leave lines in L1.
            const unsigned prewalk = g.cold ? 0u : static_cast<unsigned>(lines);
            auto launch = [&, lines, prewalk](kernels::ChaseSample *o, cudaStream_t s) {
                return kernels::launch_chase(g.path, a_.ring.as<unsigned long long>(), kLine / 8, lines, 0, prewalk, hops_, !g.cold, o, s);
            };
            m_.push_back({g.variant, g.name,
                          runner_.run(launch, g.cold, walk(next, 0, std::uint64_t(prewalk) + hops_), std::string("memory_spaces ") + g.variant, out_)});
        }
    }

    // Texture: a ring of word indices, one node per 128 bytes, read with tex1Dfetch.
    void texture() {
        const std::vector<std::uint32_t> next = single_cycle(kernels::kTextureNodes, kSeed + 2);
        std::vector<std::uint32_t> words(a_.tex_bytes / 4, 0);
        for (int k = 0; k < kernels::kTextureNodes; ++k) words[k * kernels::kTextureStrideWords] = next[k] * kernels::kTextureStrideWords;
        const std::uintptr_t raw = reinterpret_cast<std::uintptr_t>(a_.tex_d.get());
        void *base = reinterpret_cast<void *>((raw + a_.tex_align - 1) / a_.tex_align * a_.tex_align);
        cudaStream_t st = ctx_.stream();
        GM_CUDA(cudaMemcpyAsync(base, words.data(), a_.tex_bytes, cudaMemcpyHostToDevice, st));
        LinearTexture tex(base, a_.tex_bytes);
        auto launch = [&](kernels::ChaseSample *o, cudaStream_t s) { return kernels::launch_space_chase(Space::Texture, nullptr, tex.get(), 0, hops_, o, s); };
        m_.push_back({"texture", "texture cache (tex1Dfetch, 32 KiB ring)", runner_.run(launch, false, walk(next, 0, hops_), "memory_spaces texture", out_)});
        GM_CUDA(cudaStreamSynchronize(st));  // before the texture object goes
    }

    ContextState &ctx_;
    SpaceArrays &a_;
    unsigned hops_;
    Result &out_;
    ChaseRunner runner_;
    std::vector<Measured> m_;
};

// The device arrays every space's ring needs, planned against the budget first.
SpaceArrays allocate_arrays(ContextState &ctx) {
    const DeviceInfo &dev = ctx.info();
    const std::size_t dram_bytes = std::max<std::size_t>(dev.l2_bytes, 2 * kL2RingBytes);
    const std::size_t tex_bytes = static_cast<std::size_t>(kernels::kTextureNodes) * kernels::kTextureStrideWords * 4;
    // A texture's base must be aligned to textureAlignment; cudaMalloc promises only 256 bytes.
    int tex_align_attr = 0;
    GM_CUDA(cudaDeviceGetAttribute(&tex_align_attr, cudaDevAttrTextureAlignment, ctx.device()));
    const std::size_t tex_align = std::max<std::size_t>(512, static_cast<std::size_t>(tex_align_attr));
    const std::size_t offsets_words = std::max(kernels::kSharedNodes, kernels::kLocalNodes);
    require_memory(ctx, dram_bytes + dram_bytes / kLine * 4 + offsets_words * 4 + tex_bytes + tex_align, "memory_spaces");
    return {dram_bytes, tex_bytes, tex_align, DeviceArray(ctx, dram_bytes), DeviceArray(ctx, dram_bytes / kLine * 4),
            DeviceArray(ctx, offsets_words * 4), DeviceArray(ctx, tex_bytes + tex_align)};
}

void run_memory_spaces(ContextState &ctx, const Params &params, Result &out) {
    const unsigned hops = static_cast<unsigned>(params.integer("hops"));
    SpaceArrays arrays = allocate_arrays(ctx);
    SpacesSweep sweep(ctx, arrays, hops, out);
    const std::vector<Measured> m = sweep.run();

    // The guide's order: registers, shared, constant, then global, local and texture.
    const char *order[] = {"registers", "shared", "constant", "l1", "l2", "dram", "local", "texture"};
    const double ghz = sweep.runner().clock_ghz(ctx.info().clock_khz / 1e6);
    std::map<std::string, double> cyc;
    for (const char *v : order) {
        auto it = std::find_if(m.begin(), m.end(), [&](const Measured &x) { return x.variant == v; });
        Series s = chase_latency_series(it->name, it->variant, "hops", "loads", "latency per dependent access");
        Point p = chase_point(hops, hops, it->samples, ghz);
        if (it->local_bytes >= 0) p.values["local_bytes_per_thread"] = it->local_bytes;
        cyc[v] = p.values.at("latency_cycles");
        record_latency(out, kSpaceCycles, kSpaceNs, cyc[v], ghz, {{"space", v}});
        s.points.push_back(std::move(p));
        out.series.push_back(std::move(s));
    }
    out.record(kChaseClockMeasured, ghz * 1e3);
    int local_bytes = 0;
    for (const Measured &x : m)
        if (x.variant == "local") local_bytes = x.local_bytes;

    add_order_notes(out, cyc, local_bytes, hops, ghz);
}

// How reports draw it: one bar per space, log scale.
Chart memory_spaces_chart() {
    Chart c;
    c.kind = "bar";
    c.y_log = true;
    c.explanation = "The guide's memory spaces, fastest to slowest as it lists them: registers, shared, constant, then global, "
                    "local and texture. Each bar is the latency of one dependent access, measured the same way; where the "
                    "order departs from the guide's, the notes say so.";
    return c;
}

}  // namespace

void add_memory_spaces_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "memory_spaces";
    e.guide_section = "Best Practices Guide: Device Memory Spaces (Table 1), measured";
    e.summary = "The latency of registers, shared memory, the constant cache, L1, L2, DRAM, local memory and the texture "
                "cache on this device, by dependent accesses: the guide's ordering, measured.";
    e.params = {int_param("hops", 1024, 16, 1 << 20, "timed dependent accesses per launch")};
    e.run = run_memory_spaces;
    e.quick = {{"hops", 256}};
    e.figures = {kSpaceCycles, kSpaceNs, kGuideOrderHolds, kChaseClockMeasured};
    e.chart = memory_spaces_chart();
    e.compared = {
        {"shared_ns", "shared memory latency"},
        {"l2_ns", "L2 latency"},
        {"dram_ns", "DRAM latency"},
    };
    e.consistency = {
        gmvocab::agrees_on("l2_hit_latency", "l2_cycles", "dependent loads of a ring resident in L2"),
        gmvocab::agrees_on("l1_hit_latency", "l1_cycles", "dependent ld.ca loads of a ring resident in L1"),
        gmvocab::agrees_on("dram_latency", "dram_cycles", "dependent loads of a ring larger than L2, L2 flushed"),
        gmvocab::agrees_on("shared_latency", "shared_cycles", "ld.shared chase"),
    };
    out.push_back(std::move(e));
}

}  // namespace gmlab
