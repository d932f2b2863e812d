// The two clocks a kernel times itself with: clock64 (SM cycles) and
// %globaltimer (nanoseconds). Each reading carries a memory clobber, so that
// the compiler keeps the memory accesses between two readings between them.
// Also the timed walk every pointer chase of the latency and cluster_shared
// families makes between two readings.
#pragma once

namespace gmlab::kernels {

__device__ __forceinline__ long long clock_now() {
    long long c;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
    return c;
}

__device__ __forceinline__ unsigned long long ns_now() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    return t;
}

// A pointer chase's walk: `untimed` dependent steps from p (they bring the
// ring into the caches the chase measures), then `hops` more between the two
// clocks' readings, whose cycles and nanoseconds go to out->cycles and
// out->ns. Returns where the walk ended, for the caller's out->last.
template <class Step, class T, class Sample>
__device__ __forceinline__ T walk_then_time(Step step, T p, unsigned untimed, unsigned hops, Sample *out) {
    for (unsigned i = 0; i < untimed; ++i) p = step(p);
    const unsigned long long t0 = ns_now();
    const long long c0 = clock_now();
#pragma unroll 8
    for (unsigned i = 0; i < hops; ++i) p = step(p);
    const long long c1 = clock_now();
    const unsigned long long t1 = ns_now();
    out->cycles = static_cast<unsigned long long>(c1 - c0);
    out->ns = t1 - t0;
    return p;
}

}  // namespace gmlab::kernels
