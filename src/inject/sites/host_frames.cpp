#include "inject/sites/host_frames.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <limits.h>
#include <stdlib.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

namespace gmexplain {

namespace {

struct Executable {
    std::string path;
    bool position_independent = true;
};

// The executable's resolved path, and whether addresses in it are offsets
// from its load address (ET_DYN) or absolute (ET_EXEC).
const Executable &executable() {
    static const Executable exe = [] {
        Executable e;
        char path[PATH_MAX];
        if (realpath("/proc/self/exe", path)) e.path = path;
        if (FILE *f = std::fopen("/proc/self/exe", "rb")) {
            Elf64_Ehdr header;
            if (std::fread(&header, sizeof header, 1, f) == 1) e.position_independent = header.e_type != ET_EXEC;
            std::fclose(f);
        }
        return e;
    }();
    return exe;
}

// Whether the module loaded at `base` (named `name`) is the executable:
// resolved once per module, not once per frame of every launch.
bool is_executable(const void *base, const char *name, const std::string &path) {
    static std::mutex mutex;
    static std::map<const void *, bool> known;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = known.find(base);
    if (it != known.end()) return it->second;
    char resolved[PATH_MAX];
    const bool yes = name && !path.empty() && (path == name || (realpath(name, resolved) && path == resolved));
    return known[base] = yes;
}

}  // namespace

HostFrame program_frame(std::size_t depth) {
    const Executable &exe = executable();
    void *frames[48];
    const int n = backtrace(frames, 48);
    HostFrame f;
    for (int i = 1; i < n && f.addresses.size() < depth; ++i) {  // frames[0] is this function's own
        Dl_info info;
        if (!dladdr(frames[i], &info) || !is_executable(info.dli_fbase, info.dli_fname, exe.path)) continue;
        // A return address: the call instruction is the byte before it.
        const auto at = reinterpret_cast<std::uintptr_t>(frames[i]) - 1;
        f.module = exe.path;
        f.addresses.push_back(exe.position_independent ? at - reinterpret_cast<std::uintptr_t>(info.dli_fbase) : at);
    }
    return f;
}

}  // namespace gmexplain
