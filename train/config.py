"""Training configuration: one dataclass, one docstring per field (CleanRL ``Args`` style).

A config comes from a YAML file (``configs/*.yaml``) whose keys are exactly the field names
below, optionally changed on the command line with ``--set key=value``.  Every key and value is
checked when the config is built, so a typo fails at once with a message naming the key,
instead of a silently ignored setting discovered an hour into a run.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_type_hints

import yaml

from zavandor_env.engine.files import UntrustedInputError, load_yaml, parse_yaml
from zavandor_env.resources import PACKAGE_DIR, data_path

if TYPE_CHECKING:
    from zavandor_env.engine import GameConfig

#: The one opponent key of ``opponent_weights`` that is not an agent spec: a frozen past copy
#: of the learner, drawn from the run's pool.
SNAPSHOT = "snapshot"
VEC_ENVS = ("auto", "native", "dummy", "subproc")
#: Trainers: MaskablePPO in this process, or RLlib PPO on Ray (``train/rllib/``).
BACKENDS = ("sb3", "rllib")
ACTIVATIONS = ("tanh", "relu")
#: Config keys that take ``--set key.sub=value`` overrides.
MAPPING_KEYS = ("game", "opponent_weights")
#: The environment's reward options, one typed field each (the environment defines them).
ENV_REWARD_KEYS = ("reward", "vp_delta", "step_reward", "truncation_reward")
#: Largest seed: seeds are ``seed + step`` and NumPy's must stay below 2**32 (the checkpoint
#: bounds the step the same way).
MAX_SEED = 2**31 - 1


class TrainConfigError(ValueError):
    """A training config is invalid; the message names the offending key."""


@dataclass
class TrainConfig:
    """Everything a self-play run needs; a run is reproducible from this and the code."""

    # ---- run ------------------------------------------------------------------------------
    name: str = "quick"
    """run name prefix: TensorBoard logs go to ``<runs_dir>/<name>__<seed>__<time>/``"""
    seed: int = 1
    """seed of torch, numpy, the environments, the opponent pool and the evaluation games"""
    total_timesteps: int = 2_048
    """learner decisions to train for (opponents' decisions are not counted)"""
    max_minutes: float | None = None
    """wall-clock budget of one invocation: stop early (with a final evaluation and checkpoint)
    after this many minutes, whatever ``total_timesteps`` says; null: no limit"""
    runs_dir: str = "runs"
    """folder holding one sub-folder per run"""
    torch_threads: int = 1
    """torch intra-op threads; 1 leaves the other core to the environments"""
    backend: str = "sb3"
    """trainer: ``sb3`` (sb3-contrib MaskablePPO in this process) or ``rllib`` (RLlib PPO on
    Ray, a league of modules; needs the ``[ray]`` extra, see docs/scaling.md)"""
    num_env_runners: int = 1
    """``rllib`` backend: Ray actors playing the training games, ``n_envs`` games each (0:
    play them in the trainer's process); an update takes ``n_steps * n_envs`` decisions of
    every seat per runner"""

    # ---- game and environment -------------------------------------------------------------
    num_players: int = 2
    """players per game (2-6); the learner takes one seat, opponents fill the others"""
    learner_seat: int | None = None
    """the learner's seat, or null for a random seat every episode"""
    game: dict[str, Any] = field(default_factory=lambda: {"allow_overbid": False})
    """GameConfig fields (rule options, ``max_rounds``, ``max_decisions``...) of every training
    and evaluation game; checked against GameConfig when the config is built"""
    reward: str = "win"
    """the environment's terminal reward scheme for a game that ends by the rules: ``win``,
    ``rank`` or ``vp_margin`` (defined in ``zavandor_env/envs/rewards.py``)"""
    vp_delta: float = 0.005
    """the environment's shaping reward per VP gained (0: off)"""
    step_reward: float = -0.001
    """the environment's reward on every learner decision; a small negative value (a cost of
    time) makes moves that change nothing, such as activating and deactivating the same gem,
    not pay"""
    truncation_reward: float = -1.0
    """the environment's reward when a game is cut off (``max_rounds`` / ``max_decisions``)
    instead of ending by the rules; -1 makes stalling (e.g. toggling gems forever) as bad as
    losing"""
    n_envs: int = 2
    """environments stepped in parallel (one policy forward serves all of them)"""
    vec_env: str = "auto"
    """how the ``n_envs`` games are stepped: ``native`` (all in one C++ object, opponents played
    natively or by one batched forward per snapshot; fastest), ``dummy`` (Python games in one
    process), ``subproc`` (one process per game) or ``auto`` (``native`` where the C++ core is
    built, else ``dummy``)"""

    # ---- MaskablePPO ----------------------------------------------------------------------
    learning_rate: float = 3e-4
    """Adam step size"""
    n_steps: int = 256
    """decisions collected per environment before each update"""
    batch_size: int = 128
    """minibatch size of the PPO update"""
    n_epochs: int = 4
    """passes over each rollout"""
    gamma: float = 1.0
    """discount factor; 1 (undiscounted) because with gamma < 1 a learner in a losing position
    gains by postponing the end, and learns to toggle a gem on and off forever"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    clip_range: float = 0.2
    """PPO clipping of the policy ratio"""
    ent_coef: float = 0.01
    """entropy bonus"""
    vf_coef: float = 0.5
    """value-loss weight"""
    max_grad_norm: float = 0.5
    """gradient clipping"""
    target_kl: float | None = None
    """stop an update early above this KL divergence (null: never)"""
    net_arch: list[int] = field(default_factory=lambda: [64, 64])
    """hidden layer sizes, shared shape for the policy and the value network"""
    activation: str = "tanh"
    """hidden activation: ``tanh`` or ``relu``"""
    init_policy: str | None = None
    """warm start: a weights-only policy (``.npz``, e.g. a run's ``policy.npz``) whose actor, and
    critic if the file has one, a new run copies into its model before training; it must match
    ``net_arch``, ``activation`` and the observation layout (null: random start; a relative
    path is taken from the current directory, else the package; ``--resume`` ignores it: the
    run's checkpoint wins, the key stays as a record)"""

    # ---- opponent pool --------------------------------------------------------------------
    opponent_weights: dict[str, float] = field(
        default_factory=lambda: {"snapshot": 0.4, "random": 0.4, "heuristic": 0.2}
    )
    """probability weight of each opponent, drawn independently per seat and episode: the key
    ``snapshot`` (a frozen past copy of the learner) or any agent spec (``heuristic``,
    ``mcts:iterations=16``, ``policy:path=x.npz``, see ``zavandor eval --help``)"""
    snapshot_every: int = 1_024
    """add a frozen copy of the learner to the pool every this many learner decisions"""
    pool_size: int = 4
    """most snapshots kept (the oldest is dropped first)"""
    latest_snapshot_share: float = 0.5
    """when a snapshot is drawn, the chance it is the newest one (else uniform over the rest)"""

    # ---- evaluation, logging, checkpoints -------------------------------------------------
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"])
    """agent specs the learner is evaluated against (it plays one seat, the spec every other)"""
    eval_every: int = 1_024
    """evaluate against ``eval_opponents`` every this many learner decisions (0: only at the
    end); statistics of the training games are charted after every rollout"""
    eval_games: int = 4
    """games per evaluation opponent and evaluation (the learner's seat rotates)"""
    eval_deterministic: bool = True
    """evaluate the greedy (most probable legal) action instead of sampling"""
    checkpoint_every: int = 1_024
    """save the model, optimizer and pool every this many learner decisions (the newest two
    complete checkpoints are kept)"""
    progress_bar: bool = True
    """show a tqdm progress bar"""

    # ---- derived (filled at runtime, not read from YAML) ----------------------------------
    config_path: str = ""
    """the YAML file the config came from (filled at runtime)"""

    # --------------------------------------------------------------------------------------
    def __post_init__(self) -> None:
        validate(self)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def env_options(self) -> dict[str, Any]:
        """Keyword options of ``SingleAgentEnv`` besides the seats: the reward settings by
        name, then the rule options of ``game`` (GameConfig fields; the two never overlap)."""
        options: dict[str, Any] = {key: getattr(self, key) for key in ENV_REWARD_KEYS}
        options.update(self.game)
        return options

    def resolved_vec_env(self) -> str:
        """``vec_env`` with ``auto`` resolved: ``native`` where the C++ core is built, else
        ``dummy``."""
        if self.vec_env != "auto":
            return self.vec_env
        from zavandor_env.engine import native_available

        return "native" if native_available() else "dummy"

    def game_config(self) -> GameConfig:
        """The :class:`~zavandor_env.engine.GameConfig` of every game of the run."""
        from zavandor_env.engine import GameConfig

        return GameConfig.from_dict({"num_players": self.num_players, **self.game})

    def to_yaml(self) -> str:
        data = self.to_dict()
        data.pop("config_path")
        return yaml.safe_dump(data, sort_keys=False)

    def to_markdown(self) -> str:
        """The config as a Markdown table (TensorBoard's text plugin renders it)."""
        rows = ["| key | value |", "|---|---|"]
        for f in fields(self):
            rows.append(f"| {f.name} | `{json.dumps(getattr(self, f.name))}` |")
        return "\n".join(rows)


_RUNTIME_FIELDS = {"config_path"}


def field_docs() -> dict[str, str]:
    """Field name -> its docstring, read from this file (for ``--help`` and the README)."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(TrainConfig))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs: dict[str, str] = {}
    for node, nxt in itertools.pairwise(body):
        if (isinstance(node, ast.AnnAssign) and isinstance(nxt, ast.Expr)
                and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str)):
            docs[node.target.id] = nxt.value.value  # type: ignore[union-attr]
    return docs


# ---- validation -----------------------------------------------------------------------------
def _check_type(name: str, value: Any, hint: Any) -> Any:
    """Return ``value`` converted to the field's type, or raise naming ``name``."""
    text = str(hint)
    optional = "None" in text
    if isinstance(value, str) and (hint in (int, float) or text.startswith(("int", "float"))):
        try:  # "1e5" or "3" from the command line or a YAML 1.1 file
            value = float(value)
        except ValueError:
            raise TrainConfigError(f"config key {name!r} must be a number, got {value!r}") from None
    if value is None:
        if optional:
            return None
        raise TrainConfigError(f"config key {name!r} must not be null")
    if hint is bool or text.startswith("bool"):
        if not isinstance(value, bool):
            raise TrainConfigError(f"config key {name!r} must be true or false, got {value!r}")
        return value
    if hint is int or text.startswith("int"):
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                return int(value)
            raise TrainConfigError(f"config key {name!r} must be an integer, got {value!r}")
        return value
    if hint is float or text.startswith("float"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TrainConfigError(f"config key {name!r} must be a number, got {value!r}")
        # NaN slips through every comparison (nan > 0 is false, so is nan < 0) and would
        # silently poison rewards or the optimizer; inf is no meaningful setting either.
        if not math.isfinite(value):
            raise TrainConfigError(f"config key {name!r} must be a finite number, got {value!r}")
        return float(value)
    if hint is str or text.startswith("str"):
        if not isinstance(value, str):
            raise TrainConfigError(f"config key {name!r} must be a string, got {value!r}")
        return value
    if text.startswith("list"):
        if not isinstance(value, (list, tuple)):
            raise TrainConfigError(f"config key {name!r} must be a list, got {value!r}")
        return list(value)
    if text.startswith("dict"):
        if not isinstance(value, dict):
            raise TrainConfigError(f"config key {name!r} must be a mapping, got {value!r}")
        return dict(value)
    return value


def _require(ok: bool, name: str, message: str) -> None:
    if not ok:
        raise TrainConfigError(f"config key {name!r} {message}")


def validate(cfg: TrainConfig) -> None:
    """Check (and normalise) every field; raise :class:`TrainConfigError` naming the key."""
    hints = get_type_hints(TrainConfig)
    for f in fields(cfg):
        setattr(cfg, f.name, _check_type(f.name, getattr(cfg, f.name), hints[f.name]))
    positive = ("total_timesteps", "n_envs", "n_steps", "batch_size", "n_epochs", "torch_threads",
                "snapshot_every", "pool_size", "checkpoint_every")
    for name in positive:
        _require(getattr(cfg, name) >= 1, name, f"must be >= 1, got {getattr(cfg, name)}")
    for name in ("eval_every", "eval_games", "seed"):
        _require(getattr(cfg, name) >= 0, name, f"must be >= 0, got {getattr(cfg, name)}")
    _require(cfg.seed <= MAX_SEED, "seed", f"must be <= {MAX_SEED}, got {cfg.seed}")
    _require(2 <= cfg.num_players <= 6, "num_players", f"must be 2..6, got {cfg.num_players}")
    if cfg.learner_seat is not None:
        _require(0 <= cfg.learner_seat < cfg.num_players, "learner_seat",
                 f"must be a seat in 0..{cfg.num_players - 1} or null, got {cfg.learner_seat}")
    _require(cfg.vec_env in VEC_ENVS, "vec_env", f"must be one of {VEC_ENVS}, got {cfg.vec_env!r}")
    if cfg.vec_env == "native" and cfg.backend == "sb3":
        from zavandor_env.engine.native import native_available, native_status

        _require(native_available(), "vec_env", f"is native, but {native_status()}")
    _require(cfg.backend in BACKENDS, "backend", f"must be one of {BACKENDS}, got {cfg.backend!r}")
    _require(cfg.num_env_runners >= 0, "num_env_runners",
             f"must be >= 0, got {cfg.num_env_runners}")
    # RLlib's KL term is an adaptive penalty, not SB3's early stop: refuse rather than
    # silently train something else.
    _require(cfg.backend != "rllib" or cfg.target_kl is None, "target_kl",
             "must be null with backend rllib (RLlib has no KL early stop)")
    _require(cfg.init_policy is None or cfg.init_policy.strip() != "", "init_policy",
             "must be a path to a .npz policy or null, got ''")
    # The file itself is read when a new run starts (train.init_policy), not here: a resumed
    # run never needs it.
    _require(cfg.backend != "rllib" or cfg.init_policy is None, "init_policy",
             "must be null with backend rllib (only the sb3 backend warm-starts)")
    _require(cfg.activation in ACTIVATIONS, "activation",
             f"must be one of {ACTIVATIONS}, got {cfg.activation!r}")
    _require(bool(cfg.net_arch) and all(isinstance(n, int) and not isinstance(n, bool) and n > 0
                                        for n in cfg.net_arch),
             "net_arch", f"must be a non-empty list of positive integers, got {cfg.net_arch!r}")
    for name in ("learning_rate", "gamma", "gae_lambda", "clip_range", "vf_coef",
                 "max_grad_norm"):
        _require(getattr(cfg, name) > 0, name, f"must be > 0, got {getattr(cfg, name)}")
    for name in ("gamma", "gae_lambda", "latest_snapshot_share"):
        _require(0 <= getattr(cfg, name) <= 1, name, f"must be in [0, 1], got {getattr(cfg, name)}")
    _require(cfg.ent_coef >= 0, "ent_coef", f"must be >= 0, got {cfg.ent_coef}")
    if cfg.max_minutes is not None:
        _require(cfg.max_minutes > 0, "max_minutes", f"must be > 0 or null, got {cfg.max_minutes}")
    _require(cfg.batch_size <= cfg.n_steps * cfg.n_envs, "batch_size",
             f"must be <= n_steps * n_envs = {cfg.n_steps * cfg.n_envs}, got {cfg.batch_size}")
    _require(cfg.name != "" and "/" not in cfg.name and "__" not in cfg.name, "name",
             f"must be a non-empty name without '/' or '__', got {cfg.name!r}")
    _validate_game(cfg)
    _validate_opponents(cfg)
    _validate_environment(cfg)


def _validate_game(cfg: TrainConfig) -> None:
    """Build the GameConfig now, so a bad rule option fails before any run folder exists."""
    from zavandor_env.engine.config import ConfigError

    _require("num_players" not in cfg.game, "game",
             "must not hold num_players: set the top-level key num_players instead")
    try:
        cfg.game_config()
    except (ConfigError, TypeError) as exc:
        raise TrainConfigError(f"config key 'game': {exc}") from None


def check_agent_spec(key: str, spec: Any) -> Any:
    """The :class:`~zavandor_env.agents.registry.AgentSpec` of ``spec``, built once to check
    its parameters (a ``policy`` spec's file must load); raise naming config key ``key``."""
    from zavandor_env.agents.registry import parse_spec

    try:
        parsed = parse_spec(spec)
        if parsed.interactive:
            raise ValueError(f"agent {parsed.agent!r} asks a person for every decision")
        parsed.build(seed=0).close()
    except (ValueError, TypeError) as exc:
        raise TrainConfigError(f"config key {key!r}: opponent {spec!r}: {exc}") from None
    return parsed


def _validate_opponents(cfg: TrainConfig) -> None:
    weights = cfg.opponent_weights
    for spec, weight in weights.items():
        if spec != SNAPSHOT:
            check_agent_spec("opponent_weights", spec)
        _require(isinstance(weight, (int, float)) and not isinstance(weight, bool)
                 and math.isfinite(weight) and weight >= 0, "opponent_weights",
                 f"weights must be non-negative finite numbers, got {spec!r}: {weight!r}")
    _require(sum(weights.values()) > 0, "opponent_weights", "must give some opponent a weight > 0")
    for spec in cfg.eval_opponents:
        _require(spec != SNAPSHOT, "eval_opponents",
                 "takes agent specs; 'snapshot' is a training opponent only")
        check_agent_spec("eval_opponents", spec)
    _require(len(set(cfg.eval_opponents)) == len(cfg.eval_opponents), "eval_opponents",
             f"names an opponent twice: {cfg.eval_opponents}")


def _validate_environment(cfg: TrainConfig) -> None:
    """The environment owns the reward settings: let it judge them (it builds no game yet)."""
    from zavandor_env.envs.rewards import REWARD_SCHEMES

    from .envs import build_env

    _require(cfg.reward in REWARD_SCHEMES, "reward",
             f"must be one of {list(REWARD_SCHEMES)}, got {cfg.reward!r}")
    try:
        build_env(cfg, cfg.learner_seat).close()
    except (ValueError, TypeError) as exc:
        raise TrainConfigError(f"config: the environment rejects the reward settings "
                               f"({', '.join(ENV_REWARD_KEYS)}): {exc}") from None


# ---- loading --------------------------------------------------------------------------------
def config_keys() -> list[str]:
    return [f.name for f in fields(TrainConfig) if f.name not in _RUNTIME_FIELDS]


def default_value(key: str) -> Any:
    """The default of config key ``key`` (a fresh copy for mappings and lists)."""
    f = next(f for f in fields(TrainConfig) if f.name == key)
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return f.default


def _replaced_key_message(key: str, value: Any) -> str:
    """One line telling the writer of an old config which typed keys replace ``key``."""
    if key == "env_kwargs":
        value = value if isinstance(value, dict) else {}
        moved = [f"{k}: {json.dumps(v)}" for k, v in value.items() if k in ENV_REWARD_KEYS]
        rules = [k for k in value if k not in ENV_REWARD_KEYS and k != "score_truncated"]
        parts = ["config key 'env_kwargs' was replaced by the typed keys "
                 f"{', '.join(ENV_REWARD_KEYS)}"]
        if moved:
            parts.append(f"write {', '.join(moved)} at the top level")
        if rules:
            parts.append(f"move {', '.join(rules)} under game")
        if "score_truncated" in value:
            parts.append("score_truncated is no training option (truncation_reward prices a "
                         "cut-off game)")
        return "; ".join(parts)
    return ("config key 'heuristic_kwargs' was replaced by agent specs carrying their "
            "parameters: write e.g. opponent_weights: {'heuristic:key=value': 0.2} and "
            "eval_opponents: ['heuristic:key=value']")


#: Keys of configs written before the typed fields (run folders keep their config.yaml).
_REPLACED_KEYS = ("env_kwargs", "heuristic_kwargs")


def from_dict(data: dict[str, Any], source: str = "config") -> TrainConfig:
    """Build a config from plain data; unknown keys fail with the list of known ones."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise TrainConfigError(f"{source} must be a mapping of keys to values")
    for key in _REPLACED_KEYS:
        if key in data:
            raise TrainConfigError(f"{_replaced_key_message(key, data[key])} ({source})")
    known = config_keys()
    unknown = sorted(str(k) for k in set(data) - set(known))
    if unknown:
        hints = []
        import difflib

        for key in unknown:
            close = difflib.get_close_matches(key, known, n=1)
            hints.append(f"{key!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        raise TrainConfigError(
            f"unknown config key {', '.join(hints)} in {source}; known keys: {', '.join(known)}"
        )
    return TrainConfig(**data)


def parse_override(item: str) -> tuple[str, Any]:
    """``"key=value"`` -> (key, value); the value is read as YAML (``3``, ``true``, ``[64]``).

    An ``opponent_weights.<spec>=<weight>`` override splits at the last ``=``, since an agent
    spec has ``=`` of its own (``opponent_weights.mcts:iterations=16=0.3``).
    """
    if "=" not in item:
        raise TrainConfigError(f"override {item!r} must look like key=value")
    if item.startswith("opponent_weights."):
        key, _, text = item.rpartition("=")
    else:
        key, _, text = item.partition("=")
    key = key.strip()
    try:  # plain data only, bounded like a config file (no tags, aliases or deep nesting)
        value = parse_yaml(text, what="value") if text.strip() else ""
    except UntrustedInputError as exc:
        raise TrainConfigError(f"config key {key.partition('.')[0]!r} (override {item!r}): "
                               f"{exc}") from None
    return key, value


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """``data`` with ``key=value`` overrides applied; ``game.max_rounds=40`` and
    ``opponent_weights.heuristic=0.5`` change one entry of a mapping key."""
    data = dict(data)
    for item in overrides:
        key, value = parse_override(item)
        head, _, rest = key.partition(".")
        if not rest:
            data[key] = value
        elif head in MAPPING_KEYS:
            sub = dict(data.get(head, default_value(head)) or {})
            sub[rest] = value
            data[head] = sub
        elif head in _REPLACED_KEYS:
            data[head] = {rest: value}  # from_dict says what replaced the key
        else:
            raise TrainConfigError(f"override {item!r}: only the mapping keys "
                                   f"({', '.join(MAPPING_KEYS)}) take dotted sub-keys")
    return data


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> TrainConfig:
    """Read a YAML config (the packaged ``quick`` defaults when ``path`` is None) and apply
    ``key=value`` overrides; dotted keys (``game.max_rounds=40``) reach into mappings."""
    data: dict[str, Any] = {}
    source = "defaults"
    if path is not None:
        p = data_path(path)
        if not p.is_file():
            raise TrainConfigError(f"config file {str(p)!r} does not exist")
        try:  # a run folder's config.yaml may come from anyone: bounded, plain data only
            data = load_yaml(p, what="config file") or {}
        except UntrustedInputError as exc:
            raise TrainConfigError(str(exc)) from None
        if not isinstance(data, dict):
            raise TrainConfigError(f"config file {str(p)!r} must hold a mapping of keys to values")
        source = str(p)
    data = apply_overrides(data, overrides or [])
    cfg = from_dict(data, source=source if not overrides else f"{source} + --set overrides")
    cfg.config_path = "" if path is None else str(path)
    return cfg


def default_config_path() -> Path | None:
    """The shipped ``configs/quick.yaml``, if present (the default of ``zavandor train``)."""
    candidate = PACKAGE_DIR / "configs" / "quick.yaml"
    return candidate if candidate.is_file() else None


def schema_markdown() -> str:
    """The config keys as a Markdown table (``configs/README.md`` embeds it; a test keeps the
    two in step).  Regenerate with ``python -m zavandor_env.train.config``."""
    docs = field_docs()
    default = TrainConfig()
    rows = ["| key | default | meaning |", "|---|---|---|"]
    for key in config_keys():
        text = " ".join(docs.get(key, "").split())
        rows.append(f"| `{key}` | `{json.dumps(getattr(default, key))}` | {text} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(schema_markdown())
