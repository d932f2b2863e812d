// The spool: prepared documents that could not be delivered, one file each,
// named by submission_id so that a later --flush sends the very same upload.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include <unistd.h>

#include "upload.hpp"

namespace gmupload {

namespace fs = std::filesystem;

std::string default_spool_dir() {
    const char *state = std::getenv("XDG_STATE_HOME");
    if (state && *state && state[0] == '/') return std::string(state) + "/gmlab/spool";
    const char *home = std::getenv("HOME");
    if (!home || !*home) throw std::runtime_error("neither XDG_STATE_HOME nor HOME is set; give --spool DIR");
    return std::string(home) + "/.local/state/gmlab/spool";
}

std::string spool_write(const std::string &dir, const nlohmann::json &doc) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw std::runtime_error("cannot create the spool directory " + dir + ": " + ec.message());
    // The id was checked by prepare(): letters, digits, '.', '-' and '_' only (no '/'), so it
    // cannot leave the directory.
    const std::string path = (fs::path(dir) / (doc.at("submission_id").get<std::string>() + ".json")).string();
    const std::string tmp = path + ".partial." + std::to_string(::getpid());
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        f << doc.dump() << "\n";
        f.flush();
        if (!f) {
            fs::remove(tmp, ec);
            throw std::runtime_error("cannot write " + tmp);
        }
    }
    fs::rename(tmp, path, ec);
    if (ec) {
        fs::remove(tmp, ec);
        throw std::runtime_error("cannot write " + path);
    }
    return path;
}

std::vector<std::string> spool_list(const std::string &dir) {
    std::vector<std::string> files;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return files;
    for (const auto &e : fs::directory_iterator(dir, ec)) {
        // Only finished files: a ".partial.PID" one is still being written.
        if (e.is_regular_file(ec) && e.path().extension() == ".json") files.push_back(e.path().string());
    }
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace gmupload
