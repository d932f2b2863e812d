#include "experiments/compressible/compressible_memory.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include "core/error.hpp"

namespace gmlab {

// The driver functions used, as the CUDA 12.0 ABI defines them.
struct DriverVmm {
    PFN_cuGetErrorName_v6000 cuGetErrorName = nullptr;
    PFN_cuDeviceGet_v2000 cuDeviceGet = nullptr;
    PFN_cuDeviceGetAttribute_v2000 cuDeviceGetAttribute = nullptr;
    PFN_cuMemGetAllocationGranularity_v10020 cuMemGetAllocationGranularity = nullptr;
    PFN_cuMemCreate_v10020 cuMemCreate = nullptr;
    PFN_cuMemAddressReserve_v10020 cuMemAddressReserve = nullptr;
    PFN_cuMemMap_v10020 cuMemMap = nullptr;
    PFN_cuMemSetAccess_v10020 cuMemSetAccess = nullptr;
    PFN_cuMemGetAllocationPropertiesFromHandle_v10020 cuMemGetAllocationPropertiesFromHandle = nullptr;
    PFN_cuMemUnmap_v10020 cuMemUnmap = nullptr;
    PFN_cuMemAddressFree_v10020 cuMemAddressFree = nullptr;
    PFN_cuMemRelease_v10020 cuMemRelease = nullptr;
};

namespace {

std::atomic<int> g_live{0};

template <class F> void entry_point(const char *name, F *out) {
    void *fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    const cudaError_t err = cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &found);
    if (err != cudaSuccess || found != cudaDriverEntryPointSuccess || !fn) {
        (void)cudaGetLastError();
        fail(GM_ERROR_NOT_SUPPORTED, std::string("the driver has no ") + name +
                                         " (cudaGetDriverEntryPointByVersion): its virtual memory management API "
                                         "is needed for compressible memory");
    }
    *out = reinterpret_cast<F>(fn);
}

// Loaded once per process; throws (each time) where an entry point is missing.
const DriverVmm &driver() {
    static std::mutex m;
    static DriverVmm api;
    static bool loaded = false;
    std::lock_guard<std::mutex> lock(m);
    if (!loaded) {
        DriverVmm a;
        entry_point("cuGetErrorName", &a.cuGetErrorName);
        entry_point("cuDeviceGet", &a.cuDeviceGet);
        entry_point("cuDeviceGetAttribute", &a.cuDeviceGetAttribute);
        entry_point("cuMemGetAllocationGranularity", &a.cuMemGetAllocationGranularity);
        entry_point("cuMemCreate", &a.cuMemCreate);
        entry_point("cuMemAddressReserve", &a.cuMemAddressReserve);
        entry_point("cuMemMap", &a.cuMemMap);
        entry_point("cuMemSetAccess", &a.cuMemSetAccess);
        entry_point("cuMemGetAllocationPropertiesFromHandle", &a.cuMemGetAllocationPropertiesFromHandle);
        entry_point("cuMemUnmap", &a.cuMemUnmap);
        entry_point("cuMemAddressFree", &a.cuMemAddressFree);
        entry_point("cuMemRelease", &a.cuMemRelease);
        api = a;
        loaded = true;
    }
    return api;
}

// Throws for a failed driver call: out of memory as such, the rest as CUDA errors.
void check(const DriverVmm &api, CUresult r, const char *call, const std::string &what) {
    if (r == CUDA_SUCCESS) return;
    const char *name = nullptr;
    if (!api.cuGetErrorName || api.cuGetErrorName(r, &name) != CUDA_SUCCESS || !name) name = "unknown driver error";
    const std::string msg = std::string(call) + " failed for " + what + ": " + name + " (" + std::to_string(static_cast<int>(r)) + ")";
    fail(r == CUDA_ERROR_OUT_OF_MEMORY ? GM_ERROR_OUT_OF_MEMORY : GM_ERROR_CUDA, msg);
}

CUmemAllocationProp properties(CUdevice device, bool compressed) {
    CUmemAllocationProp prop;
    std::memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_NONE;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop.allocFlags.compressionType = compressed ? CU_MEM_ALLOCATION_COMP_GENERIC : CU_MEM_ALLOCATION_COMP_NONE;
    return prop;
}

CUdevice device_handle(const DriverVmm &api, int ordinal) {
    CUdevice d = 0;
    check(api, api.cuDeviceGet(&d, ordinal), "cuDeviceGet", "device " + std::to_string(ordinal));
    return d;
}

}  // namespace

