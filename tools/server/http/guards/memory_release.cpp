#include "http/guards/memory_release.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gmserver {

void release_request_memory(std::size_t handled) {
    if (handled < kReleaseAfterBytes) return;
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

}  // namespace gmserver
