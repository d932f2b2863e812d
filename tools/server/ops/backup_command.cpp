#include "ops/backup_command.hpp"

#include <cstdio>
#include <exception>
#include <iostream>
#include <map>
#include <utility>
#include <string>

#include <CLI/CLI.hpp>

#include "ops/command_line.hpp"
#include "storage/backup.hpp"

namespace gmserver {

namespace {

const char *kUsage =
    "usage: gmlab-server backup --db URL --to FILE\n"
    "       gmlab-server restore --from FILE --db URL\n"
    "  backup   copies the database (SQLite: online, while the server runs) into FILE, which must not exist\n"
    "  restore  copies a backup FILE into a new database at URL, which must not exist\n"
    "  PostgreSQL: use pg_dump --format=custom --compress=1 and pg_restore (deploy/README.md, \"Backups\")\n";

void print(const char *what, const BackupReport &r, const std::string &where) {
    std::printf("gmlab-server %s: %llu uploads, schema version %d, %llu bytes in %.2f s: %s\n", what,
                static_cast<unsigned long long>(r.uploads), r.schema_version, static_cast<unsigned long long>(r.bytes),
                r.seconds, where.c_str());
}

// One subcommand: what it does, its two options (both required) and its work.
struct Subcommand {
    const char *what;
    std::pair<const char *, const char *> first, second;  // {option, what its value is}
    BackupReport (*work)(const std::string &, const std::string &);
    const char *reported;  // the option whose value the report names
};

// The options read by CLI11, as the server's own are; the work done and its
// report printed. Exit 2 on a bad command line (with the usage), 1 when the
// work fails, 0 otherwise.
int run(int argc, char **argv, const Subcommand &c) {
    const std::string program = std::string("gmlab-server ") + argv[0];
    CLI::App app(c.what, program);
    std::map<std::string, std::string> a;
    for (const auto &[name, text] : {c.first, c.second}) app.add_option(name, a[name], text)->required()->type_name("");
    if (int rc = parse_command_line(app, argc, argv, program, kUsage); rc >= 0) return rc;
    try {
        print(argv[0], c.work(a[c.first.first], a[c.second.first]), a[c.reported]);
        return 0;
    } catch (const std::exception &e) {
        std::cerr << program << ": " << e.what() << "\n";
        return 1;
    }
}

const char *kPostgres = " PostgreSQL: use pg_dump --format=custom --compress=1 and pg_restore (deploy/README.md, \"Backups\").";

}  // namespace

int backup_command(int argc, char **argv) {
    const std::string what = std::string("Copies the database (SQLite: online, while the server runs) into a new file.") + kPostgres;
    return run(argc, argv, {what.c_str(), {"--db", "the database: a path or sqlite:PATH"}, {"--to", "FILE to write; must not exist"},
                            backup_database, "--to"});
}

int restore_command(int argc, char **argv) {
    const std::string what = std::string("Copies a backup file into a new database.") + kPostgres;
    return run(argc, argv, {what.c_str(), {"--from", "FILE written by gmlab-server backup"},
                            {"--db", "the database to create: a path or sqlite:PATH; must not exist"}, restore_database, "--db"});
}

}  // namespace gmserver
