// Self-contained HTML reports: Chart.js and the drawing script inlined, so the
// file opens offline.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gmreport {

// False when this build has no Chart.js to inline (html_* then throw ReportError).
bool html_available();

// The run's report; it opens with "This GPU at a glance" (glance.hpp), with
// the crowd's medians where `crowd` is crowd_from_answers()' document.
std::string html_report(const nlohmann::json &run, const nlohmann::json &crowd = nullptr);
std::string html_compare(const nlohmann::json &a, const nlohmann::json &b, const nlohmann::json &cmp);

// A page of the same look as the reports around body_html (already escaped
// HTML): the report's style, and where charts is a non-empty array of
// chart_data()-shaped specs, Chart.js and the drawing script to draw them into
// the body's <canvas> elements of the same ids. A page without charts carries
// no script at all. Throws ReportError when charts are asked for in a build
// without Chart.js.
std::string html_page(const std::string &title, const std::string &body_html, const nlohmann::json &charts);

// Text made safe for HTML element content and attribute values.
std::string escape_html(const std::string &s);

}  // namespace gmreport
