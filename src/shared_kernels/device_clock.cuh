// The two clocks a kernel times itself with: clock64 (SM cycles) and
// %globaltimer (nanoseconds). Each reading carries a memory clobber, so that
// the compiler keeps the memory accesses between two readings between them.
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

}  // namespace gmlab::kernels
