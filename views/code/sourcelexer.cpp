#include "code/sourcelexer.h"

#include <QSet>

namespace loupe::views {

namespace {

struct WordSets {
  QSet<QString> keywords, types, builtins;
};

QSet<QString> words(const char* text) {
  QSet<QString> out;
  for (const QString& w : QString::fromLatin1(text).split(u' ', Qt::SkipEmptyParts)) out.insert(w);
  return out;
}

const char* kCKeywords =
    "if else for while do return break continue switch case default goto sizeof typedef struct union enum static "
    "const volatile restrict inline extern register auto __restrict __restrict__ __inline__";
const char* kCTypes =
    "void char short int long float double signed unsigned bool _Bool size_t ptrdiff_t half __fp16 __bf16 _Float16 "
    "int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t uchar ushort uint ulong";
const char* kMathBuiltins =
    "exp exp2 log log2 sqrt rsqrt sin cos tan pow fma fmax fmin max min abs fabs floor ceil trunc round";

const WordSets& setsFor(SourceLanguage lang) {
  static const WordSets c = [] {
    WordSets s{words(kCKeywords), words(kCTypes), words(kMathBuiltins)};
    s.builtins += words("expf exp2f logf log2f sqrtf sinf cosf powf fmaxf fminf fabsf floorf ceilf truncf");
    return s;
  }();
  static const WordSets cuda = [] {
    WordSets s{words(kCKeywords), words(kCTypes), words(kMathBuiltins)};
    s.keywords += words("__global__ __device__ __host__ __shared__ __constant__ __launch_bounds__ __forceinline__ "
                        "template typename namespace using asm");
    s.types += words("__half __nv_bfloat16 nv_bfloat16 half2 __half2 dim3");
    s.builtins += words("threadIdx blockIdx blockDim gridDim warpSize __syncthreads __syncwarp __shfl_sync "
                        "__shfl_down_sync __shfl_xor_sync atomicAdd atomicMax atomicMin __ldg __expf __logf __sinf "
                        "__cosf __fdividef hexp2 hlog2 hsqrt __float2half __half2float __int_as_float __float_as_int "
                        "make_float2 make_float4 make_half2 expf exp2f log2f sqrtf sinf fmaxf fminf wmma mma");
    return s;
  }();
  static const WordSets opencl = [] {
    WordSets s{words(kCKeywords), words(kCTypes), words(kMathBuiltins)};
    s.keywords += words("__kernel kernel __global global __local local __constant constant __private private "
                        "read_only write_only read_write __read_only __write_only");
    s.types += words("image2d_t sampler_t event_t");
    s.builtins += words("get_group_id get_local_id get_global_id get_local_size get_global_size get_num_groups "
                        "get_work_dim barrier mem_fence CLK_LOCAL_MEM_FENCE CLK_GLOBAL_MEM_FENCE mad native_exp "
                        "native_exp2 native_log native_log2 native_sqrt native_sin native_cos native_recip "
                        "native_divide vload_half vstore_half read_imagef write_imagef atomic_add atomic_inc");
    return s;
  }();
  static const WordSets metal = [] {
    WordSets s{words(kCKeywords), words(kCTypes), words(kMathBuiltins)};
    s.keywords += words("kernel device threadgroup constant thread namespace using template typename metal");
    s.types += words("bfloat simdgroup_float8x8 simdgroup_half8x8 simdgroup_bfloat8x8");
    s.builtins += words("threadgroup_barrier simdgroup_barrier mem_flags mem_threadgroup mem_device mem_none "
                        "simd_sum simd_shuffle simdgroup_multiply_accumulate simd_broadcast as_type precise fast");
    return s;
  }();
  static const WordSets llvm = [] {
    WordSets s;
    s.keywords = words(
        "add fadd sub fsub mul fmul udiv sdiv fdiv urem srem frem shl lshr ashr and or xor extractelement "
        "insertelement shufflevector extractvalue insertvalue alloca load store fence cmpxchg atomicrmw getelementptr "
        "trunc zext sext fptrunc fpext fptoui fptosi uitofp sitofp ptrtoint inttoptr bitcast addrspacecast icmp fcmp "
        "phi select freeze call tail musttail ret br switch indirectbr invoke resume unreachable define declare global "
        "constant private internal external linkonce weak common appending dso_local local_unnamed_addr unnamed_addr "
        "nsw nuw exact fast nnan ninf nsz arcp contract afn reassoc inbounds align to label eq ne ugt uge ult ule sgt "
        "sge slt sle oeq ogt oge olt ole one ord ueq une uno true false null undef poison zeroinitializer noalias "
        "nocapture readonly writeonly readnone nounwind attributes target datalayout triple x volatile atomic "
        "seq_cst acquire release monotonic alwaysinline noinline entry source_filename");
    s.types = words("void half bfloat float double fp128 x86_fp80 ptr label metadata opaque");
    s.builtins = {};
    return s;
  }();
  switch (lang) {
  case SourceLanguage::C:
    return c;
  case SourceLanguage::Cuda:
    return cuda;
  case SourceLanguage::OpenCL:
    return opencl;
  case SourceLanguage::Metal:
    return metal;
  case SourceLanguage::LlvmIr:
    return llvm;
  case SourceLanguage::Assembly:
    return c;  // not used: assembly has its own lexer
  }
  return c;
}

bool isIdentStart(QChar c) { return c.isLetter() || c == u'_'; }
bool isIdentChar(QChar c) { return c.isLetterOrNumber() || c == u'_'; }

// Vector types of every C dialect here: float4, half8, uchar16, int2, bool3 ...
bool isVectorType(QStringView w) {
  static const char* const bases[] = {"float",  "double", "half", "bfloat", "char",  "uchar", "short",
                                      "ushort", "int",    "uint", "long",   "ulong", "bool"};
  for (const char* b : bases) {
    const QLatin1StringView base(b);
    if (!w.startsWith(base)) continue;
    const QStringView n = w.mid(base.size());
    if (n == u"2" || n == u"3" || n == u"4" || n == u"8" || n == u"16") return true;
  }
  return false;
}

bool isLlvmIntType(QStringView w) { // i1, i8, i32, i128 ...
  if (w.size() < 2 || w[0] != u'i') return false;
  for (qsizetype k = 1; k < w.size(); ++k)
    if (!w[k].isDigit()) return false;
  return true;
}

// A numeric literal starting at i: decimal/hex integers and floats with exponents and suffixes.
int numberEnd(QStringView s, int i) {
  const int n = int(s.size());
  int j = i;
  if (j + 1 < n && s[j] == u'0' && (s[j + 1] == u'x' || s[j + 1] == u'X')) {
    j += 2;
    while (j < n && (s[j].isDigit() || QStringLiteral("abcdefABCDEF").contains(s[j]))) ++j;
  } else {
    while (j < n && s[j].isDigit()) ++j;
    if (j < n && s[j] == u'.') {
      ++j;
      while (j < n && s[j].isDigit()) ++j;
    }
    if (j < n && (s[j] == u'e' || s[j] == u'E')) {
      int k = j + 1;
      if (k < n && (s[k] == u'+' || s[k] == u'-')) ++k;
      if (k < n && s[k].isDigit()) {
        j = k;
        while (j < n && s[j].isDigit()) ++j;
      }
    }
  }
  while (j < n && QStringLiteral("uUlLfFhH").contains(s[j])) ++j; // 1.0f, 3u, 2ll, 1.0h
  return j;
}

int quotedEnd(QStringView s, int i) { // s[i] is the opening quote
  const QChar q = s[i];
  int j = i + 1;
  while (j < s.size()) {
    if (s[j] == u'\\')
      j += 2;
    else if (s[j++] == q)
      break;
  }
  return std::min(j, int(s.size()));
}

QList<SourceToken> lexC(SourceLanguage lang, QStringView s, LexState in, LexState* out) {
  const WordSets& sets = setsFor(lang);
  QList<SourceToken> toks;
  const int n = int(s.size());
  int i = 0;
  if (in == LexState::BlockComment) {
    const int end = int(s.indexOf(u"*/"));
    if (end < 0) {
      if (n) toks.append({0, n, TokenKind::Comment});
      *out = LexState::BlockComment;
      return toks;
    }
    toks.append({0, end + 2, TokenKind::Comment});
    i = end + 2;
  }
  *out = LexState::Normal;
  // A preprocessor line is one token up to a trailing // comment.
  int first = i;
  while (first < n && s[first].isSpace()) ++first;
  if (i == 0 && first < n && s[first] == u'#') {
    int end = int(s.indexOf(u"//", first));
    if (end < 0) end = n;
    toks.append({first, end - first, TokenKind::Preprocessor});
    if (end < n) toks.append({end, n - end, TokenKind::Comment});
    return toks;
  }
  while (i < n) {
    const QChar c = s[i];
    if (c.isSpace()) {
      ++i;
    } else if (c == u'/' && i + 1 < n && s[i + 1] == u'/') {
      toks.append({i, n - i, TokenKind::Comment});
      break;
    } else if (c == u'/' && i + 1 < n && s[i + 1] == u'*') {
      const int end = int(s.indexOf(u"*/", i + 2));
      if (end < 0) {
        toks.append({i, n - i, TokenKind::Comment});
        *out = LexState::BlockComment;
        break;
      }
      toks.append({i, end + 2 - i, TokenKind::Comment});
      i = end + 2;
    } else if (c == u'"' || c == u'\'') {
      const int end = quotedEnd(s, i);
      toks.append({i, end - i, TokenKind::String});
      i = end;
    } else if (c.isDigit() || (c == u'.' && i + 1 < n && s[i + 1].isDigit())) {
      const int end = numberEnd(s, i);
      toks.append({i, end - i, TokenKind::Number});
      i = end;
    } else if (c == u'[' && i + 1 < n && s[i + 1] == u'[') { // Metal/C++ attribute [[buffer(0)]]
      const int end = int(s.indexOf(u"]]", i + 2));
      const int stop = end < 0 ? n : end + 2;
      toks.append({i, stop - i, TokenKind::Attribute});
      i = stop;
    } else if (isIdentStart(c)) {
      int j = i;
      while (j < n && isIdentChar(s[j])) ++j;
      const QStringView w = s.mid(i, j - i);
      const QString ws = w.toString();
      if (ws == u"__attribute__") {
        // Cover the balanced parentheses that follow: __attribute__((aligned(16), vector_size(16)))
        int k = j, depth = 0;
        while (k < n && s[k].isSpace()) ++k;
        if (k < n && s[k] == u'(') {
          for (; k < n; ++k) {
            if (s[k] == u'(')
              ++depth;
            else if (s[k] == u')' && --depth == 0) {
              ++k;
              break;
            }
          }
          j = k;
        }
        toks.append({i, j - i, TokenKind::Attribute});
      } else if (sets.keywords.contains(ws)) {
        toks.append({i, j - i, TokenKind::Keyword});
      } else if (sets.types.contains(ws) || isVectorType(w)) {
        toks.append({i, j - i, TokenKind::Type});
      } else if (sets.builtins.contains(ws) || w.startsWith(u"__builtin_")) {
        toks.append({i, j - i, TokenKind::Builtin});
      } else if (lang == SourceLanguage::OpenCL && (w.startsWith(u"convert_") || w.startsWith(u"as_") ||
                                                    w.startsWith(u"vload") || w.startsWith(u"vstore"))) {
        toks.append({i, j - i, TokenKind::Builtin});
      }
      i = j;
    } else {
      ++i;
    }
  }
  return toks;
}

QList<SourceToken> lexLlvm(QStringView s, LexState* out) {
  const WordSets& sets = setsFor(SourceLanguage::LlvmIr);
  *out = LexState::Normal;
  QList<SourceToken> toks;
  const int n = int(s.size());
  auto nameEnd = [&](int j) { // after a sigil: a quoted name, or [-a-zA-Z$._0-9]+
    if (j < n && s[j] == u'"') return quotedEnd(s, j);
    while (j < n && (isIdentChar(s[j]) || s[j] == u'.' || s[j] == u'$' || s[j] == u'-')) ++j;
    return j;
  };
  int i = 0;
  while (i < n) {
    const QChar c = s[i];
    if (c.isSpace()) {
      ++i;
    } else if (c == u';') {
      toks.append({i, n - i, TokenKind::Comment});
      break;
    } else if (c == u'%' || c == u'@' || c == u'!' || (c == u'#' && i + 1 < n && s[i + 1].isDigit())) {
      const int end = nameEnd(i + 1);
      const TokenKind k = c == u'%' ? TokenKind::LocalName : c == u'@' ? TokenKind::GlobalName : TokenKind::Attribute;
      toks.append({i, end - i, k});
      i = std::max(end, i + 1);
    } else if (c == u'"' || (c == u'c' && i + 1 < n && s[i + 1] == u'"')) {
      const int end = quotedEnd(s, c == u'c' ? i + 1 : i);
      toks.append({i, end - i, TokenKind::String});
      i = end;
    } else if (c.isDigit() || (c == u'-' && i + 1 < n && s[i + 1].isDigit())) {
      int j = i + (c == u'-' ? 1 : 0);
      if (j + 1 < n && s[j] == u'0' && s[j + 1] == u'x') { // 0x3FF0000000000000 and 0xH3C00
        j += 2;
        if (j < n && QStringLiteral("KLMHR").contains(s[j])) ++j;
        while (j < n && (s[j].isDigit() || QStringLiteral("abcdefABCDEF").contains(s[j]))) ++j;
      } else {
        j = numberEnd(s, j);
      }
      toks.append({i, j - i, TokenKind::Number});
      i = j;
    } else if (isIdentStart(c)) {
      int j = i;
      while (j < n && (isIdentChar(s[j]) || s[j] == u'.')) ++j;
      const QStringView w = s.mid(i, j - i);
      if (j < n && s[j] == u':') {
        toks.append({i, j + 1 - i, TokenKind::LocalName}); // a basic-block label "entry:"
        j += 1;
      } else if (sets.keywords.contains(w.toString())) {
        toks.append({i, j - i, TokenKind::Keyword});
      } else if (sets.types.contains(w.toString()) || isLlvmIntType(w)) {
        toks.append({i, j - i, TokenKind::Type});
      }
      i = j;
    } else {
      ++i;
    }
  }
  return toks;
}

// One instruction per line: "1100:  vmovss  3794(%rip), %xmm26  # comment" (objdump, AT&T),
// "\tld.global.f32 \t%f1, [%rd2+4];" (PTX, directives ".reg"), "/*0040*/  FFMA R2, R2, R3, R4 ;" (SASS),
// labels "<r_3_5>:" and "$L__BB0_2:". The mnemonic is a keyword, registers local names, immediates numbers.
QList<SourceToken> lexAssembly(QStringView s) {
  QList<SourceToken> toks;
  const int n = int(s.size());
  bool mnemonicSeen = false;
  int i = 0;
  while (i < n) {
    const QChar c = s[i];
    if (c.isSpace() || c == u',' || c == u'[' || c == u']' || c == u'(' || c == u')' || c == u'{' || c == u'}' || c == u';') {
      ++i;
    } else if (c == u'#' || (c == u'/' && i + 1 < n && s[i + 1] == u'/')) {
      toks.append({i, n - i, TokenKind::Comment});
      break;
    } else if (c == u'/' && i + 1 < n && s[i + 1] == u'*') {  // a SASS address
      const int end = int(s.indexOf(QStringLiteral("*/"), i + 2));
      const int stop = end < 0 ? n : end + 2;
      toks.append({i, stop - i, TokenKind::Comment});
      i = stop;
    } else if (c == u'<') {  // <symbol> or <symbol+0x40>
      const int end = int(s.indexOf(u'>', i));
      const int stop = end < 0 ? n : end + 1;
      toks.append({i, stop - i, TokenKind::GlobalName});
      i = stop;
    } else if (c == u'%' || (c == u'$' && i + 1 < n && !s[i + 1].isDigit() && s[i + 1] != u'-')) {  // %xmm0, %rd1, $L__BB0_2
      int j = i + 1;
      while (j < n && (isIdentChar(s[j]) || s[j] == u'.')) ++j;
      const bool label = j < n && s[j] == u':';
      toks.append({i, j - i + (label ? 1 : 0), label ? TokenKind::GlobalName : TokenKind::LocalName});
      i = j + (label ? 1 : 0);
    } else if (c.isDigit() || c == u'$' || c == u'-') {  // 0x1f, $4, -72, 1100: (an address)
      int j = i + 1;
      while (j < n && (s[j].isLetterOrNumber() || s[j] == u'.')) ++j;
      const bool address = !mnemonicSeen && j < n && s[j] == u':';
      toks.append({i, j - i + (address ? 1 : 0), address ? TokenKind::Comment : TokenKind::Number});
      i = j + (address ? 1 : 0);
    } else if (isIdentStart(c) || c == u'.' || c == u'@') {
      int j = i + 1;
      while (j < n && (isIdentChar(s[j]) || s[j] == u'.' || s[j] == u'!')) ++j;
      if (!mnemonicSeen) {
        toks.append({i, j - i, c == u'.' ? TokenKind::Preprocessor : TokenKind::Keyword});
        mnemonicSeen = true;
      } else if (s[i].isUpper() && j - i <= 4 && (s[i] == u'R' || s[i] == u'P' || s[i] == u'U') && j > i + 1 && s[i + 1].isDigit()) {
        toks.append({i, j - i, TokenKind::LocalName});  // SASS registers R2, P0, UR4
      }
      i = j;
    } else {
      ++i;
    }
  }
  return toks;
}

} // namespace

QList<SourceToken> lexLine(SourceLanguage lang, QStringView line, LexState in, LexState* out) {
  LexState dummy;
  if (!out) out = &dummy;
  if (lang == SourceLanguage::LlvmIr) return lexLlvm(line, out);
  if (lang == SourceLanguage::Assembly) {
    *out = LexState::Normal;
    return lexAssembly(line);
  }
  return lexC(lang, line, in, out);
}

SourceLanguage languageForBackend(const QString& backend) {
  const QString b = backend.trimmed().toUpper();
  if (b == u"CUDA" || b == u"NV" || b == u"PTX") return SourceLanguage::Cuda;
  if (b == u"OPENCL" || b == u"GPU" || b == u"CL" || b == u"QCOM") return SourceLanguage::OpenCL;
  if (b == u"METAL") return SourceLanguage::Metal;
  if (b == u"LLVM" || b == u"LLVMIR" || b == u"LLVM IR") return SourceLanguage::LlvmIr;
  return SourceLanguage::C;
}

QString languageName(SourceLanguage lang) {
  switch (lang) {
  case SourceLanguage::C:
    return QStringLiteral("C");
  case SourceLanguage::Cuda:
    return QStringLiteral("CUDA");
  case SourceLanguage::OpenCL:
    return QStringLiteral("OpenCL");
  case SourceLanguage::Metal:
    return QStringLiteral("Metal");
  case SourceLanguage::LlvmIr:
    return QStringLiteral("LLVM IR");
  case SourceLanguage::Assembly:
    return QStringLiteral("Assembly");
  }
  return {};
}

} // namespace loupe::views
