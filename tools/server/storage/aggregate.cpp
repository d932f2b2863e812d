#include "storage/aggregate.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <set>
#include <stdexcept>

#include "storage/canonical_axis.hpp"
#include "storage/counter_rows.hpp"

namespace gmserver {

namespace {

// Quantile with linear interpolation between closest ranks (Hyndman and Fan
// type 7, numpy's and R's default). v is sorted and not empty.
double quantile(const std::vector<double> &v, double q) {
    const double pos = q * double(v.size() - 1);
    const std::size_t lo = static_cast<std::size_t>(pos);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - double(lo));
}

}  // namespace

void Aggregator::add(const PointRow &r) {
    if (!std::isfinite(r.value) || !std::isfinite(r.x)) return;
    const double x = canonical_x(r.x);  // the axis the maintained aggregates use
    // Rows come upload by upload, each series' points in order: most rows hit
    // the series and the x of the row before, so those are tried first.
    if (!last_series_ || r.series != last_series_->first.first || r.field != last_series_->first.second) {
        SeriesKey key{r.series, r.field};
        auto it = values_.find(key);
        if (it == values_.end()) {
            order_.push_back(key);
            it = values_.emplace(std::move(key), std::map<double, std::vector<double>>{}).first;
        }
        last_series_ = &*it;
        has_x_ = false;
    }
    auto &by_x = last_series_->second;
    if (!has_x_ || last_x_->first != x) {
        // The next x of the series is usually right after the previous one.
        auto hint = has_x_ ? std::next(last_x_) : by_x.begin();
        last_x_ = hint != by_x.end() && hint->first == x ? hint : by_x.try_emplace(x).first;
        has_x_ = true;
    }
    last_x_->second.push_back(r.value);
    if (r.run_id != last_run_) {
        runs_.insert(r.run_id);
        last_run_ = r.run_id;
    }
}

nlohmann::json Aggregator::result() {
    nlohmann::json series = nlohmann::json::array(), counters = nlohmann::json::array();
    for (const SeriesKey &key : order_) {
        nlohmann::json points = nlohmann::json::array();
        for (auto &[x, v] : values_[key]) {
            std::sort(v.begin(), v.end());
            points.push_back({{"x", x}, {"n", v.size()}, {"median", quantile(v, 0.5)}, {"q1", quantile(v, 0.25)}, {"q3", quantile(v, 0.75)}});
        }
        (is_counter_row(key.second) ? counters : series)
            .push_back({{"name", key.first}, {"field", key.second}, {"points", std::move(points)}});
    }
    nlohmann::json out = {{"series", std::move(series)}, {"uploads", runs_.size()}, {"quantiles", "linear interpolation between closest ranks (type 7)"}};
    if (!counters.empty()) out["counters"] = std::move(counters);
    return out;
}

nlohmann::json aggregate_points(const std::vector<PointRow> &rows) {
    Aggregator a;
    for (const PointRow &r : rows) a.add(r);
    return a.result();
}

}  // namespace gmserver

// ---- HistogramAggregate ----------------------------------------------------

