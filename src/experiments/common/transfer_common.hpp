// Helpers shared by the host<->device experiments: host-side pattern fill and
// byte-exact comparison (on all host cores), sizes as text, and a
// least-squares fit used to split a time into per-transfer and per-byte parts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/device/device_info.hpp"
#include "core/experiment/figure.hpp"
#include "core/experiment/result.hpp"

namespace gmlab {

// p[i] = pattern_word(i, seed) for every whole 32-bit word of `bytes`, and the
// bytes of a partial last word from the next pattern word.
void fill_pattern_host(void *p, std::size_t bytes, std::uint32_t seed);

// Throws Error(GM_ERROR_VERIFICATION_FAILED) naming `what` and the first byte
// where got and want differ; records the bytes as verified otherwise.
void check_same_bytes(const void *got, const void *want, std::size_t bytes, const std::string &what, Result &out);

// lo, then each step of 2^(1/per_octave), up to and including hi: powers of
// two from lo for 1, every fourth power of two for 0.5.
std::vector<std::size_t> size_sweep(std::size_t lo, std::size_t hi, double per_octave);

// "4 KiB", "1 MiB", "1.5 GiB", "1000 B".
std::string size_text(std::size_t bytes);

// Least squares without intercept: y = a * u + b * v. False when the points do
// not determine both (fewer than two independent ones).
bool fit_two(const std::vector<double> &u, const std::vector<double> &v, const std::vector<double> &y, double *a,
             double *b);

// The host link's theoretical bandwidth the points of a host<->device
// experiment are read against (use_host_link_reference writes it); each
// experiment that calls use_host_link_reference lists it in its figures. A
// function, so that a family's declaration made during another file's static
// initialisation still finds it built.
const Figure &host_link_figure();

// Host<->device figures are read against the host link, not DRAM: sets
// out.theoretical_gbs (what each point's fraction_of_theoretical and the
// report's "of peak %" divide by) to the link's theoretical bandwidth times
// `directions` (2 where the points count bytes moved both ways at once), adds
// host_link_figure() to the summary and a note naming the link. Where
// the link cannot be read, the points carry no fraction and the note says why.
// Returns the bandwidth used (0 when unknown).
double use_host_link_reference(const DeviceInfo &dev, int directions, Result &out);

}  // namespace gmlab
