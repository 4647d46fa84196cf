"""Loupe installed as a user installs it (docs/DESIGN.md §11): `cmake --install` into a temporary prefix,
then /usr/bin/python3 imports `loupe` from that prefix's package folder alone and runs a tensor program,
the installed loupe-cli runs a tinygrad program with the installed package, and `tinygrad` stays off the
default path. The Debian package CPack builds from the same rules holds the same, unpacked with dpkg -x."""
import glob
import os
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET

import pytest

BUILD = os.environ.get("LOUPE_BUILD_DIR")
CMAKE = os.environ.get("LOUPE_CMAKE") or shutil.which("cmake")
pytestmark = pytest.mark.skipif(not BUILD or not CMAKE, reason="run through CTest (LOUPE_BUILD_DIR, LOUPE_CMAKE)")

PROGRAM = """import sys
import loupe
from tinygrad import Tensor
out = (Tensor([[1., 2.], [3., 4.]]) @ Tensor([[1.], [1.]])).relu()
print("package:", loupe.__file__)
print("args:", sys.argv[1:])
"""


@pytest.fixture
def tmp_path():
  """A scratch folder removed afterwards: an installed prefix is hundreds of MB (debug info), too much
  for pytest's kept tmp_path folders."""
  import pathlib
  with tempfile.TemporaryDirectory(prefix="loupe-install-") as d:
    yield pathlib.Path(d)


def clean_env(**extra) -> dict:
  """The environment of a user who never set PYTHONPATH or Loupe's overrides."""
  env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LOUPE_PYTHONPATH", "LOUPE_PYTHON", "LOUPE_CLI")}
  env.update(extra)
  return env


def run(cmd, **kw) -> subprocess.CompletedProcess:
  p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)
  assert p.returncode == 0, f"{cmd} exited {p.returncode}\nstdout: {p.stdout}\nstderr: {p.stderr}"
  return p


def package_folder(root: str) -> str:
  found = glob.glob(os.path.join(root, "lib", "python3*", "*-packages", "loupe", "__init__.py"))
  assert len(found) == 1, f"one installed loupe package expected under {root}/lib, found {found}"
  return os.path.dirname(os.path.dirname(found[0]))


def check_python(site: str, prefix: str, tmp_path) -> None:
  env = clean_env(PYTHONPATH=site)
  p = run(["/usr/bin/python3", "-c", "import loupe; print(loupe.__file__); print((loupe.Tensor([1., 2., 3.]) * 2 + 1).tolist())"],
          env=env, cwd=tmp_path)
  assert p.stdout.splitlines() == [os.path.join(site, "loupe", "__init__.py"), "[3.0, 5.0, 7.0]"], p.stdout
  # opt-in only: a plain interpreter finds no tinygrad, or the user's own one
  p = subprocess.run(["/usr/bin/python3", "-c", "import tinygrad; print(tinygrad.__file__)"], capture_output=True, text=True,
                     env=env, cwd=tmp_path)
  assert p.returncode != 0 or not p.stdout.startswith(prefix), p.stdout
  program = tmp_path / "prog.py"
  program.write_text(PROGRAM)
  p = run(["/usr/bin/python3", "-m", "loupe", str(program), "x"], env=env, cwd=tmp_path)
  assert f"package: {site}/loupe/__init__.py" in p.stdout and "args: ['x']" in p.stdout, p.stdout
  assert "[[3.]\n [7.]]" in p.stdout, p.stdout


def test_cmake_install_into_a_prefix(tmp_path):
  prefix = str(tmp_path / "prefix")
  run([CMAKE, "--install", BUILD, "--prefix", prefix])
  site = package_folder(prefix)
  assert os.path.isdir(os.path.join(site, "loupe", "compat", "tinygrad"))
  check_python(site, prefix, tmp_path)

  cli = os.path.join(prefix, "bin", "loupe-cli")
  assert run([cli, "--version"], env=clean_env()).stdout.startswith("loupe-cli ")
  program = tmp_path / "prog.py"
  p = run([cli, "run", str(program), "--", "a"], env=clean_env(), cwd=tmp_path)
  assert f"package: {site}/loupe/__init__.py" in p.stdout, p.stdout  # the installed package, not the build's

  if os.path.exists(os.path.join(prefix, "bin", "loupe")):  # the app was built: its desktop integration too
    share = os.path.join(prefix, "share")
    mime = ET.parse(os.path.join(share, "mime", "packages", "loupe.xml")).getroot()
    ns = "{http://www.freedesktop.org/standards/shared-mime-info}"
    kind = mime.find(f"{ns}mime-type")
    assert kind.get("type") == "application/x-loupe-trace"
    assert kind.find(f"{ns}glob").get("pattern") == "*.loupe"
    desktop = open(os.path.join(share, "applications", "loupe.desktop")).read()
    assert "MimeType=application/x-loupe-trace;" in desktop and "Exec=loupe %f" in desktop
    assert os.path.isfile(os.path.join(share, "icons", "hicolor", "scalable", "apps", "loupe.svg"))


@pytest.mark.skipif(not shutil.which("dpkg-deb") or not shutil.which("dpkg-shlibdeps"), reason="needs dpkg-dev")
def test_debian_package(tmp_path):
  cpack = os.path.join(os.path.dirname(CMAKE), "cpack")
  out = tmp_path / "deb"
  run([cpack, "-G", "DEB", "-B", str(out), "--config", os.path.join(BUILD, "CPackConfig.cmake")], cwd=BUILD)
  debs = glob.glob(str(out / "*.deb"))
  assert len(debs) == 1, debs
  control = run(["dpkg-deb", "-f", debs[0], "Package", "Depends"]).stdout
  assert "Package: loupe" in control and "python3 (>= 3." in control and "python3-numpy" in control, control
  root = tmp_path / "root"
  run(["dpkg-deb", "-x", debs[0], str(root)])
  prefix = str(root / "usr")
  site = package_folder(prefix)
  assert site.endswith("dist-packages"), f"{site}: /usr/bin/python3 would not look there"
  check_python(site, prefix, tmp_path)
  assert run([os.path.join(prefix, "bin", "loupe-cli"), "--version"], env=clean_env()).stdout.startswith("loupe-cli ")
