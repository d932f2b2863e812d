#include "config_file.hpp"

#include <fstream>
#include <sstream>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

namespace gmserver {

bool read_config_file(const std::string &path, ServerConfig *config, std::string *why) {
    struct stat st{};
    if (stat(path.c_str(), &st) != 0) return *why = "cannot be read", false;
    if (st.st_mode & (S_IRWXG | S_IRWXO)) return *why = "holds a secret but other users may read it; chmod 600 it", false;
    std::ifstream in(path, std::ios::binary);
    if (!in) return *why = "cannot be read", false;
    std::ostringstream text;
    text << in.rdbuf();
    const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
    if (!j.is_object()) return *why = "is not a JSON object", false;
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (it.key() != "moderator_token") return *why = "unknown setting " + it.key(), false;
        if (!it.value().is_string() || it.value().get<std::string>().size() < 16)
            return *why = "moderator_token must be a string of at least 16 characters", false;
        config->moderator_token = it.value().get<std::string>();
    }
    return true;
}

}  // namespace gmserver
