"""The browser pieces without a browser: the viewer page, the policy's explanations in replays
(value head included) and the web app's game and HTTP endpoints.

The real-browser checks (clicks, keys, what the page shows) are in ``test_browser.py``.
"""

from __future__ import annotations

import json
import re
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from zavandor_env.agents.base import RandomAgent
from zavandor_env.agents.heuristic import HeuristicAgent
from zavandor_env.agents.policy import PickleLoadWarning, PolicyAgent
from zavandor_env.agents.policy_file import NumpyPolicy, load_policy, save_policy
from zavandor_env.cli import main
from zavandor_env.encoding.observation import OBS_SIZE
from zavandor_env.engine import Game, ReplayError
from zavandor_env.engine.actions import ACTION_NAMES, NUM_ACTIONS
from zavandor_env.eval.match import play_game
from zavandor_env.render.svg import to_svg
from zavandor_env.web.server import TOKEN_HEADER, AppServer, BadRequest, Table
from zavandor_env.web.viewer import ChunkPool, render_html, viewer_data

CHECKPOINT = Path(__file__).parents[2] / "train" / "checkpoints" / "selfplay_2p" / "policy.npz"
SVG_NAMESPACE = "http://www.w3.org/2000/svg"


def heuristic_replay(players: int, seed: int) -> dict[str, Any]:
    result = play_game([HeuristicAgent(seed=i) for i in range(players)], seed=seed,
                       record_replay=True)
    assert result.replay is not None
    return {**result.replay, "agents": result.labels}


@pytest.fixture(scope="module")
def replay_2p() -> dict[str, Any]:
    return heuristic_replay(2, seed=4)


def page_data(page: str) -> dict[str, Any]:
    """The JSON block of a viewer page, as the page's script reads it."""
    match = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page,
                      re.S)
    assert match, "the page has no data block"
    data: dict[str, Any] = json.loads(match.group(1))
    return data


def decode(pieces: list[str], runs: list[int]) -> str:
    """A picture back from its runs of pool pieces (what the page's script does)."""
    return "".join("".join(pieces[runs[i]:runs[i] + runs[i + 1]]) for i in range(0, len(runs), 2))


# ---- the viewer page ---------------------------------------------------------------------------
def test_chunk_pool_gives_back_every_picture_exactly() -> None:
    pool = ChunkPool()
    game = Game.new(num_players=3, seed=2)
    pictures = []
    for _ in range(40):
        pictures.append(to_svg(game))
        game.apply(game.legal_actions()[0])
    encoded = [pool.encode(svg) for svg in pictures]
    assert [decode(pool.pieces, runs) for runs in encoded] == pictures
    # Shared pieces are stored once: far less than the pictures themselves.
    assert sum(map(len, pool.pieces)) < sum(map(len, pictures)) / 5


def test_frames_follow_the_replay_decision_by_decision(replay_2p: dict[str, Any]) -> None:
    data = viewer_data(replay_2p)
    actions = replay_2p["actions"]
    assert len(data.frames) == len(actions) + 1
    game = Game.new(Game.from_replay_record(replay_2p).config, replay_2p["seed"])
    for i, frame in enumerate(data.frames):
        assert frame["vp"] == game.scores() and frame["round"] == game.state.round
        if i % 37 == 0 or i == len(actions):  # the pictures are the slow part: a sample
            assert decode(data.pieces, frame["svg"]) == to_svg(game)
        if i == len(actions):
            assert frame["action"] is None and frame["seat"] == -1 and frame["legal"] == []
            break
        assert frame["action"] == actions[i] and frame["seat"] == game.current_player
        assert frame["legal"] == list(game.legal_actions())
        game.apply(actions[i])
    assert data.scores == game.scores() == data.frames[-1]["vp"]
    assert data.labels == replay_2p["agents"] and not data.has_policy
    news = [line for frame in data.frames for line in frame["news"]]
    assert len([n for n in news if " won the " in n]) == len(game.purchases)


