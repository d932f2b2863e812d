// A fresh folder under /tmp for a test's records, removed when the test
// program ends, so that a test run leaves nothing behind. Only the process
// that made a folder removes it: a forked child that exits normally must not
// take its parent's folders with it.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace gmexplain_test {

struct TempFolders {
    std::mutex lock;
    std::vector<std::string> folders;
    pid_t owner = getpid();
};

inline TempFolders &temp_folders() {
    static TempFolders *all = [] {
        auto *t = new TempFolders;  // never destroyed: the exit handler reads it after statics are gone
        std::atexit([] {
            TempFolders &f = temp_folders();
            if (getpid() != f.owner) return;
            std::error_code ignored;
            for (const auto &folder : f.folders) std::filesystem::remove_all(folder, ignored);
        });
        return t;
    }();
    return *all;
}

// `prefix` names the folder's test ("gmx-test"); the folder is /tmp/<prefix>-XXXXXX.
inline std::string temp_folder(const std::string &prefix) {
    std::string pattern = "/tmp/" + prefix + "-XXXXXX";
    const char *made = mkdtemp(pattern.data());
    if (!made) return "";
    TempFolders &f = temp_folders();
    std::lock_guard<std::mutex> hold(f.lock);
    f.folders.push_back(made);
    return made;
}

}  // namespace gmexplain_test
