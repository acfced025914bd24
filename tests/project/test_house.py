"""The pages that describe the house stay true to the tree.

* docs/architecture.md names every package folder of the source tree, one line per room, and
  only folders that exist; the layer it gives each room is the one tests/project/test_layering.py
  enforces, and its chain of layers is that test's.
* docs/contributing.md's table of changes: every file a recipe names exists (a ``<name>`` part
  stands for any file of that shape, of which at least one must exist), the count is the
  number of files listed, and every test named as walking a recipe exists.
* Two recipes walked here, cheaply: a new bot is one module plus one line of the registry, and
  every environment class lives under ``zavandor_env/envs/``.
"""

from __future__ import annotations

import ast
import re
import sys
import textwrap
from pathlib import Path

import pytest

from tests.project.test_layering import LAYERS, SOURCE_TREES, layer_of

ROOT = Path(__file__).resolve().parents[2]
ARCHITECTURE = ROOT / "docs" / "architecture.md"
CONTRIBUTING = ROOT / "docs" / "contributing.md"
CODE = re.compile(r"`([^`]+)`")


def _table_rows(page: Path, heading: str) -> list[list[str]]:
    """The body rows of the first table under ``heading`` (a ``##`` line), as cells."""
    lines = page.read_text(encoding="utf-8").splitlines()
    start = lines.index(heading)
    rows: list[list[str]] = []
    for line in lines[start + 1:]:
        if line.startswith("## "):
            break
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif rows:
            break
    assert len(rows) > 2, f"no table under {heading!r} in {page.name}"
    return rows[2:]  # the header and the |---| line


# ---- the architecture page --------------------------------------------------------------------
def package_folders() -> set[str]:
    """Every folder of the source trees holding an ``__init__.py``, as ``path/`` from the root
    (the ``zavandor_env/agents`` and ``zavandor_env/train`` links are read where they live)."""
    found = set()
    for _, tree in SOURCE_TREES:
        for init in tree.rglob("__init__.py"):
            folder = init.parent
            parts = folder.relative_to(ROOT).parts
            if "checkpoints" in parts or "__pycache__" in parts:
                continue
            if folder.resolve().relative_to(ROOT.resolve()).parts != parts:
                continue  # reached through a link: listed under its own name
            found.add("/".join(parts) + "/")
    return found


def rooms() -> dict[str, str]:
    """The rooms the page's table names: folder -> the layer column's text."""
    named = {}
    for cells in _table_rows(ARCHITECTURE, "## Rooms"):
        (folder,) = CODE.findall(cells[0])
        named[folder] = cells[-1]
    return named


def outside_folders() -> list[str]:
    rows = _table_rows(ARCHITECTURE, "## Rooms")  # the second table follows the first
    text = ARCHITECTURE.read_text(encoding="utf-8")
    after = text[text.index("Outside the package:"):]
    found = [CODE.findall(line.split("|")[1])[0] for line in after.splitlines()
             if line.startswith("| `")]
    assert found and rows
    return found


def test_every_package_folder_is_a_room_on_the_architecture_page() -> None:
    missing = sorted(package_folders() - set(rooms()))
    assert not missing, f"docs/architecture.md does not name these package folders: {missing}"


def test_every_folder_the_architecture_page_names_exists() -> None:
    gone = [f for f in [*rooms(), *outside_folders()] if not (ROOT / f).is_dir()]
    assert not gone, f"docs/architecture.md names folders that do not exist: {gone}"
    not_packages = sorted(set(rooms()) - package_folders())
    assert not not_packages, f"rooms that are not package folders: {not_packages}"


def _module(folder: str) -> str:
    parts = folder.strip("/").split("/")
    if parts[0] in ("agents", "train"):
        parts = ["zavandor_env", *parts]
    return ".".join(parts)


