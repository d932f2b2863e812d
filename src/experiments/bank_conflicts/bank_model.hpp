// The guide's model of shared memory (compute capability 5.0 and later): 32
// banks of 4 bytes; lanes that touch different words in one bank are served
// one after another, lanes that touch the same word share one access.
#pragma once

namespace gmlab {

// Passes (wavefronts) the shared memory needs for one warp-wide access in which
// lane t touches word (t * stride) of word_bytes (4 or 8). stride 0: every lane
// the same word. Each pass serves one 4-byte word per bank and at most 128
// bytes, so a conflict-free warp of 8-byte words takes 2 passes and an 8-byte
// broadcast 1.
int shared_wavefronts(int word_bytes, unsigned stride);

// The n-way conflict: passes over the passes of stride 1 (0.5 for an 8-byte
// broadcast, which needs half the passes of a conflict-free access).
double shared_conflict_ways(int word_bytes, unsigned stride);

}  // namespace gmlab
