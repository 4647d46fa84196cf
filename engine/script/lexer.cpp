#include "script/lexer.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "support/error.h"

namespace loupe::script {

std::string where(Loc loc) { return cat("line ", loc.line, ":", loc.col, ": "); }

const char* tok_name(Tok t) {
  switch (t) {
  case Tok::Name: return "name";
  case Tok::Int: return "integer";
  case Tok::Float: return "float";
  case Tok::String: return "string";
  case Tok::Op: return "operator";
  case Tok::Newline: return "end of line";
  case Tok::Error: return "error";
  case Tok::End: return "end of script";
  }
  return "?";
}

namespace {

// Longest operators first so that "**=" wins over "**" and "*".
const char* const kOps[] = {"**=", "//=", ">>=", "<<=", "...", "->", ":=", "**", "//", "<<", ">>", "<=", ">=",
                            "==",  "!=",  "+=",  "-=",  "*=",  "/=", "%=", "@=", "&=", "|=", "^=", "+",  "-",
                            "*",   "/",   "%",   "@",   "&",   "|",  "^",  "~",  "<",  ">",  "(",  ")",  "[",
                            "]",   "{",   "}",   ",",   ":",   ".",  ";",  "="};

bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident(char c) { return is_ident_start(c) || is_digit(c); }

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

class Lexer {
public:
  explicit Lexer(std::string_view src) : s_(src) {}

  std::vector<Token> run() {
    try {
      scan();
    } catch (const Error& e) {
      push(Tok::Error, e.what(), here());
      push(Tok::End, "", here());
    }
    return std::move(out_);
  }

private:
  void scan() {
    at_line_start_ = true;
    while (pos_ < s_.size()) {
      if (at_line_start_ && depth_.empty()) {
        if (!line_start()) continue;
      }
      char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
        advance(1);
      } else if (c == '#') {
        while (pos_ < s_.size() && s_[pos_] != '\n') advance(1);
      } else if (c == '\n') {
        if (depth_.empty()) {
          push(Tok::Newline, "\n", here());
          at_line_start_ = true;
        }
        newline();
      } else if (c == '\\') {
        Loc at = here();
        advance(1);
        if (pos_ < s_.size() && s_[pos_] == '\r') advance(1);
        if (pos_ >= s_.size()) throw Error(where(at) + "unexpected end of script after line continuation character");
        if (s_[pos_] != '\n') throw Error(where(at) + "unexpected character after line continuation character");
        newline();
      } else if (is_digit(c) || (c == '.' && pos_ + 1 < s_.size() && is_digit(s_[pos_ + 1]))) {
        number();
      } else if (is_ident_start(c)) {
        name_or_string();
      } else if (c == '"' || c == '\'') {
        string_literal(here(), "");
      } else {
        op();
      }
    }
    if (!depth_.empty()) {
      const auto& [ch, loc] = depth_.back();
      throw Error(where(loc) + cat("'", ch, "' was never closed"));
    }
    if (!out_.empty() && out_.back().kind != Tok::Newline) push(Tok::Newline, "", here());
    push(Tok::End, "", here());
  }

  Loc here() const { return {line_, int(pos_ - line_begin_) + 1}; }
  void advance(size_t n) { pos_ += n; }
  void newline() {
    pos_++;
    line_++;
    line_begin_ = pos_;
  }
  void push(Tok kind, std::string text, Loc loc) {
    Token t;
    t.kind = kind;
    t.text = std::move(text);
    t.loc = loc;
    out_.push_back(std::move(t));
  }

  // At the start of a logical line: blank and comment-only lines are skipped; any other line must
  // start in column 1 (Python would see an indented block, which only loops and defs open).
  // Returns false when the line was consumed.
  bool line_start() {
    size_t p = pos_;
    while (p < s_.size() && (s_[p] == ' ' || s_[p] == '\t' || s_[p] == '\f' || s_[p] == '\r')) p++;
    if (p >= s_.size()) {
      pos_ = p;
      return false;
    }
    if (s_[p] == '#') {
      while (p < s_.size() && s_[p] != '\n') p++;
      pos_ = p;
      if (pos_ < s_.size()) newline();
      return false;
    }
    if (s_[p] == '\n') {
      pos_ = p;
      newline();
      return false;
    }
    if (p != pos_) {
      pos_ = p;
      throw Error(where(here()) + "unexpected indent (indented blocks are not allowed in a tensor script)");
    }
    at_line_start_ = false;
    return true;
  }