def test_page_is_one_offline_file(replay_2p: dict[str, Any]) -> None:
    page = render_html(replay_2p, title="a <test> & title")
    assert page.startswith("<!DOCTYPE html>") and "a &lt;test&gt; &amp; title" in page
    # Nothing is fetched: no external scripts, styles, images or fonts.
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=\"(?!data:)", page)
    assert "@import" not in page and "url(" not in page
    urls = set(re.findall(r"https?://[^\s\"'<>\\]+", page))
    assert urls <= {SVG_NAMESPACE, "http://www.w3.org/1999/xlink"}, urls
    assert "{{" not in page.replace("{{\\", "")  # every template part was filled
    data = page_data(page)
    assert data["scores"] == Game.from_replay_record(replay_2p).scores()
    assert data["actionNames"] == list(ACTION_NAMES)


def test_a_hostile_label_cannot_end_the_data_block(replay_2p: dict[str, Any]) -> None:
    record = {**replay_2p, "agents": ["</script><script>alert(1)</script>", "b&c"]}
    page = render_html(record)
    assert page.count("</script>") == 2  # the data block's and the viewer script's
    assert page_data(page)["labels"][0] == "</script><script>alert(1)</script>"


def test_a_typical_4_player_page_stays_small() -> None:
    record = heuristic_replay(4, seed=3)
    size = len(render_html(record).encode())
    decisions = len(record["actions"])
    assert decisions > 300  # a real game, not a short one
    # ~1 MB for ~550 decisions (each board alone is ~48 KB); the budget is 10 MB.
    assert size < 3_000_000, f"{size / 1e6:.1f} MB for {decisions} decisions"


