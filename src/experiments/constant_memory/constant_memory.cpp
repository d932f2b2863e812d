// Experiment family "constant memory": a warp reading k distinct __constant__
// words, and the nine-point 1D stencil with its coefficients in constant memory
// vs read through __ldg (the kernels of gm_stencil_constant too).
#include <cmath>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "core/units.hpp"
#include "experiments/common/point_checks.hpp"
#include "experiments/common/reference_copy.hpp"
#include "experiments/constant_memory/constant_memory.cuh"
#include "shared_kernels/pattern.hpp"

namespace gmlab {

namespace {

using kernels::kStencilRadius;
constexpr std::uint32_t kSeed = 31337;

// constant_broadcast's headline figures.
const Figure kFitNsPerAddress{"fit_ns_per_address", "ns", Better::Lower,
                              "time each further distinct constant address adds to a warp's access, per multiprocessor "
                              "(the slope of the least-squares line through the points)"};
const Figure kK32OverK1{"k32_over_k1", "ratio", Better::Neither,
                        "time of warp accesses to 32 distinct constant addresses over the time with one address"};

// stencil's headline figures.
const Figure kConstantOverCopy{"constant_over_copy", "ratio", Better::Higher,
                               "DRAM bandwidth of the stencil with __constant__ coefficients over the stream copy "
                               "kernel's on the same bytes"};
const Figure kLdgOverCopy{"ldg_over_copy", "ratio", Better::Higher,
                          "DRAM bandwidth of the stencil with coefficients read through __ldg over the stream copy "
                          "kernel's on the same bytes"};
const Figure kConstantTimeOverLdg{"constant_time_over_ldg", "ratio", Better::Neither,
                                  "time of the stencil with __constant__ coefficients over the time with coefficients "
                                  "read through __ldg"};

// The linear model time = a + b k, fitted by least squares (the slope is a
// headline figure, the line each point's prediction), and k = 32 against k = 1.
void fit_and_compare(Series &s, Result &out) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    const double n = static_cast<double>(s.points.size());
    for (const Point &p : s.points) {
        const double y = p.values.at("ns_per_warp_access");
        sx += p.x;
        sy += y;
        sxx += p.x * p.x;
        sxy += p.x * y;
    }
    if (s.points.size() >= 2 && n * sxx - sx * sx > 0) {
        const double b = (n * sxy - sx * sy) / (n * sxx - sx * sx), a = (sy - b * sx) / n;
        out.record(kFitNsPerAddress, b);
        // The intercept stays with the series rather than among the headline
        // figures: a few hundredths of a nanosecond, inside the timing noise
        // of any one point, so its relative change between runs means nothing.
        s.attributes["fit_ns_intercept"] = a;
        for (Point &p : s.points) p.predicted["linear_fit_ns"] = a + b * p.x;
    }
    const Point *k1 = nullptr, *k32 = nullptr;
    for (const Point &p : s.points) {
        if (p.x == 1) k1 = &p;
        if (p.x == 32) k32 = &p;
    }
    if (k1 && k32) out.record(kK32OverK1, k32->time_ms.median / k1->time_ms.median);
}

void run_constant_broadcast(ContextState &ctx, const Params &params, Result &out) {
    const DeviceInfo &dev = ctx.info();
    const unsigned iterations = static_cast<unsigned>(params.integer("iterations"));
    const int block = 256, blocks = dev.multiprocessors * 4;
    const std::size_t threads = static_cast<std::size_t>(blocks) * block;
    std::vector<float> table(kernels::kConstTableWords);
    for (int i = 0; i < kernels::kConstTableWords; ++i) table[i] = static_cast<float>(pattern_word(i, kSeed) % 16);
    require_memory(ctx, threads * sizeof(float), "constant_broadcast");
    DeviceArray buf(ctx, threads * sizeof(float));
    std::vector<float> host(threads);
    std::lock_guard<std::mutex> lock(kernels::constant_memory_mutex());
    GM_CUDA(kernels::set_constant_table(table.data(), ctx.stream()));
    Series s;
    s.name = "distinct constant addresses per warp";
    s.variant = "constant";
    s.x_name = "k";
    s.x_unit = "addresses";
    s.y_field = "ns_per_warp_access";
    s.y_name = "time per warp access, per multiprocessor";
    s.y_unit = "ns";
    s.quantity = Quantity::Time;  // a warp's access, served by the constant cache
    s.attributes = {{"iterations", iterations}, {"blocks", blocks}, {"block_size", block}};
    for (long long k_ll : params.integers("k")) {
        const unsigned k = static_cast<unsigned>(k_ll);
        auto launch = [&](cudaStream_t st) { return kernels::launch_constant_read(k, iterations, blocks, block, buf.as<float>(), st); };
        // Integer-valued floats: every partial sum is exact, so the host's must match.
        std::vector<float> lane_sum(32);
        for (unsigned lane = 0; lane < 32; ++lane) {
            float acc = 0;
            for (unsigned it = 0; it < iterations; ++it) acc += table[(it & 63) + lane % k];
            lane_sum[lane] = acc;
        }
        auto check = [&] {
            verify_equal(host.data(), threads, [&](std::uint64_t t) { return lane_sum[t % 32]; },
                         "constant_broadcast k=" + std::to_string(k),
                         "every thread's sum of constant reads compared with the host's", out);
        };
        Point p;
        p.x = k;
        measure_checked(ctx, {launch, {{buf.get(), threads * sizeof(float)}}, download_to(host.data(), buf.get(), threads * sizeof(float)), check},
                        p, out);
        const double per_sm = static_cast<double>(threads / 32) * iterations / dev.multiprocessors;
        p.values["ns_per_warp_access"] = p.time_ms.median * 1e6 / per_sm;
        p.values["cycles_per_warp_access"] = p.values["ns_per_warp_access"] * dev.clock_khz / 1e6;
        p.predicted["serialized_reads"] = k;
        s.points.push_back(std::move(p));
    }
    fit_and_compare(s, out);
    out.series.push_back(std::move(s));
    out.notes.push_back("Lane l of every warp reads constant word (it mod 64) + (l mod k): k distinct addresses per warp "
                        "access. The constant cache serves one address per pass, so the guide expects the time to grow "
                        "linearly with k; predicted.linear_fit_ns is the least-squares line a + b k through the measurements.");
}

std::vector<float> stencil_reference(const std::vector<float> &f, const float *c) {
    const std::size_t n = f.size();
    std::vector<float> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        double sum = 0;
        for (int r = 1; r <= kStencilRadius; ++r) {
            const double plus = i + r < n ? f[i + r] : 0.0, minus = i >= static_cast<std::size_t>(r) ? f[i - r] : 0.0;
            sum += c[r - 1] * (plus - minus);
        }
        out[i] = static_cast<float>(sum);
    }
    return out;
}

