// The managed-memory ping-pong: host and device take turns writing the same
// pages, so that every turn migrates them; the cost of one round trip.
#pragma once

#include <vector>

#include "core/device/context.hpp"
#include "core/experiment/figure.hpp"
#include "core/experiment/result.hpp"
#include "experiments/managed_memory/managed_common.hpp"

namespace gmlab {

// The headline figure of each ping-pong size.
inline const Figure kPingPongUs{"pingpong_us_{size}", "us", Better::Lower,
                                "time of one host/device round trip of managed memory (the device, then the host, "
                                "increments every word), per array size"};

// One point per size in `pages` (4096-byte pages): a round is the increment
// kernel on every word, then the host incrementing every word; after n rounds
// every word is 2n, which is checked before the times count and at the end.
// Timed on the host (a round is host and device work), counted like a point.
Series measure_ping_pong(ContextState &ctx, const std::vector<long long> &pages, const UnifiedMemoryCounting &counting,
                         Result &out);

}  // namespace gmlab
