// gmlab report and gmlab compare: documents in, text or HTML out. A bad input
// file gives a message naming it and exit 2; no partial output file is left.
#include <iostream>

#include "commands.hpp"
#include "compare.hpp"
#include "document.hpp"
#include "glance.hpp"
#include "html_report.hpp"
#include "http_get.hpp"
#include "text_report.hpp"

namespace gmcli {

namespace {

// The crowd's medians of the run's GPU model for the glance: one
// GET /api/v1/experiments/{name} per experiment it reads; after a request
// that got no answer at all the rest are not tried (the same reason stands).
nlohmann::json fetch_crowd_medians(const std::string &server, const nlohmann::json &run) {
    std::vector<std::pair<std::string, nlohmann::json>> answers;
    std::string unreachable;
    for (const std::string &experiment : gmreport::glance_experiments()) {
        if (!unreachable.empty()) {
            answers.push_back({experiment, "not asked: " + unreachable});
            continue;
        }
        HttpGetResult got = http_get_json(server_base(server) + "/api/v1/experiments/" + path_segment(experiment));
        if (got.status == 0) unreachable = got.why;
        answers.push_back({experiment, got.doc.is_null() ? nlohmann::json(got.why) : got.doc});
    }
    return gmreport::crowd_from_answers(server, run["device"].value("name", ""), answers);
}

}  // namespace

int cmd_report(const std::string &input, const std::string &html_file, bool markdown, const std::string &server) {
    try {
        const nlohmann::json run = gmreport::load_run(input);
        const nlohmann::json crowd = server.empty() ? nlohmann::json() : fetch_crowd_medians(server, run);
        if (!html_file.empty()) {
            gmreport::write_atomically(html_file, gmreport::html_report(run, crowd));
            std::cerr << "gmlab: wrote " << html_file << "\n";
            return kOk;
        }
        gmreport::write_run_text(std::cout, run, markdown, crowd);
        return kOk;
    } catch (const gmreport::ReportError &e) {
        std::cerr << "gmlab: " << e.what() << "\n";
        return kUsage;
    }
}

int cmd_compare(const std::string &a, const std::string &b, const std::string &html_file, bool markdown) {
    try {
        const nlohmann::json ra = gmreport::load_run(a), rb = gmreport::load_run(b);
        const nlohmann::json cmp = gmreport::compare_runs(ra, rb);
        if (cmp["rows"].empty()) {
            std::cerr << "gmlab: " << a << " and " << b << " have no experiment, series and point in common\n";
            return kUsage;
        }
        if (!html_file.empty()) {
            gmreport::write_atomically(html_file, gmreport::html_compare(ra, rb, cmp));
            std::cerr << "gmlab: wrote " << html_file << "\n";
            return kOk;
        }
        gmreport::write_compare_text(std::cout, ra, rb, cmp, markdown);
        return kOk;
    } catch (const gmreport::ReportError &e) {
        std::cerr << "gmlab: " << e.what() << "\n";
        return kUsage;
    }
}

}  // namespace gmcli
