// Checking kernel output against a host reference, on all host cores.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace gmlab {

// Returns the smallest i in [0, n) for which ok(i) is false, or n if none.
template <class F> std::uint64_t first_mismatch(std::uint64_t n, F ok) {
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const std::uint64_t min_chunk = 1 << 20;
    const unsigned workers = static_cast<unsigned>(std::min<std::uint64_t>(hw, (n + min_chunk - 1) / min_chunk));
    if (workers <= 1) {
        for (std::uint64_t i = 0; i < n; ++i)
            if (!ok(i)) return i;
        return n;
    }
    std::vector<std::uint64_t> found(workers, n);
    std::vector<std::thread> pool;
    const std::uint64_t chunk = (n + workers - 1) / workers;
    for (unsigned w = 0; w < workers; ++w) {
        pool.emplace_back([&, w] {
            const std::uint64_t begin = w * chunk, end = std::min(n, begin + chunk);
            for (std::uint64_t i = begin; i < end; ++i) {
                if (!ok(i)) {
                    found[w] = i;
                    return;
                }
            }
        });
    }
    for (auto &t : pool) t.join();
    return *std::min_element(found.begin(), found.end());
}

// Calls f(i) for every i in [0, n) on all host cores (chunks of at least
// min_chunk): for host references that cost more than a comparison per element.
template <class F> void parallel_for(std::uint64_t n, F f, std::uint64_t min_chunk = 4096) {
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const unsigned workers = static_cast<unsigned>(std::min<std::uint64_t>(hw, (n + min_chunk - 1) / min_chunk));
    if (workers <= 1) {
        for (std::uint64_t i = 0; i < n; ++i) f(i);
        return;
    }
    std::vector<std::thread> pool;
    const std::uint64_t chunk = (n + workers - 1) / workers;
    for (unsigned w = 0; w < workers; ++w)
        pool.emplace_back([&, w] {
            const std::uint64_t begin = w * chunk, end = std::min(n, begin + chunk);
            for (std::uint64_t i = begin; i < end; ++i) f(i);
        });
    for (auto &t : pool) t.join();
}

// The sum of f(i) for every i in [0, n) as 64-bit unsigned integers, which
// wrap as a kernel's atomicAdd on unsigned long long does, on all host cores:
// the host's side of a kernel that sums what it reads.
template <class F> std::uint64_t parallel_sum(std::uint64_t n, F f, std::uint64_t min_chunk = 1 << 20) {
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const unsigned workers = static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(hw, n / min_chunk)));
    std::vector<std::uint64_t> part(workers, 0);
    std::vector<std::thread> pool;
    const std::uint64_t chunk = (n + workers - 1) / workers;
    for (unsigned w = 0; w < workers; ++w)
        pool.emplace_back([&, w] {
            const std::uint64_t begin = std::min(n, w * chunk), end = std::min(n, begin + chunk);
            std::uint64_t s = 0;
            for (std::uint64_t i = begin; i < end; ++i) s += f(i);
            part[w] = s;
        });
    for (auto &t : pool) t.join();
    std::uint64_t total = 0;
    for (std::uint64_t s : part) total += s;
    return total;
}

// Throws Error(GM_ERROR_VERIFICATION_FAILED) with what, where and the values.
[[noreturn]] void verification_failed(const std::string &what, std::uint64_t index,
                                      const std::string &expected, const std::string &got);

}  // namespace gmlab
