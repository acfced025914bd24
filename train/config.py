"""Training configuration: a common part (run folder, seeds, players, rewards, network,
opponents and pool, evaluation, timed marks) and one section per trainer -- ``ppo``
(:mod:`zavandor_env.train.ppo.config`), ``exit`` (:mod:`zavandor_env.train.exit.config`) and
``rllib`` (:mod:`zavandor_env.train.rllib.config`) -- each field with its type, bounds and
description (``configs/README.md``'s table is generated from them).

A config comes from a YAML file (``configs/*.yaml``), optionally changed on the command line
with ``--set key=value`` (``--set ppo.n_envs=4``, ``--set exit.games=8``).  Every key and value
is checked when the config is built, so a typo fails at once with a message naming the key.
Building a config builds nothing: no environment, no agent, no search (the trainers check
those before a run starts).  The flat keys of configs written before the sections
(``learning_rate``, ``exit_games``, ``num_env_runners``, ``backend``...) are read into their
sections in one place, :func:`normalize`, so every shipped config and checkpoint still loads.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from dataclasses import field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import yaml
from pydantic import Field

from zavandor_env.engine.data import MAX_PLAYERS, MIN_PLAYERS
from zavandor_env.engine.schema import checked
from zavandor_env.io import limits
from zavandor_env.io.files import UntrustedInputError, load_yaml, parse_yaml
from zavandor_env.resources import PACKAGE_DIR, data_path
from zavandor_env.train.common.config import (
    MAX_NAME_CHARS,
    MAX_SEED,
    SNAPSHOT,
    Count,
    Int,
    Natural,
    Positive,
    Real,
    Share,
    TrainConfigError,
    Weight,
    check_agent_spec,
    doc,
    network_weights,
    require,
    schema_rows,
)
from zavandor_env.train.exit.config import ExitConfig
from zavandor_env.train.ppo.config import PPOConfig
from zavandor_env.train.rllib.config import RllibConfig

if TYPE_CHECKING:
    from zavandor_env.engine import GameConfig

__all__ = ["SNAPSHOT", "TrainConfig", "TrainConfigError", "check_agent_spec", "load_config"]

#: The trainers: the project's masked PPO in this process, expert iteration (the network-guided
#: search plays, the network learns its moves) or RLlib PPO on Ray.
Trainer = Literal["ppo", "exit", "rllib"]
Activation = Literal["tanh", "relu"]
Device = Literal["auto", "cpu", "cuda"]
Reward = Literal["win", "rank", "vp_margin"]
#: The environment's reward options, one typed field each (the environment defines them).
ENV_REWARD_KEYS = ("reward", "vp_delta", "step_reward", "truncation_reward")
#: The sections, one per trainer: the key and its class.
SECTIONS: dict[str, Any] = {"ppo": PPOConfig, "exit": ExitConfig, "rllib": RllibConfig}
#: The sections each trainer reads (RLlib runs PPO: it reads the ``ppo`` section too).
READS = {"ppo": ("ppo",), "exit": ("exit",), "rllib": ("ppo", "rllib")}
#: Mapping keys that take ``--set key.sub=value`` overrides, as paths.
MAPPING_KEYS = ("game", "opponent_weights", "exit.search")


@checked(TrainConfigError, what="config key", label="config key {!r}")
class TrainConfig:
    """Everything a training run needs; a run is reproducible from this and the code."""

    trainer: Annotated[Trainer, doc("""who trains: ``ppo`` (the project's masked PPO in this
        process, the ``ppo`` section), ``exit`` (expert iteration: the network-guided search
        plays self-play games and the network learns its moves; the ``exit`` section) or
        ``rllib`` (RLlib PPO on Ray, a league of modules; the ``ppo`` and ``rllib`` sections;
        needs the ``[ray]`` extra, see docs/scaling.md)""")] = "ppo"
    name: Annotated[str, doc("""run name prefix: TensorBoard logs go to
        ``<runs_dir>/<name>__<seed>__<time>/``""")] = "quick"
    seed: Annotated[Natural, Field(le=MAX_SEED), doc("""seed of torch, numpy, the
        environments, the opponent pool and the evaluation games""")] = 1
    max_minutes: Annotated[Positive | None, doc("""wall-clock budget of one invocation: stop
        early (with a final evaluation and checkpoint) after this many minutes from the start
        of this invocation (a ``--resume`` gets the budget afresh), whatever
        ``ppo.total_timesteps`` says; null: no limit""")] = None
    runs_dir: Annotated[str, doc("folder holding one sub-folder per run")] = "runs"
    torch_threads: Annotated[Natural, Field(le=limits.MAX_THREADS),
            doc("""torch intra-op threads (0: one per core this process may use); the
        ``ppo`` trainer uses them for its update and keeps one for the rollout's forward
        passes, which the environments' stepping alternates with""")] = 1
    num_players: Annotated[Int, Field(ge=MIN_PLAYERS, le=MAX_PLAYERS), doc("""players per
        game (2-6); the learner takes one seat, opponents fill the others""")] = 2
    learner_seat: Annotated[Natural | None, doc("""the learner's seat, or null for a random
        seat every episode""")] = None
    game: Annotated[dict[str, Any], doc("""GameConfig fields (rule options, ``max_rounds``,
        ``max_decisions``...) of every training and evaluation game; checked against
        GameConfig when the config is built""")] = field(
        default_factory=lambda: {"allow_overbid": False})
    reward: Annotated[Reward, doc("""the environment's terminal reward scheme for a game that
        ends by the rules: ``win``, ``rank`` or ``vp_margin`` (defined in
        ``zavandor_env/envs/rewards.py``)""")] = "win"
    vp_delta: Annotated[Real, doc("""the environment's shaping reward per VP gained (0:
        off)""")] = 0.005
    step_reward: Annotated[Real, doc("""the environment's reward on every learner decision;
        a small negative value (a cost of time) makes moves that change nothing, such as
        activating and deactivating the same gem, not pay""")] = -0.001
    truncation_reward: Annotated[Real, doc("""the environment's reward when a game is cut off
        (``max_rounds`` / ``max_decisions``) instead of ending by the rules; -1 makes stalling
        (e.g. toggling gems forever) as bad as losing""")] = -1.0
    net_arch: Annotated[list[Annotated[int, Field(gt=0, le=limits.MAX_LAYER_WIDTH)]],
                        Field(min_length=1, max_length=limits.MAX_LAYERS), doc("""hidden
        layer sizes, shared shape for the policy and the value network""")] = field(
        default_factory=lambda: [64, 64])
    activation: Annotated[Activation, doc("hidden activation: ``tanh`` or ``relu``")] = "tanh"
    init_policy: Annotated[str | None, doc("""warm start: a weights-only policy (``.npz``,
        e.g. a run's ``policy.npz``) whose actor, and critic if the file has one, a new run
        copies into its model before training; it must match ``net_arch``, ``activation`` and
        the observation layout (null: random start; a relative path is taken from the current
        directory, else the package; ``--resume`` ignores it: the run's checkpoint wins, the
        key stays as a record)""")] = None
    opponent_weights: Annotated[dict[str, Weight], Field(max_length=limits.MAX_AGENTS),
            doc("""probability weight of each
        opponent, drawn independently per seat and episode: the key ``snapshot`` (a frozen
        past copy of the learner) or any agent spec (``heuristic``, ``mcts:iterations=16``,
        ``policy:path=x.npz``, see ``zavandor eval --help``)""")] = field(
        default_factory=lambda: {"snapshot": 0.4, "random": 0.4, "heuristic": 0.2})
    snapshot_every: Annotated[Count, doc("""add a frozen copy of the learner to the pool every
        this many learner decisions""")] = 1_024
    pool_size: Annotated[Count, Field(le=limits.MAX_POOL_SNAPSHOTS),
                         doc("most snapshots kept (the oldest is dropped first)")] = 4
    latest_snapshot_share: Annotated[Share, doc("""when a snapshot is drawn, the chance it is
        the newest one (else uniform over the rest)""")] = 0.5
    eval_opponents: Annotated[list[str], Field(max_length=limits.MAX_AGENTS),
            doc("""agent specs the learner is evaluated against
        (it plays one seat, the spec every other)""")] = field(
        default_factory=lambda: ["random", "heuristic"])
    eval_every: Annotated[Natural, doc("""evaluate against ``eval_opponents`` every this many
        learner decisions (0: only at the end); statistics of the training games are charted
        after every rollout""")] = 1_024
    eval_games: Annotated[Natural, Field(le=limits.MAX_GAMES),
            doc("""games per evaluation opponent and evaluation (the
        learner's seat rotates)""")] = 4
    eval_deterministic: Annotated[bool, doc("""evaluate the greedy (most probable legal)
        action instead of sampling""")] = True
    keep_policy_minutes: Annotated[list[Positive], Field(max_length=100), doc("""wall-clock
        marks, in minutes of the run's training clock: the learner's policy as it stands at each
        is kept as ``policy_<M>min.npz`` in the run folder, for learning curves at equal
        wall-clock (``sb3`` and s; the checkpoints themselves are pruned to the
        newest two).  The clock starts with the run and continues across ``--resume`` from the
        minutes of the checkpoint resumed (work lost to an interruption is not counted twice),
        unlike ``max_minutes``, which counts from the start of each invocation; a mark already
        kept is never kept again (its file is never replaced)""")] = field(default_factory=list)
    progress_bar: Annotated[bool, doc("show a tqdm progress bar")] = True
    device: Annotated[Device, doc("""where the ``ppo`` trainer's network learns: ``auto`` (a
        CUDA GPU when torch sees one, else the CPU), ``cpu`` or ``cuda``; the games always run
        on the CPU""")] = "auto"
    ppo: Annotated[PPOConfig, doc("the ``ppo`` section")] = field(default_factory=PPOConfig)
    exit: Annotated[ExitConfig, doc("the ``exit`` section")] = field(
        default_factory=ExitConfig)
    rllib: Annotated[RllibConfig, doc("the ``rllib`` section")] = field(
        default_factory=RllibConfig)
    config_path: Annotated[str, doc("the YAML file the config came from (filled at runtime)")
                           ] = ""

    def __post_init__(self) -> None:
        # The field types and bounds are checked already (pydantic); these span fields.
        _check_common(self)
        _check_trainer(self)

    def to_dict(self) -> dict[str, Any]:
        """The config as plain data: the common keys, then the sections the trainer reads."""
        data = dataclasses.asdict(self)
        del data["config_path"]
        for name in SECTIONS:
            if name not in READS[self.trainer]:
                del data[name]
        return data

    def env_options(self) -> dict[str, Any]:
        """Keyword options of ``SingleAgentEnv`` besides the seats: the reward settings by
        name, then the rule options of ``game`` (GameConfig fields; the two never overlap)."""
        options: dict[str, Any] = {key: getattr(self, key) for key in ENV_REWARD_KEYS}
        options.update(self.game)
        return options

    def game_config(self) -> GameConfig:
        """The :class:`~zavandor_env.engine.GameConfig` of every game of the run."""
        from zavandor_env.engine import GameConfig

        return GameConfig.from_dict({"num_players": self.num_players, **self.game})

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.to_dict(), sort_keys=False)

    def to_markdown(self) -> str:
        """The config as a Markdown table (TensorBoard's text plugin renders it)."""
        rows = ["| key | value |", "|---|---|"]
        for key, value in self.to_dict().items():
            items = value.items() if key in SECTIONS else [("", value)]
            rows += [f"| {key}{'.' if sub else ''}{sub} | `{json.dumps(v)}` |"
                     for sub, v in items]
        return "\n".join(rows)


