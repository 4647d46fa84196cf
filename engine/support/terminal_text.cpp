#include "support/terminal_text.h"

#include <cstdio>

namespace loupe {

namespace {

// Length of the UTF-8 sequence at s[i] and its code point; 0 when the bytes there are not valid UTF-8
// (overlong forms, surrogates and truncated sequences included). `complete` is false when the bytes
// are a valid start that the text ends in the middle of.
size_t utf8_at(std::string_view s, size_t i, uint32_t& cp, bool& complete) {
  complete = true;
  const auto b0 = static_cast<unsigned char>(s[i]);
  size_t n;
  uint32_t min;
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  } else if ((b0 & 0xe0) == 0xc0) {
    n = 2, cp = b0 & 0x1f, min = 0x80;
  } else if ((b0 & 0xf0) == 0xe0) {
    n = 3, cp = b0 & 0x0f, min = 0x800;
  } else if ((b0 & 0xf8) == 0xf0) {
    n = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  for (size_t k = 1; k < n; k++) {
    if (i + k >= s.size()) {
      complete = false;
      return 0;
    }
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (b & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

bool invisible_control(uint32_t cp) {
  if (cp == '\n' || cp == '\t') return false;
  if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f)) return true;
  // bidirectional embeddings, overrides and isolates
  return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e || cp == 0x200f || cp == 0x061c;
}

void escape_code_point(uint32_t cp, std::string& out) {
  char buf[16];
  if (cp == '\r') out += "\\r";
  else if (cp < 0x80) std::snprintf(buf, sizeof buf, "\\x%02x", unsigned(cp)), out += buf;
  else std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(cp)), out += buf;
}

// Escapes `s` into `out`; returns how many trailing bytes were left because they start an incomplete
// UTF-8 sequence (only when `hold_incomplete`).
size_t escape_into(std::string_view s, std::string& out, bool hold_incomplete) {
  size_t i = 0;
  while (i < s.size()) {
    uint32_t cp = 0;
    bool complete = true;
    size_t n = utf8_at(s, i, cp, complete);
    if (n == 0) {
      if (!complete && hold_incomplete) return s.size() - i;
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", unsigned(static_cast<unsigned char>(s[i])));
      out += buf;
      i++;
      continue;
    }
    if (invisible_control(cp)) escape_code_point(cp, out);
    else out.append(s.substr(i, n));
    i += n;
  }
  return 0;
}

} // namespace

size_t utf8_sequence(std::string_view s, size_t i, uint32_t& code_point) {
  bool complete = true;
  return utf8_at(s, i, code_point, complete);
}

bool is_terminal_control(uint32_t code_point) { return invisible_control(code_point); }

std::string escape_for_terminal(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  escape_into(text, out, false);
  return out;
}

// Buffers what is written, escapes and forwards it at each newline, on flush and when it is large.
class TerminalSafeOutput::Filter : public std::streambuf {
public:
  explicit Filter(std::streambuf* target) : target_(target) {}
  ~Filter() override { drain(false); }

protected:
  int_type overflow(int_type ch) override {
    if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
    pending_ += traits_type::to_char_type(ch);
    if (ch == '\n' || pending_.size() >= 8192) drain(true);
    return ch;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    pending_.append(s, size_t(n));
    if (pending_.size() >= 8192 || std::string_view(s, size_t(n)).find('\n') != std::string_view::npos) drain(true);
    return n;
  }
  int sync() override {
    drain(true);
    return target_->pubsync();
  }

private:
  void drain(bool hold_incomplete) {
    if (pending_.empty()) return;
    std::string out;
    size_t held = escape_into(pending_, out, hold_incomplete);
    target_->sputn(out.data(), std::streamsize(out.size()));
    pending_.erase(0, pending_.size() - held);
  }
  std::streambuf* target_;
  std::string pending_;
};

TerminalSafeOutput::TerminalSafeOutput(std::ostream& stream)
    : stream_(stream), previous_(stream.rdbuf()), filter_(std::make_unique<Filter>(previous_)) {
  stream_.rdbuf(filter_.get());
}

TerminalSafeOutput::~TerminalSafeOutput() {
  stream_.flush();
  stream_.rdbuf(previous_);
  filter_.reset();
  previous_->pubsync();
}

} // namespace loupe
