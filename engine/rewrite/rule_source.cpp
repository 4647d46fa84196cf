#include "rewrite/rule_source.h"

#include <algorithm>
#include <cctype>

namespace loupe {

namespace {

size_t line_start(std::string_view text, int64_t line) {
  size_t at = 0;
  for (int64_t l = 1; l < line; l++) {
    at = text.find('\n', at);
    if (at == std::string_view::npos) return at;
    at++;
  }
  return at;
}

// Index of the parenthesis closing the one at `open`, or npos.
size_t closing_paren(std::string_view t, size_t open) {
  int depth = 0;
  for (size_t i = open; i < t.size(); i++) {
    const char c = t[i];
    if (c == '/' && i + 1 < t.size() && t[i + 1] == '/') {
      i = t.find('\n', i);
      if (i == std::string_view::npos) return i;
    } else if (c == '/' && i + 1 < t.size() && t[i + 1] == '*') {
      i = t.find("*/", i + 2);
      if (i == std::string_view::npos) return i;
      i++;
    } else if (c == '"' || c == '\'') {
      for (i++; i < t.size() && t[i] != c; i++)
        if (t[i] == '\\') i++;
    } else if (c == '(') {
      depth++;
    } else if (c == ')' && --depth == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':'; }

} // namespace

std::string call_text_at(std::string_view text, int64_t line, std::string_view name) {
  const size_t from = line_start(text, line);
  if (from == std::string_view::npos) return {};
  const std::string quoted = "\"" + std::string(name) + "\"";
  const size_t lit = text.find(quoted, from);
  if (lit == std::string_view::npos) return {};
  // The name is the call's first argument: on the call's line, or the next (a long call wraps).
  const std::string_view before = text.substr(from, lit - from);
  if (std::count(before.begin(), before.end(), '\n') > 1) return {};
  const size_t open = text.rfind('(', lit);
  if (open == std::string_view::npos || open < from) return {};
  size_t callee = open;
  while (callee > 0 && std::isspace(static_cast<unsigned char>(text[callee - 1]))) callee--;
  while (callee > 0 && is_ident(text[callee - 1])) callee--;
  const size_t close = closing_paren(text, open);
  if (close == std::string_view::npos) return {};
  // Re-indent: drop the indentation of the call's line from its continuation lines.
  const size_t call_line = text.rfind('\n', callee) == std::string_view::npos ? 0 : text.rfind('\n', callee) + 1;
  size_t indent = 0;
  while (call_line + indent < callee && text[call_line + indent] == ' ') indent++;
  std::string out;
  std::string_view body = text.substr(callee, close + 1 - callee);
  for (size_t i = 0; i < body.size(); i++) {
    out.push_back(body[i]);
    if (body[i] != '\n') continue;
    size_t skip = 0;
    while (skip < indent && i + 1 + skip < body.size() && body[i + 1 + skip] == ' ') skip++;
    i += skip;
  }
  return out;
}

std::string rule_source_text(std::string_view file, int64_t line, std::string_view name) {
  for (const detail::EmbeddedSource& s : detail::embedded_rule_sources()) {
    const std::string_view path(s.path);
    if (file.size() < path.size() || file.substr(file.size() - path.size()) != path) continue;
    if (file.size() > path.size() && file[file.size() - path.size() - 1] != '/') continue;
    return call_text_at(s.text, line, name);
  }
  return {};
}

} // namespace loupe