void check_stencil(const std::vector<float> &got, const std::vector<float> &f, const float *c, const std::string &what, Result &out) {
    const std::vector<float> want = stencil_reference(f, c);
    // Float sums of 8 terms against the host's double: within a few ulps of the largest term.
    double bound = 0;
    for (int r = 0; r < kStencilRadius; ++r) bound += std::fabs(c[r]) * 2.0;
    const double tol = bound * 4e-7;
    double worst = 0;
    const std::uint64_t bad = first_mismatch(got.size(), [&](std::uint64_t i) { return std::fabs(static_cast<double>(got[i]) - want[i]) <= tol; });
    if (bad < got.size()) verification_failed(what, bad, std::to_string(want[bad]), std::to_string(got[bad]));
    for (std::size_t i = 0; i < got.size(); i += 997) worst = std::max(worst, std::fabs(static_cast<double>(got[i]) - want[i]));
    out.verified(got.size(), "every output compared with a double-precision host stencil (zero outside the array)", worst);
}

constexpr float kDefaultCoefficients[kStencilRadius] = {0.8f, -0.2f, 0.0380952380952381f, -0.00357142857142857f};

void run_stencil(ContextState &ctx, const Params &params, Result &out) {
    std::size_t n = params.is_auto("elements") ? std::max<std::size_t>(default_working_set(ctx.info()) / sizeof(float), 1 << 26)
                                               : params.size("elements");
    n = std::max<std::size_t>(n, 1);
    const int block = static_cast<int>(params.integer("block_size"));
    const int per_thread = static_cast<int>(params.integer("per_thread"));
    const std::size_t bytes = n * sizeof(float);
    require_memory(ctx, 2 * bytes + 64, "stencil");
    DeviceArray in(ctx, bytes), outbuf(ctx, bytes), coef(ctx, 64);
    cudaStream_t st = ctx.stream();
    std::vector<float> f(n), got(n);
    for (std::size_t i = 0; i < n; ++i) f[i] = static_cast<float>(pattern_word(i, kSeed) >> 8) * (1.0f / 16777216.0f) - 0.5f;
    GM_CUDA(cudaMemcpyAsync(in.get(), f.data(), bytes, cudaMemcpyHostToDevice, st));
    GM_CUDA(cudaMemcpyAsync(coef.get(), kDefaultCoefficients, sizeof kDefaultCoefficients, cudaMemcpyHostToDevice, st));
    std::lock_guard<std::mutex> lock(kernels::constant_memory_mutex());
    GM_CUDA(kernels::set_stencil_coefficients(kDefaultCoefficients, st));
    const CounterSet counters = counter_sets::shared_banks() + counter_sets::dram();
    std::map<std::string, double> bw, ms;
    for (bool constant : {true, false}) {
        const std::string name = constant ? "constant" : "ldg";
        auto launch = [&, constant](cudaStream_t s) {
            return kernels::launch_stencil(constant, in.as<float>(), outbuf.as<float>(), n, coef.as<float>(), block, per_thread, s);
        };
        Series s = declared_series(
            constant ? "coefficients in __constant__ memory" : "coefficients in global memory through __ldg", name, "n",
            "elements", Quantity::DramBandwidth,
            nlohmann::json{{"block_size", block}, {"per_thread", per_thread}, {"radius", kStencilRadius}});
        Point p;
        p.x = static_cast<double>(n);
        p.bytes = 2.0 * static_cast<double>(bytes);  // each element read once, written once
        // Checked, timed, then counted: the halo tile in shared memory (wavefronts, conflicts) and DRAM bytes.
        measure_checked(ctx, {launch, {{outbuf.get(), bytes}}, download_to(got.data(), outbuf.get(), bytes),
                              [&] { check_stencil(got, f, kDefaultCoefficients, "stencil " + name, out); }},
                        p, out, &counters);
        bw[name] = bandwidth_gbs(p.bytes, p.time_ms.median);
        ms[name] = p.time_ms.median;
        s.points.push_back(std::move(p));
        out.series.push_back(std::move(s));
    }
    if (bytes % 16 == 0) {
        Series s = reference_copy_series(ctx, in.get(), outbuf.get(), bytes, static_cast<double>(n), out, "stencil");
        s.x_name = "n";
        s.x_unit = "elements";
        bw["copy"] = bandwidth_gbs(s.points[0].bytes, s.points[0].time_ms.median);
        out.series.push_back(std::move(s));
        out.record(kConstantOverCopy, bw["constant"] / bw["copy"]);
        out.record(kLdgOverCopy, bw["ldg"] / bw["copy"]);
    }
    out.record(kConstantTimeOverLdg, ms["constant"] / ms["ldg"]);
    out.notes.push_back("out[i] = a1(f[i+1]-f[i-1]) + a2(f[i+2]-f[i-2]) + a3(f[i+3]-f[i-3]) + a4(f[i+4]-f[i-4]), f = 0 outside "
                        "the array; each block stages its tile and a halo of 4 on each side in shared memory, each thread "
                        "computes per_thread outputs. Effective bandwidth = 2 x n x 4 bytes / time; copy is our stream copy "
                        "kernel on the same bytes.");
    out.published_source = "study notes (RTX 3080, 16M floats, 32-thread blocks), milliseconds";
    out.published = {{"constant_ms", 0.4198}, {"ldg_ms", 0.4036}};
}

