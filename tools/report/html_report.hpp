// Self-contained HTML reports: Chart.js and the drawing script inlined, so the
// file opens offline.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gmreport {

// False when this build has no Chart.js to inline (html_* then throw ReportError).
bool html_available();

std::string html_report(const nlohmann::json &run);
std::string html_compare(const nlohmann::json &a, const nlohmann::json &b, const nlohmann::json &cmp);

// Text made safe for HTML element content and attribute values.
std::string escape_html(const std::string &s);

}  // namespace gmreport
