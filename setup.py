"""Builds the C++ core (``zavandor_env.engine._native``), which plays every game, with the package.

Everything else about the package is declared in ``pyproject.toml``.  The core is required:
without a C++17 compiler the install stops with one line saying what to install.

``ZAVANDOR_SANITIZE=1`` builds it with AddressSanitizer and UndefinedBehaviorSanitizer (halting
on the first report) for ``.ci/sanitize``, which builds into a copy of the tree so the normal
build is left alone.
"""

from __future__ import annotations

import os
from glob import glob

from pybind11.setup_helpers import (
    ParallelCompile,
    Pybind11Extension,
    build_ext,
    naive_recompile,
    no_recompile,
)
from setuptools import setup
from setuptools.errors import BaseError, CCompilerError


def _flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


SANITIZE = _flag("ZAVANDOR_SANITIZE")
# Compile the sources in parallel (all cores; NPY_NUM_BUILD_JOBS=N sets the number).  The
# sanitizer build recompiles only sources newer than their objects (it keeps its build folder).
ParallelCompile("NPY_NUM_BUILD_JOBS", needs_recompile=naive_recompile if SANITIZE else
                no_recompile).install()
# -O1 keeps the sanitizers' stack traces readable; every UBSan finding stops the process.
# float-cast-overflow is not in GCC's "undefined" group: named here so it is checked too.
SANITIZE_FLAGS = ["-fsanitize=address,undefined,float-cast-overflow", "-fno-omit-frame-pointer",
                  "-fno-sanitize-recover=undefined,float-cast-overflow", "-g"]

NO_COMPILER = ("zavandor-env: building its C++ core failed; install a C++17 compiler (g++ or "
               "clang on Linux, the Xcode command line tools on macOS, the MSVC build tools on "
               "Windows) and install again")


class BuildCore(build_ext):
    """``build_ext`` whose failure ends the install with one line saying what to install (the
    compiler's own messages are printed above it)."""

    def run(self) -> None:
        try:
            super().run()
        except (CCompilerError, BaseError, OSError):
            raise SystemExit(NO_COMPILER) from None


core = Pybind11Extension(
    "zavandor_env.engine._native",
    sorted(glob("native/src/*.cpp")),
    include_dirs=["native/src"],
    # setuptools rebuilds only when one of these is newer than the built module: the headers
    # too, so a regenerated generated/constants.hpp is never skipped.
    depends=sorted(glob("native/src/**/*.hpp", recursive=True)),
    cxx_std=17,
    extra_compile_args=["-O1", *SANITIZE_FLAGS] if SANITIZE else ["-O2"],
    extra_link_args=SANITIZE_FLAGS if SANITIZE else [],
)

setup(ext_modules=[core], cmdclass={"build_ext": BuildCore})
