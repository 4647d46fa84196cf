#include "support/source_path.h"

#include <algorithm>

namespace loupe {

std::string repo_relative_path(std::string_view path) {
  // The outermost of the folders' last occurrences: tests/engine/x.cpp stays whole.
  size_t from = std::string_view::npos;
  for (std::string_view marker : {"/engine/", "/views/", "/app/", "/tests/"})
    if (const size_t at = path.rfind(marker); at != std::string_view::npos) from = std::min(from, at + 1);
  return std::string(from == std::string_view::npos ? path : path.substr(from));
}

} // namespace loupe