Chart constant_broadcast_chart() {
    Chart c;
    c.kind = "line";
    c.x_title = "distinct addresses per warp (k)";
    c.prediction = "predicted.linear_fit_ns";
    c.prediction_relative = false;
    c.prediction_label = "linear fit";
    c.explanation = "The constant cache serves one address per pass: a warp reading k different constants waits k times as long.";
    return c;
}

Chart stencil_chart() {
    Chart c;
    c.kind = "bar";
    c.published_base = "ldg";
    c.explanation = "The nine-point stencil with its coefficients in constant memory or read through __ldg, against a copy of the same bytes.";
    return c;
}

}  // namespace

void add_constant_memory_experiments(std::vector<Experiment> &out) {
    Experiment cb;
    cb.name = "constant_broadcast";
    cb.guide_section = "Best Practices Guide: Constant Memory";
    cb.summary = "A warp reading k = 1..32 distinct __constant__ addresses at once: the constant cache serializes them, "
                 "so time grows linearly with k.";
    std::vector<long long> ks;
    for (int i = 1; i <= 32; ++i) ks.push_back(i);
    cb.params = {int_list_param("k", ks, 1, 32, "distinct addresses per warp access"),
                 int_param("iterations", 4096, 1, 1 << 20, "constant reads per thread per launch")};
    cb.axes = {{}, "k"};  // Its series runs along k.
    cb.run = run_constant_broadcast;
    cb.quick = {{"k", {1, 2, 32}}, {"iterations", 256}};
    cb.figures = {kFitNsPerAddress, kK32OverK1};
    cb.compared = {
        {"k32_over_k1", "32 addresses / 1 address"},
        {"fit_ns_per_address", "cost per distinct address"},
    };
    cb.chart = constant_broadcast_chart();
    out.push_back(std::move(cb));

    Experiment st;
    st.name = "stencil";
    st.guide_section = "Best Practices Guide: Constant Memory; study notes' 1D stencil";
    st.summary = "Nine-point 1D stencil with a shared-memory halo: coefficients in __constant__ memory vs in global "
                 "memory read through __ldg, against our copy kernel on the same bytes.";
    ParamSpec per = int_param("per_thread", 8, 1, 8, "outputs per thread");
    per.allowed = {1, 4, 8};
    ParamSpec block = int_param("block_size", 256, 32, 1024, "threads per block", "threads");
    block.multiple_of = 32;
    st.params = {size_param("elements", 0, 0, 1LL << 34, "n; 0: max(4 x L2, 64 Mi) floats"), std::move(block), std::move(per)};
    st.run = run_stencil;
    st.quick = {{"elements", 4 * kMiB}};
    st.figures = {kConstantOverCopy, kLdgOverCopy, kConstantTimeOverLdg};
    st.compared = {
        {"constant_time_over_ldg", "__constant__ time / __ldg time"},
        {"constant_over_copy", "__constant__ stencil / copy"},
    };
    st.chart = stencil_chart();
    out.push_back(std::move(st));
}

}  // namespace gmlab
