// The contributor's settings: which server, the config file's errors, and
// the delete-token file (tools/cli/user_config.cpp).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "user_config.hpp"

namespace fs = std::filesystem;

namespace {

gmcli::EnvLookup config_env_of(std::map<std::string, std::string> vars) {
    return [vars = std::move(vars)](const char *name) -> const char * {
        const auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
    };
}

struct TempDir {
    fs::path path;
    TempDir() {
        char tmpl[] = "/tmp/gmlab-config-test-XXXXXX";
        path = mkdtemp(tmpl);
    }
    ~TempDir() {
        std::error_code ec;
        fs::permissions(path, fs::perms::owner_all, ec);
        fs::remove_all(path, ec);
    }
    void write(const std::string &rel, const std::string &text) const {
        fs::create_directories((path / rel).parent_path());
        std::ofstream(path / rel) << text;
    }
};

}  // namespace

TEST(UserConfig, ConfigDirFollowsXdgThenHome) {
    EXPECT_EQ(gmcli::config_dir(config_env_of({{"XDG_CONFIG_HOME", "/x/cfg"}, {"HOME", "/home/u"}})), "/x/cfg/gmlab");
    // A relative XDG_CONFIG_HOME is ignored, as the specification says.
    EXPECT_EQ(gmcli::config_dir(config_env_of({{"XDG_CONFIG_HOME", "rel"}, {"HOME", "/home/u"}})), "/home/u/.config/gmlab");
    EXPECT_EQ(gmcli::config_dir(config_env_of({})), "");
}

TEST(UserConfig, ServerComesFromFlagThenEnvironmentThenFile) {
    TempDir t;
    t.write("gmlab/config.json", R"({"server": "https://from-file.example"})");
    const auto env = config_env_of({{"XDG_CONFIG_HOME", t.path.string()}, {"GMLAB_SERVER", "http://from-env:8080"}});
    EXPECT_EQ(gmcli::choose_server("https://flag.example", env).url, "https://flag.example");
    EXPECT_EQ(gmcli::choose_server("", env).url, "http://from-env:8080");
    EXPECT_EQ(gmcli::choose_server("", env).source, "GMLAB_SERVER");
    const auto file_only = config_env_of({{"XDG_CONFIG_HOME", t.path.string()}});
    EXPECT_EQ(gmcli::choose_server("", file_only).url, "https://from-file.example");
    EXPECT_EQ(gmcli::choose_server("", file_only).source, (t.path / "gmlab/config.json").string());
}

TEST(UserConfig, NoServerAnywhereSaysHowToSetOne) {
    TempDir t;
    const auto env = config_env_of({{"XDG_CONFIG_HOME", t.path.string()}});
    EXPECT_EQ(gmcli::choose_server("", env).url, "");
    const std::string how = gmcli::how_to_set_server(env);
    EXPECT_NE(how.find("--server"), std::string::npos);
    EXPECT_NE(how.find("GMLAB_SERVER"), std::string::npos);
    EXPECT_NE(how.find((t.path / "gmlab/config.json").string()), std::string::npos) << how;
}

TEST(UserConfig, MalformedConfigFilesAreErrors) {
    TempDir t;
    const auto env = config_env_of({{"XDG_CONFIG_HOME", t.path.string()}});
    for (const char *bad : {"{\"server\": ", "[\"https://x\"]", "{\"server\": 5}", "{\"sever\": \"https://x\"}"}) {
        t.write("gmlab/config.json", bad);
        EXPECT_THROW(gmcli::choose_server("", env), gmcli::ConfigError) << bad;
        // Given on the command line, the file is not read at all.
        EXPECT_EQ(gmcli::choose_server("https://flag", env).url, "https://flag");
    }
}

TEST(UserConfig, UnreadableConfigFileIsAnError) {
    TempDir t;
    const auto env = config_env_of({{"XDG_CONFIG_HOME", t.path.string()}});
    fs::create_directories(t.path / "gmlab/config.json");  // a directory where the file should be
    try {
        gmcli::choose_server("", env);
        FAIL() << "a directory was read as the config file";
    } catch (const gmcli::ConfigError &e) {
        EXPECT_NE(std::string(e.what()).find("cannot read"), std::string::npos) << e.what();
    }
    if (geteuid() != 0) {  // root reads anything
        fs::remove(t.path / "gmlab/config.json");
        t.write("gmlab/config.json", R"({"server": "https://x"})");
        chmod((t.path / "gmlab/config.json").c_str(), 0);
        EXPECT_THROW(gmcli::choose_server("", env), gmcli::ConfigError);
    }
}

TEST(UserConfig, ServerUrlProblems) {
    EXPECT_EQ(gmcli::server_url_problem("https://gmlab.example.org"), "");
    EXPECT_EQ(gmcli::server_url_problem("http://127.0.0.1:8080/prefix"), "");
    EXPECT_NE(gmcli::server_url_problem("gmlab.example.org"), "");
    EXPECT_NE(gmcli::server_url_problem("ftp://gmlab.example.org"), "");
    EXPECT_NE(gmcli::server_url_problem("https://"), "");
    EXPECT_NE(gmcli::server_url_problem("http://:8080/"), "");
    EXPECT_NE(gmcli::server_url_problem("https://a b"), "");
}

TEST(UserConfig, DeleteTokensAreAppendedReadableByTheUserOnly) {
    TempDir t;
    const std::string dir = (t.path / "cfg/gmlab").string();
    const std::string path = gmcli::save_delete_token(dir, {{"id", "a"}, {"delete_token", "t1"}});
    gmcli::save_delete_token(dir, {{"id", "b"}, {"delete_token", "t2"}});
    std::ifstream f(path);
    std::string line1, line2, line3;
    ASSERT_TRUE(std::getline(f, line1) && std::getline(f, line2));
    EXPECT_FALSE(std::getline(f, line3));
    EXPECT_EQ(nlohmann::json::parse(line1)["delete_token"], "t1");
    EXPECT_EQ(nlohmann::json::parse(line2)["id"], "b");
    struct stat st {};
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(UserConfig, DeleteTokenFileThatCannotBeWrittenThrows) {
    TempDir t;
    t.write("blocker", "a file where the directory should be");
    EXPECT_THROW(gmcli::save_delete_token((t.path / "blocker/gmlab").string(), {{"id", "a"}}), std::runtime_error);
}
