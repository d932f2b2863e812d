// A path in GoogleTest's temporary folder with nothing left at it from an
// earlier run: the file and, for an SQLite database, its -wal and -shm files.
#pragma once

#include <cstdio>
#include <string>

#include <gtest/gtest.h>

inline std::string fresh_temp_path(const char *name) {
    const std::string path = testing::TempDir() + name;
    for (const char *suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
    return path;
}
