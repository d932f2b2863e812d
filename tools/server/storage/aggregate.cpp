#include "storage/aggregate.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

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
    if (!has_x_ || last_x_->first != r.x) {
        // The next x of the series is usually right after the previous one.
        auto hint = has_x_ ? std::next(last_x_) : by_x.begin();
        last_x_ = hint != by_x.end() && hint->first == r.x ? hint : by_x.try_emplace(r.x).first;
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

constexpr char kStateMagic[4] = {'G', 'M', 'H', '1'};

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
        auto &xs = series_[static_cast<std::size_t>(si)].xs;
        const std::int32_t key = bin_key(p.value);
        if (sign > 0) {
            std::vector<Bin> &bins = xs[p.x];
            auto it = std::lower_bound(bins.begin(), bins.end(), key, [](const Bin &b, std::int32_t k) { return b.key < k; });
            if (it != bins.end() && it->key == key) {
                ++it->n;
                it->dsum += p.value - it->ref;
            } else {
                bins.insert(it, Bin{key, 1, p.value, 0.0});
            }
        } else {
            auto xit = xs.find(p.x);
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
    if (sign < 0)
        series_.erase(std::remove_if(series_.begin(), series_.end(), [](const Series &s) { return s.xs.empty(); }),
                      series_.end());
    if (any) {
        if (sign > 0) ++uploads_;
        else if (uploads_ > 0) --uploads_;
    }
    if (series_.empty()) uploads_ = 0;
}

long HistogramAggregate::find_series(const std::string &name, const std::string &field, bool add) {
    for (std::size_t i = 0; i < series_.size(); ++i)
        if (series_[i].name == name && series_[i].field == field) return static_cast<long>(i);
    if (!add) return -1;
    series_.push_back(Series{name, field, {}});
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

nlohmann::json HistogramAggregate::result() const {
    nlohmann::json series = nlohmann::json::array(), counters = nlohmann::json::array();
    for (const Series &s : series_) {
        nlohmann::json points = nlohmann::json::array();
        for (const auto &[x, bins] : s.xs) {
            std::uint64_t n = 0;
            for (const Bin &b : bins) n += b.n;
            if (n == 0) continue;
            // Type 7: the values of ranks floor(q (n-1)) and the next one,
            // each the mean of its bin, interpolated.
            const double qs[3] = {0.5, 0.25, 0.75};
            double out[3];
            for (int i = 0; i < 3; ++i) {
                const double pos = qs[i] * double(n - 1);
                const std::uint64_t lo = static_cast<std::uint64_t>(pos);
                const std::uint64_t hi = std::min(lo + 1, n - 1);
                double vlo = 0, vhi = 0;
                std::uint64_t seen = 0;
                bool have_lo = false;
                for (const Bin &b : bins) {
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
            points.push_back({{"x", x}, {"n", n}, {"median", out[0]}, {"q1", out[1]}, {"q3", out[2]}});
        }
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
    return out;
}

// Layout: "GMH1", varint uploads, varint series count; per series its name
// and field (varint length + bytes) and varint x count; per x the x (f64) and
// varint bin count; per bin the key as a zig-zag varint difference to the
// previous bin's key, varint (n << 1 | dsum != 0), ref (f64), dsum (f64, only
// when not 0). Doubles are stored little-endian as in memory.
std::string HistogramAggregate::encode() const {
    std::string out(kStateMagic, 4);
    put_varint(out, uploads_);
    put_varint(out, series_.size());
    for (const Series &s : series_) {
        put_text(out, s.name);
        put_text(out, s.field);
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

HistogramAggregate HistogramAggregate::decode(std::string_view data) {
    HistogramAggregate a;
    if (data.size() < 4 || std::memcmp(data.data(), kStateMagic, 4) != 0) StateReader::damaged();
    StateReader r{data.substr(4)};
    a.uploads_ = r.varint();
    const std::uint64_t ns = r.varint();
    if (ns > r.d.size()) StateReader::damaged();
    a.series_.reserve(ns);
    for (std::uint64_t i = 0; i < ns; ++i) {
        Series s;
        s.name = r.text();
        s.field = r.text();
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
            s.xs.emplace_hint(s.xs.end(), x, std::move(bins));
        }
        a.series_.push_back(std::move(s));
    }
    if (!r.d.empty()) StateReader::damaged();
    return a;
}

}  // namespace gmserver
