"""The picture of the table: ``engine.svg.to_svg`` and its rasterised frames (``envs.picture``).

* the SVG is well-formed XML for 2-6 players, at game start, mid-auction, with an eliminated
  player and at game over, and shows what each of those states is about;
* a seat's view never shows another seat's hidden card values: two games that differ only in
  what seat 1 hides draw the same picture for seat 0, to the byte;
* snapshot tests: three fixed states (seeded games at fixed decision indices) are compared
  with committed SVG files and rasterised PNG files in ``tests/snapshots``.  After an
  intended change to the picture, regenerate them with
  ``python -m zavandor_env.codegen --only snapshots`` (:func:`update_snapshots`) and look at
  the PNGs before committing.
  The PNG comparison is tolerant, since rasterisers and fonts may move a few pixel values.
"""

from __future__ import annotations

import re
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from tests.policies import ThriftyPolicy, play_new
from zavandor_env.engine import Game, GameConfig, Phase
from zavandor_env.engine.scenario import build, play
from zavandor_env.render.svg import to_svg

SNAPSHOTS = Path(__file__).parents[1] / "snapshots"
REGENERATE = "python -m zavandor_env.codegen --only snapshots"
NS = "{http://www.w3.org/2000/svg}"
RICH = "dust10:30"
POOR = {"active": "", "hand": "dust10:2"}  # can pay 20 at most and has no gem to sell
PNG_WIDTH = 640  # snapshots are rasterised small to keep the committed files light


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    return root


def texts(element: ET.Element) -> list[str]:
    return [t.text or "" for t in element.iter(f"{NS}text")]


def panel(root: ET.Element, seat: int) -> ET.Element:
    for g in root.iter(f"{NS}g"):
        if g.get("id") == f"seat-{seat}":
            return g
    raise AssertionError(f"no panel for seat {seat}")


def played(num_players: int, seed: int, decisions: int) -> Game:
    """A seeded game after ``decisions`` decisions of the thrifty test policy."""
    game = Game.new(GameConfig(num_players=num_players), seed=seed)
    policy = ThriftyPolicy(seed)
    for _ in range(decisions):
        game.apply(policy(game))
    return game


def auction_game() -> Game:
    """Four players; seat 1 was cursed in an earlier auction, and seat 2 now leads a bid on
    the Magic Mirror that seat 0 opened (seat 3 to decide)."""
    game = build(
        4,
        players=[
            {"hand": RICH + " red13 red15 conc_green", "sentinels": "owl",
             "artifacts": "talisman crystal_ball:2"},
            POOR,
            {"hand": "dust2 blue5 blue5 blue6 green7 white10 white11"},
            {"hand": RICH, "sages": "blue5 green7", "sages_dust": 2},
        ],
        turn_order=[0, 1, 2, 3],
        display=["spellbook", "runestone", "elixir", "magic_mirror"],
    )
    play(game, "open_spellbook bid_plus_0 bid_plus_50 pass pass pass")  # seat 1 cannot pay
    play(game, "open_magic_mirror bid_plus_0 bid_plus_5")
    return game


# ---- well-formed for every table size and stage -------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_svg_parses_at_game_start_for_every_view(num_players: int) -> None:
    game = Game.new(num_players=num_players, seed=num_players)
    for seat in [None, *range(num_players)]:
        root = parse(to_svg(game, seat))
        assert int(root.get("width", "0")) == 1280
        assert [panel(root, s) is not None for s in range(num_players)]
        shown = " ".join(texts(root))
        assert "Round 1" in shown and f"player_{game.current_player} to decide" in shown
        assert ("spectator view" in shown) == (seat is None)


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_svg_parses_through_a_whole_game(num_players: int) -> None:
    seen: list[str] = []
    game, _ = play_new(num_players, seed=40 + num_players)
    replay = Game.new(GameConfig(num_players=num_players), seed=40 + num_players)
    for i, action in enumerate(game.history):
        if i % 25 == 0:
            seen.append(to_svg(replay, seat=i % num_players))
        replay.apply(action)
    seen.append(to_svg(replay))
    for svg in seen:
        parse(svg)


def test_mid_auction_shows_item_high_bid_bidder_and_who_passed() -> None:
    game = auction_game()
    assert game.phase == Phase.BID and game.current_player == 3
    root = parse(to_svg(game))
    shown = texts(root)
    assert "AUCTION" in shown and "magic mirror" in shown and "45" in shown
    assert any(t.startswith("high bid by player_2") for t in shown)
    assert "HIGH BID" in texts(panel(root, 2)) and "DECIDING" in texts(panel(root, 3))
    assert "last action: bid_plus_5" in " ".join(shown)