namespace gmserver {

namespace {

constexpr std::int32_t kKeyOffset = 2000000;  // |log(value)| / log1p(w) stays below 1.5 million

void put_varint(std::string &out, std::uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

void put_f64(std::string &out, double v) {
    char b[8];
    std::memcpy(b, &v, 8);
    out.append(b, 8);
}

void put_text(std::string &out, const std::string &s) {
    put_varint(out, s.size());
    out += s;
}

// Bounded reads; any overrun throws.
struct StateReader {
    std::string_view d;
    [[noreturn]] static void damaged() { throw std::runtime_error("stored aggregate is damaged"); }
    std::uint64_t varint() {
        std::uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (d.empty()) damaged();
            const auto b = static_cast<unsigned char>(d.front());
            d.remove_prefix(1);
            v |= std::uint64_t(b & 0x7f) << shift;
            if (!(b & 0x80)) return v;
        }
        damaged();
    }
    double f64() {
        if (d.size() < 8) damaged();
        double v;
        std::memcpy(&v, d.data(), 8);
        d.remove_prefix(8);
        return v;
    }
    std::string text() {
        const std::uint64_t n = varint();
        if (n > d.size()) damaged();
        std::string s(d.data(), n);
        d.remove_prefix(n);
        return s;
    }
};

constexpr char kStateMagic[4] = {'G', 'M', 'H', '2'};
constexpr char kStateMagicV1[4] = {'G', 'M', 'H', '1'};  // schema version 1: no shapes, x as uploaded

}  // namespace

std::int32_t bin_key(double value) {
    if (value == 0) return 0;
    static const double inv_log_base = 1.0 / std::log1p(HistogramAggregate::kRelativeWidth);
    const double k = std::floor(std::log(std::fabs(value)) * inv_log_base);
    const auto key = static_cast<std::int32_t>(k) + kKeyOffset;
    return value > 0 ? key : -key;
}

void HistogramAggregate::fold(const std::vector<std::string> &strings, const std::vector<Point> &points, int sign) {
    bool any = false;
    // The series of each (name, field) pair of string indexes, looked up once
    // per point set (indexes into series_, which may grow while adding; -1:
    // none). Points come grouped by series, so the previous point's pair is
    // tried first.
    std::map<std::pair<std::uint32_t, std::uint32_t>, long> series_of;
    std::pair<std::uint32_t, std::uint32_t> last_pair;
    long si = -2;  // -2: no previous point
    // (series, canonical x) of this upload's points: its shape, counted below.
    std::vector<std::pair<long, double>> shape;
    shape.reserve(points.size());
    for (const Point &p : points) {
        if (!std::isfinite(p.x) || !std::isfinite(p.value) || p.series >= strings.size() || p.field >= strings.size())
            continue;
        any = true;
        const std::pair<std::uint32_t, std::uint32_t> pair{p.series, p.field};
        if (si == -2 || pair != last_pair) {
            const auto [found, added] = series_of.try_emplace(pair, -1);
            if (added) found->second = find_series(strings[p.series], strings[p.field], sign > 0);
            last_pair = pair;
            si = found->second;
        }
        if (si < 0) continue;
        const double x = canonical_x(p.x);
        shape.emplace_back(si, x);
        auto &xs = series_[static_cast<std::size_t>(si)].xs;
        const std::int32_t key = bin_key(p.value);
        if (sign > 0) {
            std::vector<Bin> &bins = xs[x];
            auto it = std::lower_bound(bins.begin(), bins.end(), key, [](const Bin &b, std::int32_t k) { return b.key < k; });
            if (it != bins.end() && it->key == key) {
                ++it->n;
                it->dsum += p.value - it->ref;
            } else {
                bins.insert(it, Bin{key, 1, p.value, 0.0});
            }
        } else {
            auto xit = xs.find(x);
            if (xit == xs.end()) continue;
            std::vector<Bin> &bins = xit->second;
            auto it = std::lower_bound(bins.begin(), bins.end(), key, [](const Bin &b, std::int32_t k) { return b.key < k; });
            if (it == bins.end() || it->key != key) continue;
            if (it->n <= 1) {
                bins.erase(it);
                if (bins.empty()) xs.erase(xit);
            } else {
                --it->n;
                it->dsum -= p.value - it->ref;
            }
        }
    }
    // The shape: per series its distinct canonical x, and the number of
    // series by their names (the same count in and out, whatever was found).
    std::sort(shape.begin(), shape.end());
    shape.erase(std::unique(shape.begin(), shape.end()), shape.end());
    for (std::size_t i = 0; i < shape.size();) {
        std::size_t j = i;
        while (j < shape.size() && shape[j].first == shape[i].first) ++j;
        count_shape(series_[static_cast<std::size_t>(shape[i].first)].shapes, static_cast<std::uint32_t>(j - i), sign);
        i = j;
    }
    if (any) {
        std::set<std::pair<std::string_view, std::string_view>> names;
        for (const auto &entry : series_of) names.emplace(strings[entry.first.first], strings[entry.first.second]);
        count_shape(series_shapes_, static_cast<std::uint32_t>(names.size()), sign);
    }
    if (sign < 0)
        series_.erase(std::remove_if(series_.begin(), series_.end(), [](const Series &s) { return s.xs.empty(); }),
                      series_.end());
    if (any) {
        if (sign > 0) ++uploads_;
        else if (uploads_ > 0) --uploads_;
    }
    if (series_.empty()) {
        uploads_ = 0;
        series_shapes_.clear();
    }
}

void HistogramAggregate::count_shape(Shapes &shapes, std::uint32_t count, int sign) {
    if (sign > 0) {
        ++shapes[count];
        return;
    }
    const auto it = shapes.find(count);
    if (it == shapes.end()) return;  // not there: a damaged state, as for points
    if (--it->second == 0) shapes.erase(it);
}

std::uint32_t HistogramAggregate::largest(const Shapes &shapes) { return shapes.empty() ? 0 : shapes.rbegin()->first; }

long HistogramAggregate::find_series(const std::string &name, const std::string &field, bool add) {
    for (std::size_t i = 0; i < series_.size(); ++i)
        if (series_[i].name == name && series_[i].field == field) return static_cast<long>(i);
    if (!add) return -1;
    series_.push_back(Series{name, field, {}, {}});
    return static_cast<long>(series_.size() - 1);
}

void HistogramAggregate::fold_rows(const std::vector<PointRow> &rows, int sign) {
    std::vector<std::string> strings;
    std::map<std::string, std::uint32_t> index;
    auto intern = [&](const std::string &s) {
        auto [it, added] = index.emplace(s, static_cast<std::uint32_t>(strings.size()));
        if (added) strings.push_back(s);
        return it->second;
    };
    std::vector<Point> points;
    points.reserve(rows.size());
    for (const PointRow &r : rows) points.push_back(Point{intern(r.series), intern(r.field), r.x, r.value});
    fold(strings, points, sign);
}

void HistogramAggregate::visit(const std::function<void(const std::string &, const std::string &, double,
                                                         const std::vector<BinValue> &)> &f) const {
    std::vector<BinValue> values;
    for (const Series &s : series_) {
        for (const auto &[x, bins] : s.xs) {
            values.clear();
            for (const Bin &b : bins)
                if (b.n) values.push_back({b.ref + b.dsum / double(b.n), b.n});
            if (!values.empty()) f(s.name, s.field, x, values);
        }
    }
}

std::vector<std::size_t> HistogramAggregate::shown_series() const {
    std::vector<std::size_t> shown(series_.size());
    std::iota(shown.begin(), shown.end(), std::size_t{0});
    const std::uint32_t cap = largest(series_shapes_);
    if (cap == 0 || series_.size() <= cap) return shown;  // 0: no shapes known, nothing to bound by
    // Those in the most uploads; of equal ones, those that came first.
    std::vector<std::uint64_t> uploads(series_.size(), 0);
    for (std::size_t i = 0; i < series_.size(); ++i)
        for (const auto &entry : series_[i].shapes) uploads[i] += entry.second;
    std::stable_sort(shown.begin(), shown.end(), [&](std::size_t a, std::size_t b) { return uploads[a] > uploads[b]; });
    shown.resize(cap);
    std::sort(shown.begin(), shown.end());
    return shown;
}

namespace {

// Type 7 quantiles of one x's bins (n values in all): the values of ranks
// floor(q (n-1)) and the next one, each the mean of its bin, interpolated.
template <class Bins>
nlohmann::json quartile_point(double x, const Bins &bins, std::uint64_t n) {
    const double qs[3] = {0.5, 0.25, 0.75};
    double out[3];
    for (int i = 0; i < 3; ++i) {
        const double pos = qs[i] * double(n - 1);
        const std::uint64_t lo = static_cast<std::uint64_t>(pos);
        const std::uint64_t hi = std::min(lo + 1, n - 1);
        double vlo = 0, vhi = 0;
        std::uint64_t seen = 0;
        bool have_lo = false;
        for (const auto &b : bins) {
            const std::uint64_t end = seen + b.n;  // ranks [seen, end) are in this bin
            const double mean = b.ref + b.dsum / double(b.n);
            if (!have_lo && lo < end) {
                vlo = mean;
                have_lo = true;
            }
            if (hi < end) {
                vhi = mean;
                break;
            }
            seen = end;
        }
        out[i] = vlo + (vhi - vlo) * (pos - double(lo));
    }
    return {{"x", x}, {"n", n}, {"median", out[0]}, {"q1", out[1]}, {"q3", out[2]}};
}

}  // namespace

nlohmann::json HistogramAggregate::result() const {
    nlohmann::json series = nlohmann::json::array(), counters = nlohmann::json::array();
    const std::vector<std::size_t> shown = shown_series();
    std::uint64_t points_left_out = 0;
    for (const std::size_t si : shown) {
        const Series &s = series_[si];
        // Each x with its count of values; beyond the most points one upload
        // had, those with the largest n (of equal ones, the smaller x).
        std::vector<std::pair<const std::pair<const double, std::vector<Bin>> *, std::uint64_t>> xs;
        xs.reserve(s.xs.size());
        for (const auto &entry : s.xs) {
            std::uint64_t n = 0;
            for (const Bin &b : entry.second) n += b.n;
            if (n) xs.emplace_back(&entry, n);
        }
        const std::uint32_t cap = largest(s.shapes);
        if (xs.size() > cap && cap > 0) {
            std::stable_sort(xs.begin(), xs.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
            points_left_out += xs.size() - cap;
            xs.resize(cap);
            std::sort(xs.begin(), xs.end(), [](const auto &a, const auto &b) { return a.first->first < b.first->first; });
        }
        nlohmann::json points = nlohmann::json::array();
        for (const auto &[entry, n] : xs) points.push_back(quartile_point(entry->first, entry->second, n));
        (is_counter_row(s.field) ? counters : series).push_back({{"name", s.name}, {"field", s.field}, {"points", std::move(points)}});
    }
    nlohmann::json out = {
        {"series", std::move(series)},
        {"uploads", uploads_},
        {"quantiles", "linear interpolation between closest ranks (type 7) over values kept in bins of 0.05 % "
                      "relative width: within 0.05 % of the exact value, exact where a bin holds one distinct value"},
        {"resolution", kRelativeWidth}};
    // Only where there are counter rows: every other aggregate reads as before.
    if (!counters.empty()) out["counters"] = std::move(counters);
    // Only where the uploads' shapes bounded what is shown.
    if (shown.size() < series_.size() || points_left_out > 0)
        out["left_out"] = {{"series", series_.size() - shown.size()}, {"points", points_left_out}};
    return out;
}

// Layout: "GMH2", varint uploads, the series shapes, varint series count;
// per series its name and field (varint length + bytes), its shapes and
// varint x count; per x the x (f64) and varint bin count; per bin the key as
// a zig-zag varint difference to the previous bin's key, varint (n << 1 |
// dsum != 0), ref (f64), dsum (f64, only when not 0). Shapes: varint entry
// count, per entry varint count and varint uploads. Doubles are stored
// little-endian as in memory. "GMH1" (schema version 1) is the same without
// the shapes.
namespace {

void put_shapes(std::string &out, const std::map<std::uint32_t, std::uint64_t> &shapes) {
    put_varint(out, shapes.size());
    for (const auto &[count, uploads] : shapes) {
        put_varint(out, count);
        put_varint(out, uploads);
    }
}

std::map<std::uint32_t, std::uint64_t> read_shapes(StateReader &r) {
    std::map<std::uint32_t, std::uint64_t> shapes;
    const std::uint64_t n = r.varint();
    if (n > r.d.size()) StateReader::damaged();
    for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint64_t count = r.varint(), uploads = r.varint();
        if (count > UINT32_MAX || uploads == 0 || !shapes.emplace(static_cast<std::uint32_t>(count), uploads).second)
            StateReader::damaged();
    }
    return shapes;
}

}  // namespace

std::string HistogramAggregate::encode() const {
    std::string out(kStateMagic, 4);
    put_varint(out, uploads_);
    put_shapes(out, series_shapes_);
    put_varint(out, series_.size());
    for (const Series &s : series_) {
        put_text(out, s.name);
        put_text(out, s.field);
        put_shapes(out, s.shapes);
        put_varint(out, s.xs.size());
        for (const auto &[x, bins] : s.xs) {
            put_f64(out, x);
            put_varint(out, bins.size());
            std::int64_t prev = 0;
            for (const Bin &b : bins) {
                const std::int64_t d = std::int64_t(b.key) - prev;
                prev = b.key;
                put_varint(out, (static_cast<std::uint64_t>(d) << 1) ^ static_cast<std::uint64_t>(d >> 63));
                put_varint(out, (b.n << 1) | (b.dsum != 0 ? 1 : 0));
                put_f64(out, b.ref);
                if (b.dsum != 0) put_f64(out, b.dsum);
            }
        }
    }
    return out;
}

void HistogramAggregate::merge_bins(std::vector<Bin> &into, const std::vector<Bin> &bins) {
    for (const Bin &b : bins) {
        auto it = std::lower_bound(into.begin(), into.end(), b.key, [](const Bin &a, std::int32_t k) { return a.key < k; });
        if (it == into.end() || it->key != b.key) {
            into.insert(it, b);
            continue;
        }
        // Measured from it->ref, b's values add up to b.n (b.ref - it->ref) + b.dsum: the mean stays exact.
        it->dsum += b.dsum + double(b.n) * (b.ref - it->ref);
        it->n += b.n;
    }
}

HistogramAggregate HistogramAggregate::decode(std::string_view data) {
    HistogramAggregate a;
    if (data.size() < 4) StateReader::damaged();
    const bool v1 = std::memcmp(data.data(), kStateMagicV1, 4) == 0;
    if (!v1 && std::memcmp(data.data(), kStateMagic, 4) != 0) StateReader::damaged();
    StateReader r{data.substr(4)};
    a.uploads_ = r.varint();
    if (!v1) a.series_shapes_ = read_shapes(r);
    const std::uint64_t ns = r.varint();
    if (ns > r.d.size()) StateReader::damaged();
    a.series_.reserve(ns);
    for (std::uint64_t i = 0; i < ns; ++i) {
        Series s;
        s.name = r.text();
        s.field = r.text();
        if (!v1) s.shapes = read_shapes(r);
        const std::uint64_t nx = r.varint();
        if (nx > r.d.size()) StateReader::damaged();
        for (std::uint64_t j = 0; j < nx; ++j) {
            const double x = r.f64();
            const std::uint64_t nb = r.varint();
            if (nb > r.d.size()) StateReader::damaged();
            std::vector<Bin> bins;
            bins.reserve(nb);
            std::int64_t key = 0;
            for (std::uint64_t k = 0; k < nb; ++k) {
                const std::uint64_t z = r.varint();
                key += static_cast<std::int64_t>(z >> 1) ^ -static_cast<std::int64_t>(z & 1);
                const std::uint64_t nf = r.varint();
                Bin b{static_cast<std::int32_t>(key), nf >> 1, r.f64(), 0.0};
                if (nf & 1) b.dsum = r.f64();
                if (b.n == 0 || (!bins.empty() && bins.back().key >= b.key)) StateReader::damaged();
                bins.push_back(b);
            }
            if (!v1) {
                if (!s.xs.empty() && s.xs.rbegin()->first >= x) StateReader::damaged();
                s.xs.emplace_hint(s.xs.end(), x, std::move(bins));
            } else {
                merge_bins(s.xs[canonical_x(x)], bins);  // x as uploaded: onto the canonical axis
            }
        }
        if (v1) {
            // No shapes were kept: the series' present size, in the uploads
            // its fullest point has, so that result() leaves nothing out.
            std::uint64_t uploads = 0;
            for (const auto &[x, bins] : s.xs) {
                std::uint64_t n = 0;
                for (const Bin &b : bins) n += b.n;
                uploads = std::max(uploads, n);
            }
            if (!s.xs.empty() && uploads) s.shapes[static_cast<std::uint32_t>(s.xs.size())] = uploads;
        }
        a.series_.push_back(std::move(s));
    }
    if (v1 && !a.series_.empty() && a.uploads_) a.series_shapes_[static_cast<std::uint32_t>(a.series_.size())] = a.uploads_;
    if (!r.d.empty()) StateReader::damaged();
    return a;
}

}  // namespace gmserver
