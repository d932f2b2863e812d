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
    out.summary_values["guide_order_holds"] = deviations.empty() ? 1.0 : 0.0;
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

void run_memory_spaces(ContextState &ctx, const Params &params, Result &out) {
    const DeviceInfo &dev = ctx.info();
    const unsigned hops = static_cast<unsigned>(params.integer("hops"));
    const std::size_t l1_bytes = 32 * 1024, l2_bytes = 4 * 1024 * 1024;
    const std::size_t dram_bytes = std::max<std::size_t>(dev.l2_bytes, 2 * l2_bytes);
    const std::size_t tex_bytes = static_cast<std::size_t>(kernels::kTextureNodes) * kernels::kTextureStrideWords * 4;
    // A texture's base must be aligned to textureAlignment; cudaMalloc promises only 256 bytes.
    int tex_align_attr = 0;
    GM_CUDA(cudaDeviceGetAttribute(&tex_align_attr, cudaDevAttrTextureAlignment, ctx.device()));
    const std::size_t kTexAlign = std::max<std::size_t>(512, static_cast<std::size_t>(tex_align_attr));

    const std::size_t offsets_words = std::max(kernels::kSharedNodes, kernels::kLocalNodes);
    require_memory(ctx, dram_bytes + dram_bytes / kLine * 4 + offsets_words * 4 + tex_bytes + kTexAlign, "memory_spaces");
    DeviceArray ring(ctx, dram_bytes), next_d(ctx, dram_bytes / kLine * 4), offsets_d(ctx, offsets_words * 4),
        tex_d(ctx, tex_bytes + kTexAlign);
    ChaseRunner runner(ctx);
    GM_CUDA(kernels::prefer_l1_for_chase());
    cudaStream_t st = ctx.stream();
    std::vector<Measured> m;

    // Registers: a chain of dependent multiply-adds.
    {
        std::uint32_t x = 1;
        for (unsigned i = 0; i < hops; ++i) x = kernels::register_step(x);
        auto launch = [&](kernels::ChaseSample *o, cudaStream_t s) { return kernels::launch_space_chase(Space::Registers, nullptr, 0, 1, hops, o, s); };
        m.push_back({"registers", "registers (dependent integer multiply-add)", runner.run(launch, false, x, "memory_spaces registers", out)});
    }
    // Shared and local memory: rings of 4-byte nodes (byte offsets) copied in by the kernel.
    for (Space space : {Space::Shared, Space::Local}) {
        const int nodes = space == Space::Shared ? kernels::kSharedNodes : kernels::kLocalNodes;
        const std::vector<std::uint32_t> next = single_cycle(nodes, kSeed + nodes);
        std::vector<std::uint32_t> offsets(nodes);
        for (int k = 0; k < nodes; ++k) offsets[k] = next[k] * 4u;
        GM_CUDA(cudaMemcpyAsync(offsets_d.get(), offsets.data(), offsets.size() * 4, cudaMemcpyHostToDevice, st));
        auto launch = [&, space](kernels::ChaseSample *o, cudaStream_t s) {
            return kernels::launch_space_chase(space, offsets_d.as<std::uint32_t>(), 0, 0, hops, o, s);
        };
        const bool shared = space == Space::Shared;
        Measured r{shared ? "shared" : "local", shared ? "shared memory" : "local memory (a 1 KiB per-thread array)",
                   runner.run(launch, false, walk(next, 0, hops), std::string("memory_spaces ") + (shared ? "shared" : "local"), out)};
        if (!shared) {
            cudaFuncAttributes attr{};
            GM_CUDA(kernels::space_chase_attributes(Space::Local, &attr));
            r.local_bytes = static_cast<int>(attr.localSizeBytes);
        }
        m.push_back(std::move(r));
    }
    // Constant memory: a ring of one node per 64 bytes in a __constant__ array.
    {
        const std::vector<std::uint32_t> next = single_cycle(kernels::kConstantNodes, kSeed + 1);
        std::vector<std::uint32_t> words(static_cast<std::size_t>(kernels::kConstantNodes) * kernels::kConstantStrideWords, 0);
        for (int k = 0; k < kernels::kConstantNodes; ++k) words[k * kernels::kConstantStrideWords] = next[k] * kernels::kConstantStrideWords * 4u;
        std::lock_guard<std::mutex> lock(constant_ring_mutex());
        GM_CUDA(kernels::set_constant_ring(words.data(), st));
        auto launch = [&](kernels::ChaseSample *o, cudaStream_t s) { return kernels::launch_space_chase(Space::Constant, nullptr, 0, 0, hops, o, s); };
        m.push_back({"constant", "constant cache", runner.run(launch, false, walk(next, 0, hops), "memory_spaces constant", out)});
    }
    // Global memory: an L1 hit, an L2 hit (L1 bypassed), and DRAM (cold).
    struct GlobalCase {
        const char *variant, *name;
        std::size_t bytes;
        LoadPath path;
        bool cold;
    };
    const GlobalCase globals[] = {
        {"l1", "L1 (global, ld.ca, 32 KiB ring)", l1_bytes, LoadPath::Cached, false},
        {"l2", "L2 (global, ld.cg, 4 MiB ring)", l2_bytes, LoadPath::Bypass, false},
        {"dram", "global memory (DRAM: L2 flushed)", dram_bytes, LoadPath::Bypass, true},
    };
    for (const GlobalCase &g : globals) {
        const std::size_t lines = g.bytes / kLine;
        const std::vector<std::uint32_t> next = single_cycle(lines, kSeed ^ lines);
        GM_CUDA(cudaMemcpyAsync(next_d.get(), next.data(), lines * 4, cudaMemcpyHostToDevice, st));
        GM_CUDA(kernels::launch_build_ring(ring.as<unsigned long long>(), kLine / 8, next_d.as<std::uint32_t>(), lines, st));
        // Warm cases walk the whole ring untimed first (as the other spaces
        // do): only this thread's own loads leave lines in L1.
        const unsigned prewalk = g.cold ? 0u : static_cast<unsigned>(lines);
        auto launch = [&, lines, prewalk](kernels::ChaseSample *o, cudaStream_t s) {
            return kernels::launch_chase(g.path, ring.as<unsigned long long>(), kLine / 8, lines, 0, prewalk, hops, !g.cold, o, s);
        };
        m.push_back({g.variant, g.name,
                     runner.run(launch, g.cold, walk(next, 0, std::uint64_t(prewalk) + hops), std::string("memory_spaces ") + g.variant, out)});
    }
    // Texture: a ring of word indices, one node per 128 bytes, read with tex1Dfetch.
    {
        const std::vector<std::uint32_t> next = single_cycle(kernels::kTextureNodes, kSeed + 2);
        std::vector<std::uint32_t> words(tex_bytes / 4, 0);
        for (int k = 0; k < kernels::kTextureNodes; ++k) words[k * kernels::kTextureStrideWords] = next[k] * kernels::kTextureStrideWords;
        const std::uintptr_t raw = reinterpret_cast<std::uintptr_t>(tex_d.get());
        void *base = reinterpret_cast<void *>((raw + kTexAlign - 1) / kTexAlign * kTexAlign);
        GM_CUDA(cudaMemcpyAsync(base, words.data(), tex_bytes, cudaMemcpyHostToDevice, st));
        LinearTexture tex(base, tex_bytes);
        auto launch = [&](kernels::ChaseSample *o, cudaStream_t s) { return kernels::launch_space_chase(Space::Texture, nullptr, tex.get(), 0, hops, o, s); };
        m.push_back({"texture", "texture cache (tex1Dfetch, 32 KiB ring)", runner.run(launch, false, walk(next, 0, hops), "memory_spaces texture", out)});
        GM_CUDA(cudaStreamSynchronize(st));  // before the texture object goes
    }

    // The guide's order: registers, shared, constant, then global, local and texture.
    const char *order[] = {"registers", "shared", "constant", "l1", "l2", "dram", "local", "texture"};
    const double ghz = runner.clock_ghz(dev.clock_khz / 1e6);
    std::map<std::string, double> cyc;
    for (const char *v : order) {
        auto it = std::find_if(m.begin(), m.end(), [&](const Measured &x) { return x.variant == v; });
        Series s;
        s.name = it->name;
        s.variant = it->variant;
        s.x_name = "hops";
        s.x_unit = "loads";
        s.y_field = "latency_cycles";
        s.y_name = "latency per dependent access";
        s.y_unit = "cycles";
        s.quantity = Quantity::Latency;
        Point p = chase_point(hops, hops, it->samples, ghz);
        if (it->local_bytes >= 0) p.values["local_bytes_per_thread"] = it->local_bytes;
        cyc[v] = p.values.at("latency_cycles");
        out.summary_values[std::string(v) + "_cycles"] = cyc[v];
        out.summary_values[std::string(v) + "_ns"] = cyc[v] / ghz;
        s.points.push_back(std::move(p));
        out.series.push_back(std::move(s));
    }
    out.summary_values["sm_clock_mhz_measured"] = ghz * 1e3;
    int local_bytes = 0;
    for (const Measured &x : m)
        if (x.variant == "local") local_bytes = x.local_bytes;

    add_order_notes(out, cyc, local_bytes, hops, ghz);
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
    e.figures = {
        {"shared_ns", "ns", Better::Lower, "shared memory latency"},
        {"l2_ns", "ns", Better::Lower, "L2 latency"},
        {"dram_ns", "ns", Better::Lower, "DRAM latency"},
    };
    e.compared = {
        {"shared_ns", "shared memory latency"},
        {"l2_ns", "L2 latency"},
        {"dram_ns", "DRAM latency"},
    };
    out.push_back(std::move(e));
}

}  // namespace gmlab