  void number() {
    Loc at = here();
    size_t start = pos_;
    auto digits = [&](auto pred) {
      // digits with single underscores between them
      size_t n = 0;
      while (pos_ < s_.size()) {
        char c = s_[pos_];
        if (pred(c)) {
          advance(1);
          n++;
        } else if (c == '_' && n > 0 && pos_ + 1 < s_.size() && pred(s_[pos_ + 1])) {
          advance(1);
        } else {
          break;
        }
      }
      return n;
    };
    auto clean = [&](size_t from) {
      std::string t;
      for (size_t i = from; i < pos_; i++)
        if (s_[i] != '_') t += s_[i];
      return t;
    };
    char c0 = s_[pos_];
    if (c0 == '0' && pos_ + 1 < s_.size() && std::strchr("xXoObB", s_[pos_ + 1])) {
      char kind = char(std::tolower(s_[pos_ + 1]));
      int base = kind == 'x' ? 16 : kind == 'o' ? 8 : 2;
      advance(2);
      if (pos_ < s_.size() && s_[pos_] == '_') advance(1);
      auto ok = [&](char c) {
        if (base == 16) return std::isxdigit(static_cast<unsigned char>(c)) != 0;
        return c >= '0' && c < char('0' + base);
      };
      size_t body = pos_;
      if (digits(ok) == 0) throw Error(where(at) + cat("invalid ", base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary", " literal"));
      finish_number_suffix(at);
      push_int(at, clean(body), base, std::string(s_.substr(start, pos_ - start)));
      return;
    }
    bool is_float = false;
    digits(is_digit);
    if (pos_ < s_.size() && s_[pos_] == '.' && !(pos_ + 2 < s_.size() && s_[pos_ + 1] == '.' && s_[pos_ + 2] == '.')) {
      is_float = true;
      advance(1);
      digits(is_digit);
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      size_t save = pos_;
      advance(1);
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) advance(1);
      if (digits(is_digit) == 0) {
        pos_ = save;
        throw Error(where(at) + "invalid decimal literal");
      }
      is_float = true;
    }
    finish_number_suffix(at);
    std::string text(s_.substr(start, pos_ - start));
    std::string body = clean(start);
    if (is_float) {
      Token t;
      t.kind = Tok::Float;
      t.text = text;
      t.loc = at;
      t.fval = std::strtod(body.c_str(), nullptr);  // overflow gives inf, like Python
      out_.push_back(std::move(t));
      return;
    }
    if (body.size() > 1 && body[0] == '0' && body.find_first_not_of('0') != std::string::npos)
      throw Error(where(at) + "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers");
    push_int(at, body, 10, text);
  }

  void finish_number_suffix(Loc at) {
    if (pos_ < s_.size() && (s_[pos_] == 'j' || s_[pos_] == 'J'))
      throw Error(where(at) + "a complex number literal is not allowed in a tensor script");
    if (pos_ < s_.size() && is_ident(s_[pos_])) throw Error(where(at) + "invalid decimal literal");
  }

  void push_int(Loc at, const std::string& body, int base, std::string text) {
    unsigned __int128 v = 0;
    const unsigned __int128 limit = (static_cast<unsigned __int128>(1) << 127) - 1;
    for (char c : body) {
      int d = is_digit(c) ? c - '0' : std::tolower(c) - 'a' + 10;
      if (v > (limit - d) / base) throw Error(where(at) + "integer literal is too large (scripts support integers below 2**127)");
      v = v * base + d;
    }
    Token t;
    t.kind = Tok::Int;
    t.text = std::move(text);
    t.loc = at;
    t.ival = static_cast<PyInt>(v);
    out_.push_back(std::move(t));
  }

  void name_or_string() {
    Loc at = here();
    size_t start = pos_;
    while (pos_ < s_.size() && is_ident(s_[pos_])) advance(1);
    std::string word(s_.substr(start, pos_ - start));
    if (pos_ < s_.size() && (s_[pos_] == '"' || s_[pos_] == '\'') && word.size() <= 2) {
      std::string prefix;
      for (char c : word) prefix += char(std::tolower(c));
      bool valid = prefix == "r" || prefix == "u" || prefix == "f" || prefix == "b" || prefix == "rb" || prefix == "br" ||
                   prefix == "fr" || prefix == "rf";
      if (valid) {
        if (prefix.find('f') != std::string::npos) throw Error(where(at) + "an f-string is not allowed in a tensor script");
        if (prefix.find('b') != std::string::npos) throw Error(where(at) + "a bytes literal is not allowed in a tensor script");
        string_literal(at, prefix);
        return;
      }
    }
    if (pos_ < s_.size() && static_cast<unsigned char>(s_[pos_]) >= 0x80)
      throw Error(where(here()) + "invalid character in identifier (scripts use ASCII names)");
    push(Tok::Name, std::move(word), at);
  }

  void string_literal(Loc at, const std::string& prefix) {
    bool raw = prefix.find('r') != std::string::npos;
    char q = s_[pos_];
    bool triple = pos_ + 2 < s_.size() && s_[pos_ + 1] == q && s_[pos_ + 2] == q;
    advance(triple ? 3 : 1);
    std::string value;
    for (;;) {
      if (pos_ >= s_.size())
        throw Error(where(at) + (triple ? "unterminated triple-quoted string literal" : "unterminated string literal"));
      char c = s_[pos_];
      if (c == q) {
        if (!triple) {
          advance(1);
          break;
        }
        if (pos_ + 2 < s_.size() && s_[pos_ + 1] == q && s_[pos_ + 2] == q) {
          advance(3);
          break;
        }
        value += c;
        advance(1);
      } else if (c == '\n') {
        if (!triple) throw Error(where(at) + "unterminated string literal");
        value += c;
        newline();
      } else if (c == '\\') {
        if (pos_ + 1 >= s_.size()) throw Error(where(at) + "unterminated string literal");
        char e = s_[pos_ + 1];
        if (raw) {
          value += c;
          if (e == '\n') {
            value += e;
            advance(1);
            newline();
          } else {
            value += e;
            advance(2);
          }
          continue;
        }
        escape(value, at);
      } else {
        value += c;
        advance(1);
      }
    }
    push(Tok::String, std::move(value), at);
  }

  void escape(std::string& value, Loc at) {
    Loc eloc = here();
    char e = s_[pos_ + 1];
    auto hex = [&](int n) {
      uint32_t cp = 0;
      for (int i = 0; i < n; i++) {
        size_t p = pos_ + 2 + i;
        if (p >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[p])))
          throw Error(where(eloc) + cat("truncated \\", e, " escape in string literal"));
        char h = s_[p];
        cp = cp * 16 + (is_digit(h) ? h - '0' : std::tolower(h) - 'a' + 10);
      }
      advance(2 + n);
      return cp;
    };
    switch (e) {
    case '\n': advance(1); newline(); return;
    case '\\': value += '\\'; break;
    case '\'': value += '\''; break;
    case '"': value += '"'; break;
    case 'a': value += '\a'; break;
    case 'b': value += '\b'; break;
    case 'f': value += '\f'; break;
    case 'n': value += '\n'; break;
    case 'r': value += '\r'; break;
    case 't': value += '\t'; break;
    case 'v': value += '\v'; break;
    case 'x': value += char(hex(2)); return;
    case 'u': append_utf8(value, hex(4)); return;
    case 'U': {
      uint32_t cp = hex(8);
      if (cp > 0x10FFFF) throw Error(where(eloc) + "illegal Unicode character in string literal");
      append_utf8(value, cp);
      return;
    }
    case 'N': throw Error(where(eloc) + "\\N{...} escapes are not supported in a tensor script");
    default:
      if (e >= '0' && e <= '7') {
        uint32_t v = 0;
        size_t n = 0;
        while (n < 3 && pos_ + 1 + n < s_.size() && s_[pos_ + 1 + n] >= '0' && s_[pos_ + 1 + n] <= '7')
          v = v * 8 + (s_[pos_ + 1 + n++] - '0');
        append_utf8(value, v);
        advance(1 + n);
        return;
      }
      value += '\\';  // unknown escapes keep their backslash, as in Python
      value += e;
    }
    (void)at;
    advance(2);
  }

