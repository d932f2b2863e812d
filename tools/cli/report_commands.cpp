// gmlab report and gmlab compare: documents in, text or HTML out. A bad input
// file gives a message naming it and exit 2; no partial output file is left.
#include <iostream>

#include "commands.hpp"
#include "compare.hpp"
#include "document.hpp"
#include "html_report.hpp"
#include "text_report.hpp"

namespace gmcli {

int cmd_report(const std::string &input, const std::string &html_file, bool markdown) {
    try {
        const nlohmann::json run = gmreport::load_run(input);
        if (!html_file.empty()) {
            gmreport::write_atomically(html_file, gmreport::html_report(run));
            std::cerr << "gmlab: wrote " << html_file << "\n";
            return kOk;
        }
        gmreport::write_run_text(std::cout, run, markdown);
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
