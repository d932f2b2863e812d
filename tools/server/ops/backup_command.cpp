#include "ops/backup_command.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <map>
#include <string>

#include "storage/backup.hpp"

namespace gmserver {

namespace {

const char *kUsage =
    "usage: gmlab-server backup --db URL --to FILE\n"
    "       gmlab-server restore --from FILE --db URL\n"
    "  backup   copies the database (SQLite: online, while the server runs) into FILE, which must not exist\n"
    "  restore  copies a backup FILE into a new database at URL, which must not exist\n"
    "  PostgreSQL: use pg_dump --format=custom --compress=1 and pg_restore (deploy/README.md, \"Backups\")\n";

// --name value pairs among `allowed`; false (with the message printed) otherwise.
bool parse(int argc, char **argv, const std::initializer_list<const char *> &allowed, std::map<std::string, std::string> *out) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            std::cout << kUsage;
            std::exit(0);
        }
        bool known = false;
        for (const char *k : allowed) known = known || a == k;
        if (!known || i + 1 >= argc) {
            std::cerr << "gmlab-server " << argv[0] << ": " << (known ? a + " needs a value" : "unknown option " + a) << "\n"
                      << kUsage;
            return false;
        }
        (*out)[a] = argv[++i];
    }
    for (const char *k : allowed)
        if (!out->count(k)) {
            std::cerr << "gmlab-server " << argv[0] << ": " << k << " is required\n" << kUsage;
            return false;
        }
    return true;
}

void print(const char *what, const BackupReport &r, const std::string &where) {
    std::printf("gmlab-server %s: %llu uploads, schema version %d, %llu bytes in %.2f s: %s\n", what,
                static_cast<unsigned long long>(r.uploads), r.schema_version, static_cast<unsigned long long>(r.bytes),
                r.seconds, where.c_str());
}

// The subcommand's flags parsed, its work done, its report printed.
int run(int argc, char **argv, const char *first, const char *second,
        BackupReport (*work)(const std::string &, const std::string &), const char *where) {
    std::map<std::string, std::string> a;
    if (!parse(argc, argv, {first, second}, &a)) return 2;
    try {
        print(argv[0], work(a[first], a[second]), a[where]);
        return 0;
    } catch (const std::exception &e) {
        std::cerr << "gmlab-server " << argv[0] << ": " << e.what() << "\n";
        return 1;
    }
}

}  // namespace

int backup_command(int argc, char **argv) { return run(argc, argv, "--db", "--to", backup_database, "--to"); }

int restore_command(int argc, char **argv) { return run(argc, argv, "--from", "--db", restore_database, "--db"); }

}  // namespace gmserver
