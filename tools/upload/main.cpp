// gmlab-upload: sends a gmlab.run/1 document to a gmlab-server, or keeps it in
// a spool until the server can be reached.
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "document.hpp"
#include "gmlab.h"
#include "upload.hpp"

int main(int argc, char **argv) {
    CLI::App app{
        "gmlab-upload " + std::string(gm_version()) +
        ": send a run (gmlab run --json FILE) to a gmlab-server, where it is public.\n"
        "The device's UUID and PCI bus id and the directories in the recorded command line are removed first;\n"
        "no host names, user names or serial numbers are sent. --dry-run prints the exact document.\n"
        "Exit codes: 0 uploaded (or flushed), 2 invalid input or usage (nothing sent),\n"
        "3 rejected by the server (4xx other than 429; nothing spooled),\n"
        "4 network failure or server unavailable after the retries (the document is spooled)."};
    app.set_version_flag("--version", std::string("gmlab-upload ") + gm_version());

    std::string input, spool_dir;
    bool dry_run = false, do_flush = false;
    gmupload::SendOptions opt;
    app.add_option("run", input, "a gmlab.run/1 (or gmlab.result/1) file");
    app.add_option("--server", opt.server, "the server's base URL, e.g. https://gmlab.example.org");
    app.add_flag("--dry-run", dry_run, "print the exact document that would be sent, send nothing");
    app.add_flag("--flush", do_flush, "send every spooled document, remove those the server took or refused as invalid");
    app.add_option("--spool", spool_dir, "spool directory (default $XDG_STATE_HOME/gmlab/spool or ~/.local/state/gmlab/spool)");
    app.add_flag("--insecure", opt.insecure, "do not verify the server's TLS certificate and host name");
    app.add_option("--retries", opt.retries, "further attempts after network errors, 5xx and 429 (default 5)")
        ->check(CLI::Range(0, 20));
    app.add_option("--timeout", opt.timeout_s, "seconds for one request (default 60)")->check(CLI::Range(0.1, 3600.0));
    app.add_option("--backoff", opt.backoff_s, "seconds before the first retry, doubled each time (default 0.5)")
        ->check(CLI::Range(0.0, 60.0));
    app.add_option("--max-wait", opt.max_delay_s, "longest single wait in seconds; a longer Retry-After spools (default 60)")
        ->check(CLI::Range(0.0, 3600.0));

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : gmupload::kInvalid;
    }
    if (do_flush == !input.empty()) {
        std::cerr << "gmlab-upload: give either a run file or --flush (see --help)\n";
        return gmupload::kInvalid;
    }
    if (!dry_run || do_flush) {
        if (const std::string why = gmupload::check_server_url(opt.server); !why.empty()) {
            std::cerr << "gmlab-upload: " << why << "\n";
            return gmupload::kInvalid;
        }
    }
    opt.log = &std::cerr;
    try {
        if (spool_dir.empty()) spool_dir = gmupload::default_spool_dir();
        if (do_flush) return gmupload::flush(opt, spool_dir, std::cout, std::cerr);
        gmupload::Prepared p;
        try {
            p = gmupload::prepare(gmreport::load_run(input), input);
        } catch (const gmreport::ReportError &e) {
            std::cerr << "gmlab-upload: " << e.what() << " (nothing sent)\n";
            return gmupload::kInvalid;
        }
        if (dry_run) {
            std::cout << gmupload::dry_run_text(p, opt);
            return gmupload::kOk;
        }
        return gmupload::upload(p, opt, spool_dir, std::cout, std::cerr);
    } catch (const std::exception &e) {
        std::cerr << "gmlab-upload: " << e.what() << "\n";
        return gmupload::kInvalid;
    }
}
