#pragma once
// Registers per thread as ptxas allocates them, for occupancy: ptxsim asks
// ptxas -v (when the CUDA toolkit is found) for each entry of a module,
// since PTX itself does not say how many registers the machine code uses.
#include <map>
#include <string>

namespace ptxsim::sim::timing {

// The ptxas to ask: $PTXAS when set (empty when it names no file, so
// PTXAS=none turns ptxas off), else /usr/local/cuda/bin/ptxas, else ptxas
// on PATH; empty when there is none.
std::string find_ptxas();

// Entry name -> registers per thread from `ptxas -arch=<the module's
// target> -v`; empty when ptxas fails (`why` says so).
std::map<std::string, uint32_t> ptxas_registers(const std::string& ptxas, const std::string& module_path, std::string& why);

} // namespace ptxsim::sim::timing
