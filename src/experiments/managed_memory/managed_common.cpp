#include "experiments/managed_memory/managed_common.hpp"

#include "core/counters/unified_memory_activity.hpp"
#include "core/error.hpp"
#include "experiments/common/transfer_common.hpp"

namespace gmlab {

ManagedBuffer::ManagedBuffer(ContextState &ctx, std::size_t bytes, const std::string &what) : ctx_(&ctx), bytes_(bytes) {
    if (bytes == 0) fail(GM_ERROR_INTERNAL, "ManagedBuffer of 0 bytes for " + what);
    cudaError_t err = cudaMallocManaged(&ptr_, bytes, cudaMemAttachGlobal);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        ptr_ = nullptr;
        fail(GM_ERROR_OUT_OF_MEMORY, "cannot allocate " + std::to_string(bytes) + " bytes of managed memory for " + what +
                                         " (" + cudaGetErrorName(err) + ": " + cudaGetErrorString(err) + ")");
    }
    ctx.note_alloc(bytes);
}

ManagedBuffer::~ManagedBuffer() {
    if (ptr_) {
        cudaFree(ptr_);  // waits for the device; frees the pages wherever they are
        ctx_->note_free(bytes_);
    }
}

void ManagedBuffer::advise(cudaMemoryAdvise advice, cudaMemLocation where) const {
    GM_CUDA(cudaMemAdvise(ptr_, bytes_, advice, where));
}

cudaError_t ManagedBuffer::prefetch(cudaMemLocation where, cudaStream_t stream) const {
    return cudaMemPrefetchAsync(ptr_, bytes_, where, 0, stream);
}

cudaMemLocation host_location() {
    cudaMemLocation l{};
    l.type = cudaMemLocationTypeHost;  // the id is ignored for the host
    l.id = 0;
    return l;
}

cudaMemLocation device_location(int device) {
    cudaMemLocation l{};
    l.type = cudaMemLocationTypeDevice;
    l.id = device;
    return l;
}

UnifiedMemoryCounting unified_memory_counting(ContextState &ctx) {
    UnifiedMemoryCounting c;
    if (ctx.settings.counters == CounterMode::Off) {
        c.reason = counters_off_reason();
        return c;
    }
    const UnifiedMemoryAvailability a = unified_memory_availability(ctx.device());
    c.on = a.available;
    c.reason = a.reason;
    return c;
}

void count_unified_memory_point(ContextState &ctx, const UnifiedMemoryCounting &counting, const Prepare &prepare,
                                const std::function<void()> &work, Point &p, Result &out) {
    if (!counting.on) return;
    GM_CUDA(cudaStreamSynchronize(ctx.stream()));
    if (prepare) prepare();
    UnifiedMemoryCounts counts;
    try {
        counts = count_unified_memory(ctx.device(), [&]() -> int {
            work();
            return 0;
        });
    } catch (const Error &e) {
        if (e.status() != GM_ERROR_NOT_SUPPORTED) throw;
        out.counter_errors.push_back(e.what());
        return;
    }
    for (const auto &[name, value] : counts.as_counters()) p.counters[name] = value;
    if (counts.gpu_fault_groups > 0) p.counters["um_bytes_per_fault_group"] = counts.bytes_htod / counts.gpu_fault_groups;
}

std::vector<std::size_t> managed_sweep(std::size_t min_size, std::size_t max_size, double per_octave) {
    constexpr std::size_t kPage = 4096;
    if (min_size % kPage != 0)
        invalid("min_size must be a whole number of 4096-byte pages, got " + std::to_string(min_size));
    if (max_size % kPage != 0)
        invalid("max_size must be a whole number of 4096-byte pages, got " + std::to_string(max_size));
    if (min_size > max_size)
        invalid("min_size (" + std::to_string(min_size) + ") must not exceed max_size (" + std::to_string(max_size) + ")");
    std::vector<std::size_t> out;
    for (std::size_t s : size_sweep(min_size, max_size, per_octave)) {
        s = s / kPage * kPage;
        if (out.empty() || out.back() != s) out.push_back(s);
    }
    return out;
}

void host_read_pages(const void *p, std::size_t bytes) {
    const volatile unsigned char *b = static_cast<const volatile unsigned char *>(p);
    unsigned char sink = 0;
    for (std::size_t i = 0; i < bytes; i += 4096) sink ^= b[i];
    (void)sink;
}

}  // namespace gmlab
