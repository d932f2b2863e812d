// managed_memory, allocation and compressible change process- and device-wide
// state: managed memory and its advice, the default pool's release threshold,
// a pool of their own, page-locked and registered host memory, compressible
// allocations. Each must leave the context and the process as it found them,
// whether it finishes or fails midway: run twice in one context (after a
// warm-up pass), then another experiment, the figures must agree and nothing
// may be left behind. Reads
// internal state, so it links the internal static library.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

#include <cuda_runtime_api.h>

#include "core/device/host_memory.hpp"
#include "experiments/compressible/compressible_memory.hpp"
#include "gpu_fixture.hpp"

using gmlab::HostRegistration;
using gmlab::PinnedHostBuffer;
using gmlab::VmmAllocation;
using nlohmann::json;

namespace {

// A default-pool threshold none of the experiments sets itself, so that
// restoring it is seen; 0 again afterwards.
constexpr std::uint64_t kSentinelThreshold = 3 << 20;

cudaMemPool_t default_pool() {
    cudaMemPool_t pool = nullptr;
    EXPECT_EQ(cudaDeviceGetDefaultMemPool(&pool, 0), cudaSuccess);
    return pool;
}

struct SentinelThreshold {
    SentinelThreshold() {
        std::uint64_t t = kSentinelThreshold;
        EXPECT_EQ(cudaMemPoolSetAttribute(default_pool(), cudaMemPoolAttrReleaseThreshold, &t), cudaSuccess);
    }
    ~SentinelThreshold() {
        std::uint64_t t = 0;
        cudaMemPoolSetAttribute(default_pool(), cudaMemPoolAttrReleaseThreshold, &t);
    }
};

// Turns the pinned-allocation failure hook off again whatever the test does.
struct HookOff {
    ~HookOff() { PinnedHostBuffer::fail_after_for_testing(-1); }
};

struct ProcessState {
    std::size_t free_bytes = 0;
    std::uint64_t threshold = 0, reserved = 0;
    int pinned = 0, registered = 0, vmm = 0;
};

ProcessState read_state() {
    ProcessState s;
    std::size_t total = 0;
    EXPECT_EQ(cudaSetDevice(0), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaMemGetInfo(&s.free_bytes, &total), cudaSuccess);
    EXPECT_EQ(cudaMemPoolGetAttribute(default_pool(), cudaMemPoolAttrReleaseThreshold, &s.threshold), cudaSuccess);
    EXPECT_EQ(cudaMemPoolGetAttribute(default_pool(), cudaMemPoolAttrReservedMemCurrent, &s.reserved), cudaSuccess);
    s.pinned = PinnedHostBuffer::live_count();
    s.registered = HostRegistration::live_count();
    s.vmm = VmmAllocation::live_count();
    return s;
}

double mib(double bytes) { return bytes / (1 << 20); }

// Nothing of the experiment's own is left: no pinned, registered or
// compressible memory, the default pool's threshold and reserve as found, and
// free device memory within `slack` bytes.
void expect_as_found(const ProcessState &now, const ProcessState &then, double slack, const std::string &after) {
    EXPECT_EQ(now.threshold, then.threshold) << "default pool's release threshold changed by " << after;
    EXPECT_LE(now.reserved, then.reserved) << "default pool holds memory after " << after;
    EXPECT_EQ(now.pinned, then.pinned) << "page-locked buffers left by " << after;
    EXPECT_EQ(now.registered, then.registered) << "registered host memory left by " << after;
    EXPECT_EQ(now.vmm, then.vmm) << "compressible/plain VMM allocations left by " << after;
    // A leak lowers free memory; the driver may also give back memory of its
    // own that it held at the baseline (seen: 20 to 36 MiB more free after a pass).
    EXPECT_GE(mib(static_cast<double>(now.free_bytes)), mib(static_cast<double>(then.free_bytes)) - mib(slack))
        << "free device memory (MiB) after " << after;
}

constexpr double kComparableMs = 0.05;  // 50 us

// The same experiment twice: the same curves at the same sizes, and times that agree within a factor.
void expect_consistent(const json &a, const json &b, const std::string &name) {
    EXPECT_EQ(a.value("applicable", true), b.value("applicable", true)) << name;
    ASSERT_EQ(a["series"].size(), b["series"].size()) << name;
    for (std::size_t i = 0; i < a["series"].size(); ++i) {
        const json &sa = a["series"][i], &sb = b["series"][i];
        EXPECT_EQ(sa["variant"], sb["variant"]) << name;
        ASSERT_EQ(sa["points"].size(), sb["points"].size()) << name << " " << sa["variant"];
        // Page-locking and first touch are the host kernel's page allocator at
        // work, whose state no experiment owns: on an H100, cudaHostRegister of
        // 1 MiB took 0.21 ms in one pass and 1.92 ms in the next. Their
        // leftovers are checked directly (pinned and registered counts); their
        // times are not compared.
        // managed_memory's ping-pong is the same kind of work in its host
        // turn (the host kernel faulting pages back): on an H200 one pass
        // took 0.14 ms per round trip at 16 KiB and the next 0.58 ms. So are
        // its on-demand points, the driver's fault handling on the host: on
        // an H100 on_demand_write of 64 KiB took 0.061 ms in one pass and
        // 0.255 ms in the next, with no change to the experiment.
        const std::string variant = sa.value("variant", "");
        const bool host_pages = sa.contains("attributes") && (sa["attributes"].value("memory", "") == "host" ||
                                                              variant == "ping_pong" || variant.rfind("on_demand", 0) == 0);
        for (std::size_t k = 0; k < sa["points"].size(); ++k) {
            EXPECT_EQ(sa["points"][k]["x"], sb["points"][k]["x"]) << name << " " << sa["variant"];
            if (host_pages) continue;
            const double ta = sa["points"][k]["time_ms"]["median"].get<double>();
            const double tb = sb["points"][k]["time_ms"]["median"].get<double>();
            // Calls of a few microseconds timed on the host vary more than
            // fourfold between passes (a first pass's cudaMalloc of 16 KiB
            // took 16 us, the second 4 us): only longer points are compared.
            if (std::max(ta, tb) < kComparableMs) continue;
            EXPECT_GT(tb, ta / 4) << name << " " << sa["variant"] << " at " << sa["points"][k]["x"];
            EXPECT_LT(tb, ta * 4) << name << " " << sa["variant"] << " at " << sa["points"][k]["x"];
        }
    }
}

const std::map<std::string, std::string> kSmallRuns = {
    {"managed_memory", R"({"max_size": "256KiB", "points_per_octave": 0.5, "pingpong_pages": [1, 4]})"},
    {"allocation", R"({"max_size": "4MiB", "host_max_size": "1MiB", "points_per_octave": 0.5})"},
    {"compressible", R"({"bytes": "8MiB"})"},
};

constexpr double kOneTimeSlack = 128.0 * (1 << 20);  // the driver's own first-use structures
constexpr double kRepeatSlack = 16.0 * (1 << 20);    // between two identical passes

}  // namespace

