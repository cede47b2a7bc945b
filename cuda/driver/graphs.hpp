#pragma once
// CUDA graphs and stream capture. A graph is a list of nodes in an order
// that respects their dependencies; launching its executable form runs the
// nodes one after the other, as a stream would (kernels already run to
// completion inside their launch). Stream capture records the work a
// stream is given as nodes instead of doing it.
#include <functional>

#include "cuda/driver/cu.hpp"

namespace ptxsim::cuda::driver {

class state;

// CUgraphNodeType values.
enum node_type : int { node_kernel = 0, node_memcpy = 1, node_memset = 2, node_host = 3, node_graph = 4, node_empty = 5,
                       node_wait_event = 6, node_event_record = 7, node_mem_alloc = 10, node_mem_free = 11,
                       node_conditional = 13 };

// When `stream` is being captured: records `work` as a node of the
// capture's graph and returns true (the caller returns success without
// doing the work). False otherwise.
bool captured(state& st, CUstream stream, node_type type, std::function<CUresult()> work);

// The same for a kernel launch, kept as a kernel node (its parameters
// copied now, as CUDA copies them when the node is made).
bool captured_launch(state& st, CUstream stream, void* function, const unsigned grid[3], const unsigned block[3],
                     unsigned shared, void** params, void** extra);

// Whether `stream` is being captured (for calls that are errors then).
bool capturing(state& st, CUstream stream);

// The work of a graph's allocation node (the memory at `address` made live
// again if it was freed) and of its free node.
std::function<CUresult()> alloc_work(uint64_t address);
std::function<CUresult()> free_work(uint64_t address);

// cuEventRecord in a capturing stream (true: recorded into the capture),
// and cuStreamWaitEvent on such an event (true: the stream joined it).
bool capture_event_record(CUevent event, CUstream stream);
bool capture_event_wait(CUstream stream, CUevent event);

} // namespace ptxsim::cuda::driver
