"""A clone that shadows the installed package (zavandor_env/engine/native.py): ``pip install .``
then Python run inside the clone imports the source tree, whose core is not built; the error
says so instead of asking for a reinstall that would change nothing."""

from __future__ import annotations

from pathlib import Path

from zavandor_env.engine.native import source_tree_shadowing


def _tree(root: Path, checkout: bool, built: bool) -> Path:
    package = root / "zavandor_env"
    (package / "engine").mkdir(parents=True)
    if checkout:
        (root / "pyproject.toml").write_text("[project]\n", encoding="utf-8")
        (root / "native" / "src").mkdir(parents=True)
    if built:
        (package / "engine" / "_native.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    return package


def test_a_checkout_in_front_of_a_built_install_is_named(tmp_path: Path) -> None:
    source = _tree(tmp_path / "clone", checkout=True, built=False)
    installed = _tree(tmp_path / "site-packages", checkout=False, built=True)
    message = source_tree_shadowing(source, installed)
    assert message is not None and "\n" not in message
    assert str(source) in message and str(installed.parent) in message
    assert "run Python from another folder" in message and "pip install -e ." in message


def test_other_missing_cores_are_not_called_shadowing(tmp_path: Path) -> None:
    source = _tree(tmp_path / "clone", checkout=True, built=False)
    unbuilt = _tree(tmp_path / "site-packages", checkout=False, built=False)
    plain = _tree(tmp_path / "elsewhere", checkout=False, built=False)
    assert source_tree_shadowing(source, None) is None  # nothing installed
    assert source_tree_shadowing(source, source) is None  # the install is this tree
    assert source_tree_shadowing(source, unbuilt) is None  # the install lacks a core too
    assert source_tree_shadowing(plain, _tree(tmp_path / "sp2", False, True)) is None
