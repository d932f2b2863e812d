// Device memory from the driver's virtual memory management API, with or
// without generic compression: cuMemCreate, cuMemAddressReserve, cuMemMap and
// cuMemSetAccess, released in reverse on every path. The driver's functions
// come from cudaGetDriverEntryPointByVersion at run time, so libgmlab never
// links libcuda (cuda.h and cudaTypedefs.h give the types only).
#pragma once

#include <cstddef>
#include <string>

namespace gmlab {

struct DriverVmm;  // the driver entry points (compressible_memory.cpp)

// What the device offers, read through the driver.
struct CompressionSupport {
    bool vmm = false;          // CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED
    bool compression = false;  // CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED
    // The allocation granularity that suits both kinds of memory (the larger
    // of the two recommended ones); 0 where vmm is false.
    std::size_t granularity = 0;
};

// Throws Error(GM_ERROR_NOT_SUPPORTED) where the driver lacks an entry point.
CompressionSupport query_compression_support(int device);

// `bytes` (a multiple of the granularity) of device memory on `device`,
// mapped read-write for it; compression asked for when `compressed`. Whether
// the driver granted it is read back from the allocation's handle.
class VmmAllocation {
public:
    VmmAllocation(int device, std::size_t bytes, bool compressed, const std::string &what);
    ~VmmAllocation();
    VmmAllocation(const VmmAllocation &) = delete;
    VmmAllocation &operator=(const VmmAllocation &) = delete;

    void *get() const;
    std::size_t bytes() const { return bytes_; }
    // True where the handle's properties say CU_MEM_ALLOCATION_COMP_GENERIC.
    bool compression_granted() const { return granted_; }

    // Allocations alive now in this process (tests check it returns to 0).
    static int live_count();

private:
    void release();  // undoes whatever was done, in reverse order

    const DriverVmm *api_ = nullptr;
    unsigned long long handle_ = 0, address_ = 0;  // CUmemGenericAllocationHandle, CUdeviceptr
    std::size_t bytes_ = 0;
    bool created_ = false, reserved_ = false, mapped_ = false, granted_ = false, counted_ = false;
};

}  // namespace gmlab
