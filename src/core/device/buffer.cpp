// gm_buffer and the copy operations on buffers.
#include "core/device/buffer.hpp"

#include "core/error.hpp"
#include "shared_kernels/copy_ops.cuh"

namespace gmlab {

namespace {

void check_range(const gm_buffer &buf, std::size_t offset, std::size_t bytes, const char *what) {
    if (offset > buf.bytes || bytes > buf.bytes - offset)
        invalid(std::string(what) + ": offset " + std::to_string(offset) + " + bytes " + std::to_string(bytes) +
                " must not exceed the buffer size " + std::to_string(buf.bytes));
}

}  // namespace

gm_buffer *buffer_create(const std::shared_ptr<ContextState> &state, std::size_t bytes) {
    if (bytes == 0) invalid("bytes must be at least 1, got 0");
    state->activate();
    auto buf = std::make_unique<gm_buffer>();
    buf->state = state;
    buf->ptr = device_malloc(bytes);
    buf->bytes = bytes;
    return buf.release();
}

void buffer_destroy(gm_buffer *buf) {
    if (!buf) return;
    if (buf->ptr) {
        cudaSetDevice(buf->state->device());
        cudaFree(buf->ptr);
    }
    delete buf;
}

void buffer_upload(gm_buffer &buf, std::size_t offset, const void *src, std::size_t bytes) {
    check_range(buf, offset, bytes, "upload");
    if (bytes == 0) return;
    if (!src) invalid("src must not be NULL");
    buf.state->activate();
    cudaStream_t st = buf.state->stream();
    GM_CUDA(cudaMemcpyAsync(static_cast<char *>(buf.ptr) + offset, src, bytes, cudaMemcpyHostToDevice, st));
    GM_CUDA(cudaStreamSynchronize(st));
}

void buffer_download(const gm_buffer &buf, std::size_t offset, void *dst, std::size_t bytes) {
    check_range(buf, offset, bytes, "download");
    if (bytes == 0) return;
    if (!dst) invalid("dst must not be NULL");
    buf.state->activate();
    cudaStream_t st = buf.state->stream();
    GM_CUDA(cudaMemcpyAsync(dst, static_cast<const char *>(buf.ptr) + offset, bytes, cudaMemcpyDeviceToHost, st));
    GM_CUDA(cudaStreamSynchronize(st));
}

void buffer_fill(gm_buffer &buf, int value) {
    if (value < 0 || value > 255) invalid("value must be in 0..255, got " + std::to_string(value));
    buf.state->activate();
    cudaStream_t st = buf.state->stream();
    GM_CUDA(cudaMemsetAsync(buf.ptr, value, buf.bytes, st));
    GM_CUDA(cudaStreamSynchronize(st));
}

void copy_strided(ContextState &ctx, gm_buffer &dst, std::size_t dst_offset, std::size_t dst_stride,
                  const gm_buffer &src, std::size_t src_offset, std::size_t src_stride, std::size_t count,
                  std::size_t word_size) {
    if (word_size != 1 && word_size != 2 && word_size != 4 && word_size != 8 && word_size != 16)
        invalid("word_size must be one of 1, 2, 4, 8, 16, got " + std::to_string(word_size));
    if (dst_stride == 0) invalid("dst_stride must be at least 1, got 0");
    if (src_stride == 0) invalid("src_stride must be at least 1, got 0");
    if (&dst == &src || dst.ptr == src.ptr) invalid("dst and src must be different buffers");
    if (dst.state.get() != &ctx || src.state.get() != &ctx)
        invalid("dst and src must belong to the context the copy runs on");
    if (count == 0) return;
    // The last word touched must lie inside each buffer; check without overflow.
    auto fits = [&](const gm_buffer &b, std::size_t offset, std::size_t stride, const char *name) {
        const std::size_t words = b.bytes / word_size;
        const bool ok = offset < words && (count - 1) <= (words - 1 - offset) / stride;
        if (!ok)
            invalid(std::string(name) + ": offset " + std::to_string(offset) + " + (count " + std::to_string(count) +
                    " - 1) x stride " + std::to_string(stride) + " must be below the buffer's " +
                    std::to_string(words) + " words of " + std::to_string(word_size) + " bytes");
    };
    fits(dst, dst_offset, dst_stride, "dst");
    fits(src, src_offset, src_stride, "src");
    ctx.activate();
    GM_CUDA(kernels::launch_strided_copy(dst.ptr, dst_offset, dst_stride, src.ptr, src_offset, src_stride, count,
                                         static_cast<int>(word_size), ctx.info().multiprocessors, ctx.stream()));
    GM_CUDA(cudaStreamSynchronize(ctx.stream()));
}

void require_buffer_holds(std::size_t need, std::size_t have, const std::string &what) {
    if (need > have) invalid(what + " needs " + std::to_string(need) + " bytes, the buffer holds " + std::to_string(have));
}

}  // namespace gmlab
