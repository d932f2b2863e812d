// Tables for the terminal (aligned columns, numbers right-aligned) and for
// pasting into an issue (Markdown pipes).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace gmreport {

class Table {
public:
    explicit Table(std::vector<std::string> headers, bool right_align_numbers = true)
        : headers_(std::move(headers)), right_align_numbers_(right_align_numbers) {}
    void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
    void print(std::ostream &os, const std::string &indent = "  ") const;
    void print_markdown(std::ostream &os) const;

private:
    std::vector<std::string> headers_;
    std::vector<std::vector<std::string>> rows_;
    bool right_align_numbers_;
};

// Fixed decimals ("3.14"), or "-" for a missing value (NaN).
std::string fixed(double v, int decimals);
// 1536 -> "1.5 KiB", 52428800 -> "50 MiB".
std::string bytes_text(double bytes);
// Whole numbers as they are, others with three significant digits or more.
std::string readable(double v);
// A swept value (a series' x) as the reports print it, given the axis' unit:
// bytes_text where it is "bytes" (268435456 -> "256 MiB"), else whole numbers
// as they are and others with three decimals.
std::string x_text(double x, const std::string &unit);

}  // namespace gmreport
