"""Every "DESIGN.md §N" and "reference map §N" cited in the tree names a section that exists
(docs/DESIGN.md §0): docs/DESIGN.md and docs/tinygrad-map.md respectively. A citation of a document
outside the repository (../shared/DESIGN.md, tinygrad-architecture.md) fails too."""
import os
import re
import subprocess

import pytest

ROOT = os.environ.get("LOUPE_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
THIS = os.path.relpath(os.path.abspath(__file__), ROOT)
DOCS = {"DESIGN.md": "docs/DESIGN.md", "reference map": "docs/tinygrad-map.md"}

# "§5", "§7.1–7.3", "§5, §6", "(§6)": a number, then more numbers joined by commas, "and" or a dash
_NUM = r"\d+(?:\.\d+)?"
_LIST = rf"§\s*{_NUM}(?:\s*(?:,|and|–|-)\s*§?\s*{_NUM})*"
CITATION = re.compile(rf"(DESIGN\.md|reference map)[^§\n]{{0,12}}?({_LIST})")
OUTSIDE = re.compile(r"shared/DESIGN\.md|tinygrad-architecture\.md")
HEADING = re.compile(rf"^#{{2,4}}\s+({_NUM}(?:\.\d+)*)\.?\s", re.M)


def sections(doc_path: str) -> set[str]:
  with open(os.path.join(ROOT, doc_path), encoding="utf-8") as f:
    return set(HEADING.findall(f.read()))


def citations(text: str):
  """(line, document, section) for each section a citation names."""
  for m in CITATION.finditer(text):
    line = text.count("\n", 0, m.start()) + 1
    for num in re.findall(_NUM, m.group(2)):
      yield line, m.group(1), num


def problems(path: str, text: str, known: dict[str, set[str]]) -> list[str]:
  out = []
  for line, doc, num in citations(text):
    if num not in known[doc]:
      out.append(f"{path}:{line}: '{doc} §{num}' names no section of {DOCS[doc]}")
  for m in OUTSIDE.finditer(text):
    out.append(f"{path}:{text.count(chr(10), 0, m.start()) + 1}: '{m.group(0)}' is outside the repository (use docs/)")
  return out


def tracked_files() -> list[str]:
  try:
    listed = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], capture_output=True, check=True).stdout
    return [p for p in listed.decode().split("\0") if p]
  except (OSError, subprocess.CalledProcessError):  # a source tree without git: walk it
    return [os.path.relpath(os.path.join(d, f), ROOT) for d, dirs, files in os.walk(ROOT)
            if not os.path.relpath(d, ROOT).startswith(("build", ".git", "third_party")) for f in files]


TEXT_SUFFIXES = (".cpp", ".h", ".py", ".md", ".sh", ".txt", ".cmake", ".json", ".in")


@pytest.fixture(scope="module")
def known():
  return {doc: sections(path) for doc, path in DOCS.items()}


def test_the_documents_have_numbered_sections(known):
  assert {"5", "6", "7", "9"} <= known["DESIGN.md"], known["DESIGN.md"]
  assert {"7.1", "9.6", "13"} <= known["reference map"], known["reference map"]


def test_every_citation_in_the_tree_resolves(known):
  found, bad = 0, []
  for path in tracked_files():
    if path == THIS or path.startswith("docs/") or not path.endswith(TEXT_SUFFIXES):
      continue
    full = os.path.join(ROOT, path)
    if not os.path.isfile(full):
      continue
    with open(full, encoding="utf-8", errors="replace") as f:
      text = f.read()
    found += sum(1 for _ in citations(text))
    bad += problems(path, text, known)
  assert found > 30, f"only {found} citations found: is the pattern still right?"
  assert not bad, "\n".join(bad)


def test_a_wrong_citation_is_reported(known):
  text = "// x (DESIGN.md §6, §42)\n// y (reference map §7.1–7.9)\n// see ../shared/DESIGN.md\n"
  bad = problems("f.cpp", text, known)
  assert any("f.cpp:1: 'DESIGN.md §42'" in b for b in bad), bad
  assert any("f.cpp:2: 'reference map §7.9'" in b for b in bad), bad
  assert any("f.cpp:3:" in b and "outside" in b for b in bad), bad
  assert not any("§6'" in b or "§7.1'" in b for b in bad), bad