# ---- checks across fields -------------------------------------------------------------------
def _check_common(cfg: TrainConfig) -> None:
    if cfg.learner_seat is not None:
        require(cfg.learner_seat < cfg.num_players, "learner_seat",
                f"must be a seat in 0..{cfg.num_players - 1} or null, got {cfg.learner_seat}")
    require(cfg.init_policy is None or cfg.init_policy.strip() != "", "init_policy",
            "must be a path to a .npz policy or null, got ''")
    require(cfg.name != "" and "/" not in cfg.name and "__" not in cfg.name, "name",
            f"must be a non-empty name without '/' or '__', got {cfg.name!r}")
    require(len(cfg.name) <= MAX_NAME_CHARS, "name",
            f"must be at most {MAX_NAME_CHARS} characters, got {len(cfg.name):,}")
    weights = network_weights(cfg.net_arch)
    require(weights <= limits.MAX_NETWORK_WEIGHTS, "net_arch",
            f"makes a network of {weights:,} weights (at most {limits.MAX_NETWORK_WEIGHTS:,})")
    from zavandor_env.engine.config import ConfigError

    require("num_players" not in cfg.game, "game",
            "must not hold num_players: set the top-level key num_players instead")
    try:  # a bad rule option fails before any run folder exists
        cfg.game_config()
    except (ConfigError, TypeError) as exc:
        raise TrainConfigError(f"config key 'game': {exc}") from None
    for spec in cfg.opponent_weights:
        if spec != SNAPSHOT:
            check_agent_spec("opponent_weights", spec)
    require(sum(cfg.opponent_weights.values()) > 0, "opponent_weights",
            "must give some opponent a weight > 0")
    for spec in cfg.eval_opponents:
        require(spec != SNAPSHOT, "eval_opponents",
                "takes agent specs; 'snapshot' is a training opponent only")
        check_agent_spec("eval_opponents", spec)
    require(len(set(cfg.eval_opponents)) == len(cfg.eval_opponents), "eval_opponents",
            f"names an opponent twice: {cfg.eval_opponents}")


