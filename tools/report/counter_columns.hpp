// Which hardware counters of a point the reports show, and under which short
// names: the figures derived from counters and the counters a reader compares
// with a model. Raw sector, request and instruction counts stay in the JSON
// (their ratios are shown). One list for the text tables, compare and HTML.
#pragma once

#include <string>

namespace gmreport {

// True for a counter (key of a point's "counters" object) the reports show.
bool shown_counter(const std::string &key);

// Its column heading, e.g. "ctr sectors/req ld".
std::string counter_label(const std::string &key);

}  // namespace gmreport
