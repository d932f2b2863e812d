// Experiment family "matrix products": the guide's C = AB and C = AAᵀ kernels
// with tile width 32, effective bandwidth as the guide counts it and GFLOP/s.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "experiments/common/point_checks.hpp"
#include "experiments/matmul/matmul.cuh"
#include "shared_kernels/pattern.hpp"

namespace gmlab {

namespace {

constexpr int kW = 32;  // the guide's tile width: A is M x w

// Entries are multiples of 1/4 in [-1, 1]: every product and every sum of 32 of
// them is exact in float, so the device's result must equal the host's exactly.
std::vector<float> small_values(std::size_t n, std::uint32_t seed) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = (static_cast<int>(pattern_word(i, seed) % 9) - 4) * 0.25f;
    return v;
}

// The headline figure: one kernel's bandwidth over another's (the simple
// kernel's, or the kernel it improves on).
const Figure kKernelOverBase{"{kernel}_over_{base}", "ratio", Better::Higher,
                             "a product kernel's bandwidth over the one it improves on, on the same matrices"};

// A matrix of `values` on the device, counted against the memory budget.
DeviceArray upload(ContextState &ctx, const std::vector<float> &values) {
    DeviceArray d(ctx, values.size() * sizeof(float));
    GM_CUDA(cudaMemcpyAsync(d.get(), values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice, ctx.stream()));
    return d;
}

// What one experiment's kernels share: C (m x n), the bytes the guide counts,
// the flops, and the experiment's name for errors.
struct Product {
    DeviceArray &c;
    int m, n;
    double bytes, flops;
    const char *experiment;
    std::size_t c_elems() const { return static_cast<std::size_t>(m) * n; }
};

// Times one product kernel through the core's point protocol: C poisoned, one
// launch checked exactly against the host's product, then timed and counted.
template <class Reference>
Point measure_product(ContextState &ctx, const Launch &launch, Reference reference, const Product &product, Result &out,
                      const std::string &what) {
    const std::size_t c_elems = product.c_elems();
    std::vector<float> host(c_elems);
    const CheckedLaunch point{launch, {{product.c.get(), c_elems * sizeof(float)}},
                              download_to(host.data(), product.c.get(), c_elems * sizeof(float)), [&] {
                                  verify_equal(host.data(), c_elems, reference, what,
                                               "every element of C compared exactly with the host's product (inputs chosen "
                                               "so that float sums are exact)",
                                               out);
                              }};
    Point p;
    p.x = product.m;
    p.bytes = product.bytes;
    // Counters: coalescing of A and B (sectors per request) and the shared
    // tiles' bank conflicts (C = AA^T's unpadded tile conflicts 32-way).
    const CounterSet counters = counter_sets::global_sectors() + counter_sets::shared_banks();
    measure_checked(ctx, point, p, out, &counters);
    p.values["gflops"] = product.flops / (p.time_ms.median * 1e-3) / 1e9;
    return p;
}

// Every kernel asked for, a series of one point each, and the figures: each
// kernel over simple, and `improved` over the kernel it improves on.
template <class Kind, class LaunchFor, class Reference>
void run_products(ContextState &ctx, const Params &params, const std::map<std::string, Kind> &kinds, LaunchFor launch_for,
                  Reference reference, const Product &product, const char *improved, const char *improved_on, Result &out) {
    std::map<std::string, double> bw;
    for (const std::string &v : params.texts("variants")) {
        // The guide's effective bandwidth: the matrices' bytes over the time.
        Series s = declared_series(v, v, "M", "rows", Quantity::DramBandwidth,
                                   {{"m", product.m}, {"n", product.n}, {"k", kW}, {"tile", kW}});
        s.points.push_back(measure_product(ctx, launch_for(kinds.at(v)), reference, product, out,
                                           std::string(product.experiment) + " " + v));
        bw[v] = bandwidth_gbs(product.bytes, s.points.back().time_ms.median);
        out.series.push_back(std::move(s));
    }
    for (const auto &[name, gbs] : bw)
        if (name != "simple") record_ratio_if_measured(out, kKernelOverBase, bw, name, "simple", {{"kernel", name}, {"base", "simple"}});
    record_ratio_if_measured(out, kKernelOverBase, bw, improved, improved_on, {{"kernel", improved}, {"base", improved_on}});
}

void run_matmul_ab(ContextState &ctx, const Params &params, Result &out) {
    const int m = static_cast<int>(params.integer("m")), n = static_cast<int>(params.integer("n"));
    if (static_cast<long long>(m) * n >= (1LL << 31))
        invalid("m x n must be below 2^31 elements (the guide's kernels index with int), got " + std::to_string(m) + " x " +
                std::to_string(n));
    const std::size_t a_elems = static_cast<std::size_t>(m) * kW, b_elems = static_cast<std::size_t>(kW) * n,
                      c_elems = static_cast<std::size_t>(m) * n;
    require_memory(ctx, (a_elems + b_elems + c_elems) * sizeof(float), "matmul_ab");
    const std::vector<float> ha = small_values(a_elems, 1), hb = small_values(b_elems, 2);
    DeviceArray a = upload(ctx, ha), b = upload(ctx, hb), c(ctx, c_elems * sizeof(float));
    auto reference = [&](std::uint64_t idx) {
        const std::size_t r = idx / n, col = idx % n;
        float sum = 0;
        for (int i = 0; i < kW; ++i) sum += ha[r * kW + i] * hb[i * n + col];
        return sum;
    };
    const Product product{c, m, n, static_cast<double>(a_elems + b_elems + c_elems) * sizeof(float), 2.0 * m * n * kW, "matmul_ab"};
    const std::map<std::string, kernels::MatmulAB> kinds = {
        {"simple", kernels::MatmulAB::Simple}, {"coalesced_a", kernels::MatmulAB::CoalescedA}, {"shared_ab", kernels::MatmulAB::SharedAB}};
    auto launch_for = [&](kernels::MatmulAB kind) -> Launch {
        return [&, kind](cudaStream_t s) {
            return kernels::launch_matmul_ab(kind, a.as<float>(), b.as<float>(), c.as<float>(), m, n, kW, s);
        };
    };
    run_products(ctx, params, kinds, launch_for, reference, product, "shared_ab", "coalesced_a", out);
    out.notes.push_back("C = AB with A (M x 32), B (32 x N): simple reads A and B from global memory (each warp reads one "
                        "element of A that every lane needs); coalesced_a stages a 32x32 tile of A in shared memory, "
                        "loaded coalesced by the warp that uses it; shared_ab stages B too, so each element of B is read "
                        "from global memory once per block instead of 32 times.");
    out.notes.push_back("Effective bandwidth as the guide computes it: (M·w + w·N + M·N) x 4 bytes / time, each element of "
                        "A, B and C counted once; GFLOP/s = 2·M·N·w / time.");
    out.published_source = "CUDA C++ Best Practices Guide, V100, effective bandwidth in GB/s";
    out.published = {{"simple_gbs", 119.9}, {"coalesced_a_gbs", 144.4}, {"shared_ab_gbs", 195.5}};
}

void run_matmul_aat(ContextState &ctx, const Params &params, Result &out) {
    const int m = static_cast<int>(params.integer("m"));
    if (static_cast<long long>(m) * m >= (1LL << 31))
        invalid("m must be at most 46336 (C = m x m elements below 2^31, in whole tiles), got " + std::to_string(m));
    const std::size_t a_elems = static_cast<std::size_t>(m) * kW, c_elems = static_cast<std::size_t>(m) * m;
    require_memory(ctx, (a_elems + c_elems) * sizeof(float), "matmul_aat");
    const std::vector<float> ha = small_values(a_elems, 3);
    DeviceArray a = upload(ctx, ha), c(ctx, c_elems * sizeof(float));
    auto reference = [&](std::uint64_t idx) {
        const std::size_t r = idx / m, col = idx % m;
        float sum = 0;
        for (int i = 0; i < kW; ++i) sum += ha[r * kW + i] * ha[col * kW + i];
        return sum;
    };
    const Product product{c, m, m, static_cast<double>(2 * a_elems + c_elems) * sizeof(float), 2.0 * m * m * kW, "matmul_aat"};
    const std::map<std::string, kernels::MatmulAAT> kinds = {
        {"simple", kernels::MatmulAAT::Simple}, {"coalesced", kernels::MatmulAAT::Coalesced}, {"padded", kernels::MatmulAAT::Padded}};
    auto launch_for = [&](kernels::MatmulAAT kind) -> Launch {
        return [&, kind](cudaStream_t s) { return kernels::launch_matmul_aat(kind, a.as<float>(), c.as<float>(), m, kW, s); };
    };
    run_products(ctx, params, kinds, launch_for, reference, product, "padded", "coalesced", out);
    out.notes.push_back("C = AAᵀ with A (M x 32): simple reads the columns of Aᵀ as strided rows of A (each lane a different "
                        "row: uncoalesced); coalesced loads a tile of A and a transposed tile into shared memory, but "
                        "writing the transposed tile by columns puts all 32 lanes in one bank (32-way conflict); padded "
                        "gives the transposed tile 33 columns, which removes the conflict.");
    out.notes.push_back("Effective bandwidth: (M·w + w·M + M·M) x 4 bytes / time, as the guide counts it; GFLOP/s = 2·M·M·w / time.");
    out.published_source = "CUDA C++ Best Practices Guide, V100, effective bandwidth in GB/s";
    out.published = {{"simple_gbs", 12.8}, {"coalesced_gbs", 140.2}, {"padded_gbs", 199.4}};
}

ParamSpec dim(const char *name, const char *what) {
    ParamSpec p = int_param(name, 8192, 32, static_cast<long long>(kernels::kMatmulMaxRows) / 32 * 32, what);
    p.multiple_of = 32;  // the guide's kernels assume whole tiles
    return p;
}

// How reports draw a product experiment's result: each kernel's bandwidth as
// a bar, beside the guide's V100 figures relative to the simple kernel.
Chart product_chart(const char *explanation) {
    Chart c;
    c.kind = "bar";
    c.published_base = "simple";
    c.explanation = explanation;
    return c;
}

}  // namespace

