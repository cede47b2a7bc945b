#pragma once
// ptxsim prof and check keep every resident warp of a grid live at once
// (thousands, each with a register file: fma_chain's 8,192 warps hold
// 147 MB) and touch them in turn, one instruction each. On 4 KB pages that
// costs a page fault per page first touched and a TLB miss per turn; glibc's
// malloc puts its memory on transparent 2 MB pages when its `hugetlb`
// tunable is set, which it reads only at start-up (prof on fma_chain: 45,000
// page faults -> 1,300, 2.2 -> 1.2 s of CPU).
//
// restart_with_huge_pages: when the kernel gives huge pages only to memory
// that asks for them (/sys/kernel/mm/transparent_hugepage/enabled is
// "madvise"), and GLIBC_TUNABLES does not already say, the process starts
// itself again (same arguments) with glibc.malloc.hugetlb=1 added. It
// returns when there is nothing to do, PTXSIM_NO_HUGE_PAGES is set, or the
// restart fails (then nothing changed).
namespace ptxsim::tools {

void restart_with_huge_pages(char** argv);

} // namespace ptxsim::tools
