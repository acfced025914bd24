"""One command for every derived artifact: ``python -m zavandor_env.codegen``.

The artifacts, in the order they are written:

* ``header``   -- ``native/src/generated/constants.hpp``: every constant the C++ core shares
  with Python (:mod:`zavandor_env.codegen.header`); rebuild the extension afterwards.
* ``golden``   -- ``tests/golden/*.json``, the golden replays (``tests/golden/regenerate.py``).
* ``snapshots``-- ``tests/snapshots/*.svg`` and ``*.png`` (the writer in
``tests/render/test_svg.py``;
  the PNGs need the ``render`` extra and are compared with the tests' pixel tolerance).
* ``schema``   -- the key table of ``configs/README.md``
  (:func:`zavandor_env.train.config.schema_markdown`).
* ``docs``     -- ``docs/observation.md`` and ``docs/actions.md``, the observation layout and
  the action table (:data:`zavandor_env.codegen.observation_docs.GENERATED`).

Everything is computed with the oracle, the Python rules (games are oracle games while it runs:
:func:`zavandor_env.engine.oracle.games_on_the_oracle`), so a stale native core cannot spoil
it.  It runs from a source checkout only (the tests and ``native/`` are not installed with the
package).
``--check`` writes nothing and exits 1 listing every stale file, one a line; ``--only`` picks
artifacts by name.  Regenerate goldens and snapshots only after a deliberate change of the rules
or of the picture, and review their diff.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from zavandor_env.codegen.header import HEADER_PATH, REBUILD, CodegenError, render
from zavandor_env.engine.oracle import games_on_the_oracle

ROOT = Path(__file__).resolve().parents[2]

__all__ = ["ARTIFACTS", "ROOT", "Artifact", "CodegenError", "main", "run"]


@dataclass(frozen=True)
class Artifact:
    """A derived artifact: ``update(write)`` returns the files that are (write=False) or were
    (write=True) out of date, as repository-relative paths."""

    name: str
    what: str
    update: Callable[[bool], list[str]]


def _write_if_changed(path: Path, text: str, write: bool) -> list[str]:
    current = path.read_text(encoding="utf-8") if path.exists() else None
    if current == text:
        return []
    if write:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return [path.relative_to(ROOT).as_posix()]


def _header(write: bool) -> list[str]:
    return _write_if_changed(ROOT / HEADER_PATH, render(), write)


def _check_checkout() -> None:
    """The artifacts live in a source checkout; an installed package has none of them."""
    for part in ("native/src", "tests/golden/regenerate.py", "configs/README.md"):
        if not (ROOT / part).exists():
            raise CodegenError(f"{ROOT} is not a source checkout (no {part}): "
                               "run this from a clone of the repository")


def _tests_module(name: str) -> object:
    """A module of the repository's tests (importable from a checkout only)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return importlib.import_module(name)


def _golden(write: bool) -> list[str]:
    regenerate = _tests_module("tests.golden.regenerate")
    stale: list[str] = []
    for path, text in regenerate.golden_files().items():  # type: ignore[attr-defined]
        stale += _write_if_changed(path, text, write)
    return stale


def _snapshots(write: bool) -> list[str]:
    test_svg = _tests_module("tests.render.test_svg")
    paths = test_svg.update_snapshots(write)  # type: ignore[attr-defined]
    return [Path(p).relative_to(ROOT).as_posix() for p in paths]


#: The key table is the block of table lines whose first line starts so (its columns are the
#: schema's business).
TABLE_HEAD = "| key |"


def _schema(write: bool) -> list[str]:
    from zavandor_env.train.config import schema_markdown

    path = ROOT / "configs" / "README.md"
    lines = path.read_text(encoding="utf-8").split("\n")
    heads = [i for i, line in enumerate(lines) if line.startswith(TABLE_HEAD)]
    if not heads:
        raise CodegenError(f"{path}: no table starting with {TABLE_HEAD!r} to replace")
    start = heads[0]
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    text = "\n".join([*lines[:start], schema_markdown(), *lines[end:]])
    return _write_if_changed(path, text, write)


def _docs(write: bool) -> list[str]:
    from zavandor_env.codegen.observation_docs import GENERATED

    stale: list[str] = []
    for name, build in GENERATED.items():
        stale += _write_if_changed(ROOT / "docs" / name, build(), write)
    return stale


ARTIFACTS: tuple[Artifact, ...] = (
    Artifact("header", HEADER_PATH, _header),
    Artifact("golden", "tests/golden/*.json", _golden),
    Artifact("snapshots", "tests/snapshots/*.svg, *.png", _snapshots),
    Artifact("schema", "configs/README.md key table", _schema),
    Artifact("docs", "docs/observation.md, docs/actions.md", _docs),
)


def run(only: Sequence[str] | None = None, check: bool = False) -> list[str]:
    """Regenerate (or with ``check``, only compare) the named artifacts (default: all);
    returns the stale files, repository-relative."""
    names = [a.name for a in ARTIFACTS]
    chosen = list(names if not only else only)
    unknown = [n for n in chosen if n not in names]
    if unknown:
        raise CodegenError(f"unknown artifact(s) {unknown}; choose from {names}")
    _check_checkout()
    stale: list[str] = []
    # Goldens and snapshots are played by the oracle, whatever is built: a native core older
    # than the header must not write them.
    with games_on_the_oracle():
        for artifact in ARTIFACTS:
            if artifact.name in chosen:
                stale += artifact.update(not check)
    return stale


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: ``python -m zavandor_env.codegen [--check] [--only a,b]``."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m zavandor_env.codegen",
        description="Regenerate every artifact derived from the Python definitions: "
        + "; ".join(f"{a.name} ({a.what})" for a in ARTIFACTS) + ".")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 listing every stale file")
    parser.add_argument("--only", default="",
                        help="comma-separated artifact names (default: all): "
                        + ",".join(a.name for a in ARTIFACTS))
    args = parser.parse_args(argv)
    only = [n.strip() for n in args.only.split(",") if n.strip()]
    try:
        stale = run(only, check=args.check)
    except CodegenError as exc:
        print(f"codegen: {exc}", file=sys.stderr)
        return 2
    for path in stale:
        print(f"stale: {path}" if args.check else f"wrote: {path}")
    if args.check and stale:
        print("run `python -m zavandor_env.codegen` to regenerate", file=sys.stderr)
        return 1
    if not args.check and HEADER_PATH in stale:
        print(f"the header changed: rebuild the native core ({REBUILD})")
    return 0
