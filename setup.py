"""`pip install .`: the loupe module built by the project's own CMake (engine + Python, no GUI), then the
`loupe` package with it; the tinygrad compatibility package goes in as loupe/compat/tinygrad, off the
default path (docs/DESIGN.md §5.2). Build folder: build/pip (LOUPE_PIP_BUILD_DIR overrides); parallel
jobs: CMAKE_BUILD_PARALLEL_LEVEL (default 2)."""
import os
import shutil
import subprocess
import sys

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


class CMakeModule(build_ext):
  def build_extension(self, ext):
    cmake = shutil.which("cmake")
    if cmake is None:
      raise RuntimeError("pip install . needs CMake 3.25+ (Debian: apt-get install cmake), and a C++20 compiler, "
                         "python3-dev and pybind11-dev")
    build = os.environ.get("LOUPE_PIP_BUILD_DIR") or os.path.join(HERE, "build", "pip")
    configure = [cmake, "-S", HERE, "-B", build, "-DLOUPE_BUILD_GUI=OFF", "-DLOUPE_BUILD_TESTS=OFF",
                 f"-DPython3_EXECUTABLE={sys.executable}", "-DCMAKE_BUILD_TYPE=RelWithDebInfo"]
    if shutil.which("ninja") and not os.path.exists(os.path.join(build, "CMakeCache.txt")):
      configure += ["-G", "Ninja"]
    subprocess.run(configure, check=True)
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")
    subprocess.run([cmake, "--build", build, "--target", "loupe_python", "-j", jobs], check=True)
    built = os.path.join(build, "python", "loupe")
    names = [n for n in os.listdir(built) if n.startswith("_loupe") and n.endswith(".so")]
    if len(names) != 1:
      raise RuntimeError(f"expected one _loupe*.so in {built} after the CMake build, found {names or 'none'}")
    target = self.get_ext_fullpath(ext.name)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copyfile(os.path.join(built, names[0]), target)
    if shutil.which("strip"):  # the build keeps debug info for ccache's sake; the installed copy need not
      subprocess.run(["strip", "--strip-debug", target], check=True)


packages = find_packages(os.path.join(HERE, "engine", "python"), include=["loupe", "loupe.*"])
setup(
    packages=packages + ["loupe.compat.tinygrad"],
    package_dir={"": "engine/python", "loupe.compat.tinygrad": "engine/python/compat/tinygrad"},
    ext_modules=[Extension("loupe._loupe", sources=[])],
    cmdclass={"build_ext": CMakeModule},
    zip_safe=False,
)