def _check_trainer(cfg: TrainConfig) -> None:
    """What a trainer cannot do with the common keys."""
    require(cfg.trainer == "exit" or not cfg.exit.search, "exit.search",
            "is an exit trainer key: use it with trainer exit")
    require(not cfg.exit.retrain_from_init or cfg.init_policy is not None,
            "exit.retrain_from_init", "needs init_policy, the network each generation is "
            "retrained from")
    if cfg.trainer != "rllib":
        return
    # RLlib's KL term is an adaptive penalty, not SB3's early stop: refuse rather than
    # silently train something else.
    require(cfg.ppo.target_kl is None, "ppo.target_kl",
            "must be null with trainer rllib (RLlib has no KL early stop)")
    require(cfg.init_policy is None, "init_policy",
            "must be null with trainer rllib (only the ppo and exit trainers warm-start)")
    require(not cfg.keep_policy_minutes, "keep_policy_minutes",
            "must be empty with trainer rllib (the ppo and exit trainers keep timed policies)")


def check_run(cfg: TrainConfig) -> None:
    """What a trainer checks before its run folder exists, beyond the config itself: every
    agent spec builds (a ``policy`` spec's file loads) and, for expert iteration, the search
    takes its parameters."""
    for spec in [*cfg.opponent_weights, *cfg.eval_opponents]:
        if spec != SNAPSHOT:
            check_agent_spec("opponent_weights" if spec in cfg.opponent_weights
                             else "eval_opponents", spec, build=True)
    if cfg.trainer == "ppo" and cfg.ppo.imitate_decisions:
        check_agent_spec("ppo.imitate_teacher", cfg.ppo.imitate_teacher, build=True)
    if cfg.trainer == "exit":
        from zavandor_env.train.exit.config import check_search

        check_search(cfg.exit)


