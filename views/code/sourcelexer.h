// Line-at-a-time lexer for generated kernel source (C, CUDA, OpenCL, Metal, LLVM IR) and machine code listings: the pure
// part of syntax highlighting, so it can be tested without a document or painting.
#pragma once
#include <QList>
#include <QString>
#include <QStringView>

namespace loupe::views {

// Assembly: disassembler listings (x86 AT&T from objdump, PTX, SASS), see inspect/machine_code.h.
enum class SourceLanguage : uint8_t { C, Cuda, OpenCL, Metal, LlvmIr, Assembly };

enum class TokenKind : uint8_t {
  Keyword, // control flow, qualifiers, LLVM instructions and keywords
  Type,    // scalar and vector types, LLVM iN/float/ptr
  Number,
  String,
  Comment,
  Preprocessor, // #include / #define lines
  Builtin,      // get_group_id, threadIdx, __syncthreads, __builtin_*, math builtins
  Attribute,    // __attribute__((...)), [[buffer(0)]], LLVM #0 attribute groups and !metadata
  LocalName,    // LLVM %names
  GlobalName,   // LLVM @names
};

struct SourceToken {
  int start;
  int length;
  TokenKind kind;
  bool operator==(const SourceToken&) const = default;
};

// Lexer state carried from one line to the next (inside a /* */ comment or not).
enum class LexState : int { Normal = 0, BlockComment = 1 };

// Tokens of one line that get a colour (plain identifiers and punctuation are left out).
QList<SourceToken> lexLine(SourceLanguage lang, QStringView line, LexState in, LexState* out);

// Parses a backend/renderer name ("CPU", "clang", "CUDA", "ptx", "OPENCL", "GPU", "METAL", "LLVM").
SourceLanguage languageForBackend(const QString& backend);
QString languageName(SourceLanguage lang);

} // namespace loupe::views
