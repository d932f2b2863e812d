// Where in the user's program each kernel launch was made: the innermost line
// of the user's own Python code (python_frames.hpp) and, for PyTorch, the ATen
// operator (nvtx_ranges.hpp); in a program without Python, the innermost frame
// in the executable (host_frames.hpp). A launch from PyTorch's autograd threads has no
// Python frame: it gets the line of the forward operator whose backward it runs,
// matched by the sequence number the two share.
//
// Each distinct site is numbered in the process and written once
// ({"type":"callsite","site":N,...}); each launch that has one is written as
// {"type":"launch_site","correlation":C,"site":N}, so that the front end joins
// kernel records to sites by correlation id. GMLAB_EXPLAIN_CALLSITES=0 turns
// it off.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gmexplain {

struct CallSite {
    std::string file, function, op, backward;  // backward: the autograd node ("MmBackward0") where it runs one
    std::string inner_op;                      // the innermost operator, where it differs from op
    int line = 0;
    std::vector<std::uint64_t> addresses;  // a C/C++ program's: file is the executable, line 0 (host_frames.hpp)
};

// The site of the launch the calling thread is making (the driver call's
// ENTER callback); its number, 0 when it has none. Writes the records above.
std::uint32_t note_launch_site(std::uint32_t correlation);

// A kernel node was added to a CUDA graph (stream capture or cuGraphAddKernelNode):
// its site is the line that captured or added it, written as
// {"type":"node_site","node":ID,"site":N}; the kernels a graph launch runs
// carry their node's id. A node cloned into an executable graph:
// {"type":"node_clone","node":ID,"original":ID}.
void note_graph_node(std::uint64_t node_id);
void note_graph_node_clone(std::uint64_t node_id, std::uint64_t original_id);

// The key of site `number` (site_key.hpp), "" for 0 or a number not given out.
std::string site_key_of(std::uint32_t number);

// Whether sites are looked for (GMLAB_EXPLAIN_CALLSITES is not "0").
bool call_sites_wanted();

}  // namespace gmexplain
