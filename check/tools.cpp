#include "check/checker.hpp"
#include "check/initcheck.hpp"
#include "check/memcheck.hpp"
#include "check/racecheck.hpp"
#include "check/synccheck.hpp"

namespace ptxsim::check {

finding finding_at(const std::string& tool, const std::string& kernel, const locator* locate, const sim::event_site& s) {
    finding f;
    f.tool = tool;
    f.kernel = kernel;
    f.block = s.block;
    f.thread = s.thread;
    if (locate && *locate) {
        sim::fault_report r;
        (*locate)(s.function_id, s.pos, r);
        set_location(f, r);
    }
    return f;
}

void set_location(finding& f, const sim::fault_report& r) {
    f.ptx_file = r.ptx_file;
    f.ptx_line = r.ptx_line;
    f.source_file = r.source_file;
    f.source_line = r.source_line;
    f.inlined_file = r.inlined_file;
    f.inlined_line = r.inlined_line;
}

void set_other(finding& f, const locator* locate, int32_t function_id, uint32_t pos, sim::dim3 block, sim::dim3 thread, uint32_t size) {
    f.has_other = true;
    if (locate && *locate) {
        sim::fault_report r;
        (*locate)(function_id, pos, r);
        f.other_ptx_file = r.ptx_file;
        f.other_ptx_line = r.ptx_line;
        f.other_source_file = r.source_file;
        f.other_source_line = r.source_line;
        f.other_inlined_file = r.inlined_file;
        f.other_inlined_line = r.inlined_line;
    }
    f.other_block = block;
    f.other_thread = thread;
    f.other_size = size;
}

const std::vector<std::string>& tool_names() {
    static const std::vector<std::string> names = {"memcheck", "racecheck", "initcheck", "synccheck"};
    return names;
}

std::unique_ptr<checker> make_checker(const std::string& name, report& r, const checker_options& o) {
    if (name == "memcheck") return std::make_unique<memcheck>(r);
    if (name == "racecheck") return std::make_unique<racecheck>(r, o);
    if (name == "initcheck") return std::make_unique<initcheck>(r);
    if (name == "synccheck") return std::make_unique<synccheck>(r, o);
    return nullptr;
}

} // namespace ptxsim::check
