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
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, get_type_hints

import yaml

#: Opponent kinds the pool knows; ``snapshot`` means a frozen past copy of the learner.
OPPONENT_KINDS = ("snapshot", "random", "heuristic")
VEC_ENVS = ("dummy", "subproc")
ACTIVATIONS = ("tanh", "relu")


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

    # ---- game and environment -------------------------------------------------------------
    num_players: int = 2
    """players per game (2-6); the learner takes one seat, opponents fill the others"""
    learner_seat: int | None = None
    """the learner's seat, or null for a random seat every episode"""
    game: dict[str, Any] = field(default_factory=dict)
    """extra GameConfig fields (rule options, max_rounds, ...), passed to the environment"""
    env_kwargs: dict[str, Any] = field(default_factory=lambda: {"vp_delta": 0.005})
    """extra keyword arguments of SingleAgentEnv: ``reward`` (win/rank/vp_margin), ``vp_delta``
    (reward per VP gained), ``score_truncated``"""
    truncation_reward: float = -1.0
    """reward added when a game is cut off (``max_rounds`` / ``max_decisions``) instead of
    ending by the rules; -1 makes stalling (e.g. toggling gems forever) as bad as losing"""
    step_reward: float = -0.001
    """reward added to every learner decision; a small negative value (a cost of time) makes
    moves that change nothing, such as activating and deactivating the same gem, not pay"""
    n_envs: int = 2
    """environments stepped in parallel (one policy forward serves all of them)"""
    vec_env: str = "dummy"
    """``dummy`` (one process; fastest on 2 cores) or ``subproc`` (one process per env)"""

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

    # ---- opponent pool --------------------------------------------------------------------
    opponent_weights: dict[str, float] = field(
        default_factory=lambda: {"snapshot": 0.4, "random": 0.4, "heuristic": 0.2}
    )
    """probability weight of each opponent kind, drawn independently per seat and episode"""
    snapshot_every: int = 1_024
    """add a frozen copy of the learner to the pool every this many learner decisions"""
    pool_size: int = 4
    """most snapshots kept (the oldest is dropped first)"""
    latest_snapshot_share: float = 0.5
    """when a snapshot is drawn, the chance it is the newest one (else uniform over the rest)"""
    heuristic_kwargs: dict[str, Any] = field(default_factory=dict)
    """keyword arguments of agents.HeuristicAgent used as an opponent and in evaluation"""

    # ---- evaluation, logging, checkpoints -------------------------------------------------
    eval_every: int = 1_024
    """evaluate against fixed opponents every this many learner decisions (0: only at the end);
    statistics of the training games are charted after every rollout"""
    eval_games: int = 4
    """games per fixed opponent and evaluation (seats rotate)"""
    eval_deterministic: bool = True
    """evaluate the greedy (most probable legal) action instead of sampling"""
    checkpoint_every: int = 1_024
    """save the model, optimizer and pool every this many learner decisions"""
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
        return float(value)
    if hint is str:
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
    _require(2 <= cfg.num_players <= 6, "num_players", f"must be 2..6, got {cfg.num_players}")
    if cfg.learner_seat is not None:
        _require(0 <= cfg.learner_seat < cfg.num_players, "learner_seat",
                 f"must be a seat in 0..{cfg.num_players - 1} or null, got {cfg.learner_seat}")
    _require(cfg.vec_env in VEC_ENVS, "vec_env", f"must be one of {VEC_ENVS}, got {cfg.vec_env!r}")
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
    unknown = sorted(set(cfg.opponent_weights) - set(OPPONENT_KINDS))
    _require(not unknown, "opponent_weights",
             f"has unknown opponent kind(s) {unknown}; known kinds: {list(OPPONENT_KINDS)}")
    weights = cfg.opponent_weights
    _require(all(isinstance(w, (int, float)) and not isinstance(w, bool) and w >= 0
                 for w in weights.values()),
             "opponent_weights", f"weights must be non-negative numbers, got {weights}")
    _require(sum(weights.values()) > 0, "opponent_weights", "must give some kind a weight > 0")
    _require(cfg.name != "" and "/" not in cfg.name and "__" not in cfg.name, "name",
             f"must be a non-empty name without '/' or '__', got {cfg.name!r}")


# ---- loading --------------------------------------------------------------------------------
def config_keys() -> list[str]:
    return [f.name for f in fields(TrainConfig) if f.name not in _RUNTIME_FIELDS]


def from_dict(data: dict[str, Any], source: str = "config") -> TrainConfig:
    """Build a config from plain data; unknown keys fail with the list of known ones."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise TrainConfigError(f"{source} must be a mapping of keys to values")
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
    """``"key=value"`` -> (key, value); the value is read as YAML (``3``, ``true``, ``[64]``)."""
    if "=" not in item:
        raise TrainConfigError(f"override {item!r} must look like key=value")
    key, _, text = item.partition("=")
    key = key.strip()
    try:
        value = yaml.safe_load(text) if text.strip() else ""
    except yaml.YAMLError as exc:
        raise TrainConfigError(f"override {item!r}: value is not valid YAML ({exc})") from None
    return key, value


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> TrainConfig:
    """Read a YAML config (the packaged ``quick`` defaults when ``path`` is None) and apply
    ``key=value`` overrides; dotted keys (``game.max_rounds=40``) reach into mappings."""
    data: dict[str, Any] = {}
    source = "defaults"
    if path is not None:
        p = Path(path)
        if not p.is_file():
            raise TrainConfigError(f"config file {str(p)!r} does not exist")
        try:
            data = yaml.safe_load(p.read_text()) or {}
        except yaml.YAMLError as exc:
            raise TrainConfigError(f"config file {str(p)!r} is not valid YAML: {exc}") from None
        if not isinstance(data, dict):
            raise TrainConfigError(f"config file {str(p)!r} must hold a mapping of keys to values")
        source = str(p)
    for item in overrides or []:
        key, value = parse_override(item)
        head, _, rest = key.partition(".")
        if rest:
            if head not in config_keys() or head not in ("game", "env_kwargs", "opponent_weights",
                                                         "heuristic_kwargs"):
                raise TrainConfigError(
                    f"override {item!r}: only mapping keys (game, env_kwargs, opponent_weights, "
                    "heuristic_kwargs) take dotted sub-keys"
                )
            default = getattr(TrainConfig(), head)
            sub = dict(data.get(head, default) or {})
            sub[rest] = value
            data[head] = sub
        else:
            data[key] = value
    cfg = from_dict(data, source=source if not overrides else f"{source} + --set overrides")
    cfg.config_path = "" if path is None else str(path)
    return cfg


def default_config_path() -> Path | None:
    """``configs/quick.yaml`` of this checkout, if present (the default of ``zavandor train``)."""
    candidate = Path(__file__).resolve().parent.parent / "configs" / "quick.yaml"
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
