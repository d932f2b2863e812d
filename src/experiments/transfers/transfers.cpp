// The transfers family: every copy across a link, in the standard suite's
// order. Each experiment is declared in its own file of this folder.
#include <vector>

#include "core/experiment/registry.hpp"

namespace gmlab {

void add_transfer_experiments(std::vector<Experiment> &out);      // transfer.cpp: transfer, transfer_batching
void add_zero_copy_experiments(std::vector<Experiment> &out);     // zero_copy.cpp
void add_copy_overlap_experiments(std::vector<Experiment> &out);  // copy_overlap.cpp
void add_peer_experiments(std::vector<Experiment> &out);          // peer.cpp

void add_transfers_experiments(std::vector<Experiment> &out) {
    add_transfer_experiments(out);
    add_zero_copy_experiments(out);
    add_copy_overlap_experiments(out);
    add_peer_experiments(out);
}

}  // namespace gmlab
