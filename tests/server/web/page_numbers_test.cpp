// A GPU model's page and the comparison of two models, drawn from aggregates
// that hold extreme values (as a database written before the validator
// bounded them may): every number printed in a few characters, in the HTML
// and in the charts' JSON, and no page is the larger for it.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "web/pages.hpp"

using namespace gmserver;
using nlohmann::json;

namespace {

json point(double x, double median, double q1, double q3) { return {{"x", x}, {"n", 3}, {"median", median}, {"q1", q1}, {"q3", q3}}; }

// One experiment's aggregate with extreme and long values.
json extreme_aggregate() {
    const double big = std::numeric_limits<double>::max();
    json points = json::array({point(1, -1e308, -big, 1e-300), point(2, 2621.8770000000002, 2600.1234567891, 2650.9876543219),
                               point(3.141592653589793, big, 1e300, big), point(1e15 - 0.5, 0.30000000000000004, 1e-310, 7)});
    return {{"series", json::array({{{"name", "copy"}, {"field", "bandwidth_gbs"}, {"points", points}}})},
            {"uploads", 3},
            {"counters", json::array({{{"name", "copy"}, {"field", "counters.sectors"}, {"points", json::array({point(1, -1e308, -1e308, 1e308)})}},
                                      {{"name", "copy"}, {"field", "model.sectors"}, {"points", json::array({point(1, 1e308, 1e308, 1e308)})}},
                                      {{"name", "copy"}, {"field", "tolerance.sectors"}, {"points", json::array({point(1, 1e300, 1e300, 1e300)})}}})}};
}

// The page's HTML without its scripts, and its charts' JSON.
std::pair<std::string, std::string> split(const std::string &page) {
    const std::string open = "<script id=\"gmlab-charts\" type=\"application/json\">";
    const auto at = page.find(open);
    if (at == std::string::npos) return {page, ""};
    const auto end = page.find("</script>", at);
    return {page.substr(0, at), page.substr(at + open.size(), end - at - open.size())};
}

// The longest run of digits in text.
std::size_t longest_digit_run(const std::string &text) {
    std::size_t longest = 0, run = 0;
    for (char c : text) {
        run = (c >= '0' && c <= '9') ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    return longest;
}

// Every number of the charts' JSON: at most 7 significant digits.
void expect_short_numbers(const json &j) {
    if (j.is_number_float()) {
        const std::string t = j.dump();
        std::string digits;
        for (char c : t.substr(0, t.find_first_of("eE")))
            if (c >= '0' && c <= '9') digits += c;
        const auto first = digits.find_first_not_of('0');
        const std::size_t n = first == std::string::npos ? 0 : digits.size() - first;
        // A whole number of up to 15 digits ends in ".0": its digits are its value.
        EXPECT_LE(n, t.size() > 2 && t.compare(t.size() - 2, 2, ".0") == 0 ? 16u : 7u) << t;
    } else if (j.is_structured()) {
        for (const json &e : j) expect_short_numbers(e);
    }
}

GpuIdentity gpu(const std::string &key) {
    GpuIdentity g;
    g.key = key;
    g.name = "NVIDIA " + key;
    return g;
}

}  // namespace

TEST(PageNumbers, AGpuPageWithExtremeValuesPrintsThemShort) {
    const std::string page = page_gpu(gpu("h200"), {{"transfer", extreme_aggregate()}}, {});
    const auto [html, charts] = split(page);
    EXPECT_LE(longest_digit_run(html), 16u);  // whole numbers below 1e15 at most
    EXPECT_NE(html.find("-1.000e+308"), std::string::npos);
    EXPECT_NE(html.find("1.798e+308"), std::string::npos);
    EXPECT_NE(html.find("<td>2622</td>"), std::string::npos);
    EXPECT_NE(html.find("3.142"), std::string::npos);
    EXPECT_EQ(html.find("2621.877"), std::string::npos);
    ASSERT_FALSE(charts.empty());
    const json parsed = json::parse(charts);
    expect_short_numbers(parsed);
    EXPECT_LE(longest_digit_run(charts), 16u);
    EXPECT_NE(charts.find("2621.877"), std::string::npos);  // 7 significant digits in the charts
    EXPECT_EQ(charts.find("2621.8770000000002"), std::string::npos);
    // The same page with ordinary values is not much smaller: nothing grew.
    json plain = extreme_aggregate();
    for (json &p : plain["series"][0]["points"]) p["median"] = p["q1"] = p["q3"] = 1.5;
    EXPECT_LE(page.size(), page_gpu(gpu("h200"), {{"transfer", plain}}, {}).size() + 400);
}

TEST(PageNumbers, TheComparisonOfTwoModelsPrintsExtremeRatiosShort) {
    json a = extreme_aggregate(), b = extreme_aggregate();
    b["series"][0]["points"][1]["median"] = -1e-308;  // B / A of about 1e-311; A / B beyond the doubles
    const std::string page = page_compare_gpus(gpu("a"), json::array({json::array({"transfer", a})}), gpu("b"),
                                               json::array({json::array({"transfer", b})}));
    const auto [html, charts] = split(page);
    EXPECT_LE(longest_digit_run(html), 16u);
    EXPECT_NE(html.find("-1.000e+308"), std::string::npos);
    ASSERT_FALSE(charts.empty());
    expect_short_numbers(json::parse(charts));
    const std::string swapped = page_compare_gpus(gpu("b"), json::array({json::array({"transfer", b})}), gpu("a"),
                                                  json::array({json::array({"transfer", a})}));
    EXPECT_LE(longest_digit_run(split(swapped).first), 16u);
    EXPECT_NE(split(swapped).first.find("\u2014"), std::string::npos);  // a ratio beyond the doubles: a dash
}
