// Syntax highlighting: the lexer's tokens per language (table-driven), comment state across lines,
// and that the highlighter puts the theme's formats into a real document.
#include <QPlainTextEdit>
#include <QTextBlock>
#include <QTextDocument>
#include <QtTest>

#include "code/kernelhighlighter.h"
#include "code/sourcelexer.h"

using namespace loupe::views;

Q_DECLARE_METATYPE(SourceLanguage)
Q_DECLARE_METATYPE(TokenKind)

namespace {
QString kindName(TokenKind k) {
  switch (k) {
  case TokenKind::Keyword:
    return "keyword";
  case TokenKind::Type:
    return "type";
  case TokenKind::Number:
    return "number";
  case TokenKind::String:
    return "string";
  case TokenKind::Comment:
    return "comment";
  case TokenKind::Preprocessor:
    return "preprocessor";
  case TokenKind::Builtin:
    return "builtin";
  case TokenKind::Attribute:
    return "attribute";
  case TokenKind::LocalName:
    return "local";
  case TokenKind::GlobalName:
    return "global";
  }
  return "?";
}

// "text:kind" for every coloured token, so a table row states the whole line's colouring.
QString describe(SourceLanguage lang, const QString& line) {
  QStringList parts;
  LexState out;
  for (const SourceToken& t : lexLine(lang, line, LexState::Normal, &out))
    parts << line.mid(t.start, t.length) + u':' + kindName(t.kind);
  return parts.join(u' ');
}
} // namespace

