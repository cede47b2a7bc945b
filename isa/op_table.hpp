#pragma once
// The instruction table (ptx_ops.def) in usable form. Rows are compiled into
// the binary as strings and parsed once, on first use; a malformed row is a
// bug in ptxsim and stops with a message naming the row.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptxsim::isa {

// A target requirement: "sm_80" (that or newer, any suffix) or a list of
// arch-specific targets ("sm_90a,sm_100a") of which the module must name one.
struct target_req {
    uint32_t min_sm = 0;                 // 0: any
    std::vector<std::string> exact;      // non-empty: one of these
    std::string text;                    // as written, for messages

    static target_req parse(std::string_view s);
    // `target` as in .target: "sm_90a", "sm_80", "compute_90".
    bool satisfied_by(std::string_view target) const;
};

// Splits "sm_90a" into 90 and "a"; false when it is not sm_NN / compute_NN.
bool parse_target_name(std::string_view target, uint32_t& number, std::string& suffix);

struct modifier_spec {
    std::string text;        // without the dot; may contain '#' (digits)
    uint32_t min_ptx = 0;    // 0: as the row
    target_req target;       // min_sm 0 and no list: as the row
    bool matches(std::string_view m) const;
};

struct group_spec {
    std::string name;
    uint32_t min = 0, max = 1;
    std::vector<modifier_spec> mods;
};

struct rule_spec {       // if `when` is present, one of `needs` must be too
    std::string when;
    std::vector<std::string> needs;
};

enum class operand_class : char {
    dest = 'd', source = 's', memory = 'm', label = 'l', immediate = 'i', list = '(', any = '*',
};

struct operand_shape {
    std::vector<operand_class> classes;
    uint32_t required = 0;   // classes before the first optional one
    bool variadic = false;   // the last class repeats
};

enum class timing_class : uint8_t { alu, fma, sfu, conv, mem, atom, ctrl, sync, warp, tensor, async, misc };

struct op_info {
    uint16_t id = 0;                     // row index: the dense op id
    std::string key;                     // "cp.async.bulk"
    std::vector<std::string> key_words;  // {"cp", "async", "bulk"}
    uint32_t min_ptx = 0;
    target_req target;
    timing_class timing = timing_class::misc;
    std::vector<operand_shape> shapes;
    std::vector<group_spec> groups;
    std::vector<rule_spec> rules;
};

class op_table {
public:
    static const op_table& get();

    std::span<const op_info> rows() const { return rows_; }
    // Rows whose key starts with `word` (the first dotted word), longest key first.
    std::span<const op_info* const> candidates(std::string_view first_word) const;

private:
    op_table();
    std::vector<op_info> rows_;
    std::vector<std::pair<std::string, std::vector<const op_info*>>> by_first_word_; // sorted by word
};

std::string_view to_string(timing_class t);

// ptxas takes `.sync` anywhere among the modifiers of the X.sync
// instructions (vote.ballot.sync.b32, shfl.bfly.sync.b32, redux.add.sync.u32,
// as CUB writes them): the index of a `sync` word (after the first modifier)
// that must move to position 1 for the words to name an "X.sync" row, or 0
// when none needs to. Callers rotate words[1..i] (and anything parallel).
size_t misplaced_sync_word(std::span<const std::string_view> words);

} // namespace ptxsim::isa
