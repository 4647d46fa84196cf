#include "ir/ops.h"

#include <unordered_map>

namespace loupe {

namespace {
struct OpInfo {
  const char* name;
  uint32_t groups;
  const char* colour;
};
const OpInfo kOpInfo[] = {
#define LOUPE_OP_INFO(name, groups, colour) {#name, static_cast<uint32_t>(groups), colour},
    LOUPE_OPS(LOUPE_OP_INFO)
#undef LOUPE_OP_INFO
};
} // namespace

std::string_view op_name(Ops op) { return kOpInfo[static_cast<int>(op)].name; }
uint32_t op_groups(Ops op) { return kOpInfo[static_cast<int>(op)].groups; }
const char* op_colour(Ops op) { return kOpInfo[static_cast<int>(op)].colour; }

std::optional<Ops> op_from_name(std::string_view name) {
  static const std::unordered_map<std::string_view, Ops> by_name = [] {
    std::unordered_map<std::string_view, Ops> m;
    for (int i = 0; i < kNumOps; i++) m[kOpInfo[i].name] = static_cast<Ops>(i);
    return m;
  }();
  auto it = by_name.find(name);
  if (it == by_name.end()) return std::nullopt;
  return it->second;
}

OpSet OpSet::group(uint32_t bits) {
  OpSet s;
  for (int i = 0; i < kNumOps; i++)
    if (kOpInfo[i].groups & bits) s.add(static_cast<Ops>(i));
  return s;
}

} // namespace loupe
