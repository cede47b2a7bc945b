// ptxsim dap: the Debug Adapter Protocol on stdin/stdout, for editors (docs/debug.md).
#include <unistd.h>

#include <iostream>

#include "debug/dap.hpp"
#include "models/models_dir.hpp"
#include "tools/commands.hpp"
#include "tools/options.hpp"

namespace ptxsim::tools {

int cmd_dap(const std::vector<std::string>& args) {
    po::options_description opts("options");
    std::vector<std::string> rest;
    std::string model_path;
    opts.add_options()("rest", po::value(&rest), "")("model", po::value(&model_path),
                                                     "default hardware model file (a launch request's \"model\" overrides it)");
    po::variables_map vm;
    const std::string synopsis =
        "usage: ptxsim dap [--model FILE]\n\n"
        "Speaks the Debug Adapter Protocol on standard input and output, so an editor\n"
        "(VS Code, Neovim, Emacs, Zed) debugs kernels: a launch request names a launch\n"
        "file (\"program\"), with optional \"stopOnEntry\", \"tool\" (a checker for stops at\n"
        "findings), \"replay\" (a schedule seed) and \"model\". Threads are warps, stack\n"
        "frames the focused lane's calls, scopes its registers and the warp's lanes;\n"
        "stepping back and reverse continue are supported (docs/debug.md, Editors).";
    if (auto done = parse_options(args, synopsis, opts, "rest", vm)) return *done;
    if (!rest.empty()) {
        std::cerr << "ptxsim dap: takes no file: the client's launch request names it\n\n" << synopsis << '\n';
        return exit_usage;
    }
    debug::dap_settings s;
    s.default_model = model_path.empty() ? models::default_model_path(PTXSIM_SOURCE_DIR).string() : model_path;
    debug::dap_server server(STDIN_FILENO, STDOUT_FILENO, s);
    return server.run();
}

} // namespace ptxsim::tools
