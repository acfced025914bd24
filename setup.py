"""Builds the optional native core (``zavandor_env.engine._native``) with the package.

Everything else about the package is declared in ``pyproject.toml``.  The extension is
*optional*: without a C++17 compiler (or with ``ZAVANDOR_NO_NATIVE=1``) the install still
succeeds, the pure-Python engine is used, and ``zavandor_env.engine.native_available()`` says
why the native core is missing.

``ZAVANDOR_REQUIRE_NATIVE=1`` makes a failed compile fail the build: release wheels
(``[tool.cibuildwheel]`` in ``pyproject.toml``) must never ship without the native core.

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


def _flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


SANITIZE = _flag("ZAVANDOR_SANITIZE")
REQUIRE_NATIVE = _flag("ZAVANDOR_REQUIRE_NATIVE")
# Compile the sources in parallel (all cores; NPY_NUM_BUILD_JOBS=N sets the number).  The
# sanitizer build recompiles only sources newer than their objects (it keeps its build folder).
ParallelCompile("NPY_NUM_BUILD_JOBS", needs_recompile=naive_recompile if SANITIZE else
                no_recompile).install()
# -O1 keeps the sanitizers' stack traces readable; every UBSan finding stops the process.
SANITIZE_FLAGS = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer",
                  "-fno-sanitize-recover=undefined", "-g"]

ext_modules = []
if not _flag("ZAVANDOR_NO_NATIVE"):
    ext_modules.append(
        Pybind11Extension(
            "zavandor_env.engine._native",
            sorted(glob("native/src/*.cpp")),
            include_dirs=["native/src"],
            # setuptools rebuilds only when one of these is newer than the built module: the
            # headers too, so a regenerated generated/constants.hpp is never skipped.
            depends=sorted(glob("native/src/**/*.hpp", recursive=True)),
            cxx_std=17,
            extra_compile_args=["-O1", *SANITIZE_FLAGS] if SANITIZE else ["-O2"],
            extra_link_args=SANITIZE_FLAGS if SANITIZE else [],
            # A failed compile warns and leaves the Python engine in charge (but a sanitizer
            # build or a release wheel that fails must fail loudly).
            optional=not (SANITIZE or REQUIRE_NATIVE),
        )
    )

setup(ext_modules=ext_modules, cmdclass={"build_ext": build_ext})
