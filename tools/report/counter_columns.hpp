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

// Whether a counter's value lies in the range its name gives it: a share
// ("_share") in 0..1, a percentage (".pct", ".pct_of_...", "_pct") in 0..100,
// every figure finite and at least 0 (the library's rule, counters.hpp). The
// library leaves out what is outside; documents written before it did may
// still hold such a value (lts__t_sector_hit_rate.pct above 100 % over short
// ranges), and the reports show none of them.
bool counter_in_range(const std::string &key, double value);

}  // namespace gmreport
