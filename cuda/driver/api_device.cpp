// Initialisation, the device and its attributes, error strings.
// Attribute values come from the GPU model where it has the figure (SMs,
// clock, shared memory, registers, L2, memory size) and otherwise are the
// fixed limits of compute capability 9.0 (CUDA Programming Guide, "Technical
// Specifications per Compute Capability").
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "cuda/driver/api.hpp"
#include "cuda/driver/state.hpp"

namespace ptxsim::cuda::driver {
namespace {

std::string device_name(const models::gpu_model& m) {
    std::string n = m.name;
    for (auto& c : n) c = char(std::toupper(static_cast<unsigned char>(c)));
    return "NVIDIA " + n + " (ptxsim)";
}

// The value of a CUdevice_attribute, or false when the attribute is unknown.
bool attribute(const models::gpu_model& m, int a, int& v) {
    const auto& sm = m.sm;
    const auto& sh = m.shared_memory;
    switch (a) {
    case 1: v = int(sm.max_threads_per_cta); return true;             // MAX_THREADS_PER_BLOCK
    case 2: case 3: v = 1024; return true;                            // MAX_BLOCK_DIM_X/Y
    case 4: v = 64; return true;                                      // MAX_BLOCK_DIM_Z
    case 5: v = 2147483647; return true;                              // MAX_GRID_DIM_X
    case 6: case 7: v = 65535; return true;                           // MAX_GRID_DIM_Y/Z
    case 8: v = int(sh.default_per_cta_bytes); return true;           // MAX_SHARED_MEMORY_PER_BLOCK
    case 9: v = 65536; return true;                                   // TOTAL_CONSTANT_MEMORY
    case 10: v = int(sm.warp_size); return true;                      // WARP_SIZE
    case 11: v = 2147483647; return true;                             // MAX_PITCH
    case 12: v = int(sm.registers_per_cta); return true;              // MAX_REGISTERS_PER_BLOCK
    case 13: v = int(m.clock_mhz * 1000); return true;                // CLOCK_RATE (kHz)
    case 14: v = 512; return true;                                    // TEXTURE_ALIGNMENT
    case 15: v = 1; return true;                                      // GPU_OVERLAP
    case 16: v = int(m.sm_count); return true;                        // MULTIPROCESSOR_COUNT
    case 17: v = 0; return true;                                      // KERNEL_EXEC_TIMEOUT
    case 18: v = 0; return true;                                      // INTEGRATED
    case 19: v = 1; return true;                                      // CAN_MAP_HOST_MEMORY
    case 20: v = 0; return true;                                      // COMPUTE_MODE default
    case 21: v = 131072; return true;                                 // MAXIMUM_TEXTURE1D_WIDTH
    case 22: v = 131072; return true;
    case 23: v = 65536; return true;
    case 24: case 25: case 26: v = 16384; return true;
    case 27: v = 32768; return true;
    case 28: v = 32768; return true;
    case 29: v = 2048; return true;
    case 30: v = 512; return true;                                    // SURFACE_ALIGNMENT
    case 31: v = 1; return true;                                      // CONCURRENT_KERNELS
    case 32: v = 1; return true;                                      // ECC_ENABLED
    case 33: v = 1; return true;                                      // PCI_BUS_ID
    case 34: v = 0; return true;                                      // PCI_DEVICE_ID
    case 35: v = 0; return true;                                      // TCC_DRIVER
    case 36: v = 2619000; return true;                                // MEMORY_CLOCK_RATE (kHz, HBM3)
    case 37: v = 5120; return true;                                   // GLOBAL_MEMORY_BUS_WIDTH
    case 38: v = int(m.l2.size_bytes); return true;                   // L2_CACHE_SIZE
    case 39: v = int(sm.max_threads); return true;                    // MAX_THREADS_PER_MULTIPROCESSOR
    case 40: v = 2; return true;                                      // ASYNC_ENGINE_COUNT
    case 41: v = 1; return true;                                      // UNIFIED_ADDRESSING
    case 42: v = 32768; return true;
    case 43: v = 2048; return true;
    case 44: v = 1; return true;
    case 45: case 46: v = 32768; return true;
    case 47: case 48: v = 8192; return true;
    case 49: v = 32768; return true;
    case 50: v = 0; return true;                                      // PCI_DOMAIN_ID
    case 51: v = 32; return true;                                     // TEXTURE_PITCH_ALIGNMENT
    case 52: case 53: v = 32768; return true;
    case 54: v = 2046; return true;
    case 55: case 56: v = 32768; return true;
    case 57: v = 65536; return true;
    case 58: case 59: case 60: v = 16384; return true;
    case 61: v = 32768; return true;
    case 62: v = 2048; return true;
    case 63: case 64: v = 32768; return true;
    case 65: v = 2048; return true;
    case 66: case 67: v = 32768; return true;
    case 68: v = 2046; return true;
    case 69: v = 268435456; return true;
    case 70: case 71: v = 131072; return true;
    case 72: v = 2097120; return true;
    case 73: case 74: v = 32768; return true;
    case 75: v = int(m.arch.size() > 4 ? m.arch[3] - '0' : 9); return true;   // COMPUTE_CAPABILITY_MAJOR
    case 76: v = int(m.arch.size() > 4 ? m.arch[4] - '0' : 0); return true;   // COMPUTE_CAPABILITY_MINOR
    case 77: v = 32768; return true;
    case 78: v = 1; return true;                                      // STREAM_PRIORITIES_SUPPORTED
    case 79: case 80: v = 1; return true;                             // GLOBAL/LOCAL_L1_CACHE_SUPPORTED
    case 81: v = int(sh.per_sm_bytes); return true;                   // MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
    case 82: v = int(sm.registers_per_sm); return true;               // MAX_REGISTERS_PER_MULTIPROCESSOR
    case 83: v = 1; return true;                                      // MANAGED_MEMORY
    case 84: v = 0; return true;                                      // MULTI_GPU_BOARD
    case 85: v = 0; return true;
    case 86: v = 0; return true;                                      // HOST_NATIVE_ATOMIC_SUPPORTED
    case 87: v = 2; return true;                                      // SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO
    case 88: v = 0; return true;                                      // PAGEABLE_MEMORY_ACCESS
    case 89: v = 1; return true;                                      // CONCURRENT_MANAGED_ACCESS (one memory)
    case 90: v = 1; return true;                                      // COMPUTE_PREEMPTION_SUPPORTED
    case 91: v = 0; return true;
    case 92: case 93: case 94: v = 0; return true;
    case 95: v = 1; return true;                                      // COOPERATIVE_LAUNCH
    case 96: v = 0; return true;
    case 97: v = int(sh.max_per_cta_bytes); return true;              // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
    case 98: v = 0; return true;
    case 99: v = 0; return true;                                      // HOST_REGISTER_SUPPORTED
    case 100: v = 0; return true;
    case 101: v = 1; return true;                                     // DIRECT_MANAGED_MEM_ACCESS_FROM_HOST
    case 102: v = 1; return true;                                     // VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED (api_virtual_memory.cpp)
    case 103: case 104: case 105: v = 0; return true;                 // shareable handle types: no IPC
    case 106: v = int(sm.max_ctas); return true;                      // MAX_BLOCKS_PER_MULTIPROCESSOR
    case 107: v = 1; return true;                                     // GENERIC_COMPRESSION_SUPPORTED (sm_80+; invisible to results)
    case 108: v = int(m.l2.size_bytes * 3 / 4); return true;          // MAX_PERSISTING_L2_CACHE_SIZE
    case 109: v = 134213632; return true;                             // MAX_ACCESS_POLICY_WINDOW_SIZE
    case 110: v = 0; return true;
    case 111: v = int(sh.reserved_per_cta_bytes); return true;        // RESERVED_SHARED_MEMORY_PER_BLOCK
    case 112: case 113: case 114: v = 0; return true;
    case 115: v = 1; return true;                                     // MEMORY_POOLS_SUPPORTED
    case 116: case 117: case 118: case 119: v = 0; return true;
    case 120: v = 1; return true;                                     // CLUSTER_LAUNCH
    case 121: case 122: case 123: case 124: case 125: v = 0; return true;
    case 126: v = 4; return true;                                     // MEM_SYNC_DOMAIN_COUNT
    case 127: v = 1; return true;                                     // TENSOR_MAP_ACCESS_SUPPORTED
    case 128: case 129: v = 0; return true;
    case 130: v = 0; return true;                                     // NUMA_CONFIG
    case 131: v = -1; return true;                                    // NUMA_ID
    case 132: case 133: v = 0; return true;
    case 134: v = -1; return true;
    case 135: case 136: case 137: case 138: v = 0; return true;
    case 139: v = 0x10de; return true;  // GPU_PCI_DEVICE_ID: NVIDIA's vendor id; no real device id
    case 140: v = 0; return true;
    case 141: case 142: case 143: case 144: case 145: case 146: case 147: v = 0; return true;
    default: return false;
    }
}

struct error_text {
    CUresult code;
    const char* name;
    const char* text;
};
const error_text errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_INVALID_SOURCE, "CUDA_ERROR_INVALID_SOURCE", "device kernel image is invalid"},
    {CUDA_ERROR_FILE_NOT_FOUND, "CUDA_ERROR_FILE_NOT_FOUND", "file not found"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch"},
    {CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated"},
    {CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT", "device-side assert triggered"},
    {CUDA_ERROR_ILLEGAL_INSTRUCTION, "CUDA_ERROR_ILLEGAL_INSTRUCTION", "an illegal instruction was encountered"},
    {CUDA_ERROR_MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE", "too many blocks in cooperative launch"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

} // namespace

extern "C" {

CUresult cuInit(unsigned flags) {
    trace(fmt::format("cuInit({})", flags));
    if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
    state& st = state::get();
    std::lock_guard<std::recursive_mutex> g(st.lock);
    st.initialised = true;
    return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int* version) {
    trace("cuDriverGetVersion");
    if (!version) return CUDA_ERROR_INVALID_VALUE;
    *version = driver_version;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
    PTXSIM_ENTER(false);
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
    *device = 0;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int* count) {
    PTXSIM_ENTER(false);
    if (!count) return CUDA_ERROR_INVALID_VALUE;
    *count = 1;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char* name, int len, CUdevice dev) {
    PTXSIM_ENTER(false);
    if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    std::string n = device_name(st.model());
    std::strncpy(name, n.c_str(), size_t(len) - 1);
    name[len - 1] = 0;
    return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice dev) {
    PTXSIM_ENTER(false);
    if (!bytes) return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    *bytes = st.model().dram.capacity_bytes;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int* value, int attrib, CUdevice dev) {
    PTXSIM_ENTER(false);
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (!attribute(st.model(), attrib, *value)) {
        trace(fmt::format("cuDeviceGetAttribute({}): not an attribute ptxsim knows", attrib));
        return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice dev) {
    if (!major || !minor) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = cuDeviceGetAttribute(major, 75, dev);
    return r ? r : cuDeviceGetAttribute(minor, 76, dev);
}

CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice dev) {
    PTXSIM_ENTER(false);
    if (!uuid) return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    // A fixed UUID: "ptxsim" and the model name, so that it is stable across runs.
    std::memset(uuid->bytes, 0, 16);
    std::string tag = "ptxsim:" + st.model().name;
    std::memcpy(uuid->bytes, tag.data(), std::min<size_t>(16, tag.size()));
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice dev) { return cuDeviceGetUuid(uuid, dev); }

CUresult cuDeviceGetLuid(char*, unsigned*, CUdevice) { return CUDA_ERROR_NOT_SUPPORTED; }

CUresult cuDeviceGetPCIBusId(char* id, int len, CUdevice dev) {
    PTXSIM_ENTER(false);
    if (!id || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    std::strncpy(id, "0000:01:00.0", size_t(len) - 1);
    id[len - 1] = 0;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetByPCIBusId(CUdevice* dev, const char* id) {
    PTXSIM_ENTER(false);
    if (!dev || !id) return CUDA_ERROR_INVALID_VALUE;
    if (std::strcmp(id, "0000:01:00.0") != 0 && std::strcmp(id, "01:00.0") != 0) return CUDA_ERROR_INVALID_DEVICE;
    *dev = 0;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetP2PAttribute(int* value, int, CUdevice, CUdevice) {
    PTXSIM_ENTER(false);
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    return CUDA_ERROR_INVALID_DEVICE;  // one device: no peers
}

CUresult cuDeviceCanAccessPeer(int* can, CUdevice, CUdevice) {
    PTXSIM_ENTER(false);
    if (!can) return CUDA_ERROR_INVALID_VALUE;
    *can = 0;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetTexture1DLinearMaxWidth(size_t* width, int, unsigned, CUdevice dev) {
    PTXSIM_ENTER(false);
    if (!width) return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    *width = 268435456;
    return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult error, const char** text) {
    if (!text) return CUDA_ERROR_INVALID_VALUE;
    for (const auto& e : errors)
        if (e.code == error) {
            *text = e.text;
            return CUDA_SUCCESS;
        }
    *text = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorName(CUresult error, const char** text) {
    if (!text) return CUDA_ERROR_INVALID_VALUE;
    for (const auto& e : errors)
        if (e.code == error) {
            *text = e.name;
            return CUDA_SUCCESS;
        }
    *text = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
}

} // extern "C"

} // namespace ptxsim::cuda::driver
