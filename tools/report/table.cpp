#include "table.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace gmreport {

namespace {

// A cell that is one number (with an optional unit or percent after it).
bool numeric(const std::string &s) {
    if (s.empty() || s == "-") return true;
    char *end = nullptr;
    std::strtod(s.c_str(), &end);
    if (end == s.c_str()) return false;
    return *end == '\0' || *end == ' ' || *end == '%';
}

}  // namespace

void Table::print(std::ostream &os, const std::string &indent) const {
    std::vector<std::size_t> width(headers_.size());
    for (std::size_t c = 0; c < headers_.size(); ++c) width[c] = headers_[c].size();
    for (const auto &r : rows_)
        for (std::size_t c = 0; c < r.size() && c < width.size(); ++c) width[c] = std::max(width[c], r[c].size());
    auto line = [&](const std::vector<std::string> &cells, bool header) {
        std::string out = indent;
        for (std::size_t c = 0; c < width.size(); ++c) {
            const std::string cell = c < cells.size() ? cells[c] : "";
            const std::string pad(width[c] - cell.size(), ' ');
            const bool right = right_align_numbers_ && !header && c > 0 && numeric(cell);
            out += right ? pad + cell : cell + pad;
            if (c + 1 < width.size()) out += "  ";
        }
        while (!out.empty() && out.back() == ' ') out.pop_back();
        os << out << "\n";
    };
    line(headers_, true);
    std::vector<std::string> rule;
    for (std::size_t w : width) rule.emplace_back(w, '-');
    line(rule, true);
    for (const auto &r : rows_) line(r, false);
}

void Table::print_markdown(std::ostream &os) const {
    auto cell = [](std::string c) {
        for (std::size_t i = 0; (i = c.find('|', i)) != std::string::npos; i += 2) c.replace(i, 1, "\\|");
        return c;
    };
    os << "|";
    for (const auto &h : headers_) os << " " << cell(h) << " |";
    os << "\n|";
    for (std::size_t c = 0; c < headers_.size(); ++c) os << "---|";
    os << "\n";
    for (const auto &r : rows_) {
        os << "|";
        for (std::size_t c = 0; c < headers_.size(); ++c) os << " " << cell(c < r.size() ? r[c] : "") << " |";
        os << "\n";
    }
}

std::string readable(double v) {
    if (std::isnan(v)) return "-";
    if (v == std::floor(v) && std::fabs(v) < 1e15) return fixed(v, 0);
    const double a = std::fabs(v);
    return fixed(v, a >= 100 ? 1 : a >= 1 ? 3 : 4);
}

std::string x_text(double x, const std::string &unit) {
    if (unit == "bytes") return bytes_text(x);
    return fixed(x, x == std::floor(x) ? 0 : 3);
}

std::string fixed(double v, int decimals) {
    if (std::isnan(v)) return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string bytes_text(double bytes) {
    const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024 && u < 4) {
        bytes /= 1024;
        ++u;
    }
    char buf[64];
    if (bytes == std::floor(bytes))
        std::snprintf(buf, sizeof buf, "%.0f %s", bytes, units[u]);
    else
        std::snprintf(buf, sizeof buf, "%.1f %s", bytes, units[u]);
    return buf;
}

}  // namespace gmreport
