"""The kernel around one generated instruction form.  The C++ test builds the
same text (tests/isa/forms/form_kernel.cpp); keep the two in step.

Convention: registers are named by their declared type, %b16_N, %b32_N,
%b64_N, %b128_N, %p_N (.pred); memory operands name the module's buffers
gbuf (.global), sbuf (.shared), cbuf (.const), the kernel's lbuf (.local)
and its parameter kparam; a generic address is %ga (gbuf) or %sa (sbuf),
set by cvta at the kernel's start; a label operand is $Lend, just before `ret`.
"""
import re

REG = re.compile(r"%(b16|b32|b64|b128|p)_(\d+)")

HEADER = (".version 9.0\n.target {target}\n.address_size 64\n"
          ".global .align 128 .b8 gbuf[1024];\n"
          ".shared .align 128 .b8 sbuf[1024];\n"
          ".const .align 128 .b8 cbuf[1024];\n")


def kernel_text(index, instruction):
    regs = []
    for m in REG.finditer(instruction):
        if m.group(0) not in regs:
            regs.append(m.group(0))
    lines = [".visible .entry k%d(.param .align 128 .b8 kparam[512])" % index, "{",
             ".local .align 128 .b8 lbuf[1024];"]
    for r in regs:
        kind = r[1:].split("_")[0]
        lines.append(".reg .%s %s;" % ("pred" if kind == "p" else kind, r))
    for name, space, buf in (("%ga", "global", "gbuf"), ("%sa", "shared", "sbuf")):
        if re.search(re.escape(name) + r"\b", instruction):
            lines += [".reg .b64 %s;" % name, "cvta.%s.u64 %s, %s;" % (space, name, buf)]
    lines += [instruction + ";", "$Lend:", "ret;", "}"]
    return lines


def module_text(target, instructions):
    """The module, and each kernel's (first, last) line number (1-based)."""
    text = HEADER.format(target=target)
    line = text.count("\n") + 1
    spans = []
    out = [text]
    for i, ins in enumerate(instructions):
        k = kernel_text(i, ins)
        spans.append((line, line + len(k) - 1))
        line += len(k)
        out.append("\n".join(k) + "\n")
    return "".join(out), spans
