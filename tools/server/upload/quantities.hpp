// What a series measures, as the server judges it: the quantity a
// gmlab.result/1.3 series declares, or, for a document of an earlier version,
// the one its experiment and series imply. The quantity decides which derived
// figures a point may carry and the bound each figure is held to
// (docs/result-schema.md, "A series' quantity").
#pragma once

#include <string>
#include <string_view>

#include "vocabulary/quantity.hpp"

namespace gmserver {

// The quantities, their names ("dram_bandwidth", ... as the library writes
// them) and labels: the vocabulary's table, the library's own.
using Quantity = gmvocab::Quantity;
using gmvocab::is_bandwidth;
using gmvocab::parse_quantity;
using gmvocab::quantity_label;
using gmvocab::quantity_name;

// The quantity of a series of a document before 1.3, from what the library of
// that release wrote: the experiment's name, the series' name and its y.field.
Quantity legacy_quantity(std::string_view experiment, std::string_view series, std::string_view y_field);

// Which derived figures a point of a series may carry. A document before 1.3
// carried them for every point that counted bytes; these say which survive.
struct DerivedFigures {
    bool bandwidth = false;                // bytes, bandwidth_gbs and its spread
    bool fraction_of_theoretical = false;  // against DRAM, or against the link
    bool fraction_of_memcpy = false;       // DRAM only
};
// As a 1.3 document writes them.
DerivedFigures derived_figures(Quantity q);
// What survives of an earlier document: a fraction only where its reference
// was the quantity's own (the host link for the host<->device experiments,
// DRAM for the others), since before 1.3 one reference served every series.
DerivedFigures legacy_derived_figures(Quantity q, std::string_view experiment);

}  // namespace gmserver
