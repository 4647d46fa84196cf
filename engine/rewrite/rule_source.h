// A rule's text as written -- its `rule(name, pattern, callback)` call, pattern and callback
// included -- read from the engine's rule sources, which the build embeds in the library. The trace
// stores it, so the app shows what a rule does without the source tree.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace loupe {

// The call that creates the rule named `name` on `line` of `file` (any path ending in the engine
// file's path from the repository root). Empty when the file is not embedded or the call is not there.
std::string rule_source_text(std::string_view file, int64_t line, std::string_view name);

// The call expression whose argument list contains the string literal `"name"` on `line` of `text`
// (lines from 1): from the callee's name to its closing parenthesis, comments and strings skipped
// when matching parentheses. Empty when not found.
std::string call_text_at(std::string_view text, int64_t line, std::string_view name);

namespace detail {
struct EmbeddedSource {
  const char* path;  // from the repository root: "engine/symbolic/rules_add.cpp"
  std::string text;
};
const std::vector<EmbeddedSource>& embedded_rule_sources();  // generated at build time
} // namespace detail

} // namespace loupe
