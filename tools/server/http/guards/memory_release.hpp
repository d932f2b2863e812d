// Memory back to the system after a large request. The server keeps
// buffers up to 64 MiB in the heap (main.cpp's M_MMAP_THRESHOLD, so that
// ordinary uploads reuse them rather than fault in fresh pages), and glibc
// keeps what is freed there in each worker's arena: one request with a
// large body, or its decompressed form, or its parse, would otherwise leave
// its peak resident for good, per worker.
#pragma once

#include <cstddef>

namespace gmserver {

// Requests that handled at least this many bytes (body as sent or decoded)
// give their freed memory back.
constexpr std::size_t kReleaseAfterBytes = 1u << 20;

// Gives the free memory of every arena back (malloc_trim) when `handled`
// is at least kReleaseAfterBytes, or when a large request freed memory since
// the last release; otherwise nothing.
void release_request_memory(std::size_t handled);

}  // namespace gmserver
