"""tinygrad.runtime: the interpreted device under tinygrad's name (ops_python) and what tests import from it."""
