// Tensor-script tokens (DESIGN.md §5): Python's lexical rules for the subset scripts use. Constructs
// a script may not contain (f-strings, bytes, complex literals) are rejected here with line:column.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace loupe::script {

using PyInt = __int128;  // Python ints: arbitrary precision in Python, 128 bits here (2**63 and 2**64 fit)

struct Loc {
  int line = 0, col = 0;  // both from 1; columns count bytes
  bool operator==(const Loc&) const = default;
};

enum class Tok {
  Name,     // identifiers and keywords (the parser tells them apart)
  Int,      // ival
  Float,    // fval
  String,   // text = decoded value (adjacent literals are joined by the parser)
  Op,       // operators and delimiters, text = "+", "**=", "(", "...", ...
  Newline,  // end of a logical line
  Error,    // text = a located lexical error; the parser raises it when it gets there
  End,
};

struct Token {
  Tok kind = Tok::End;
  std::string text;  // source spelling (decoded value for strings)
  Loc loc;
  PyInt ival = 0;
  double fval = 0;
};

// "line L:C: " — the prefix of every located script error.
std::string where(Loc loc);

// Splits a script into tokens. Blank lines and comments produce nothing; newlines inside brackets and
// after a backslash continue the line; a statement may not start indented. A lexical error ends the
// list with an Error token (then End), so that an earlier statement's error is reported first, as
// Python's incremental tokenizer does.
std::vector<Token> tokenize(std::string_view source);

const char* tok_name(Tok t);

} // namespace loupe::script