  void op() {
    Loc at = here();
    for (const char* o : kOps) {
      size_t n = std::strlen(o);
      if (s_.substr(pos_, n) != o) continue;
      advance(n);
      if (n == 1 && std::strchr("([{", o[0])) depth_.push_back({o[0], at});
      if (n == 1 && std::strchr(")]}", o[0])) {
        char open = o[0] == ')' ? '(' : o[0] == ']' ? '[' : '{';
        if (depth_.empty()) throw Error(where(at) + cat("unmatched '", o[0], "'"));
        if (depth_.back().first != open) {
          Loc ol = depth_.back().second;
          throw Error(where(at) + cat("closing parenthesis '", o[0], "' does not match opening parenthesis '",
                                      depth_.back().first, "' on line ", ol.line));
        }
        depth_.pop_back();
      }
      push(Tok::Op, o, at);
      return;
    }
    unsigned char c = static_cast<unsigned char>(s_[pos_]);
    if (c >= 0x80) throw Error(where(at) + "invalid non-ASCII character (scripts are ASCII outside string literals)");
    if (c == '!') throw Error(where(at) + "invalid syntax: '!' (use ~ or logical_not() for negation)");
    if (c < 0x20 || c == 0x7F) throw Error(where(at) + cat("invalid control character (code ", int(c), ")"));
    throw Error(where(at) + cat("invalid character '", char(c), "'"));
  }

  std::string_view s_;
  size_t pos_ = 0, line_begin_ = 0;
  int line_ = 1;
  bool at_line_start_ = true;
  std::vector<std::pair<char, Loc>> depth_;
  std::vector<Token> out_;
};

} // namespace

std::vector<Token> tokenize(std::string_view source) { return Lexer(source).run(); }

} // namespace loupe::script
