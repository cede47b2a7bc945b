#include "check/checker.hpp"
#include "check/initcheck.hpp"
#include "check/memcheck.hpp"
#include "check/racecheck.hpp"
#include "check/synccheck.hpp"

namespace ptxsim::check {

const std::vector<std::string>& tool_names() {
    static const std::vector<std::string> names = {"memcheck", "racecheck", "initcheck", "synccheck"};
    return names;
}

std::unique_ptr<checker> make_checker(const std::string& name, report& r) {
    if (name == "memcheck") return std::make_unique<memcheck>(r);
    if (name == "racecheck") return std::make_unique<racecheck>(r);
    if (name == "initcheck") return std::make_unique<initcheck>(r);
    if (name == "synccheck") return std::make_unique<synccheck>(r);
    return nullptr;
}

} // namespace ptxsim::check
