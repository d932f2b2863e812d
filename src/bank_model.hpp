// The guide's model of shared memory (compute capability 5.0 and later): 32
// banks of 4 bytes; lanes that touch different words in one bank are served
// one after another, lanes that touch the same word share one access.
#pragma once

namespace gmlab {

// Passes (wavefronts) the shared memory needs for one warp-wide access in which
// lane t touches word (t * stride) of word_bytes (4 or 8). stride 0: every lane
// the same word. 8-byte accesses are served a half-warp at a time, so even a
// conflict-free one takes 2 passes.
int shared_wavefronts(int word_bytes, unsigned stride);

// The n-way conflict: passes over the passes of a conflict-free access.
int shared_conflict_ways(int word_bytes, unsigned stride);

}  // namespace gmlab