def test_replay_html_from_the_command_line(tmp_path: Path, replay_2p: dict[str, Any],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(replay_2p))
    out = tmp_path / "game.html"
    assert main(["replay", str(path), "--html", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    assert page_data(out.read_text())["frames"][-1]["vp"] == viewer_data(replay_2p).scores
    assert main(["replay", str(path), "--html", str(tmp_path / "absent" / "x.html")]) == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and len(err.strip().splitlines()) == 1
    path.write_text(json.dumps({**replay_2p, "actions": [66]}))
    assert main(["replay", str(path), "--html", str(out)]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_malformed_annotations_are_skipped_not_fatal(replay_2p: dict[str, Any]) -> None:
    record = {**replay_2p, "annotations": [
        {"decision": 0, "seat": 0, "probs": {"end_turn": 0.5}, "value": float("nan")},
        {"decision": 1, "probs": "oops"}, "junk", {"decision": 10**6, "probs": {}},
        {"decision": 2, "probs": {"pass": True, "bid_plus_1": 0.25}, "value": 0.5},
    ]}
    data = viewer_data(record)
    notes = {i: f["note"] for i, f in enumerate(data.frames) if f["note"]}
    assert notes == {0: {"probs": {"end_turn": 0.5}, "value": None},
                     2: {"probs": {"bid_plus_1": 0.25}, "value": 0.5}}
    json.dumps(data.to_dict(), allow_nan=False)  # the page's JSON stays valid
    with pytest.raises(ReplayError):
        viewer_data({**replay_2p, "actions": "nope"})


def test_annotation_numbers_too_large_for_a_float_are_skipped(replay_2p: dict[str, Any]) -> None:
    huge = 10 ** 400  # what the JSON literal 1 followed by 400 zeros parses to
    record = {**replay_2p, "annotations": [
        {"decision": 0, "probs": {"end_turn": huge, "pass": 0.5}, "value": huge},
        {"decision": 1, "probs": {"pass": 0.25}, "value": -huge},
    ]}
    notes = {i: f["note"] for i, f in enumerate(viewer_data(record).frames) if f["note"]}
    assert notes == {0: {"probs": {"pass": 0.5}, "value": None},
                     1: {"probs": {"pass": 0.25}, "value": None}}
    page_data(render_html(record))  # the page is written and its JSON is valid


def test_replay_html_of_a_file_with_a_400_digit_value_is_written(
        tmp_path: Path, replay_2p: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(replay_2p)[:-1] + ', "annotations": [{"decision": 0, "probs": '
                    '{"pass": 1' + "0" * 400 + '}, "value": 1' + "0" * 400 + '}]}')
    assert main(["replay", str(path), "--html", str(tmp_path / "o.html")]) == 0
    assert page_data((tmp_path / "o.html").read_text())["frames"][0]["note"] == {
        "probs": {}, "value": None}


# ---- the policy's view: explain(), annotations, the value head ----------------------------------
def test_play_game_records_the_policys_view_of_each_of_its_decisions() -> None:
    policy = PolicyAgent(CHECKPOINT, seed=0)
    result = play_game([policy, HeuristicAgent(seed=1)], seed=5, record_replay=True)
    assert result.replay is not None
    notes = result.replay["annotations"]
    actions = result.replay["actions"]
    game = Game.new(Game.from_replay_record(result.replay).config, result.replay["seed"])
    seats = []
    for action in actions:
        seats.append(game.current_player)
        game.apply(action)
    assert notes and [n["decision"] for n in notes] == [i for i, s in enumerate(seats) if s == 0]
    for note in notes:
        probs = list(note["probs"].values())
        assert note["seat"] == 0  # the committed 2-player file carries the critic:
        assert isinstance(note["value"], float) and -2.0 < note["value"] < 2.0
        assert 1 <= len(probs) <= 8 and probs == sorted(probs, reverse=True)
        assert 0 < sum(probs) <= 1 + 0.00005 * len(probs) + 1e-9  # each rounded to 4 places
        # Deterministic play takes the most probable action: the first one listed.
        assert next(iter(note["probs"])) == ACTION_NAMES[actions[note["decision"]]]
    # Without recording nothing is explained (and the plain record is unchanged).
    plain = play_game([RandomAgent(seed=1), RandomAgent(seed=2)], seed=5, record_replay=True)
    assert plain.replay is not None and "annotations" not in plain.replay


def test_eval_save_replays_records_annotations(tmp_path: Path) -> None:
    out = tmp_path / "eval"
    assert main(["eval", "--agents", f"policy:path={CHECKPOINT}", "random", "--games", "2",
                 "--save-replays", "--out", str(out), "--workers", "1", "--quiet",
                 "--no-chart"]) == 0
    replays = sorted((out / "replays").glob("*.json"))
    assert len(replays) == 2
    for path in replays:
        record = json.loads(path.read_text())
        policy_seat = record["agents"].index(next(a for a in record["agents"] if "policy" in a))
        assert record["annotations"] and {n["seat"] for n in record["annotations"]} == {
            policy_seat}


def _policy_with_critic(seed: int = 0) -> NumpyPolicy:
    rng = np.random.default_rng(seed)
    return NumpyPolicy(
        [rng.normal(size=(8, OBS_SIZE)).astype(np.float32),
         rng.normal(size=(NUM_ACTIONS, 8)).astype(np.float32)],
        [np.zeros(8, np.float32), np.zeros(NUM_ACTIONS, np.float32)], "tanh", {},
        value_weights=[rng.normal(size=(4, OBS_SIZE)).astype(np.float32),
                       rng.normal(size=(1, 4)).astype(np.float32)],
        value_biases=[np.zeros(4, np.float32), np.full(1, 0.25, np.float32)])


def test_value_head_survives_a_file_and_old_files_report_none(tmp_path: Path) -> None:
    policy = _policy_with_critic()
    obs = np.random.default_rng(1).random(OBS_SIZE).astype(np.float32)
    loaded = load_policy(save_policy(policy, tmp_path / "critic.npz"))
    assert loaded.has_value and loaded.value(obs) == pytest.approx(policy.value(obs))
    expected = policy.value_weights[1] @ np.tanh(policy.value_weights[0] @ obs) + 0.25  # type: ignore[index]
    assert loaded.value(obs) == pytest.approx(float(expected[0]), rel=1e-5)
    actor_only = NumpyPolicy(policy.weights, policy.biases, policy.activation, {})
    old = load_policy(save_policy(actor_only, tmp_path / "actor_only.npz"))
    assert not old.has_value and old.value(obs) is None
    agent = PolicyAgent(tmp_path / "critic.npz", seed=0)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[[0, 2, 5]] = 1
    assert agent.explain() is None  # no decision yet
    action = agent.act({"observation": obs, "action_mask": mask}, None, (0, 2, 5))  # type: ignore[arg-type]
    note = agent.explain()
    assert note is not None and note["value"] == pytest.approx(loaded.value(obs), abs=1e-4)
    assert set(note["probs"]) <= {ACTION_NAMES[a] for a in (0, 2, 5)}
    assert next(iter(note["probs"])) == ACTION_NAMES[action]


def test_sb3_export_carries_the_critic_and_explains_like_the_model(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    from zavandor_env.envs import SingleAgentEnv
    from zavandor_env.train.ppo.export import policy_from_sb3, policy_from_sb3_zip

    env = SingleAgentEnv(num_players=2)
    model = MaskablePPO("MlpPolicy", env, seed=0, device="cpu", n_steps=16, batch_size=16,
                        policy_kwargs={"net_arch": [16, 8]})
    obs, _ = env.reset(seed=1)
    mask = env.action_masks()
    with torch.no_grad():
        tensor, _ = model.policy.obs_to_tensor(obs)
        expected_value = float(model.policy.predict_values(tensor)[0, 0])
        distribution: Any = model.policy.get_distribution(tensor, action_masks=mask)
        expected_probs = distribution.distribution.probs[0].numpy()
    exported = policy_from_sb3(model)
    assert exported.value(obs) == pytest.approx(expected_value, abs=1e-5)
    assert np.allclose(exported.probabilities(obs, mask), expected_probs, atol=1e-5)
    model.save(tmp_path / "model.zip")
    from_zip = policy_from_sb3_zip(tmp_path / "model.zip")
    assert from_zip.value(obs) == pytest.approx(expected_value, abs=1e-5)
    npz = save_policy(exported, tmp_path / "model.npz")
    observation = {"observation": obs, "action_mask": mask.astype(np.int8)}
    notes = []
    with pytest.warns(PickleLoadWarning):
        trusted = PolicyAgent(tmp_path / "model.zip", trust_pickle=True)
    for agent in (PolicyAgent(npz), trusted):
        agent.act(observation, None, tuple(np.flatnonzero(mask)))  # type: ignore[arg-type]
        notes.append(agent.explain())
    assert notes[0] is not None and notes[1] is not None
    assert notes[0]["value"] == pytest.approx(expected_value, abs=1e-3)
    assert notes[1]["value"] == pytest.approx(expected_value, abs=1e-3)
    assert list(notes[0]["probs"])[:3] == list(notes[1]["probs"])[:3]


# ---- the web app, without a browser ------------------------------------------------------------
def test_a_table_plays_to_the_end_and_names_the_winner() -> None:
    table = Table(["random"], seat=1, seed=3)
    assert table.labels == ["random", "you"]
    rng = np.random.default_rng(0)
    for _ in range(2000):
        state = table.state()
        if state["over"]:
            break
        assert state["yourTurn"] and state["deciding"] == 1 and state["legal"]
        assert "<svg" in state["svg"]
        choice = state["legal"][int(rng.integers(len(state["legal"])))]
        assert choice["name"] == ACTION_NAMES[choice["action"]]
        table.play(choice["action"], state["decision"])
    state = table.state()
    assert state["over"] and state["result"].startswith("Game over: ")
    assert state["legal"] == [] and state["outcome"]
    rebuilt = Game.from_replay_record(table.replay_record())
    assert rebuilt.scores() == state["scores"] and rebuilt.is_over
    assert len(state["auctions"]) >= len(rebuilt.purchases)
    for purchase in rebuilt.purchases:
        assert any(f"for {purchase.price} energy (bid {purchase.bid})" in line
                   for line in state["auctions"])
    with pytest.raises(BadRequest, match="over"):
        table.play(0)
    table.new_game(7)
    assert not table.state()["over"] and table.seed == 7


def test_a_table_refuses_illegal_stale_and_malformed_moves() -> None:
    table = Table(["heuristic"], seat=0, seed=1)
    state = table.state()
    illegal = next(a for a in range(NUM_ACTIONS) if a not in [x["action"] for x in
                                                                  state["legal"]])
    for action in (illegal, "0", True, None, 1.0):
        with pytest.raises(BadRequest, match="not legal"):
            table.play(action)
    with pytest.raises(BadRequest, match="changed"):
        table.play(state["legal"][0]["action"], state["decision"] + 1)
    assert table.state()["decision"] == state["decision"]  # nothing was played
    with pytest.raises(ValueError, match="seat"):
        Table(["random"], seat=2)
    with pytest.raises(ValueError, match="1 to 5"):
        Table(["random"] * 6)
    with pytest.raises(ValueError, match="unknown agent"):
        Table(["nobody"])


@pytest.fixture
def server() -> Iterator[AppServer]:
    app = AppServer(Table(["random"], seat=0, seed=2), port=0)
    thread = threading.Thread(target=app.serve_forever, daemon=True)
    thread.start()
    try:
        yield app
    finally:
        app.shutdown()
        app.server_close()
        thread.join(5)


def _request(app: AppServer, path: str, body: dict[str, Any] | None = None,
             ) -> tuple[int, dict[str, str], bytes]:
    data = None if body is None else json.dumps(body).encode()
    # As the page sends it: JSON with the server's token (tests/web/test_serve_security.py).
    request = urllib.request.Request(app.url.rstrip("/") + path, data=data,
                                     method="GET" if body is None else "POST",
                                     headers={"Content-Type": "application/json",
                                              TOKEN_HEADER: app.token})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def test_http_endpoints(server: AppServer) -> None:
    assert server.url.startswith("http://127.0.0.1:")
    status, headers, body = _request(server, "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert b"<script>" in body and b"{{" not in body
    status, _, body = _request(server, "/api/state")
    state = json.loads(body)
    assert status == 200 and state["yourTurn"] and state["seed"] == 2
    status, _, body = _request(server, "/api/act", {"action": 10**6})
    assert status == 400 and "not legal" in json.loads(body)["error"]
    assert json.loads(body)["state"]["decision"] == state["decision"]  # the page can redraw
    status, _, body = _request(server, "/api/act", {"action": state["legal"][0]["action"],
                                                    "decision": state["decision"]})
    assert status == 200 and json.loads(body)["decision"] > state["decision"]
    status, headers, body = _request(server, "/api/replay")
    assert status == 200 and "attachment" in headers["Content-Disposition"]
    history = Game.from_replay_record(json.loads(body)).history
    assert history[state["decision"]] == state["legal"][0]["action"]
    status, _, body = _request(server, "/api/new", {"seed": 11})
    assert status == 200 and json.loads(body)["seed"] == 11
    assert _request(server, "/api/new", {"seed": -1})[0] == 400
    assert _request(server, "/nowhere")[0] == 404
    assert _request(server, "/api/nowhere", {})[0] == 404


def test_serve_reports_user_errors_on_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--agents", "nobody"]) == 2
    assert "unknown agent" in capsys.readouterr().err
    assert main(["serve", "--agents", "random", "--seat", "3"]) == 2
    assert "seat must be 0..1" in capsys.readouterr().err
    taken = AppServer(Table(["random"], seed=0), port=0)
    try:
        port = str(taken.server_address[1])
        assert main(["serve", "--agents", "random", "--port", port]) == 2
        err = capsys.readouterr().err
        assert "cannot listen" in err and len(err.strip().splitlines()) == 1
    finally:
        taken.server_close()
