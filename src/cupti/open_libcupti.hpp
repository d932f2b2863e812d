// How libcupti is opened, for the two places that load it at run time (the
// library's counters and explain's injection library), so that both find the
// same file the same way. Needs no CUPTI header.
#pragma once

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "cupti/cupti_functions.hpp"

namespace gmcupti {

struct OpenedCupti {
    void *handle = nullptr;  // stays open for the life of the process: CUPTI cannot be unloaded safely
    std::string library;     // the name or file that was opened
    std::string error;       // the first loader error, when none could be opened
};

// GM_CUPTI_LIBRARY when set, and only that file: a file the user names is the
// one meant, and falling back would hide a wrong name. Else a libcupti the
// process already has (a framework such as PyTorch may have loaded its own;
// two copies in one process would each believe they own the profiler). Else
// the names on the loader's path, then the toolkit's usual folders.
inline OpenedCupti open_libcupti() {
    OpenedCupti out;
    std::vector<std::string> tries;
    if (const char *env = std::getenv("GM_CUPTI_LIBRARY"); env && *env) {
        tries.push_back(env);
    } else {
        for (const char *n : kCuptiLibraryNames)
            if (void *h = dlopen(n, RTLD_NOW | RTLD_NOLOAD)) {
                out.handle = h;
                out.library = n;
                return out;
            }
        tries.assign(std::begin(kCuptiLibraryNames), std::end(kCuptiLibraryNames));
        tries.insert(tries.end(), std::begin(kCuptiLibraryPaths), std::end(kCuptiLibraryPaths));
    }
    for (const auto &n : tries) {
        if (void *h = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL)) {
            out.handle = h;
            out.library = n;
            return out;
        }
        if (out.error.empty())
            if (const char *e = dlerror()) out.error = e;
    }
    if (out.error.empty()) out.error = "unknown dlopen error";
    return out;
}

}  // namespace gmcupti
