// Reading a golden file (or any expected output) whole, byte for byte, for the renderer and kernel tests.
#pragma once
#include <fstream>
#include <sstream>
#include <string>

namespace loupe::test {

inline std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

} // namespace loupe::test
