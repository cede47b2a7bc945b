#include "sim/detail/device_printf.hpp"

#include <cstdio>
#include <cstring>

namespace ptxsim::sim::detail {

std::string format_device_printf(const std::string& f, uint64_t args, const printf_load& load, const printf_string& read_string) {
    std::string out;
    uint64_t off = 0;
    bool failed = false; // an argument could not be read: the engine has a fault to report
    auto arg = [&](uint32_t bytes) -> uint64_t {
        off = (off + bytes - 1) / bytes * bytes;
        uint64_t v = 0;
        if (!load(args + off, bytes, v)) {
            failed = true;
            return 0;
        }
        off += bytes;
        return v;
    };
    for (size_t i = 0; i < f.size() && !failed; ++i) {
        if (f[i] != '%') {
            out += f[i];
            continue;
        }
        size_t j = i + 1;
        while (j < f.size() && std::strchr("-+ #0123456789.*", f[j])) ++j;
        std::string length;
        while (j < f.size() && std::strchr("hlLqjzt", f[j])) length += f[j++];
        if (j >= f.size()) break;
        char conv = f[j];
        std::string spec = f.substr(i, j - i - length.size()) ; // flags, width, precision
        char buf[512];
        if (conv == '%') {
            out += '%';
        } else if (std::strchr("diuxXoc", conv)) {
            bool wide = length.find('l') != std::string::npos || length == "j" || length == "z" || length == "t";
            uint64_t v = arg(wide ? 8 : 4);
            if (std::strchr("di", conv)) {
                long long sv = wide ? static_cast<long long>(v) : static_cast<int32_t>(v);
                std::snprintf(buf, sizeof buf, (spec + "ll" + conv).c_str(), sv);
            } else if (conv == 'c') {
                std::snprintf(buf, sizeof buf, (spec + "c").c_str(), static_cast<int>(v));
            } else {
                unsigned long long uv = wide ? v : static_cast<uint32_t>(v);
                std::snprintf(buf, sizeof buf, (spec + "ll" + conv).c_str(), uv);
            }
            out += buf;
        } else if (std::strchr("fFeEgGaA", conv)) {
            uint64_t v = arg(8);
            double d;
            std::memcpy(&d, &v, 8);
            std::snprintf(buf, sizeof buf, (spec + conv).c_str(), d);
            out += buf;
        } else if (conv == 's') {
            auto str = read_string(arg(8));
            std::snprintf(buf, sizeof buf, (spec + "s").c_str(), str ? str->c_str() : "(null)");
            out += buf;
        } else if (conv == 'p') {
            std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(arg(8)));
            out += buf;
        } else {
            out += f.substr(i, j - i + 1);
        }
        i = j;
    }
    return out;
}

} // namespace ptxsim::sim::detail
