// The user's gmlab settings for contributing results: which server, where the
// delete tokens are kept. Host logic only (no libcurl), shared by
// `gmlab contribute` and the unit tests.
//
//   $XDG_CONFIG_HOME/gmlab/config.json   {"server": "https://gmlab.example.org"}
//   $XDG_CONFIG_HOME/gmlab/delete-tokens.jsonl   one line per upload: server, id, url, delete_token
//
// $XDG_CONFIG_HOME defaults to ~/.config (a relative value is ignored, as the
// XDG Base Directory specification says).
#pragma once

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "devices.hpp"  // EnvLookup

namespace gmcli {

// A config file that exists but cannot be read or is not what it should be.
struct ConfigError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// $XDG_CONFIG_HOME/gmlab or $HOME/.config/gmlab; "" when neither variable is usable.
std::string config_dir(const EnvLookup &env);

struct UserConfig {
    std::string server;  // "" when the file does not name one
};

// Reads the config file at `path`. A missing file is an empty config; one
// that cannot be read, is not a JSON object, or has a member other than a
// string "server" throws ConfigError naming the file and the problem.
UserConfig read_user_config(const std::string &path);

struct ServerChoice {
    std::string url;     // "" when none was found
    std::string source;  // "--server", "GMLAB_SERVER" or the config file's path
};

// --server, else $GMLAB_SERVER, else the config file (read only then, so a
// broken file does not matter when the server is given). Throws ConfigError.
ServerChoice choose_server(const std::string &flag, const EnvLookup &env);

// How to name a server, for the error when there is none.
std::string how_to_set_server(const EnvLookup &env);

// Checks that `url` is http:// or https:// with a host and no spaces;
// returns "" or what is wrong with it.
std::string server_url_problem(const std::string &url);

// Appends one upload's record (server, id, url, gpu_url, delete_token,
// created_at) to config_dir/delete-tokens.jsonl, readable by the user only;
// returns the file's path. Throws std::runtime_error when it cannot.
std::string save_delete_token(const std::string &dir, const nlohmann::json &record);

}  // namespace gmcli
