"""Builds the optional native core (``zavandor_env.engine._native``) with the package.

Everything else about the package is declared in ``pyproject.toml``.  The extension is
*optional*: without a C++17 compiler (or with ``ZAVANDOR_NO_NATIVE=1``) the install still
succeeds, the pure-Python engine is used, and ``zavandor_env.engine.native_available()`` says
why the native core is missing.
"""

from __future__ import annotations

import os
from glob import glob

from pybind11.setup_helpers import ParallelCompile, Pybind11Extension, build_ext
from setuptools import setup

# Compile the sources in parallel (all cores; NPY_NUM_BUILD_JOBS=N sets the number).
ParallelCompile("NPY_NUM_BUILD_JOBS").install()

ext_modules = []
if os.environ.get("ZAVANDOR_NO_NATIVE", "") in ("", "0"):
    ext_modules.append(
        Pybind11Extension(
            "zavandor_env.engine._native",
            sorted(glob("native/src/*.cpp")),
            include_dirs=["native/src"],
            cxx_std=17,
            extra_compile_args=["-O2"],
            optional=True,  # a failed compile warns and leaves the Python engine in charge
        )
    )

setup(ext_modules=ext_modules, cmdclass={"build_ext": build_ext})
