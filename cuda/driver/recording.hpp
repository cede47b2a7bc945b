#pragma once
// `ptxsim exec --record DIR`: each launch the program makes written as a
// launch file (docs/launch-file.md) that `ptxsim run` replays on its own,
// so one kernel of a program becomes a test case.
//
// What a launch reads cannot be known before it runs, so the recording
// takes what it can reach: every allocation a kernel argument points into,
// every module variable of the kernel's module, and, followed through
// memory, every allocation their contents point into (any 8-byte-aligned
// word that holds an address inside a live allocation counts, so data that
// happens to look like an address only adds a buffer). Each buffer keeps
// its device address in the launch file ("address"), so the pointers in
// its data stay valid as they are; a pointer argument to one of the
// module's variables, which the replay places anew, is written as
// {"symbol"}. After the launch, every buffer it changed becomes an
// `expect` with the contents the launch left.
//
// tools/cmd_exec.cpp asks for it through the environment:
// PTXSIM_RECORD_DIR, PTXSIM_RECORD_KERNEL (only kernels whose name holds
// this text), PTXSIM_RECORD_MAX (launches recorded at most; default 100).
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/launch_types.hpp"

namespace ptxsim::cuda::driver {

class state;
struct function_object;

struct recorded_launch_shape {
    sim::dim3 grid, block, cluster{0, 0, 0};
    unsigned shared = 0;
    bool cooperative = false;
    std::vector<uint32_t> sms;  // a green context's SMs (empty: every SM)
};

class launch_recording {
public:
    // Null when the program is not being recorded.
    static launch_recording* get();

    struct pending;
    struct pending_deleter {
        void operator()(pending* p) const;
    };
    using pending_ptr = std::unique_ptr<pending, pending_deleter>;
    // Before the launch runs: its inputs, or null when this launch is not
    // recorded (another kernel, or past the maximum).
    pending_ptr before(state& st, const function_object& f, const recorded_launch_shape& shape,
                                    const std::vector<uint8_t>& params, uint64_t launch_number);
    // After it ran: what it changed, and the launch file. Returns the
    // launch file's path ("" when none was written).
    std::string after(state& st, pending_ptr p, const sim::launch_result& r);
    // At exit: where the launch files are.
    void finish() const;
    // The file name a module's PTX gets under DIR/modules/.
    static std::string module_file(size_t module, const std::string& name);

    // A recording into `dir` of every launch, for the driver's own use
    // (`ptxsim check --schedules` explores each launch's replay).
    explicit launch_recording(std::string dir) : dir_(std::move(dir)), max_(UINT64_MAX) {}

private:
    launch_recording() = default;
    std::string dir_, kernel_filter_;
    uint64_t max_ = 100, recorded_ = 0, skipped_ = 0;
    std::set<size_t> modules_written_;
    std::string first_file_;
    // Data files: a buffer whose bytes are those its last file holds (the
    // same input again, or the previous launch's results) is a hard link
    // to that file, not a copy: iterative programs record cheaply.
    bool save(const std::string& buffer, const std::string& path, const std::vector<uint8_t>& bytes);
    struct saved_file {
        uint64_t hash = 0, size = 0;
        std::string path;
    };
    std::map<std::string, saved_file> last_saved_;
    uint64_t bytes_written_ = 0, bytes_linked_ = 0;
};

} // namespace ptxsim::cuda::driver
