// gmlab-server's command line (CLI11): the addresses, files and limits it is
// started with, read into the settings of the layers that use them.
#pragma once

#include <string>

#include "http/http_server.hpp"
#include "upload/shape_limits.hpp"
#include "web/api.hpp"

namespace gmserver {

// What the command line sets: the addresses, the files and the limits.
struct ServerFlags {
    std::string db = "results.sqlite", listen = "127.0.0.1:8080", metrics_listen, access_log_path = "-";
    double ready_max_backlog = 10000;
    ServerConfig config;
    TransportLimits limits;
    std::string config_file;
    ShapeSettings shape;        // what an upload may hold (upload/shape_limits.hpp)
    bool any_experiment = false;  // no shape table: any experiment name, any shape within the size limits
};

// Reads the flags (and GMLAB_ADMIN_TOKEN) into f: -1 to go on, else the exit
// status (0 after --help, 2 for a flag that is unknown, lacks its value, has
// a value out of its range or contradicts another; the reason is on stderr).
int read_flags(int argc, char **argv, ServerFlags &f);

// "HOST:PORT" or "[V6]:PORT"; false when it is not one.
bool parse_address(const std::string &a, std::string *host, int *port);

}  // namespace gmserver
