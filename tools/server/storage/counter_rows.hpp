// The stored rows that carry a series' model against its hardware counters.
//
// A 1.2 series with an "agreement" block names counted figures (keys of its
// points' "counters") that should equal a prediction (a key of "predicted")
// within a relative tolerance. For every counted point, validation stores,
// beside the headline row, three rows per figure C, all named after C so that
// they pair up without the document:
//   counters.<C>   the counted value
//   model.<C>      the prediction it is checked against (predicted.<P>)
//   tolerance.<C>  the relative tolerance of that check
// They live in the same point sets and per-model aggregates as the headline
// rows (series and field tell them apart), so a GPU page shows the counters
// across uploads without reading any upload. Aggregates list them under
// "counters", apart from "series", whose readers expect one field per series.
//
// Header-only: the fuzzer compiles upload/validate.cpp on its own.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace gmserver {

enum class CounterRow { None, Counted, Model, Tolerance };

constexpr std::string_view kCountedPrefix = "counters.", kModelPrefix = "model.", kTolerancePrefix = "tolerance.";

inline std::string counter_field(CounterRow kind, std::string_view counter) {
    const std::string_view prefix = kind == CounterRow::Counted ? kCountedPrefix
                                    : kind == CounterRow::Model ? kModelPrefix
                                                                : kTolerancePrefix;
    return std::string(prefix) + std::string(counter);
}

// What a stored row's field is, and the counted figure it belongs to
// (*counter, when not null). A headline field is None: no library
// experiment's y.field takes these forms, and the server does not resolve a
// y.field "counters.<name>" the way gm_result_point_value does.
inline CounterRow counter_row(std::string_view field, std::string_view *counter = nullptr) {
    for (const auto &[prefix, kind] : {std::pair{kCountedPrefix, CounterRow::Counted}, std::pair{kModelPrefix, CounterRow::Model},
                                       std::pair{kTolerancePrefix, CounterRow::Tolerance}})
        if (field.size() > prefix.size() && field.substr(0, prefix.size()) == prefix) {
            if (counter) *counter = field.substr(prefix.size());
            return kind;
        }
    return CounterRow::None;
}

inline bool is_counter_row(std::string_view field) { return counter_row(field) != CounterRow::None; }

}  // namespace gmserver
