extern "C" __global__ void at_block_scope_racy(int* ctr) {
    atomicAdd_block(ctr, 1); // <- finding [A]
}
