"""docs/observation.md and docs/actions.md are generated from the code and must be current."""

from __future__ import annotations

import pytest

from zavandor_env.engine import ACTION_NAMES
from zavandor_env.envs.docs import DOCS_DIR, GENERATED
from zavandor_env.envs.observation import OBS_SIZE, SLICES


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_doc_is_current(name: str) -> None:
    path = DOCS_DIR / name
    assert path.exists(), f"{path} is missing: run python -m zavandor_env.codegen"
    assert path.read_text(encoding="utf-8") == GENERATED[name](), (
        f"{path} is stale: run python -m zavandor_env.codegen"
    )


def test_observation_doc_covers_every_field_and_the_size() -> None:
    text = GENERATED["observation.md"]()
    assert f"float32[{OBS_SIZE}]" in text
    for name in SLICES:
        assert f"`{name.split('.')[-1]}`" in text


def test_actions_doc_names_every_action() -> None:
    text = GENERATED["actions.md"]()
    for index, name in enumerate(ACTION_NAMES):
        assert f"| {index} | `{name}` |" in text