def test_an_eliminated_player_is_greyed_and_tagged() -> None:
    game = auction_game()
    assert game.state.players[1].eliminated
    root = parse(to_svg(game, seat=0))
    out = panel(root, 1)
    assert out.get("opacity") is not None and "ELIMINATED" in texts(out)
    assert panel(root, 0).get("opacity") is None


def test_game_over_shows_the_outcome() -> None:
    game, _ = play_new(3, seed=2)
    assert game.terminated
    outcome = game.outcome()
    shown = texts(parse(to_svg(game)))
    winner = f"player_{outcome.winners[0]}"
    assert f"Game over: {winner} won" in shown and "Final result" in shown
    assert "WINNER" in texts(panel(parse(to_svg(game)), outcome.winners[0]))


def test_a_truncated_game_has_no_winner_in_the_picture() -> None:
    game, _ = play_new(2, seed=5, max_rounds=3)
    assert game.truncated
    shown = texts(parse(to_svg(game)))
    assert "Game over: cut off by a safety limit" in shown and "WINNER" not in shown


# ---- hidden information -------------------------------------------------------------------
def two_hands(seat1_hand: str, seat1_sages: str) -> Game:
    return build(
        3,
        players=[{"hand": "blue3 white12 dust5"},
                 {"hand": seat1_hand, "sages": seat1_sages},
                 {"hand": "green8"}],
        turn_order=[0, 1, 2],
        display=["spellbook", "elixir", "talisman"],
        seed=3,
    )


def test_a_seat_view_never_shows_other_seats_hidden_cards() -> None:
    low = two_hands("red13 green5 green5", "blue4")
    high = two_hands("red17 green9 green10", "blue7")
    # every visible thing is equal, so seat 0 and seat 2 must see exactly the same picture
    for seat in (0, 2):
        assert to_svg(low, seat) == to_svg(high, seat)
    # ... while the spectator (and seat 1 itself) sees the difference
    assert to_svg(low) != to_svg(high)
    assert to_svg(low, 1) != to_svg(high, 1)
    root = parse(to_svg(high, 0))
    assert not [e for e in panel(root, 1).iter() if e.get("class") == "vals"]
    own = [e.text for e in panel(root, 0).iter() if e.get("class") == "vals"]
    assert own == ["3", "12"]  # the viewer's own values are shown
    shown = " ".join(texts(panel(root, 1)))
    assert "face down" in shown and "under turn card: 1 card" in shown
    spectator = " ".join(texts(panel(parse(to_svg(high)), 1)))
    assert "9 10" in spectator and "17" in spectator and "blue 7" in spectator


def test_seat_must_be_a_seat_index() -> None:
    game = Game.new(num_players=2, seed=1)
    for bad in (2, -1, True, "0", 1.0):
        with pytest.raises(ValueError, match="seat must be None or an integer"):
            to_svg(game, bad)  # type: ignore[arg-type]
    assert to_svg(game, np.int64(1)) == to_svg(game, 1)  # type: ignore[arg-type]


# ---- determinism, escaping, speed -----------------------------------------------------------
def test_same_state_same_string() -> None:
    game = played(4, seed=3, decisions=120)
    svg = to_svg(game)
    assert to_svg(game.clone()) == svg and to_svg(game) == svg
    assert to_svg(Game.from_json(game.to_json())) == svg
    assert to_svg(game, seat=2) == to_svg(game, 2)


def test_the_former_game_methods_name_their_replacement() -> None:
    """``Game.to_svg()`` / ``describe()`` left the engine (it imports nothing above it); a
    caller gets one line naming the function in ``zavandor_env.render``."""
    import zavandor_env.render as render

    game = played(2, seed=1, decisions=5)
    for name in ("to_svg", "describe"):
        with pytest.raises(AttributeError, match=rf"zavandor_env\.render\.{name}\(game"):
            getattr(game, name)()
        assert callable(getattr(render, name))
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        game.nonsense  # noqa: B018


def test_text_is_escaped() -> None:
    from zavandor_env.render.svg_canvas import esc

    assert esc('<b> & "q"') == "&lt;b&gt; &amp; &quot;q&quot;"


