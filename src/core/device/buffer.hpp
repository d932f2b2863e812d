// Buffers and the operations on them (the C API's layer 2).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "core/device/handles.hpp"

namespace gmlab {

gm_buffer *buffer_create(const std::shared_ptr<ContextState> &state, std::size_t bytes);
void buffer_destroy(gm_buffer *buf);  // NULL is fine; never throws
void buffer_upload(gm_buffer &buf, std::size_t offset, const void *src, std::size_t bytes);
void buffer_download(const gm_buffer &buf, std::size_t offset, void *dst, std::size_t bytes);
void buffer_fill(gm_buffer &buf, int value);
void copy_strided(ContextState &ctx, gm_buffer &dst, std::size_t dst_offset, std::size_t dst_stride,
                  const gm_buffer &src, std::size_t src_offset, std::size_t src_stride, std::size_t count,
                  std::size_t word_size);

// Throws Error(GM_ERROR_INVALID_ARGUMENT) "<what> needs <need> bytes, the
// buffer holds <have>" when an operation's shape needs more than a buffer holds.
void require_buffer_holds(std::size_t need, std::size_t have, const std::string &what);

}  // namespace gmlab
