// Consistency across experiments: each quantity that more than one experiment
// of a run measures (an L2 hit's latency, a DRAM copy's bandwidth, the L1's
// capacity, ...), their figures side by side from the results' summaries, the
// spread of those expected to agree, and a flag where it is beyond the
// quantity's tolerance. Figures that measure something genuinely different
// (a generic ld beside ld.shared, a read stream beside a copy) are shown with
// the reason and never flag. Used by gmlab run (the run document's
// `consistency` block and its text), gmlab report and the server's pages.
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

namespace gmreport {

// The `consistency` block of a gmlab.run document (docs/result-schema.md):
// {"groups": [...], "flagged": n}, one group per quantity of which at least
// two figures expected to agree are in the run. Reads only the results'
// summaries and the device block; a figure absent from the run is left out.
nlohmann::json consistency(const nlohmann::json &run);

// The run's block where it carries one, else computed from the run.
nlohmann::json consistency_of(const nlohmann::json &run);

// The section at the end of a run's text (or Markdown) report.
void write_consistency_text(std::ostream &os, const nlohmann::json &block, bool markdown);

// The same as an HTML section (id "consistency"), escaped.
std::string consistency_html(const nlohmann::json &block);

}  // namespace gmreport