CompressionSupport query_compression_support(int ordinal) {
    const DriverVmm &api = driver();
    const CUdevice d = device_handle(api, ordinal);
    CompressionSupport s;
    int vmm = 0, compression = 0;
    check(api, api.cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, d),
          "cuDeviceGetAttribute", "CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED");
    check(api, api.cuDeviceGetAttribute(&compression, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, d),
          "cuDeviceGetAttribute", "CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED");
    s.vmm = vmm != 0;
    s.compression = compression != 0;
    if (!s.vmm) return s;
    for (bool compressed : {false, true}) {
        if (compressed && !s.compression) continue;
        const CUmemAllocationProp prop = properties(d, compressed);
        std::size_t g = 0;
        check(api, api.cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
              "cuMemGetAllocationGranularity", compressed ? "compressible memory" : "plain memory");
        s.granularity = std::max(s.granularity, g);
    }
    return s;
}

VmmAllocation::VmmAllocation(int ordinal, std::size_t bytes, bool compressed, const std::string &what)
    : api_(&driver()), bytes_(bytes) {
    const DriverVmm &api = *api_;
    try {
        const CUdevice d = device_handle(api, ordinal);
        const CUmemAllocationProp prop = properties(d, compressed);
        CUmemGenericAllocationHandle handle = 0;
        check(api, api.cuMemCreate(&handle, bytes, &prop, 0), "cuMemCreate", what);
        handle_ = handle;
        created_ = true;
        CUmemAllocationProp got;
        std::memset(&got, 0, sizeof got);
        check(api, api.cuMemGetAllocationPropertiesFromHandle(&got, handle), "cuMemGetAllocationPropertiesFromHandle", what);
        granted_ = got.allocFlags.compressionType == CU_MEM_ALLOCATION_COMP_GENERIC;
        CUdeviceptr address = 0;
        check(api, api.cuMemAddressReserve(&address, bytes, 0, 0, 0), "cuMemAddressReserve", what);
        address_ = address;
        reserved_ = true;
        check(api, api.cuMemMap(address, bytes, 0, handle, 0), "cuMemMap", what);
        mapped_ = true;
        CUmemAccessDesc access;
        std::memset(&access, 0, sizeof access);
        access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        access.location.id = ordinal;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        check(api, api.cuMemSetAccess(address, bytes, &access, 1), "cuMemSetAccess", what);
    } catch (...) {
        release();
        throw;
    }
    counted_ = true;
    ++g_live;
}

VmmAllocation::~VmmAllocation() { release(); }

void VmmAllocation::release() {
    // Reverse order; each step only where the one it undoes was done.
    if (mapped_) api_->cuMemUnmap(static_cast<CUdeviceptr>(address_), bytes_);
    if (reserved_) api_->cuMemAddressFree(static_cast<CUdeviceptr>(address_), bytes_);
    if (created_) api_->cuMemRelease(static_cast<CUmemGenericAllocationHandle>(handle_));
    if (counted_) --g_live;
    mapped_ = reserved_ = created_ = counted_ = false;
}

void *VmmAllocation::get() const { return reinterpret_cast<void *>(static_cast<std::uintptr_t>(address_)); }

int VmmAllocation::live_count() { return g_live.load(); }

}  // namespace gmlab