void add_matmul_experiments(std::vector<Experiment> &out) {
    Experiment ab;
    ab.name = "matmul_ab";
    ab.guide_section = "Best Practices Guide: Shared Memory in Matrix Multiplication (C=AB)";
    ab.summary = "C = AB with A M x 32 and B 32 x N: simple, a tile of A in shared memory, tiles of A and B.";
    ab.params = {dim("m", "rows of A and C"), dim("n", "columns of B and C"),
                 enum_list_param("variants", {"simple", "coalesced_a", "shared_ab"}, {"simple", "coalesced_a", "shared_ab"},
                                 "kernels to time")};
    ab.axes = {{"variants"}, ""};  // A one-point series per kernel.
    ab.run = run_matmul_ab;
    ab.quick = {{"m", 1024}, {"n", 1024}};
    ab.figures = {kKernelOverBase};
    ab.compared = {
        {"coalesced_a_over_simple", "coalesced A / simple"},
        {"shared_ab_over_simple", "shared A and B / simple"},
    };
    ab.chart = product_chart(
        "C = AB with tile width 32: staging A, then A and B, in shared memory. The guide's ratios came from a V100.");
    out.push_back(std::move(ab));

    Experiment aat;
    aat.name = "matmul_aat";
    aat.guide_section = "Best Practices Guide: Shared Memory in Matrix Multiplication (C=AAT)";
    aat.summary = "C = AAᵀ with A M x 32: strided reads, a transposed tile with 32-way bank conflicts, and the padded tile.";
    aat.params = {dim("m", "rows of A; C is M x M"),
                  enum_list_param("variants", {"simple", "coalesced", "padded"}, {"simple", "coalesced", "padded"},
                                  "kernels to time")};
    aat.axes = {{"variants"}, ""};  // A one-point series per kernel.
    aat.run = run_matmul_aat;
    aat.quick = {{"m", 1024}};
    aat.figures = {kKernelOverBase};
    aat.compared = {
        {"coalesced_over_simple", "coalesced / simple"},
        {"padded_over_coalesced", "padded / coalesced (bank conflicts removed)"},
    };
    aat.chart = product_chart("C = AAᵀ: strided reads of A, a transposed tile with 32-way bank conflicts, and the padded "
                              "tile that removes them.");
    out.push_back(std::move(aat));
}

}  // namespace gmlab
