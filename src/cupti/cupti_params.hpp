// How gmlab fills a CUPTI parameter struct, for the library's counters and
// explain's injection library alike: zeroed, with the struct's own size
// (CUPTI reads the size to know which fields the caller has). Needs no CUPTI
// header: T is any of CUPTI's *_Params structs.
#pragma once

#include <cstddef>
#include <cstring>

namespace gmcupti {

template <class T> T cupti_params(std::size_t struct_size) {
    T p;
    std::memset(&p, 0, sizeof p);
    p.structSize = struct_size;
    return p;
}

}  // namespace gmcupti

// A CUPTI parameter struct T, zeroed, with T's own size (T_STRUCT_SIZE).
#define GM_CUPTI_PARAMS(T) ::gmcupti::cupti_params<T>(T##_STRUCT_SIZE)
