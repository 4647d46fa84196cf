// Text read from a file (a trace's kernel names, paths, sources, rule names) made safe to print on a
// terminal: an ESC in a recorded name must not reach the terminal as one (it would recolour, retitle or
// rewrite the screen, or answer back into the shell). Control characters other than newline and tab
// (C0, DEL, the C1 range), bidirectional overrides (a line shown in another order than it is) and bytes
// that are not UTF-8 become visible escapes: \x1b, \r, \u202e, \xff. Everything else, UTF-8 included,
// is printed as it is.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace loupe {

std::string escape_for_terminal(std::string_view text);

// The UTF-8 sequence at s[i]: its length and code point, or 0 when the bytes there are not valid UTF-8
// (overlong forms, surrogates and sequences cut short included).
size_t utf8_sequence(std::string_view s, size_t i, uint32_t& code_point);
// Whether a code point is one escape_for_terminal escapes (a control other than newline and tab, DEL,
// C1, a bidirectional control).
bool is_terminal_control(uint32_t code_point);

// While it lives, everything written to `stream` goes through escape_for_terminal on its way to the
// stream's previous buffer (a UTF-8 sequence split across writes is held until it is complete).
class TerminalSafeOutput {
public:
  explicit TerminalSafeOutput(std::ostream& stream);
  ~TerminalSafeOutput();
  TerminalSafeOutput(const TerminalSafeOutput&) = delete;
  TerminalSafeOutput& operator=(const TerminalSafeOutput&) = delete;

private:
  class Filter;
  std::ostream& stream_;
  std::streambuf* previous_;
  std::unique_ptr<Filter> filter_;
};

} // namespace loupe
