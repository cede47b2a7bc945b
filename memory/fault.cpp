#include "memory/fault.hpp"

#include <fmt/format.h>

namespace ptxsim::memory {

std::string_view to_string(fault_kind k) {
    switch (k) {
    case fault_kind::none: return "none";
    case fault_kind::out_of_bounds: return "out of bounds";
    case fault_kind::use_after_free: return "use after free";
    case fault_kind::unmapped: return "unmapped";
    case fault_kind::misaligned: return "misaligned";
    }
    return "";
}

std::string_view to_string(access_kind k) { return k == access_kind::read ? "read" : "write"; }

std::string describe(const allocation_info& a) {
    std::string name = a.label.empty() ? "" : fmt::format(" '{}'", a.label);
    return fmt::format("allocation #{}{} ({} byte{} at {:#x})", a.id, name, a.size, a.size == 1 ? "" : "s", a.base);
}

std::string describe(const access_result& r) {
    std::string head = fmt::format("{} of {} byte{} at {:#x}", to_string(r.kind), r.size, r.size == 1 ? "" : "s",
                                   r.address);
    auto freed = [&] { return r.allocation && !r.allocation->alive ? ", which has been freed" : ""; };
    switch (r.fault) {
    case fault_kind::none: return head + ": ok";
    case fault_kind::out_of_bounds: {
        if (!r.allocation) return head + ": out of bounds";
        const allocation_info& a = *r.allocation;
        if (r.address >= a.base && r.address < a.end())
            return fmt::format("{}: runs {} byte{} past the end of {}{}", head, r.address + r.size - a.end(),
                               r.address + r.size - a.end() == 1 ? "" : "s", describe(a), freed());
        if (r.address >= a.end())
            return fmt::format("{}: {} bytes past the end of {}{}", head, r.address - a.end(), describe(a), freed());
        return fmt::format("{}: {} bytes before {}{}", head, a.base - r.address, describe(a), freed());
    }
    case fault_kind::use_after_free:
        return fmt::format("{}: use after free of {}", head, r.allocation ? describe(*r.allocation) : "an allocation");
    case fault_kind::unmapped:
        return fmt::format("{}: unmapped address{}", head, r.address == 0 ? " (null pointer)" : "");
    case fault_kind::misaligned:
        return fmt::format("{}: misaligned, needs {}-byte alignment", head, r.align);
    }
    return head;
}

} // namespace ptxsim::memory
