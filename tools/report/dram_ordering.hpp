// The consistency section's "DRAM bandwidth ordering": the rates of the
// operations a run times on DRAM (reads alone, writes alone, cudaMemsetAsync,
// STREAM copy and triad, cudaMemcpy device to device) side by side, each held
// to the best of the operations that read and write at once (copy, triad,
// cudaMemcpy). A one-direction operation has no bus turnarounds, so it should
// reach at least that rate; one that falls more than the tolerance below it
// is flagged unless its result states why in a note that starts with
// kOrderingNotePrefix. Part of consistency() (consistency.hpp).
#pragma once

#include <nlohmann/json.hpp>

namespace gmreport {

// The text a note of the lower operation's result starts with to state why
// the card is slower there than at the best copy (docs/result-schema.md).
inline constexpr const char *kOrderingNotePrefix = "DRAM ordering:";

// How far below the bar an operation may fall unexplained.
inline constexpr double kOrderingTolerance = 0.05;

// The group (the consistency block's shape, rule "ordering"), or null where
// the run has these figures from fewer than two experiments.
nlohmann::json dram_ordering(const nlohmann::json &run);

}  // namespace gmreport