def test_svg_is_fast_enough_to_draw_every_frame() -> None:
    game = played(4, seed=3, decisions=300)
    to_svg(game)
    start = time.perf_counter()
    for _ in range(20):
        to_svg(game)
    per_call = (time.perf_counter() - start) / 20
    assert per_call < 0.05  # ~1 ms here; the bound only catches a pathological slowdown


# ---- snapshots ------------------------------------------------------------------------------
SNAPSHOT_STATES: dict[str, tuple[Callable[[], Game], int | None]] = {
    # a two-player game in round 11, seen by seat 1
    "2p_seed1_d60_seat1": (lambda: played(2, seed=1, decisions=60), 1),
    # a four-player game in the middle of an auction on the scarab, spectator's view
    "4p_seed3_d300_auction": (lambda: played(4, seed=3, decisions=300), None),
    # a finished three-player game
    "3p_seed2_game_over": (lambda: play_new(3, seed=2)[0], None),
}


@pytest.mark.parametrize("name", sorted(SNAPSHOT_STATES))
def test_svg_snapshot(name: str) -> None:
    make, seat = SNAPSHOT_STATES[name]
    game = make()
    if name.endswith("auction"):
        assert game.phase == Phase.BID
    if name.endswith("game_over"):
        assert game.is_over
    path = SNAPSHOTS / f"{name}.svg"
    assert path.exists(), f"missing {path.name}: run {REGENERATE}"
    assert path.read_text(encoding="utf-8") == to_svg(game, seat), (
        f"{path.name} changed; if intended, run {REGENERATE}")


def png_differs(pixels: np.ndarray, expected: np.ndarray) -> str | None:
    """Why a rendered picture does not match a stored one, or None if it does.  Anti-aliasing
    and font hinting may move a few values; a changed picture moves many."""
    if pixels.shape != expected.shape:
        return f"size {pixels.shape} instead of {expected.shape}"
    diff = np.abs(pixels.astype(np.int16) - expected.astype(np.int16)).max(axis=2)
    if diff.mean() >= 2.0:
        return f"mean pixel difference {diff.mean():.2f}"
    if (diff > 64).mean() >= 0.01:
        return f"{(diff > 64).mean():.2%} of pixels differ"
    return None


def _stored_png(path: Path) -> np.ndarray:
    from PIL import Image

    with Image.open(path) as stored:
        return np.asarray(stored.convert("RGB"))


def update_snapshots(write: bool) -> list[Path]:
    """The snapshot writer (``python -m zavandor_env.codegen``): the SVG and PNG files that
    differ from what the code draws now (PNGs with the tests' tolerance), each rewritten when
    ``write``.  The PNGs are skipped when the ``render`` extra is not installed."""
    try:
        from PIL import Image

        from zavandor_env.render.picture import frame
    except ImportError:
        frame = None  # type: ignore[assignment]
    stale: list[Path] = []
    for name, (make, seat) in sorted(SNAPSHOT_STATES.items()):
        game = make()
        path = SNAPSHOTS / f"{name}.svg"
        svg = to_svg(game, seat)
        if not path.exists() or path.read_text(encoding="utf-8") != svg:
            stale.append(path)
            if write:
                path.parent.mkdir(exist_ok=True)
                path.write_text(svg, encoding="utf-8")
        if frame is None:
            continue
        path = SNAPSHOTS / f"{name}.png"
        pixels = frame(game, seat, width=PNG_WIDTH)
        if not path.exists() or png_differs(pixels, _stored_png(path)):
            stale.append(path)
            if write:
                Image.fromarray(pixels).save(path, optimize=True)
    return stale


@pytest.mark.parametrize("name", sorted(SNAPSHOT_STATES))
def test_png_snapshot(name: str) -> None:
    pytest.importorskip("PIL.Image")
    from zavandor_env.render.picture import frame

    make, seat = SNAPSHOT_STATES[name]
    pixels = frame(make(), seat, width=PNG_WIDTH)
    path = SNAPSHOTS / f"{name}.png"
    assert path.exists(), f"missing {path.name}: run {REGENERATE}"
    problem = png_differs(pixels, _stored_png(path))
    assert problem is None, f"{name}: {problem}; if intended, run {REGENERATE}"