# ---- the keys of configs written before the sections ----------------------------------------
#: Keys of configs written before the typed fields (run folders keep their config.yaml).
_REPLACED_KEYS = ("env_kwargs", "heuristic_kwargs")
#: Optimizer keys both the ppo and the exit sections have: a flat one is the trainer's.
_SHARED_KEYS = ("learning_rate", "batch_size", "n_epochs", "max_grad_norm", "vf_coef")


def _section_keys(name: str) -> list[str]:
    return [f.name for f in fields(SECTIONS[name])]


def old_key_path(key: str, trainer: str) -> list[str] | None:
    """Where the flat key ``key`` of an old config lives now (``exit_games`` ->
    ``["exit", "games"]``), or None for a key that is no old flat key."""
    if key in _SHARED_KEYS:
        return ["exit" if trainer == "exit" else "ppo", key]
    if key.startswith("exit_") and key[5:] in _section_keys("exit"):
        return ["exit", key[5:]]
    for name in ("ppo", "rllib"):
        if key in _section_keys(name):
            return [name, key]
    return None


def _old_trainer(value: Any) -> Any:
    """The trainer an old ``backend`` value named (``sb3`` is ``ppo``; ``exit`` and ``rllib``
    kept their names; anything else is left to the check)."""
    return "ppo" if value == "sb3" else value


def _trainer_of(data: dict[str, Any]) -> Any:
    return data["trainer"] if "trainer" in data else _old_trainer(data.get("backend", "ppo"))


