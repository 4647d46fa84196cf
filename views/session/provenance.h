// Where a kernel came from in the user's program: the trace's kernel_provenance records (tensor op, file,
// line, function) grouped by source line, in the order the program built them, as text and as links
// (loupe-src:FILE#LINE) that the app resolves to the line in its Script panel.
#pragma once
#include <QList>
#include <QString>
#include <QStringList>
#include <vector>

#include "ir/metadata.h"

namespace loupe::views {

struct SourceLine {
  QString file;  // as the program named it (may be relative)
  int line = 0;
  QString function;
  QStringList ops;  // the tensor ops called on that line, in order, each once
};

// Records with the same file, line and function are one SourceLine; records without a file (ops built by
// C++ code) are left out.
QList<SourceLine> sourceLines(const std::vector<loupe::Metadata>& records);
// "model.py:12 (forward): matmul, relu"
QString sourceLineText(const SourceLine& s);
// The lines as HTML links, separated by " · ", at most `limit` then "and N more".
QString sourceLinesHtml(const QList<SourceLine>& lines, int limit = 6);
// The link of a line, and back: loupe-src:/path/model.py#12.
QString sourceLink(const QString& file, int line);
bool parseSourceLink(const QString& link, QString* file, int* line);

} // namespace loupe::views
