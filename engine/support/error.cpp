#include "support/error.h"

namespace loupe {

void raise_internal(const char* file, int line, const std::string& what) {
  throw InternalError(cat("internal error at ", file, ":", line, ": ", what));
}

} // namespace loupe
