// A kernel whose assertion fails in one thread (tests/sim/run_test.cpp).
#include <cassert>
extern "C" __global__ void check_positive(const int* v) {
    int i = threadIdx.x;
    assert(v[i] > 0);
}
