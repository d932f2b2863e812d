#include "experiments/common/transfer_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>

#include "core/measurement/verify.hpp"
#include "shared_kernels/pattern.hpp"

namespace gmlab {

void fill_pattern_host(void *p, std::size_t bytes, std::uint32_t seed) {
    auto *w = static_cast<std::uint32_t *>(p);
    const std::size_t words = bytes / 4;
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t min_chunk = 1 << 20;
    const unsigned workers = static_cast<unsigned>(std::min<std::size_t>(hw, (words + min_chunk - 1) / min_chunk));
    auto fill = [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) w[i] = pattern_word(i, seed);
    };
    if (workers <= 1) {
        fill(0, words);
    } else {
        std::vector<std::thread> pool;
        const std::size_t chunk = (words + workers - 1) / workers;
        for (unsigned t = 0; t < workers; ++t)
            pool.emplace_back(fill, std::min(words, t * chunk), std::min(words, (t + 1) * chunk));
        for (auto &t : pool) t.join();
    }
    if (bytes % 4) {
        const std::uint32_t last = pattern_word(words, seed);
        std::memcpy(static_cast<unsigned char *>(p) + words * 4, &last, bytes % 4);
    }
}

void check_same_bytes(const void *got, const void *want, std::size_t bytes, const std::string &what, Result &out) {
    const auto *g = static_cast<const unsigned char *>(got);
    const auto *w = static_cast<const unsigned char *>(want);
    // Compare 4 KiB blocks in parallel, then find the byte inside the first bad one.
    constexpr std::size_t kBlock = 4096;
    const std::uint64_t blocks = (bytes + kBlock - 1) / kBlock;
    const std::uint64_t bad = first_mismatch(blocks, [&](std::uint64_t b) {
        const std::size_t begin = b * kBlock, len = std::min(kBlock, bytes - begin);
        return std::memcmp(g + begin, w + begin, len) == 0;
    });
    if (bad < blocks) {
        std::size_t i = bad * kBlock;
        while (i < bytes && g[i] == w[i]) ++i;
        verification_failed(what, i, std::to_string(w[i]), std::to_string(g[i]));
    }
    out.verified(bytes, "every byte copied compared with the source");
}

std::vector<std::size_t> size_sweep(std::size_t lo, std::size_t hi, double per_octave) {
    std::vector<std::size_t> out;
    for (int k = 0;; ++k) {
        const double s = std::round(static_cast<double>(lo) * std::pow(2.0, static_cast<double>(k) / per_octave));
        if (s > static_cast<double>(hi)) break;
        const auto v = static_cast<std::size_t>(s);
        if (out.empty() || out.back() != v) out.push_back(v);
    }
    if (out.empty() || out.back() != hi) out.push_back(hi);
    return out;
}

std::string size_text(std::size_t bytes) {
    const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        ++u;
    }
    char buf[32];
    if (v == std::floor(v))
        std::snprintf(buf, sizeof buf, "%.0f %s", v, units[u]);
    else
        std::snprintf(buf, sizeof buf, "%.2f %s", v, units[u]);
    return buf;
}

bool fit_two(const std::vector<double> &u, const std::vector<double> &v, const std::vector<double> &y, double *a,
             double *b) {
    double suu = 0, suv = 0, svv = 0, suy = 0, svy = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
        suu += u[i] * u[i];
        suv += u[i] * v[i];
        svv += v[i] * v[i];
        suy += u[i] * y[i];
        svy += v[i] * y[i];
    }
    const double det = suu * svv - suv * suv;
    if (!(std::fabs(det) > 1e-12 * std::max(1.0, suu * svv))) return false;
    *a = (suy * svv - svy * suv) / det;
    *b = (svy * suu - suy * suv) / det;
    return true;
}

const Figure &host_link_figure() {
    static const Figure figure{"host_link_theoretical_gbs", "GB/s", Better::Neither,
                               "theoretical bandwidth of the host link (PCIe or NVLink-C2C) the points are read against: "
                               "one direction's, or both directions' where the points count bytes moved each way"};
    return figure;
}

double use_host_link_reference(const DeviceInfo &dev, int directions, Result &out) {
    const HostLink &l = dev.host_link;
    const double link = l.theoretical_gbs * directions;
    out.theoretical_gbs = link;
    out.link_theoretical_gbs = link;
    if (link > 0) {
        out.record(host_link_figure(), link);
        char both[96] = "";
        if (directions == 2)
            std::snprintf(both, sizeof both, "; both directions, %.1f GB/s, since these points count the bytes moved each way", link);
        out.notes.push_back("\"Of peak\" (fraction_of_theoretical) is against the host link, not the device's DRAM: " + describe(l) +
                            both + ".");
    } else {
        out.notes.push_back("The host link's theoretical bandwidth is not known (" + l.reason +
                            "), so these points carry no fraction of a peak: the device's DRAM bandwidth would say nothing "
                            "about a host transfer.");
    }
    return link;
}

}  // namespace gmlab
