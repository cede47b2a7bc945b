// proc_table.inc as data. Each exported symbol is declared here without its
// real signature, only to take its address; this file includes nothing that
// declares them otherwise (the definitions are in api_*.cpp and
// unserved_stubs.cpp).
#include "cuda/driver/proc_table.hpp"

#define PTXSIM_PROC(name, version, per_thread, symbol)
#define PTXSIM_SYMBOL(symbol) extern "C" int symbol();
#include "cuda/driver/proc_table.inc"
#undef PTXSIM_PROC
#undef PTXSIM_SYMBOL

namespace ptxsim::cuda::driver {
namespace {

const proc_row rows[] = {
#define PTXSIM_PROC(name, version, per_thread, symbol) {#name, version, per_thread != 0, reinterpret_cast<void*>(&symbol)},
#define PTXSIM_SYMBOL(symbol)
#include "cuda/driver/proc_table.inc"
#undef PTXSIM_PROC
#undef PTXSIM_SYMBOL
};

} // namespace

std::span<const proc_row> proc_rows() { return rows; }

} // namespace ptxsim::cuda::driver
