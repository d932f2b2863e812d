// The server's configuration file (tools/server/config_file.hpp): the
// moderator token, and files that other users can read are refused.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "config_file.hpp"
#include "temp_files.hpp"

using namespace gmserver;

TEST(ConfigFile, ReadsTheTokenAndRefusesReadableFiles) {
    const std::string path = fresh_temp_path("gm_config.json");
    std::ofstream(path) << R"({"moderator_token": "a-long-enough-secret"})";
    ServerConfig config;
    std::string why;
    chmod(path.c_str(), 0644);
    EXPECT_FALSE(read_config_file(path, &config, &why));
    EXPECT_NE(why.find("other users"), std::string::npos);
    chmod(path.c_str(), 0600);
    ASSERT_TRUE(read_config_file(path, &config, &why)) << why;
    EXPECT_EQ(config.moderator_token, "a-long-enough-secret");
    std::ofstream(path) << R"({"moderator_token": "short"})";
    EXPECT_FALSE(read_config_file(path, &config, &why));
    std::ofstream(path) << R"({"admin": "x"})";
    EXPECT_FALSE(read_config_file(path, &config, &why));
}