@pytest.mark.parametrize("folder", sorted(rooms()))
def test_each_room_has_the_layer_the_layering_test_gives_it(folder: str) -> None:
    stated = rooms()[folder]
    assert stated.split()[0] == layer_of(_module(folder)), (
        f"docs/architecture.md puts {folder} in layer {stated!r}; tests/project/test_layering.py "
        f"says {layer_of(_module(folder))!r}")


def test_the_architecture_page_shows_the_layering_tests_chain_of_layers() -> None:
    chain = "  ←  ".join(LAYERS)
    assert chain in ARCHITECTURE.read_text(encoding="utf-8"), chain


def test_the_room_reader_sees_a_folder_the_page_omits(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The check itself: a package folder that the page does not name is found."""
    page = tmp_path / "architecture.md"
    page.write_text("## Rooms\n\n| room | holds | layer |\n|---|---|---|\n"
                    "| `zavandor_env/engine/` | the game | engine |\n\nOutside the package:\n\n"
                    "| folder | holds |\n|---|---|\n| `native/src/` | C++ |\n")
    monkeypatch.setattr(sys.modules[__name__], "ARCHITECTURE", page)
    assert rooms() == {"zavandor_env/engine/": "engine"}
    assert outside_folders() == ["native/src/"]
    assert "zavandor_env/io/" in package_folders() - set(rooms())


# ---- the cost of a change ---------------------------------------------------------------------
def recipes() -> list[list[str]]:
    """The rows of the table of changes (none when the page lost it: the count test fails)."""
    try:
        return _table_rows(CONTRIBUTING, "## The cost of a change")
    except ValueError:
        return []


def _change(cells: list[str]) -> str:
    """A recipe's name: the text of its link."""
    return re.sub(r"\[(.*)\].*", r"\1", cells[0])


def _exists(path: str) -> bool:
    """A file of the tree; ``<name>`` parts stand for any text (at least one file must match)."""
    if "<" not in path:
        return (ROOT / path).is_file()
    return any(ROOT.glob(re.sub(r"<[^>]+>", "*", path)))


def test_the_contributing_page_counts_the_files_of_every_common_change() -> None:
    changes = [cells[0] for cells in recipes()]
    for change in ("rule table", "rule logic", "rule option", "state field",
                   "observation feature", "a bot", "env face", "training option"):
        assert any(change in c for c in changes), f"no recipe for {change!r}: {changes}"


@pytest.mark.parametrize("cells", recipes(), ids=_change)
def test_each_recipe_names_files_that_exist_and_counts_them(cells: list[str]) -> None:
    files = CODE.findall(cells[1])
    assert files, cells
    assert not [f for f in files if not _exists(f)], f"{cells[0]}: no such file"
    assert int(cells[2]) == len(files), f"{cells[0]}: {len(files)} files listed, not {cells[2]}"
    for generated in CODE.findall(cells[3]):
        assert _exists(generated) or (ROOT / generated).is_dir(), generated


@pytest.mark.parametrize("cells", recipes(), ids=_change)
def test_each_test_named_as_walking_a_recipe_exists(cells: list[str]) -> None:
    for name in CODE.findall(cells[4]):
        path, _, test = name.partition("::")
        assert (ROOT / path).is_file(), name
        if test:
            source = (ROOT / path).read_text(encoding="utf-8")
            assert re.search(rf"^def {re.escape(test)}\(", source, re.M), name


def test_a_placeholder_stands_for_files_of_its_shape() -> None:
    assert _exists("tests/engine/test_rules_<phase>.py")
    assert not _exists("tests/test_no_such_<thing>.py")
    assert not _exists("tests/test_house_no_such_file.py")


# ---- recipes walked ---------------------------------------------------------------------------
HOARDER = textwrap.dedent('''
    """A bot as docs/tutorials/bot.md writes one: buys gems, never bids."""
    from zavandor_env.agents import Agent
    from zavandor_env.engine import action_to_string


    class Hoarder(Agent):
        name = "hoarder"

        def act(self, observation, view, legal_actions):
            for action in legal_actions:
                if action_to_string(action).startswith("buy_gem"):
                    return action
            for action in legal_actions:
                if action_to_string(action) in ("pass", "end_block", "end_turn"):
                    return action
            return legal_actions[0]
''')


def test_a_new_bot_is_one_module_a_registry_line_and_its_parameters(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot recipe: a module with an ``Agent``, its line in the registry and the declaration
    of its parameters are all that spec strings, ``make_agent`` and a game need."""
    from zavandor_env.agents import registry, spec_params
    from zavandor_env.eval.match import play_game

    (tmp_path / "hoarder_bot.py").write_text(HOARDER)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(registry.REGISTRY, "hoarder", registry._factory("hoarder_bot:Hoarder"))
    monkeypatch.setitem(spec_params._SCHEMAS, "hoarder", lambda: {"seed": spec_params.SEED})
    spec_params.agent_schema.cache_clear()
    try:
        assert set(spec_params.declared_agents()) == set(registry.REGISTRY)
        spec = registry.parse_spec("hoarder:seed=4,label=h1")
        assert (spec.label, spec.params) == ("h1", {"seed": 4})
        with pytest.raises(ValueError, match="depth"):
            registry.parse_spec("hoarder:depth=3")
        result = play_game([registry.make_agent("hoarder", seed=0),
                            registry.make_agent("heuristic", seed=1)], seed=3)
        assert result.outcome.rounds > 0
    finally:
        spec_params.agent_schema.cache_clear()


ENV_BASES = {"AECEnv", "ParallelEnv", "Env", "Wrapper", "VectorEnv", "VecEnv", "MultiAgentEnv"}


def _base_names(node: ast.ClassDef) -> list[str]:
    return [ast.unparse(base) for base in node.bases]


def environment_classes() -> list[tuple[str, str]]:
    """(module path, class) of every class of the package that is an environment: one built on
    PettingZoo's, Gymnasium's, SB3's or RLlib's env classes or wrappers, or on OpenSpiel's game
    and state."""
    found = []
    for _, tree in SOURCE_TREES:
        for path in sorted(tree.rglob("*.py")):
            rel = path.relative_to(ROOT)
            if rel.parts[:2] in (("zavandor_env", "agents"), ("zavandor_env", "train")):
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.ClassDef):
                    continue
                for base in _base_names(node):
                    last = base.rsplit(".", 1)[-1]
                    if (last in ENV_BASES or last.endswith("Wrapper")
                            or base in ("pyspiel.Game", "pyspiel.State")):
                        found.append((rel.as_posix(), node.name))
                        break
    return found


def test_every_environment_class_lives_in_envs() -> None:
    classes = environment_classes()
    assert ("zavandor_env/envs/aec.py", "raw_env") in classes
    astray = [f"{path}: {name}" for path, name in classes
              if not path.startswith("zavandor_env/envs/")]
    assert not astray, f"environment classes outside zavandor_env/envs/: {astray}"


# ---- the test tree mirrors the package tree ---------------------------------------------------
TESTS = ROOT / "tests"
# The one test folder that is no room of the package: the README, the docs, the packaging and
# the house itself (these tests read the whole tree).
PROJECT_TESTS = "project"


def test_every_test_module_sits_in_the_folder_of_the_room_it_tests() -> None:
    room_names = {Path(folder).name for folder in package_folders()} | {PROJECT_TESTS}
    loose = sorted(p.name for p in TESTS.glob("test_*.py"))
    assert not loose, f"move these into tests/<room>/ (the room they test): {loose}"
    strays = sorted(str(p.relative_to(TESTS)) for p in TESTS.glob("*/test_*.py")
                    if p.parent.name not in room_names)
    assert not strays, f"tests/<folder>/ must be named after a room of the package: {strays}"


def test_every_test_folder_has_its_tests_collected_by_name() -> None:
    # pytest imports test modules by their file name (no __init__.py in tests/): two modules
    # of one name in two rooms would shadow each other.
    names = [p.name for p in TESTS.rglob("test_*.py")]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
