// Starting a CUDA program on the simulated GPU (ptxsim exec, ptxsim check
// PROGRAM). The program's own CUDA runtime (static or shared) loads
// libcuda.so.1 through the dynamic loader; ptxsim puts its own driver
// (cuda/driver/) first on LD_LIBRARY_PATH, so the runtime talks to the
// simulated GPU. Before starting the program, this checks what would make
// that fail, and says so: not an ELF, statically linked, no PTX in its
// fatbinary, a model that does not load.
#include <fmt/format.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <csignal>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cuda/host_binary.hpp"
#include "models/model.hpp"
#include "models/models_dir.hpp"
#include "tools/commands.hpp"
#include "tools/program_runner.hpp"

namespace ptxsim::tools {
namespace {

namespace fs = std::filesystem;

const char* who_ = "ptxsim exec";

int fail(const std::string& message) {
    std::cerr << who_ << ": " << message << '\n';
    return exit_usage;
}

// PROGRAM as the shell would find it: a path when it holds a '/', else the
// first executable of that name on PATH.
std::string locate(const std::string& program) {
    if (program.find('/') != std::string::npos) return program;
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    size_t at = 0;
    while (at <= dirs.size()) {
        size_t end = dirs.find(':', at);
        if (end == std::string::npos) end = dirs.size();
        fs::path candidate = fs::path(end == at ? "." : dirs.substr(at, end - at)) / program;
        if (access(candidate.c_str(), X_OK) == 0 && fs::is_regular_file(candidate)) return candidate.string();
        at = end + 1;
    }
    return program;
}

// The folder holding ptxsim's libcuda.so.1: $PTXSIM_DRIVER_DIR, else the
// build tree this ptxsim was built in, else beside the executable.
std::string driver_dir() {
    std::vector<fs::path> candidates;
    if (const char* d = std::getenv("PTXSIM_DRIVER_DIR"); d && *d) candidates.emplace_back(d);
    candidates.emplace_back(PTXSIM_DRIVER_DIR);
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        candidates.push_back(self.parent_path().parent_path() / "cuda" / "driver");
        candidates.push_back(self.parent_path().parent_path() / "lib" / "ptxsim");
    }
    for (const auto& c : candidates)
        if (fs::exists(c / "libcuda.so.1")) return c.string();
    return "";
}

std::string prepend(const char* variable, const std::string& dir) {
    const char* old = std::getenv(variable);
    return old && *old ? dir + ":" + old : dir;
}

// Where the shared CUDA runtime can come from when the system does not
// already know: the toolkit the program was built with.
std::string toolkit_lib_dir() {
    for (const char* home : {std::getenv("CUDA_HOME"), std::getenv("CUDA_PATH"), static_cast<char*>(nullptr)}) {
        if (!home) home = "/usr/local/cuda";
        if (*home && fs::exists(fs::path(home) / "lib64")) return (fs::path(home) / "lib64").string();
    }
    return "";
}

} // namespace

