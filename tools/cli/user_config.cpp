#include "user_config.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace gmcli {

using nlohmann::json;

namespace {

const char *const kConfigFile = "config.json";
const char *const kTokenFile = "delete-tokens.jsonl";

bool absolute(const char *p) { return p && p[0] == '/'; }

}  // namespace

std::string config_dir(const EnvLookup &env) {
    if (const char *x = env("XDG_CONFIG_HOME"); absolute(x)) return std::string(x) + "/gmlab";
    if (const char *home = env("HOME"); home && *home) return std::string(home) + "/.config/gmlab";
    return "";
}

UserConfig read_user_config(const std::string &path) {
    UserConfig c;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return c;  // no file: nothing configured
        throw ConfigError("cannot read the config file " + path + ": " + std::strerror(errno));
    }
    std::string text;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        ::close(fd);
        throw ConfigError("cannot read the config file " + path + ": it is a directory");
    }
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            const int e = errno;
            ::close(fd);
            throw ConfigError("cannot read the config file " + path + ": " + std::strerror(e));
        }
        text.append(buf, static_cast<std::size_t>(n));
        if (text.size() > (1u << 20)) {
            ::close(fd);
            throw ConfigError("the config file " + path + " is larger than 1 MiB; it is not a gmlab config");
        }
    }
    ::close(fd);
    const json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw ConfigError("the config file " + path + " is not a JSON object (expected {\"server\": \"https://...\"})");
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (it.key() != "server")
            throw ConfigError("the config file " + path + " has an unknown member \"" + it.key() + "\" (known: server)");
        if (!it.value().is_string())
            throw ConfigError("the config file " + path + ": \"server\" must be a string");
    }
    c.server = j.value("server", "");
    return c;
}

ServerChoice choose_server(const std::string &flag, const EnvLookup &env) {
    if (!flag.empty()) return {flag, "--server"};
    if (const char *s = env("GMLAB_SERVER"); s && *s) return {s, "GMLAB_SERVER"};
    const std::string dir = config_dir(env);
    if (dir.empty()) return {};
    const std::string path = dir + "/" + kConfigFile;
    const UserConfig c = read_user_config(path);
    if (c.server.empty()) return {};
    return {c.server, path};
}

std::string how_to_set_server(const EnvLookup &env) {
    const std::string dir = config_dir(env);
    return "no results server given: pass --server URL, set GMLAB_SERVER=URL, or write {\"server\": \"URL\"} to " +
           (dir.empty() ? std::string("$XDG_CONFIG_HOME/gmlab/") + kConfigFile : dir + "/" + kConfigFile);
}

std::string server_url_problem(const std::string &url) {
    std::size_t host = 0;
    if (url.rfind("http://", 0) == 0)
        host = 7;
    else if (url.rfind("https://", 0) == 0)
        host = 8;
    else
        return "the server URL must start with http:// or https://, got \"" + url + "\"";
    for (unsigned char c : url)
        if (std::isspace(c) || std::iscntrl(c)) return "the server URL must not contain spaces or control characters";
    const std::size_t end = url.find_first_of("/?#", host);
    const std::string authority = url.substr(host, end == std::string::npos ? std::string::npos : end - host);
    if (authority.empty() || authority[0] == ':' || authority[0] == '@')
        return "the server URL has no host name, got \"" + url + "\"";
    return "";
}

std::string save_delete_token(const std::string &dir, const json &record) {
    if (dir.empty()) throw std::runtime_error("neither XDG_CONFIG_HOME nor HOME is set");
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw std::runtime_error("cannot create " + dir + ": " + ec.message());
    const std::string path = dir + "/" + kTokenFile;
    // Created readable by the user only: a token deletes the upload.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
    const std::string line = record.dump() + "\n";
    const ssize_t n = ::write(fd, line.data(), line.size());
    const int write_errno = errno;
    const bool closed = ::close(fd) == 0;
    if (n != static_cast<ssize_t>(line.size()) || !closed)
        throw std::runtime_error("cannot write " + path + ": " + std::strerror(n < 0 ? write_errno : ENOSPC));
    return path;
}

}  // namespace gmcli