TEST_F(GpuTest, OffChipExperimentsLeaveTheProcessAsTheyFoundIt) {
    SentinelThreshold sentinel;
    // The context's own buffers (L2 flush, the copy reference) exist before the baseline.
    json warm = run("stream", R"({"array_bytes": "8MiB", "kernels": "copy"})");
    ASSERT_FALSE(warm.is_null());
    // So do the first uses of each path in the driver and the OS: on an H100
    // the first managed prefetch and read of 256 KiB in a process took 0.8 ms
    // and the second 0.13 ms, the first cudaMallocHost of 1 MiB 4.3 ms and the
    // second 0.7 ms, with other experiments between them. That is a cold
    // process, not state an experiment left (which the checks of pools, pinned
    // and registered memory see directly), so one pass runs before the
    // baseline and the two compared passes.
    for (const auto &[name, params] : kSmallRuns) ASSERT_FALSE(run(name, params).is_null()) << name << " (warm-up)";
    const ProcessState before = read_state();
    ASSERT_EQ(before.threshold, kSentinelThreshold);
    std::map<std::string, json> first;
    ProcessState after_first;
    for (int pass = 0; pass < 2; ++pass) {
        for (const auto &[name, params] : kSmallRuns) {
            json doc = run(name, params);
            ASSERT_FALSE(doc.is_null()) << name << " pass " << pass;
            EXPECT_TRUE(doc["verification"]["passed"].get<bool>()) << name;
            expect_as_found(read_state(), before, kOneTimeSlack, name + " (pass " + std::to_string(pass + 1) + ")");
            if (pass == 0)
                first[name] = doc;
            else
                expect_consistent(first[name], doc, name);
        }
        if (pass == 0) after_first = read_state();
    }
    // A second pass leaves exactly what the first left.
    expect_as_found(read_state(), after_first, kRepeatSlack, "the second pass");
    // Another experiment afterwards measures as before.
    json again = run("stream", R"({"array_bytes": "8MiB", "kernels": "copy"})");
    ASSERT_FALSE(again.is_null());
    const double w = warm["series"][0]["points"][0]["bandwidth_gbs"].get<double>();
    const double a = again["series"][0]["points"][0]["bandwidth_gbs"].get<double>();
    EXPECT_GT(a, w / 2);
    EXPECT_LT(a, w * 2);
}

