// What gmlab-server and gmlab-server-fill read their command lines with
// (CLI11): numbers as the server has always taken them, and one way to say
// what was wrong and with which exit status.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace gmserver {

// A number of 0 or more in strtod's syntax; the reason otherwise ("not a
// number: soon", "-1 is out of range: it must be 0 or more"), which CLI11
// prefixes with the option's name. No description: the help shows the
// value's label alone.
const CLI::Validator &non_negative_number();

// Parses argv into app. -1 to go on, else the exit status: 0 after --help
// (the help on stdout); 2 for a value out of its range (the reason on
// stderr, after "program: "), or for an option that is unknown or lacks its
// value (the reason, then `usage`).
int parse_command_line(CLI::App &app, int argc, char **argv, const std::string &program, const std::string &usage);

}  // namespace gmserver