int run_program(const program_launch& p) {
    const auto& args = p.argv;
    if (args.empty()) return fail("no PROGRAM given");
    who_ = p.who;
    const std::string model_name = p.model_name;
    const std::string program = locate(args[0]);

    // The model: checked here so that a typo is a usage error, not a crash in the program.
    std::string model_path = model_name;
    if (model_name.find('/') == std::string::npos && !model_name.ends_with(".json")) {
        auto found = models::find_model(model_name, models::models_dir(PTXSIM_SOURCE_DIR));
        if (!found) {
            std::string known;
            for (const auto& n : models::list_models(models::models_dir(PTXSIM_SOURCE_DIR)))
                known += (known.empty() ? "" : ", ") + n;
            return fail(fmt::format("unknown model '{}' (known: {}; or give a model file's path)", model_name, known));
        }
        model_path = found->string();
    }
    parser::diagnostics d;
    auto model = models::load_model(model_path, d);
    if (!model) {
        for (const auto& x : d.all()) parser::print_text(std::cerr, x);
        return exit_usage;
    }

    // The program: an executable ELF for this host, dynamically linked.
    if (!fs::exists(program)) return fail(fmt::format("{}: no such file", args[0]));
    if (access(program.c_str(), X_OK) != 0) return fail(fmt::format("{}: not executable ({})", program, std::strerror(errno)));
    cuda::host_binary bin;
    std::string error;
    if (!cuda::read_host_binary(program, bin, error)) return fail(error);
    if (!bin.dynamic)
        return fail(fmt::format(
            "{} is statically linked: ptxsim's CUDA driver reaches a program through the dynamic loader, which a "
            "static executable does not use; link it dynamically (nvcc's default; drop -static)",
            program));
    if (bin.has_fatbin) {
        if (!bin.fatbin_error.empty())
            std::cerr << fmt::format("{}: warning: {}: its fatbinary does not read fully ({}); kernels it "
                                     "holds past that point cannot run\n",
                                     who_, program, bin.fatbin_error);
        const uint32_t sm = uint32_t(std::atoi(model->arch.c_str() + 3));
        bool kernels = false;
        for (const auto& e : bin.fatbin) kernels |= e.has_kernels();
        if (kernels && !cuda::choose_ptx(bin.fatbin, sm, true) && bin.relocatable_ptx(sm).empty())
            return fail(fmt::format("{} has no PTX that runs on {} (its fatbinary holds {}): ptxsim runs PTX, not "
                                    "SASS; rebuild with nvcc -gencode arch=compute_90a,code=compute_90a added (or "
                                    "-arch=sm_90a, which embeds PTX)",
                                    program, model->arch, cuda::describe(bin.fatbin)));
    } else if (!bin.shared_runtime() && !bin.driver_linked()) {
        std::cerr << fmt::format("{}: note: {} holds no CUDA fatbinary and does not link the CUDA runtime "
                                 "or driver; it runs as it is\n",
                                 who_, program);
    }

    const std::string drivers = driver_dir();
    if (drivers.empty())
        return fail("ptxsim's CUDA driver (libcuda.so.1) is not where this ptxsim was built nor beside it; "
                    "set PTXSIM_DRIVER_DIR to its folder");
    std::string libs = drivers;
    if (bin.shared_runtime())
        if (std::string toolkit = toolkit_lib_dir(); !toolkit.empty()) libs += ":" + toolkit;
    setenv("LD_LIBRARY_PATH", prepend("LD_LIBRARY_PATH", libs).c_str(), 1);
    // Programs that compile kernels with NVRTC and load the cubin get PTX
    // instead (cuda/nvrtc_shim); inert for every other program.
    if (const fs::path shim = fs::path(drivers) / "libptxsim_nvrtc.so"; fs::exists(shim))
        setenv("LD_PRELOAD", prepend("LD_PRELOAD", shim.string()).c_str(), 1);
    setenv("PTXSIM_MODEL_FILE", fs::absolute(model_path).c_str(), 1);
    for (const auto& [name, value] : p.env) setenv(name.c_str(), value.c_str(), 1);

    // Started in a child so that a program that cannot start is reported
    // (the error travels back through a close-on-exec pipe).
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) return fail(fmt::format("cannot start {}: {}", program, std::strerror(errno)));
    std::cout.flush();
    std::cerr.flush();
    const pid_t parent = getpid();
    const pid_t child = fork();
    if (child < 0) return fail(fmt::format("cannot start {}: {}", program, std::strerror(errno)));
    if (child == 0) {
        // The program ends with ptxsim: killed, ptxsim must not leave it running.
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) _exit(127);
        close(pipe_fds[0]);
        execv(program.c_str(), argv.data());
        int e = errno;
        (void)!write(pipe_fds[1], &e, sizeof e);
        _exit(127);
    }
    close(pipe_fds[1]);
    int exec_errno = 0;
    const bool exec_failed = read(pipe_fds[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno;
    close(pipe_fds[0]);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (exec_failed) return fail(fmt::format("cannot start {}: {}", program, std::strerror(exec_errno)));
    if (WIFSIGNALED(status)) {
        std::cerr << fmt::format("ptxsim exec: {} was ended by signal {} ({})\n", program, WTERMSIG(status),
                                 strsignal(WTERMSIG(status)));
        return 128 + WTERMSIG(status);
    }
    return WEXITSTATUS(status);
}

size_t program_position(const std::vector<std::string>& args, const std::set<std::string>& with_value) {
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--") return i + 1 < args.size() ? i + 1 : args.size();
        if (a.starts_with("-")) {
            if (with_value.count(a)) ++i;
            continue;
        }
        std::ifstream f(a, std::ios::binary);
        char magic[4] = {};
        f.read(magic, 4);
        return f && std::memcmp(magic, "\x7f" "ELF", 4) == 0 ? i : args.size();
    }
    return args.size();
}

} // namespace ptxsim::tools
