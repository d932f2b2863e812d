// The server's configuration file: settings that must not appear on a command
// line (where every user of the machine can read them in /proc), such as the
// moderator token. JSON: {"moderator_token": "..."}.
#pragma once

#include <string>

#include "web/api.hpp"

namespace gmserver {

// Reads the file into config. False with *why when the file cannot be read,
// is not such a JSON object, names an unknown setting, holds a token shorter
// than 16 characters, or can be read by users other than its owner.
bool read_config_file(const std::string &path, ServerConfig *config, std::string *why);

}  // namespace gmserver
