// Per series and x: n, median and quartiles of the stored points' values
// across uploads, as aggregate_points (below) promises. Rows are taken one
// at a time and only their values kept, so that a model with thousands of
// uploads is aggregated without holding its rows.
//
// A series is a (name, field) pair: beside its headline, a series that
// compares hardware counters with its model has counter rows under the same
// name (counter_rows.hpp). Those are listed under "counters", so that
// "series" keeps one entry per name with its headline field, as before.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "storage/storage.hpp"

namespace gmserver {

class Aggregator {
public:
    void add(const PointRow &row);
    // {"series": [{"name", "field", "points": [{"x", "n", "median", "q1", "q3"}]}], "uploads", "quantiles"},
    // and "counters" (the same shape) where there are counter rows.
    nlohmann::json result();

private:
    using SeriesKey = std::pair<std::string, std::string>;  // name, field
    std::vector<SeriesKey> order_;  // series in the order they first appear
    std::map<SeriesKey, std::map<double, std::vector<double>>> values_;
    std::unordered_set<std::string> runs_;
    std::string last_run_;  // rows mostly come grouped by upload: skip the set for repeats
    // The series and the x of the previous row (map nodes and iterators stay valid).
    std::pair<const SeriesKey, std::map<double, std::vector<double>>> *last_series_ = nullptr;
    std::map<double, std::vector<double>>::iterator last_x_;
    bool has_x_ = false;
};

// Per series and x: n, median, first and third quartile of the points' values.
// {"series": [{"name", "field", "points": [{"x", "n", "median", "q1", "q3"}]}]},
// and "counters" of the same shape where there are counter rows.
nlohmann::json aggregate_points(const std::vector<PointRow> &rows);

}  // namespace gmserver

namespace gmserver {

// The maintained form of one (GPU model, experiment) aggregate: per series and
// x a histogram of the values in logarithmic bins of relative width
// kRelativeWidth. Histograms add and subtract, so uploads are folded in (and
// deleted ones out) one at a time, and the stored aggregate never has to be
// computed again from every upload. Each bin keeps its count and the exact
// mean of its values (a reference value and the sum of the differences to
// it): a quantile uses the mean of the bin its rank falls in, so it lies
// within kRelativeWidth of the exact type-7 quantile, and is exact where the
// bin holds one distinct value (identical uploads, a single upload).
//
// x is kept on the canonical axis (canonical_axis.hpp), so uploads whose x
// differ slightly add to the same points. What result() shows is bounded by
// the uploads' shapes, which are counted as they are folded (and subtract
// like the rest): per experiment at most as many series as the largest
// number one upload had, those in the most uploads; per series at most as
// many points as the most one upload had for it, those with the largest n.
// No number of uploads makes an aggregate larger than the largest upload's
// shape; what is left out is counted in "left_out".
class HistogramAggregate {
public:
    static constexpr double kRelativeWidth = 0.0005;  // 0.05 %

    // One point as the codec hands it over: indexes into the point set's strings.
    struct Point {
        std::uint32_t series, field;
        double x, value;
    };
    // Folds one upload's points of this experiment in (sign +1) or out (-1).
    // strings: the point set's series and field names; a series is a (name,
    // field) pair. An upload counts once
    // in "uploads" when at least one of its values is finite. Removing a point
    // that is not there (a damaged state) is ignored.
    void fold(const std::vector<std::string> &strings, const std::vector<Point> &points, int sign);
    // The same for PointRows (tests, and callers that have rows).
    void fold_rows(const std::vector<PointRow> &rows, int sign);

    bool empty() const { return uploads_ == 0 || series_.empty(); }
    std::uint64_t uploads() const { return uploads_; }
    // The API's aggregate: {"series": [{"name", "field", "points": [{"x", "n",
    // "median", "q1", "q3"}]}], "uploads", "quantiles", "resolution"}, and
    // "counters" in the shape of "series" where there are counter rows
    // (counter_rows.hpp): one entry per name and counter row field. Bounded
    // by the uploads' shapes (above); where that left series or points out,
    // also "left_out": {"series", "points"} (how many of each).
    nlohmann::json result() const;

    // Compact binary form (varints; see aggregate.cpp). decode() throws
    // std::runtime_error on damaged data. It also reads the form of schema
    // version 1 (no shapes, x as uploaded), which a server of that version
    // may still write while a newer one has upgraded the database: its x
    // are moved onto the canonical axis, and its shapes taken as its
    // current size, so nothing it holds is left out.
    std::string encode() const;
    static HistogramAggregate decode(std::string_view data);

    // A bin as readers see it: the mean of its values and how many there are.
    struct BinValue {
        double mean;
        std::uint64_t n;
    };
    // Each series and x with its non-empty bins, in increasing order of value:
    // for readers that need more than the quartiles (the outlier rule's
    // median absolute deviation, an upload's percentile).
    void visit(const std::function<void(const std::string &series, const std::string &field, double x,
                                        const std::vector<BinValue> &bins)> &f) const;

private:
    struct Bin {
        std::int32_t key;  // monotonic in the value: bin_key()
        std::uint64_t n;
        double ref;   // the first value that came into the bin
        double dsum;  // sum of (value - ref) over its values
    };
    // How many uploads had a given count of something (points of a series,
    // series of the experiment): folded in and out with them.
    using Shapes = std::map<std::uint32_t, std::uint64_t>;
    struct Series {
        std::string name, field;
        std::map<double, std::vector<Bin>> xs;  // canonical x -> bins sorted by key
        Shapes shapes;  // points of this series in one upload -> uploads
    };
    // Adds sign to the uploads with `count`; an entry that falls to 0 goes.
    static void count_shape(Shapes &shapes, std::uint32_t count, int sign);
    // The largest count with uploads, 0 when there is none.
    static std::uint32_t largest(const Shapes &shapes);
    // Series indexes in series_ that result() shows, in their order.
    std::vector<std::size_t> shown_series() const;
    // Merges bins (of one x, sorted by key) into `into` (sorted by key).
    static void merge_bins(std::vector<Bin> &into, const std::vector<Bin> &bins);
    // The index of the series (name, field) in series_, appended when add
    // is true; -1 when there is none.
    long find_series(const std::string &name, const std::string &field, bool add);

    std::vector<Series> series_;  // in the order they first appeared
    Shapes series_shapes_;        // series (name, field pairs) in one upload -> uploads
    std::uint64_t uploads_ = 0;
};

// The bin of a finite value: 0 for 0, positive and increasing for positive
// values, negative (and decreasing with the magnitude) for negative ones.
std::int32_t bin_key(double value);

}  // namespace gmserver
