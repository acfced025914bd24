"""Property-based attacks on the config files users send: tournament files and training
configs, as YAML text (random keys; values of every YAML type, huge numbers, nested junk,
base-60, hex and octal scalars written raw).  Each file is accepted and valid -- every count
within its ceiling (zavandor_env/io/limits.py) -- or refused with a one-line ``ValueError``;
never a traceback of another type.  Example counts: tests/fuzz_budget.py."""

from __future__ import annotations

from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fuzz_budget import FUZZ_EXAMPLES, FUZZ_SETTINGS
from zavandor_env.eval.tournament import TournamentConfig
from zavandor_env.eval.tournament_file import FILE_KEYS
from zavandor_env.io import limits
from zavandor_env.train.config import TrainConfigError, config_keys, load_config

#: Scalars written into the file as they are (``yaml.safe_dump`` would quote most of them).
RAW = st.one_of(
    st.sampled_from(["1:30", "1:1:1:1.5", "0x1F", "0o17", "010", "1_000", "1e5", "1e400",
                     "-.inf", ".nan", "yes", "off", "~", "2024-01-01", "<<", "=", "!!int 1",
                     "*a", "&a 1", "[1, [2, {3: 4}]]", "{a: 1}", "'3'", "true", "2.5", "-1",
                     "[heuristic, random]", "[]", "{}", "9223372036854775807", "0x", "1:"]),
    st.integers(1, 5000).map(lambda n: "9" * n),
    st.integers(1, 3000).map(lambda n: "1:" * n + "1"),
    st.integers(1, 400).map(lambda n: "1:" * n + "1.5"),
    st.integers(1, 5000).map(lambda n: "0x" + "f" * n),
    st.integers(-(2**70), 2**70).map(str),
)
#: Values of every YAML type, nested, dumped by PyYAML.
VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**80), 2**80),
              st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=20),
              st.sampled_from(["heuristic", "random", "mcts:iterations=2", "naive", "human"])),
    lambda inner: st.one_of(st.lists(inner, max_size=5),
                            st.dictionaries(st.text(max_size=8), inner, max_size=5)),
    max_leaves=20)


def _document(keys: list[str]) -> st.SearchStrategy[str]:
    """YAML text: known keys (and junk ones) with dumped values or raw scalars."""
    key = st.one_of(st.sampled_from(keys), st.text(min_size=1, max_size=10))
    dumped = st.dictionaries(key, VALUES, max_size=6).map(
        lambda d: yaml.safe_dump(d) if d else "")
    raw = st.lists(st.tuples(st.sampled_from(keys), RAW), max_size=4).map(
        lambda pairs: "".join(f"{k}: {v}\n" for k, v in pairs))
    return st.tuples(dumped, raw).map(lambda parts: parts[0] + parts[1])


def _one_line(exc: BaseException) -> None:
    assert isinstance(exc, ValueError), f"{type(exc).__name__}: {exc}"
    assert "\n" not in str(exc) and str(exc)


@FUZZ_EXAMPLES
def test_every_mutated_tournament_file_is_valid_or_one_line(examples: int,
                                                           tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    base = "agents: [heuristic, random]\n"

    @settings(max_examples=examples, **FUZZ_SETTINGS)
    @given(text=_document(list(FILE_KEYS)), keep_agents=st.booleans())
    def attack(text: str, keep_agents: bool) -> None:
        path.write_text((base if keep_agents and "agents:" not in text else "") + text)
        try:
            config = TournamentConfig.from_yaml(path)
        except Exception as exc:  # noqa: BLE001 -- the property: only one-line ValueErrors
            _one_line(exc)
            return
        assert 1 <= len(config.agents) <= limits.MAX_AGENTS
        assert config.workers is None or 1 <= config.workers <= limits.MAX_WORKERS
        assert type(config.games) is int and 1 <= config.games <= limits.MAX_GAMES
        assert type(config.seed) is int and 0 <= config.seed <= limits.MAX_SEED
        assert len(config.lineups()) * config.deals * config.num_players <= limits.MAX_GAMES

    attack()


@FUZZ_EXAMPLES
def test_every_mutated_training_config_is_valid_or_one_line(examples: int,
                                                           tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    keys = config_keys()

    @settings(max_examples=examples, **FUZZ_SETTINGS)
    @given(text=_document(keys))
    def attack(text: str) -> None:
        path.write_text("eval_games: 1\n" + text if "eval_games" not in text else text)
        try:
            cfg = load_config(path)
        except Exception as exc:  # noqa: BLE001 -- the property: only one-line config errors
            assert isinstance(exc, TrainConfigError), f"{type(exc).__name__}: {exc}"
            _one_line(exc)
            return
        counts = {cfg.ppo.n_envs: limits.MAX_ENVS, cfg.torch_threads: limits.MAX_THREADS,
                  cfg.exit.workers: limits.MAX_WORKERS,
                  cfg.rllib.num_env_runners: limits.MAX_WORKERS}
        for value, ceiling in counts.items():
            assert value <= ceiling
        assert cfg.ppo.n_steps * cfg.ppo.n_envs <= limits.MAX_ROLLOUT_DECISIONS
        assert len(cfg.net_arch) <= limits.MAX_LAYERS
        assert all(w <= limits.MAX_LAYER_WIDTH for w in cfg.net_arch)

    attack()


@FUZZ_EXAMPLES
def test_every_mutated_game_config_is_valid_or_one_line(examples: int, tmp_path: Path) -> None:
    from dataclasses import fields

    from zavandor_env.engine import GameConfig
    from zavandor_env.engine.config import MAX_DECISIONS, MAX_ROUNDS

    path = tmp_path / "g.yaml"
    keys = [f.name for f in fields(GameConfig)]

    @settings(max_examples=examples, **FUZZ_SETTINGS)
    @given(text=_document(keys))
    def attack(text: str) -> None:
        path.write_text(text)
        try:
            config = GameConfig.from_yaml(path)
        except Exception as exc:  # noqa: BLE001 -- the property: only one-line ValueErrors
            _one_line(exc)
            return
        assert 1 <= config.max_rounds <= MAX_ROUNDS and 1 <= config.max_decisions <= MAX_DECISIONS

    attack()
