// What a series measures. Every series declares one, and the declaration
// decides which figures the core derives for its points: a bandwidth (bytes /
// median time) only where bytes really move through a memory or a link, the
// fractions of the theoretical DRAM bandwidth and of cudaMemcpy only where
// they move through DRAM. A latency, a call's cost, a count or a ratio carries
// its own figure and nothing derived from bytes (gmlab.result/1.3,
// docs/result-schema.md). The names and their table are the vocabulary's,
// shared with the server (vocabulary/quantity.hpp).
#pragma once

#include <string>

#include "vocabulary/quantity.hpp"

namespace gmlab {

using Quantity = gmvocab::Quantity;
using gmvocab::is_bandwidth;
using gmvocab::quantity_label;
using gmvocab::quantity_name;

// Parses quantity_name's text; false for an unknown name.
inline bool quantity_from_name(const std::string &name, Quantity *out) { return gmvocab::parse_quantity(name, out); }

}  // namespace gmlab
