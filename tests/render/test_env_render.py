"""Rendering through the environments: text, coloured text and RGB pictures of the table."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import render_test

import zavandor_env
from zavandor_env.envs import SingleAgentEnv, raw_env

pytest.importorskip("PIL")


@pytest.mark.parametrize("num_players", [2, 4])
def test_pettingzoo_render_test_passes_for_every_mode(num_players: int) -> None:
    render_test(lambda render_mode=None: zavandor_env.env(num_players=num_players,
                                                          render_mode=render_mode))


# The checker's note that an env made without gymnasium.make has no spec to try other modes
# with: this test makes it directly on purpose (the modes are each tested above).
@pytest.mark.filterwarnings("ignore:.*Not able to test alternative render modes:UserWarning")
def test_gymnasium_checker_accepts_rgb_array_rendering() -> None:
    check_env(SingleAgentEnv(num_players=2, render_mode="rgb_array"), skip_render_check=False)


def test_rgb_array_is_the_picture_of_the_table_as_uint8() -> None:
    env = raw_env(num_players=3, render_mode="rgb_array")
    env.reset(seed=4)
    first = env.render()
    assert isinstance(first, np.ndarray) and first.dtype == np.uint8 and first.ndim == 3
    assert first.shape[2] == 3 and first.shape[1] >= 1000 and first.std() > 10
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert not np.array_equal(env.render(), first), "the picture follows the game"


def test_gymnasium_make_renders_rgb_arrays() -> None:
    env = gymnasium.make("Zavandor-v0", render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render().shape[2] == 3


def test_unknown_render_mode_is_one_line_error() -> None:
    with pytest.raises(ValueError, match="render_mode must be None or one of"):
        raw_env(render_mode="video")
    with pytest.raises(ValueError, match="render_mode must be None or one of"):
        SingleAgentEnv(render_mode="video")


def test_human_mode_keeps_a_live_page_of_the_picture(capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", lambda url, *a, **k: opened.append(url))
    env = raw_env(num_players=2, render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    page = env._renderer.page
    assert page is not None and "<svg" in page.read_text()
    first = page.read_text()
    out = capsys.readouterr().out
    assert page.as_uri() in out and "\033[" in out  # the page's address, then the table
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    env.render()
    assert page.read_text() != first, "the page follows the game"
    assert page.as_uri() not in capsys.readouterr().out, "the address is printed once"
    assert opened == [], "no browser without a display"
    env.close()
    assert not page.exists()
