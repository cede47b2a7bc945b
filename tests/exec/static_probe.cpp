// A statically linked program with no C library (so that any machine that
// builds ptxsim can link it): `ptxsim exec` must refuse it, since its CUDA
// driver reaches programs through the dynamic loader.
extern "C" void _start() {
    __asm__ volatile("mov $60, %eax\n\txor %edi, %edi\n\tsyscall");
}