# ---- frames ---------------------------------------------------------------------------------
def test_frame_is_an_rgb_uint8_image() -> None:
    pytest.importorskip("PIL")
    from zavandor_env.render.picture import frame, svg_to_rgb

    game = played(3, seed=4, decisions=30)
    pixels = frame(game)
    root = parse(to_svg(game))
    assert pixels.dtype == np.uint8 and pixels.ndim == 3 and pixels.shape[2] == 3
    assert pixels.shape[:2] == (int(root.get("height", "0")), int(root.get("width", "0")))
    assert pixels.std() > 10  # a drawing, not a blank canvas
    small = svg_to_rgb(to_svg(game, seat=0), width=400)
    assert small.shape[1] == 400 and small.dtype == np.uint8
    with pytest.raises(ValueError, match="width"):
        svg_to_rgb(to_svg(game), width=0)


def test_an_eliminated_panel_is_painted_faded_into_the_page() -> None:
    """``<g opacity>`` (an eliminated seat's panel) is blended with what lies beneath it."""
    pytest.importorskip("PIL")
    from zavandor_env.render.picture import svg_to_rgb

    svg = to_svg(auction_game(), seat=0)
    assert ' opacity="0.45"' in svg
    faded = svg_to_rgb(svg).astype(int)
    solid = svg_to_rgb(svg.replace(' opacity="0.45"', "")).astype(int)
    changed = np.abs(faded - solid).max(axis=2) > 0
    assert 0.005 < changed.mean() < 0.25  # what is drawn on one panel of four
    backing = np.array([0xC9, 0xC9, 0xC9])  # the grey card behind an eliminated panel
    assert (np.abs(faded[changed] - backing).mean()
            < 0.7 * np.abs(solid[changed] - backing).mean())


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_the_painter_draws_every_picture_of_random_games(num_players: int) -> None:
    """Random players open auctions, overbid and are cursed out: whatever the SVG writer
    draws along their games (every seat's view and the spectator's), the painter paints."""
    pytest.importorskip("PIL")
    import random

    from zavandor_env.render.picture import svg_to_rgb

    rng = random.Random(num_players)
    for seed in range(3):
        game = Game.new(GameConfig(num_players=num_players), seed=seed)
        step = 0
        while True:
            if step % 7 == 0 or game.is_over:
                for seat in (None, step % num_players):
                    assert svg_to_rgb(to_svg(game, seat), width=160).shape[1] == 160
            if game.is_over:
                break
            game.apply(rng.choice(game.legal_actions()))
            step += 1


@pytest.mark.parametrize("svg, message", [
    ("<svg xmlns='http://www.w3.org/2000/svg' width='4' height='4'><path d='M0 0'/></svg>",
     "<path> is not part of it"),
    ("<svg xmlns='http://www.w3.org/2000/svg' width='4' height='4'><rect width='1' height='1' "
     "filter='url(#f)'/></svg>", "does not draw <rect> filter="),
    ("<!DOCTYPE svg [<!ENTITY a 'aaaa'>]><svg xmlns='http://www.w3.org/2000/svg'/>",
     "no declarations"),
    ("<svg xmlns='http://www.w3.org/2000/svg' width='1e9' height='4'/>", "out of range"),
    ("<svg xmlns='http://www.w3.org/2000/svg' width='90000' height='4'/>", "8192-pixel side"),
    ("<html/>", "root element"),
    ("<svg xmlns='http://www.w3.org/2000/svg' width='4' height='4'><polygon points='0,0 nan,1 "
     "2,2'/></svg>", "points='nan' is out of range"),
    ("<svg xmlns='http://www.w3.org/2000/svg' width='4' height='4'><rect width='2' height='2' "
     "stroke='#000' stroke-dasharray='3'/></svg>", "two lengths"),
    ("<svg", "not an SVG document"),
])
def test_the_painter_refuses_what_the_table_never_draws_in_one_line(svg: str,
                                                                    message: str) -> None:
    pytest.importorskip("PIL")
    from zavandor_env.render.picture import svg_to_rgb

    with pytest.raises(ValueError, match=re.escape(message)) as info:
        svg_to_rgb(svg)
    assert "\n" not in str(info.value)


def test_a_missing_rasteriser_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from zavandor_env.render import picture
    monkeypatch.setitem(sys.modules, "PIL", None)  # makes `import PIL` fail
    with pytest.raises(ImportError, match=r"zavandor-env\[render\]"):
        picture.svg_to_rgb("<svg xmlns='http://www.w3.org/2000/svg' width='4' height='4'/>")


def test_png_snapshot_files_stay_small() -> None:
    for path in SNAPSHOTS.glob("*.png"):
        assert path.stat().st_size < 200_000, path.name