class TestCodeLexer : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void tokens_data() {
    QTest::addColumn<SourceLanguage>("lang");
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("want");
    using L = SourceLanguage;
    QTest::newRow("c loop") << L::C << "for (int ridx0 = 0; ridx0 < 16; ridx0++) {"
                            << "for:keyword int:type 0:number 16:number";
    QTest::newRow("c vector typedef") << L::C << "typedef float float4 __attribute__((aligned(16),vector_size(16)));"
                                      << "typedef:keyword float:type float4:type "
                                         "__attribute__((aligned(16),vector_size(16))):attribute";
    QTest::newRow("c restrict args") << L::C << "void r_4(float* restrict data0) {"
                                     << "void:type float:type restrict:keyword";
    QTest::newRow("c float literals") << L::C << "acc0 = 1.5e-3f + 0x1Fu + .25;"
                                      << "1.5e-3f:number 0x1Fu:number .25:number";
    QTest::newRow("identifiers with digits are not numbers") << L::C << "val0 = data1[alu2];"
                                                             << "";
    QTest::newRow("c comment") << L::C << "x = 1; // done"
                               << "1:number // done:comment";
    QTest::newRow("c block comment inline") << L::C << "int g = get_group_id(0); /* 32 */"
                                            << "int:type 0:number /* 32 */:comment";
    QTest::newRow("c preprocessor") << L::C << "#include <math.h> // for exp2"
                                    << "#include <math.h> :preprocessor // for exp2:comment";
    QTest::newRow("c builtin") << L::C << "y = __builtin_sqrtf(x) + exp2f(z);"
                               << "__builtin_sqrtf:builtin exp2f:builtin";
    QTest::newRow("c string") << L::C << "printf(\"a \\\" b\", 3);"
                              << "\"a \\\" b\":string 3:number";
    QTest::newRow("opencl")
        << L::OpenCL << "__kernel void k(__global float* d) { int g = get_group_id(0); }"
        << "__kernel:keyword void:type __global:keyword float:type int:type get_group_id:builtin 0:number";
    QTest::newRow("opencl vload/convert") << L::OpenCL << "float4 v = vload4(0, p); int4 i = convert_int4(v);"
                                          << "float4:type vload4:builtin 0:number int4:type convert_int4:builtin";
    QTest::newRow("opencl barrier") << L::OpenCL << "barrier(CLK_LOCAL_MEM_FENCE);"
                                    << "barrier:builtin CLK_LOCAL_MEM_FENCE:builtin";
    QTest::newRow("cuda") << L::Cuda << "extern \"C\" __global__ void __launch_bounds__(256) k(half* d) {"
                          << "extern:keyword \"C\":string __global__:keyword void:type __launch_bounds__:keyword "
                             "256:number half:type";
    QTest::newRow("cuda builtins") << L::Cuda << "int g = blockIdx.x; __syncthreads();"
                                   << "int:type blockIdx:builtin __syncthreads:builtin";
    QTest::newRow("opencl words are plain in cuda") << L::Cuda << "get_group_id(0)"
                                                    << "0:number";
    QTest::newRow("metal")
        << L::Metal << "kernel void k(device float* d [[buffer(0)]], uint3 gid [[threadgroup_position_in_grid]]) {"
        << "kernel:keyword void:type device:keyword float:type [[buffer(0)]]:attribute uint3:type "
           "[[threadgroup_position_in_grid]]:attribute";
    QTest::newRow("metal barrier") << L::Metal << "threadgroup_barrier(mem_flags::mem_threadgroup);"
                                   << "threadgroup_barrier:builtin mem_flags:builtin mem_threadgroup:builtin";
    QTest::newRow("llvm define")
        << L::LlvmIr << "define void @r_4(ptr noalias align 32 %data0) #0 {"
        << "define:keyword void:type @r_4:global ptr:type noalias:keyword align:keyword 32:number "
           "%data0:local #0:attribute";
    QTest::newRow("llvm instr")
        << L::LlvmIr << "  %v3 = fadd nsz arcp contract afn float %v1, 0x3FF0000000000000"
        << "%v3:local fadd:keyword nsz:keyword arcp:keyword contract:keyword afn:keyword float:type "
           "%v1:local 0x3FF0000000000000:number";
    QTest::newRow("llvm gep vector") << L::LlvmIr << "%p = getelementptr inbounds <4 x float>, ptr %d, i32 -1 ; note"
                                     << "%p:local getelementptr:keyword inbounds:keyword 4:number x:keyword float:type "
                                        "ptr:type %d:local i32:type -1:number ; note:comment";
    QTest::newRow("llvm label and metadata") << L::LlvmIr << "loop_body.1: br label %exit, !llvm.loop !0"
                                             << "loop_body.1::local br:keyword label:keyword %exit:local "
                                                "!llvm.loop:attribute !0:attribute";
  }
  void tokens() {
    QFETCH(SourceLanguage, lang);
    QFETCH(QString, line);
    QFETCH(QString, want);
    QCOMPARE(describe(lang, line), want);
  }

  void blockCommentState() {
    LexState s = LexState::Normal;
    auto toks = lexLine(SourceLanguage::C, u"int a; /* starts", s, &s);
    QCOMPARE(s, LexState::BlockComment);
    QCOMPARE(toks.back(), (SourceToken{7, 9, TokenKind::Comment}));
    toks = lexLine(SourceLanguage::C, u"int still_comment;", s, &s);
    QCOMPARE(s, LexState::BlockComment);
    QCOMPARE(toks, (QList<SourceToken>{{0, 18, TokenKind::Comment}}));
    toks = lexLine(SourceLanguage::C, u"ends */ int b;", s, &s);
    QCOMPARE(s, LexState::Normal);
    QCOMPARE(toks, (QList<SourceToken>{{0, 7, TokenKind::Comment}, {8, 3, TokenKind::Type}}));
    // A '#' after a comment closes is not a preprocessor line.
    s = LexState::BlockComment;
    toks = lexLine(SourceLanguage::C, u"*/ #x", s, &s);
    QCOMPARE(toks.size(), 1);
  }

  void backends() {
    QCOMPARE(languageForBackend("CUDA"), SourceLanguage::Cuda);
    QCOMPARE(languageForBackend("opencl"), SourceLanguage::OpenCL);
    QCOMPARE(languageForBackend("GPU"), SourceLanguage::OpenCL);
    QCOMPARE(languageForBackend("METAL"), SourceLanguage::Metal);
    QCOMPARE(languageForBackend("LLVM"), SourceLanguage::LlvmIr);
    QCOMPARE(languageForBackend("CPU"), SourceLanguage::C);
    QCOMPARE(languageName(SourceLanguage::LlvmIr), QString("LLVM IR"));
  }

  void highlighterAppliesThemeFormats() {
    QPlainTextEdit edit; // a document with a layout: Qt highlights inserted text as it goes in
    QTextDocument& doc = *edit.document();
    QPalette light;
    light.setColor(QPalette::Base, Qt::white);
    const CodeTheme theme = CodeTheme::forPalette(light);
    KernelHighlighter hl(&doc, SourceLanguage::C, theme);
    doc.setPlainText("/* multi\nline */ for (;;) {}");
    const QTextBlock second = doc.firstBlock().next();
    const auto formats = second.layout()->formats();
    QCOMPARE(formats.size(), 2);
    QCOMPARE(formats[0].start, 0);
    QCOMPARE(formats[0].length, 7);
    QCOMPARE(formats[0].format.foreground().color(), theme.comment);
    QCOMPARE(formats[1].format.foreground().color(), theme.keyword);
    // Switching language rehighlights: in LLVM IR "for" is no keyword, "/*" no comment, ';' starts one.
    hl.setLanguage(SourceLanguage::LlvmIr);
    const auto llvm = doc.firstBlock().next().layout()->formats();
    QCOMPARE(llvm.size(), 1);
    QCOMPARE(llvm[0].start, 13);
    QCOMPARE(llvm[0].format.foreground().color(), theme.comment);
    // The dark theme differs from the light one for every token class.
    QPalette dark;
    dark.setColor(QPalette::Base, QColor(30, 30, 30));
    const CodeTheme d = CodeTheme::forPalette(dark);
    QVERIFY(d.dark && !theme.dark);
    QVERIFY(d.keyword != theme.keyword && d.comment != theme.comment && d.addedRow != theme.addedRow);
  }
};

QTEST_MAIN(TestCodeLexer)
#include "tst_code_lexer.moc"
