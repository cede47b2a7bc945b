#pragma once
// What a launch file's run leaves behind, whoever ran it: the buffers'
// contents after the last launch, written to the file's `outputs`, dumped
// for a bit-for-bit comparison (`--dump DIR`), and compared with its
// `expect`. Shared by `ptxsim run` and `ptxsim-gpu` (tools/ptxsim-gpu/), so
// that both compare and write exactly alike.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "sim/launch_file.hpp"

namespace ptxsim::sim {

// Every buffer's bytes, in the order the file declares them.
using buffer_contents = std::vector<std::pair<std::string, std::vector<uint8_t>>>;

// Writes the file's `outputs` (raw bytes, or .npy); 0, or 2 when a file
// cannot be written (the message on `err`).
int write_outputs(const launch_file& f, const buffer_contents& c, std::ostream& err);

// Compares the file's `expect` entries: "all N elements match" on `out`,
// the first ten mismatches on `err`. 0 ok, 1 mismatch, 2 bad reference data.
int compare_expectations(const launch_file& f, const buffer_contents& c, std::ostream& out, std::ostream& err);

// Writes every buffer to DIR/<name>.bin (raw little-endian) and a manifest
// DIR/buffers.txt with one "name type count" line per buffer, creating DIR.
// Returns "" or why it could not.
std::string dump_buffers(const std::string& dir, const launch_file& f, const buffer_contents& c);

} // namespace ptxsim::sim