def normalize(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with the keys of an old flat config moved to their sections (the one place
    old keys are read): ``backend: sb3`` -> ``trainer: ppo``, ``exit_games`` ->
    ``exit.games``, ``learning_rate`` -> the trainer's section, ``vec_env`` dropped.  A key
    given both ways keeps its flat value (a ``--set`` of an old name wins over the file)."""
    out: dict[str, Any] = {}
    trainer = _trainer_of(data)
    moved: dict[str, dict[str, Any]] = {}
    for key, value in data.items():
        key = str(key)
        if key == "backend":  # the trainer it names, unless a trainer key is given too
            out["trainer"] = trainer
            continue
        if key == "vec_env":  # one runtime: only an old ask for Python games is worth a word
            if value not in ("auto", "native"):
                print(f"warning: config key 'vec_env' is deprecated and ignored (the "
                      f"native core steps every game), got {value!r}", file=sys.stderr)
            continue
        path = old_key_path(key, trainer)
        if path is None:
            out[key] = value
        else:
            moved.setdefault(path[0], {})[path[1]] = value
    for name, values in moved.items():
        section = out.get(name)
        out[name] = {**section, **values} if isinstance(section, dict) else values
    return out


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


# ---- loading --------------------------------------------------------------------------------
def config_keys() -> list[str]:
    """Every key a config may hold: the common ones, then ``<section>.<key>``."""
    common = [f.name for f in fields(TrainConfig) if f.name not in (*SECTIONS, "config_path")]
    return common + [f"{name}.{key}" for name in SECTIONS for key in _section_keys(name)]


def default_value(key: str) -> Any:
    """The default of config key ``key`` (``ppo.n_envs``; a fresh copy for mappings)."""
    head, _, rest = key.partition(".")
    cls = SECTIONS[head] if rest else TrainConfig
    f = next(f for f in fields(cls) if f.name == (rest or head))
    return f.default if f.default_factory is dataclasses.MISSING else f.default_factory()


def from_dict(data: dict[str, Any], source: str = "config") -> TrainConfig:
    """Build a config from plain data (old flat keys too); unknown keys fail with the known
    ones."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise TrainConfigError(f"{source} must be a mapping of keys to values")
    for key in _REPLACED_KEYS:
        if key in data:
            raise TrainConfigError(f"{_replaced_key_message(key, data[key])} ({source})")
    data = normalize(data)
    if "config_path" in data:  # filled by load_config, never read from a file
        raise TrainConfigError(f"unknown config key 'config_path' in {source}; known keys: "
                               f"{', '.join(config_keys())}")
    try:
        for name, cls in SECTIONS.items():
            section = {} if data.get(name) is None else data[name]
            require(isinstance(section, dict), name, f"must be a mapping of {name} keys, got "
                    f"{type(section).__name__}")
            data[name] = cls(**{str(k): v for k, v in section.items()})
        return TrainConfig(**data)
    except TrainConfigError as exc:
        if str(exc).startswith("unknown config key"):  # say where the typo is
            head = str(exc).partition("; known: ")[0]
            raise TrainConfigError(f"{head} in {source}; known keys: "
                                   f"{', '.join(config_keys())}") from None
        raise


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


def _override_path(key: str, trainer: str) -> list[str]:
    """The path of an override's key: ``ppo.n_envs``, ``game.max_rounds``, the old
    ``exit_search.rollout`` -> ``exit.search.rollout``."""
    head, _, rest = key.partition(".")
    path = old_key_path(head, trainer) or [head]
    if path[0] in SECTIONS and len(path) == 1 and rest:
        sub, _, rest = rest.partition(".")
        path = [head, sub]
    if rest:
        if ".".join(path) not in MAPPING_KEYS:
            raise TrainConfigError(f"override {key!r}: only the sections ({', '.join(SECTIONS)})"
                                   f" and the mapping keys ({', '.join(MAPPING_KEYS)}) take "
                                   "dotted sub-keys")
        path.append(rest)
    return path


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """``data`` (normalized) with ``key=value`` overrides applied; ``game.max_rounds=40``,
    ``ppo.n_envs=4`` and ``opponent_weights.heuristic=0.5`` change one entry of a mapping."""
    data = normalize(dict(data))
    for item in overrides:
        key, value = parse_override(item)
        head = key.partition(".")[0]
        if head in _REPLACED_KEYS:
            data[head] = {key.partition(".")[2]: value} if "." in key else value
            continue  # from_dict says what replaced the key
        if head in ("backend", "vec_env"):  # old keys are read in one place
            if head == "backend":  # the old name of trainer, given on the command line: it wins
                data.pop("trainer", None)
            data = normalize({**data, head: value})
            continue
        *parents, last = _override_path(key, _trainer_of(data))
        node = data
        for depth, name in enumerate(parents):
            where, child = ".".join(parents[:depth + 1]), node.get(name)
            if not isinstance(child, dict):  # a mapping key starts from its default
                child = default_value(where) if where in MAPPING_KEYS else {}
            node[name] = dict(child)
            node = node[name]
        node[last] = value
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
    """The config keys as a Markdown table of the schema: key, type, default, meaning
    (``configs/README.md`` embeds it; a test keeps the two in step).  Regenerate with
    ``python -m zavandor_env.codegen``."""
    rows = ["| key | type | default | meaning |", "|---|---|---|---|", *schema_rows(TrainConfig)]
    for name, cls in SECTIONS.items():
        rows += schema_rows(cls, f"{name}.")
    return "\n".join(rows)