TEST_F(GpuTest, OffChipExperimentsLeaveNothingWhenTheyFailMidway) {
    SentinelThreshold sentinel;
    HookOff off;
    bool managed_applies = false;
    for (const auto &[name, params] : kSmallRuns) {  // warm: the driver's first-use structures
        json doc = run(name, params);
        ASSERT_FALSE(doc.is_null()) << name;
        if (name == "managed_memory") managed_applies = doc.value("applicable", true);
    }
    const ProcessState before = read_state();
    // allocation: the pools were measured (threshold set to 0, own pool made)
    // before the pinned series' first timed allocation fails.
    PinnedHostBuffer::fail_after_for_testing(1);
    gm_result *r = nullptr;
    EXPECT_EQ(gm_run(&r, ctx, "allocation", kSmallRuns.at("allocation").c_str()), GM_ERROR_OUT_OF_MEMORY)
        << gm_context_last_error(ctx);
    EXPECT_EQ(r, nullptr);
    EXPECT_NE(std::string(gm_context_last_error(ctx)).find("page-locked host memory"), std::string::npos)
        << gm_context_last_error(ctx);
    expect_as_found(read_state(), before, kRepeatSlack, "allocation failing midway");
    // managed_memory: the managed variants ran, the explicit copy's pinned source fails.
    if (managed_applies) {
        PinnedHostBuffer::fail_after_for_testing(0);
        EXPECT_EQ(gm_run(&r, ctx, "managed_memory", kSmallRuns.at("managed_memory").c_str()), GM_ERROR_OUT_OF_MEMORY)
            << gm_context_last_error(ctx);
        EXPECT_EQ(r, nullptr);
        expect_as_found(read_state(), before, kRepeatSlack, "managed_memory failing midway");
    }
    PinnedHostBuffer::fail_after_for_testing(-1);
    // The context still works, and the experiments run again.
    for (const auto &[name, params] : kSmallRuns) {
        json doc = run(name, params);
        ASSERT_FALSE(doc.is_null()) << name;
        EXPECT_TRUE(doc["verification"]["passed"].get<bool>()) << name;
    }
    expect_as_found(read_state(), before, kRepeatSlack, "the runs after the failures");
}
