"""Training configuration: one schema dataclass, each field with its type, bounds and
description (``engine.schema``; ``configs/README.md``'s table is generated from it).

A config comes from a YAML file (``configs/*.yaml``) whose keys are exactly the field names
below, optionally changed on the command line with ``--set key=value``.  Every key and value is
checked when the config is built, so a typo fails at once with a message naming the key,
instead of a silently ignored setting discovered an hour into a run.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from dataclasses import field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, get_args

import annotated_types
import yaml
from pydantic import BeforeValidator, Field

from zavandor_env.engine.data import MAX_PLAYERS, MIN_PLAYERS
from zavandor_env.engine.schema import checked
from zavandor_env.io import limits
from zavandor_env.io.files import UntrustedInputError, load_yaml, parse_yaml
from zavandor_env.resources import PACKAGE_DIR, data_path
from zavandor_env.train.checkpointing import MAX_STEP

if TYPE_CHECKING:
    from zavandor_env.engine import GameConfig

#: The one opponent key of ``opponent_weights`` that is not an agent spec: a frozen past copy
#: of the learner, drawn from the run's pool.
SNAPSHOT = "snapshot"
VecEnv = Literal["auto", "native", "dummy", "subproc"]
VEC_ENVS: tuple[str, ...] = get_args(VecEnv)
#: Trainers: MaskablePPO in this process, RLlib PPO on Ray (``train/rllib/``), or expert
#: iteration (``train/exit.py``: the network-guided search plays, the network learns its moves).
Backend = Literal["sb3", "rllib", "exit"]
BACKENDS: tuple[str, ...] = get_args(Backend)
Activation = Literal["tanh", "relu"]
ACTIVATIONS: tuple[str, ...] = get_args(Activation)
#: Config keys that take ``--set key.sub=value`` overrides.
MAPPING_KEYS = ("game", "opponent_weights", "exit_search")
#: The environment's reward options, one typed field each (the environment defines them).
ENV_REWARD_KEYS = ("reward", "vp_delta", "step_reward", "truncation_reward")
#: Largest seed: seeds are ``seed + step`` and NumPy's must stay below 2**32 (the checkpoint
#: bounds the step the same way).
MAX_SEED = 2**31 - 1


class TrainConfigError(ValueError):
    """A training config is invalid; the message names the offending key."""


def _number(value: Any) -> Any:
    """A number written as text (``"1e5"``: YAML 1.1 reads an exponent without a dot as a
    string, and so does ``--set``) is read as one; anything else is left to the type check."""
    if isinstance(value, str):
        if len(value) > limits.MAX_NUMBER_CHARS:  # float() of a megabyte string: no number
            raise ValueError(f"must be a number, got a string of {len(value):,} characters")
        try:
            return float(value)
        except ValueError:
            raise ValueError(f"must be a number, got {value!r}") from None
    return value


def _whole(value: Any) -> Any:
    """``1e5`` (a float) counts as the integer it is; ``2.5`` stays a float and is refused, and
    so does ``1e300`` (a 301-digit integer would only be refused by its bound, at length)."""
    value = _number(value)
    whole = isinstance(value, float) and value.is_integer() and abs(value) < 2.0**63
    return int(value) if whole else value


# Numbers of the schema; every other type is strict (engine.schema.STRICT), so ``true`` is no
# integer and ``3`` no bool, and a NaN or an infinity is no number.
Int = Annotated[int, BeforeValidator(_whole)]
Real = Annotated[float, BeforeValidator(_number)]
Count = Annotated[Int, Field(ge=1)]
Natural = Annotated[Int, Field(ge=0)]
Positive = Annotated[Real, Field(gt=0)]
Share = Annotated[Real, Field(ge=0, le=1)]
Weight = Annotated[float, Field(ge=0)]


def _doc(text: str) -> Any:
    """A field's description (``--help``, configs/README.md); the spaces of the source's line
    breaks are folded."""
    return Field(description=" ".join(text.split()))


@checked(TrainConfigError, what="config key", label="config key {!r}")
class TrainConfig:
    """Everything a self-play run needs; a run is reproducible from this and the code."""

    # ---- run ------------------------------------------------------------------------------
    name: Annotated[str, _doc("""run name prefix: TensorBoard logs go to
        ``<runs_dir>/<name>__<seed>__<time>/``""")] = "quick"
    seed: Annotated[Natural, Field(le=MAX_SEED), _doc("""seed of torch, numpy, the
        environments, the opponent pool and the evaluation games""")] = 1
    total_timesteps: Annotated[Count, Field(le=MAX_STEP),
            _doc("""learner decisions to train for (opponents'
        decisions are not counted)""")] = 2_048
    max_minutes: Annotated[Positive | None, _doc("""wall-clock budget of one invocation: stop
        early (with a final evaluation and checkpoint) after this many minutes from the start
        of this invocation (a ``--resume`` gets the budget afresh), whatever
        ``total_timesteps`` says; null: no limit""")] = None
    runs_dir: Annotated[str, _doc("folder holding one sub-folder per run")] = "runs"
    torch_threads: Annotated[Count, Field(le=limits.MAX_THREADS),
            _doc("""torch intra-op threads; 1 leaves the other core
        to the environments""")] = 1
    backend: Annotated[Backend, _doc("""trainer: ``sb3`` (sb3-contrib MaskablePPO in this
        process), ``rllib`` (RLlib PPO on Ray, a league of modules; needs the ``[ray]``
        extra, see docs/scaling.md) or ``exit`` (expert iteration: the network-guided search
        plays self-play games and the network learns its root visit distributions and the
        results; the ``exit_*`` keys; needs the native core)""")] = "sb3"
    num_env_runners: Annotated[Natural, Field(le=limits.MAX_WORKERS),
            _doc("""``rllib`` backend: Ray actors playing the
        training games, ``n_envs`` games each (0: play them in the trainer's process); an
        update takes ``n_steps * n_envs`` decisions of every seat per runner""")] = 1

    # ---- game and environment -------------------------------------------------------------
    num_players: Annotated[Int, Field(ge=MIN_PLAYERS, le=MAX_PLAYERS), _doc("""players per
        game (2-6); the learner takes one seat, opponents fill the others""")] = 2
    learner_seat: Annotated[Natural | None, _doc("""the learner's seat, or null for a random
        seat every episode""")] = None
    game: Annotated[dict[str, Any], _doc("""GameConfig fields (rule options, ``max_rounds``,
        ``max_decisions``...) of every training and evaluation game; checked against
        GameConfig when the config is built""")] = field(
        default_factory=lambda: {"allow_overbid": False})
    reward: Annotated[str, _doc("""the environment's terminal reward scheme for a game that
        ends by the rules: ``win``, ``rank`` or ``vp_margin`` (defined in
        ``zavandor_env/envs/rewards.py``)""")] = "win"
    vp_delta: Annotated[Real, _doc("""the environment's shaping reward per VP gained (0:
        off)""")] = 0.005
    step_reward: Annotated[Real, _doc("""the environment's reward on every learner decision;
        a small negative value (a cost of time) makes moves that change nothing, such as
        activating and deactivating the same gem, not pay""")] = -0.001
    truncation_reward: Annotated[Real, _doc("""the environment's reward when a game is cut off
        (``max_rounds`` / ``max_decisions``) instead of ending by the rules; -1 makes stalling
        (e.g. toggling gems forever) as bad as losing""")] = -1.0
    n_envs: Annotated[Count, Field(le=limits.MAX_ENVS),
            _doc("""environments stepped in parallel (one policy forward
        serves all of them)""")] = 2
    vec_env: Annotated[VecEnv, _doc("""how the ``n_envs`` games are stepped: ``native`` (all in
        one C++ object, opponents played natively or by one batched forward per snapshot;
        fastest), ``dummy`` (Python games in one process), ``subproc`` (one process per game)
        or ``auto`` (``native`` where the C++ core is built, else ``dummy``)""")] = "auto"

    # ---- MaskablePPO ----------------------------------------------------------------------
    learning_rate: Annotated[Positive, _doc("Adam step size")] = 3e-4
    n_steps: Annotated[Count, Field(le=limits.MAX_ROLLOUT_DECISIONS),
            _doc("decisions collected per environment before each update")
                       ] = 256
    batch_size: Annotated[Count, Field(le=limits.MAX_ROLLOUT_DECISIONS),
                          _doc("minibatch size of the PPO update")] = 128
    n_epochs: Annotated[Count, Field(le=limits.MAX_EPOCHS), _doc("passes over each rollout")
                        ] = 4
    gamma: Annotated[Positive, Field(le=1), _doc("""discount factor; 1 (undiscounted) because
        with gamma < 1 a learner in a losing position gains by postponing the end, and learns
        to toggle a gem on and off forever""")] = 1.0
    gae_lambda: Annotated[Positive, Field(le=1), _doc("GAE lambda")] = 0.95
    clip_range: Annotated[Positive, _doc("PPO clipping of the policy ratio")] = 0.2
    ent_coef: Annotated[Real, Field(ge=0), _doc("entropy bonus")] = 0.01
    vf_coef: Annotated[Positive, _doc("value-loss weight")] = 0.5
    max_grad_norm: Annotated[Positive, _doc("gradient clipping")] = 0.5
    target_kl: Annotated[Real | None, _doc("""stop an update early above this KL divergence
        (null: never)""")] = None
    net_arch: Annotated[list[Annotated[int, Field(gt=0, le=limits.MAX_LAYER_WIDTH)]],
                        Field(min_length=1, max_length=limits.MAX_LAYERS), _doc("""hidden
        layer sizes, shared shape for the policy and the value network""")] = field(
        default_factory=lambda: [64, 64])
    activation: Annotated[Activation, _doc("hidden activation: ``tanh`` or ``relu``")] = "tanh"
    init_policy: Annotated[str | None, _doc("""warm start: a weights-only policy (``.npz``,
        e.g. a run's ``policy.npz``) whose actor, and critic if the file has one, a new run
        copies into its model before training; it must match ``net_arch``, ``activation`` and
        the observation layout (null: random start; a relative path is taken from the current
        directory, else the package; ``--resume`` ignores it: the run's checkpoint wins, the
        key stays as a record)""")] = None

    # ---- opponent pool --------------------------------------------------------------------
    opponent_weights: Annotated[dict[str, Weight], Field(max_length=limits.MAX_AGENTS),
            _doc("""probability weight of each
        opponent, drawn independently per seat and episode: the key ``snapshot`` (a frozen
        past copy of the learner) or any agent spec (``heuristic``, ``mcts:iterations=16``,
        ``policy:path=x.npz``, see ``zavandor eval --help``)""")] = field(
        default_factory=lambda: {"snapshot": 0.4, "random": 0.4, "heuristic": 0.2})
    snapshot_every: Annotated[Count, _doc("""add a frozen copy of the learner to the pool every
        this many learner decisions""")] = 1_024
    pool_size: Annotated[Count, Field(le=limits.MAX_POOL_SNAPSHOTS),
                         _doc("most snapshots kept (the oldest is dropped first)")] = 4
    latest_snapshot_share: Annotated[Share, _doc("""when a snapshot is drawn, the chance it is
        the newest one (else uniform over the rest)""")] = 0.5

    # ---- expert iteration (backend exit) ---------------------------------------------------
    exit_generations: Annotated[Count, Field(le=MAX_STEP),
            _doc("""``exit`` backend: generations to run (each:
        self-play games by the search around the current network, then training on the
        replay window, then export, checkpoint and maybe evaluation); ``max_minutes`` may stop
        the run earlier""")] = 10
    exit_games: Annotated[Count, Field(le=limits.MAX_REPLAY_GAMES),
            _doc("""``exit`` backend: self-play games per
        generation""")] = 8
    exit_workers: Annotated[Count, Field(le=limits.MAX_WORKERS),
            _doc("""``exit`` backend: processes playing the self-play
        games (1: in the trainer's process)""")] = 2
    exit_iterations: Annotated[Count, Field(le=limits.MAX_SEARCH_ITERATIONS),
            _doc("""``exit`` backend: search iterations per searched
        decision (a fixed budget, so a generation's targets do not depend on the machine's
        load)""")] = 64
    exit_c_puct: Annotated[Positive, _doc("""``exit`` backend: the search's PUCT exploration
        constant""")] = 1.5
    exit_root_noise: Annotated[Positive, _doc("""``exit`` backend: Dirichlet alpha of the noise
        mixed into the root prior of every self-play search (diversity)""")] = 0.3
    exit_noise_fraction: Annotated[Share, _doc("""``exit`` backend: weight of that noise in the
        root prior (0: none)""")] = 0.25
    exit_play: Annotated[Literal["search", "network"], _doc("""``exit`` backend: who moves in
        the self-play games.  ``search`` (default): the search plays and its decisions are the
        targets (AlphaZero); ``network``: the current network plays and the search only labels
        the states it reaches (Anthony et al.'s Expert Iteration, a DAgger-style imitation:
        the network learns on the states its own play leads to, the ones it meets when it
        plays alone)""")] = "search"
    exit_temperature_moves: Annotated[Natural, _doc("""``exit`` backend: each seat's first this
        many searched decisions of a game play a move drawn in proportion to the root visits
        (with ``exit_play: network``, from the network's masked softmax) for diversity; later
        ones play the most visited move (the network's most probable one)""")] = 20
    exit_search: Annotated[dict[str, Any], _doc("""``exit`` backend: further keyword parameters
        of the search (``NetworkSearch``), passed through unchanged""")] = field(
        default_factory=dict)
    exit_target: Annotated[Literal["move", "completed_q", "visits"], _doc("""``exit`` backend:
        the policy target of a searched decision.  ``move`` (default): the search's choice, the
        most visited root action, with certainty (Expert Iteration's chosen-action target:
        it sharpens the network towards the search's decisions, and the noise of a small
        search's values and visits never flattens it); ``completed_q``: the network's own
        masked softmax shifted by the search's root action values, ``softmax(logits +
        (exit_q_visit + max visits) * exit_q_scale * q)`` with unvisited actions valued at
        the prior-weighted mean of the visited ones (Gumbel MuZero's completed Q), which is
        as sharp as the prior and never polluted by the root noise; ``visits``: the root visit
        distribution (AlphaZero's target).  Measured at 2 players, warm start, 64 iterations
        (docs/benchmarks.md): ``visits`` and ``completed_q`` both flattened the network
        generation after generation (distilling noisy targets averages their noise into the
        prior) until it lost to the heuristic""")] = "move"
    exit_q_scale: Annotated[Positive, _doc("""``exit`` backend, ``completed_q``: the scale of
        the action values' shift (values are win estimates in [0, 1])""")] = 1.0
    exit_q_visit: Annotated[Natural, _doc("""``exit`` backend, ``completed_q``: visits added to
        the most visited action's count in the shift's scale (Gumbel MuZero's
        c_visit)""")] = 50
    exit_train_critic: Annotated[bool, _doc("""``exit`` backend: train the critic on the
        self-play results (``vf_coef`` weighs its loss); false: it keeps the weights it started
        with (a warm start's PPO critic, trained against varied opponents, whose values the
        search's Q-values rest on; self-play between equal networks teaches it little but
        noise)""")] = True
    exit_anchor_kl: Annotated[Real, Field(ge=0), _doc("""``exit`` backend: weight of a trust
        region in the policy loss: the KL divergence from the network as it was before this
        generation's training (the one that played its games) to the network being trained
        (0: none).  The search changes only a few per cent of the network's decisions; the
        anchor keeps the others where they were while the network learns those (measured at
        2 players, docs/benchmarks.md)""")] = 0.0
    exit_deviation_weight: Annotated[Real, Field(gt=0), _doc("""``exit`` backend: weight in
        the policy loss of a decision whose target's most probable action differs from the
        choice of the network before this generation's training (the search's corrections,
        a few per cent of the decisions; the others weigh 1)""")] = 1.0
    exit_search_below: Annotated[Share, _doc("""``exit`` backend with ``exit_play: network``
        and ``exit_target: move``: search only the decisions where the network's most
        probable legal action has a probability below this, and label the others with that
        action, which the search would almost always choose (measured on the shipped
        policies' own games: 64- and 160-iteration searches corrected no 2- or 4-player
        decision played with probability 0.9 or more; at 0.8 the 4-player search ran on 28% of
        the decisions and kept 98% of its corrections, docs/benchmarks.md).  1: search every
        decision""")] = 1.0
    exit_replay_generations: Annotated[Count, Field(le=limits.MAX_REPLAY_GAMES),
            _doc("""``exit`` backend: the replay window: the
        network trains on the searched decisions of the last this many generations""")] = 4
    exit_retrain_from_init: Annotated[bool, _doc("""``exit`` backend: each generation trains a
        fresh copy of ``init_policy`` (and a fresh optimizer) on the whole replay window, so
        the trust region (``exit_anchor_kl``) and the corrections (``exit_deviation_weight``)
        are measured from the warm start, and one generation's fitting errors are not carried
        into the next as its starting point (Expert Iteration's retraining of the apprentice;
        at 4 players it beat training on from the last generation, docs/benchmarks.md).
        ``init_policy`` is read again on ``--resume``.  false: train on from the network of
        the last generation""")] = False
    exit_eval_every: Annotated[Natural, _doc("""``exit`` backend: evaluate against
        ``eval_opponents`` every this many generations (0: only at the end)""")] = 1

    # ---- evaluation, logging, checkpoints -------------------------------------------------
    eval_opponents: Annotated[list[str], Field(max_length=limits.MAX_AGENTS),
            _doc("""agent specs the learner is evaluated against
        (it plays one seat, the spec every other)""")] = field(
        default_factory=lambda: ["random", "heuristic"])
    eval_every: Annotated[Natural, _doc("""evaluate against ``eval_opponents`` every this many
        learner decisions (0: only at the end); statistics of the training games are charted
        after every rollout""")] = 1_024
    eval_games: Annotated[Natural, Field(le=limits.MAX_GAMES),
            _doc("""games per evaluation opponent and evaluation (the
        learner's seat rotates)""")] = 4
    eval_deterministic: Annotated[bool, _doc("""evaluate the greedy (most probable legal)
        action instead of sampling""")] = True
    keep_policy_minutes: Annotated[list[Positive], Field(max_length=100), _doc("""wall-clock
        marks, in minutes of the run's training clock: the learner's policy as it stands at each
        is kept as ``policy_<M>min.npz`` in the run folder, for learning curves at equal
        wall-clock (``sb3`` and ``exit`` backends; the checkpoints themselves are pruned to the
        newest two).  The clock starts with the run and continues across ``--resume`` from the
        minutes of the checkpoint resumed (work lost to an interruption is not counted twice),
        unlike ``max_minutes``, which counts from the start of each invocation; a mark already
        kept is never kept again (its file is never replaced)""")] = field(default_factory=list)
    checkpoint_every: Annotated[Count, _doc("""save the model, optimizer and pool every this
        many learner decisions (the newest two complete checkpoints are kept)""")] = 1_024
    progress_bar: Annotated[bool, _doc("show a tqdm progress bar")] = True

    # ---- derived (filled at runtime, not read from YAML) ----------------------------------
    config_path: Annotated[str, _doc("the YAML file the config came from (filled at runtime)")
                           ] = ""

    # --------------------------------------------------------------------------------------
    def __post_init__(self) -> None:
        # The field types and bounds are checked already (pydantic); these span fields or
        # ask another layer (GameConfig, the agent registry, the environment).
        _check_combinations(self)
        _validate_game(self)
        _validate_opponents(self)
        _validate_environment(self)

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
    """Field name -> its description (for ``--help`` and the README), from the schema."""
    schema = vars(TrainConfig)["__pydantic_fields__"]  # name -> pydantic FieldInfo
    return {name: info.description or "" for name, info in schema.items()}


# ---- checks across fields -------------------------------------------------------------------
def _require(ok: bool, name: str, message: str) -> None:
    if not ok:
        raise TrainConfigError(f"config key {name!r} {message}")


def _check_combinations(cfg: TrainConfig) -> None:
    if cfg.learner_seat is not None:
        _require(cfg.learner_seat < cfg.num_players, "learner_seat",
                 f"must be a seat in 0..{cfg.num_players - 1} or null, got {cfg.learner_seat}")
    if cfg.vec_env == "native" and cfg.backend == "sb3":
        from zavandor_env.engine.native import native_available, native_status

        _require(native_available(), "vec_env", f"is native, but {native_status()}")
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
    _require(cfg.backend == "exit" or not cfg.exit_search, "exit_search",
             "is an exit backend key: use it with backend exit")
    _require(cfg.backend != "rllib" or not cfg.keep_policy_minutes, "keep_policy_minutes",
             "must be empty with backend rllib (the sb3 and exit backends keep timed policies)")
    _check_sizes(cfg)
    if cfg.backend == "exit":
        _check_exit(cfg)
        return
    _require(cfg.batch_size <= cfg.n_steps * cfg.n_envs, "batch_size",
             f"must be <= n_steps * n_envs = {cfg.n_steps * cfg.n_envs}, got {cfg.batch_size}")
    _require(cfg.name != "" and "/" not in cfg.name and "__" not in cfg.name, "name",
             f"must be a non-empty name without '/' or '__', got {cfg.name!r}")


#: Longest run name: it names the run folder (with the seed and time), and file systems allow
#: 255 bytes per name.
MAX_NAME_CHARS = 100


def _check_sizes(cfg: TrainConfig) -> None:
    """Ceilings of products of keys (io.limits): each key is within its own bound already."""
    decisions = cfg.n_steps * cfg.n_envs
    _require(decisions <= limits.MAX_ROLLOUT_DECISIONS, "n_steps",
             f"times n_envs must be <= {limits.MAX_ROLLOUT_DECISIONS:,} decisions per rollout, "
             f"got {cfg.n_steps:,} x {cfg.n_envs:,}")
    weights = network_weights(cfg.net_arch)
    _require(weights <= limits.MAX_NETWORK_WEIGHTS, "net_arch",
             f"makes a network of {weights:,} weights (at most {limits.MAX_NETWORK_WEIGHTS:,})")
    window = cfg.exit_games * cfg.exit_replay_generations
    _require(window <= limits.MAX_REPLAY_GAMES, "exit_replay_generations",
             f"times exit_games must be <= {limits.MAX_REPLAY_GAMES:,} games in the replay "
             f"window, got {cfg.exit_replay_generations:,} x {cfg.exit_games:,}")
    _require(len(cfg.name) <= MAX_NAME_CHARS, "name",
             f"must be at most {MAX_NAME_CHARS} characters, got {len(cfg.name):,}")


def network_weights(net_arch: list[int]) -> int:
    """Weights of the actor of ``net_arch`` (the observation in, one logit per action out)."""
    from zavandor_env.encoding.observation import OBS_SIZE
    from zavandor_env.engine.actions import NUM_ACTIONS

    sizes = [int(OBS_SIZE), *net_arch, int(NUM_ACTIONS)]
    return sum(a * b for a, b in zip(sizes, sizes[1:]))


#: Search parameters the ``exit_*`` keys set; ``exit_search`` must not set them a second time.
EXIT_SEARCH_KEYS = {"iterations": "exit_iterations", "c_puct": "exit_c_puct",
                    "root_noise": "exit_root_noise", "noise_fraction": "exit_noise_fraction"}


def _check_exit(cfg: TrainConfig) -> None:
    """The ``exit`` backend's keys: the search runs natively, its own keys are set once."""
    from zavandor_env.engine.native import native_available, native_status

    _require(native_available(), "backend", f"is exit, which plays on the native core, but "
             f"{native_status()}")
    for key in cfg.exit_search:
        _require(not isinstance(key, str) or key not in EXIT_SEARCH_KEYS, "exit_search",
                 f"must not set {key!r}: the key {EXIT_SEARCH_KEYS.get(key)!r} sets it")
        _require(isinstance(key, str) and key.isidentifier(), "exit_search",
                 f"keys must be parameter names, got {key!r}")
        _require(key not in ("seconds", "seed"), "exit_search",
                 f"must not set {key!r}: self-play uses a fixed iteration budget and the "
                 "trainer's seeds")
        _require(key != "temperature", "exit_search",
                 "must not set 'temperature': the trainer picks self-play moves from the "
                 "root visits itself (exit_temperature_moves)")
    if cfg.exit_search_below < 1.0:
        _require(cfg.exit_play == "network" and cfg.exit_target == "move", "exit_search_below",
                 f"must be 1 unless exit_play is network and exit_target is move (the "
                 f"network's own move then labels the decisions left unsearched), got "
                 f"{cfg.exit_search_below:g}")
    _require(not cfg.exit_retrain_from_init or cfg.init_policy is not None,
             "exit_retrain_from_init", "needs init_policy, the network each generation is "
             "retrained from")
    _check_search_params(cfg)


def exit_search_params(cfg: TrainConfig) -> dict[str, Any]:
    """The ``exit`` backend's search parameters: the ``exit_*`` keys, then ``exit_search``
    passed through (it may not repeat them: :data:`EXIT_SEARCH_KEYS`)."""
    return {"iterations": cfg.exit_iterations, "c_puct": cfg.exit_c_puct,
            "root_noise": cfg.exit_root_noise, "noise_fraction": cfg.exit_noise_fraction,
            **cfg.exit_search}


def _check_search_params(cfg: TrainConfig) -> None:
    """Build the search once around a tiny network, so a parameter it refuses (an unknown
    name, a bad value) fails now in one line, not in a worker after the run started."""
    import numpy as np

    from zavandor_env.encoding.observation import OBS_SIZE
    from zavandor_env.engine.actions import NUM_ACTIONS

    try:
        from zavandor_env.agents.heuristic import EngineUnavailableError
        from zavandor_env.agents.netsearch import NetworkSearch
        from zavandor_env.agents.policy_file import NumpyPolicy
    except ImportError as exc:
        raise TrainConfigError(f"config key 'backend' is exit, but the network search "
                               f"cannot be imported ({exc})") from None
    tiny = NumpyPolicy([np.zeros((1, OBS_SIZE), np.float32), np.zeros((NUM_ACTIONS, 1),
                                                                      np.float32)],
                       [np.zeros(1, np.float32), np.zeros(NUM_ACTIONS, np.float32)],
                       value_weights=[np.zeros((1, OBS_SIZE), np.float32),
                                      np.zeros((1, 1), np.float32)],
                       value_biases=[np.zeros(1, np.float32), np.zeros(1, np.float32)])
    try:
        search = NetworkSearch(tiny, **exit_search_params(cfg))
    except EngineUnavailableError as exc:  # e.g. a core built before the search existed
        raise TrainConfigError(f"config key 'backend' is exit, but {exc}") from None
    except (TypeError, ValueError) as exc:
        raise TrainConfigError(f"config key 'exit_search': the search refuses its "
                               f"parameters: {' '.join(str(exc).split())}") from None
    close = getattr(search, "close", None)
    if callable(close):
        close()


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
    for spec in weights:
        if spec != SNAPSHOT:
            check_agent_spec("opponent_weights", spec)
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
    from zavandor_env.envs.training import build_env

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
    runtime = sorted(_RUNTIME_FIELDS & {str(k) for k in data})
    if runtime:  # filled by load_config, never read from a file
        raise TrainConfigError(f"unknown config key {runtime[0]!r} in {source}; known keys: "
                               f"{', '.join(config_keys())}")
    try:
        return TrainConfig(**{str(key): value for key, value in data.items()})
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
    """The config keys as a Markdown table of the schema: key, type, default, meaning
    (``configs/README.md`` embeds it; a test keeps the two in step).  Regenerate with
    ``python -m zavandor_env.codegen``."""
    hints = typing.get_type_hints(TrainConfig, include_extras=True)
    docs = field_docs()
    rows = ["| key | type | default | meaning |", "|---|---|---|---|"]
    for key in config_keys():
        kind = _type_text(hints[key]).replace("|", "\\|")
        rows.append(f"| `{key}` | {kind} | `{json.dumps(default_value(key))}` | {docs[key]} |")
    return "\n".join(rows)


_TYPE_WORDS = {int: "integer", float: "number", str: "string", bool: "true/false"}


def _type_text(hint: Any) -> str:
    """A type of the schema in words with its bounds: ``integer >= 1``, ``number > 0 or
    null``, ``one of `sb3`, `rllib```."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Annotated:
        return _bounded(_type_text(args[0]), args[1:])
    if origin in (typing.Union, types.UnionType):
        return " or ".join("null" if a is type(None) else _type_text(a) for a in args)
    if origin is Literal:
        return "one of " + ", ".join(f"`{a}`" for a in args)
    if origin is list:
        return f"list of {_type_text(args[0])}"
    if origin is dict:
        return "mapping" if args[1] is Any else f"mapping to {_type_text(args[1])}"
    return _TYPE_WORDS.get(hint, getattr(hint, "__name__", str(hint)))


_BOUNDS = {annotated_types.Ge: ">=", annotated_types.Gt: ">", annotated_types.Le: "<=",
           annotated_types.Lt: "<"}


def _bounded(text: str, metadata: tuple[Any, ...]) -> str:
    """``text`` with the bounds among ``metadata`` (annotated-types bounds, alone or inside a
    pydantic ``Field``): ``number > 0, <= 1``."""
    bounds = [f"{_BOUNDS[type(b)]} {dataclasses.astuple(b)[0]}"
              for item in metadata for b in getattr(item, "metadata", [item])
              if type(b) in _BOUNDS]
    return " ".join([text, ", ".join(bounds)]) if bounds else text


if __name__ == "__main__":
    print(schema_markdown())
