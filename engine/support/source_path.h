// Source locations as people read them: a compiled-in absolute path cut to the repository's own
// part ("/home/u/loupe/engine/codegen/lowerer.cpp" -> "engine/codegen/lowerer.cpp").
#pragma once
#include <string>
#include <string_view>

namespace loupe {

// From the repository's top-level folder (engine/, views/, app/, tests/) on; the path as given when
// it has none of them.
std::string repo_relative_path(std::string_view path);

} // namespace loupe
