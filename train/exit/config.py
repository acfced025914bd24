"""The ``exit`` section of a training config: expert iteration's generations, self-play
search, policy targets and network training (:mod:`zavandor_env.train.exit.run`)."""

from __future__ import annotations

from dataclasses import field
from typing import Annotated, Any, Literal

from pydantic import Field

from zavandor_env.engine.schema import checked
from zavandor_env.io import limits
from zavandor_env.train.common.checkpointing import MAX_STEP
from zavandor_env.train.common.config import (
    Count,
    Natural,
    Positive,
    Real,
    Share,
    TrainConfigError,
    doc,
    require,
)

#: Search parameters the section's own keys set; ``search`` must not set them a second time.
SEARCH_KEYS = ("iterations", "c_puct", "root_noise", "noise_fraction")


@checked(TrainConfigError, what="exit key", label="config key 'exit.{}'")
class ExitConfig:
    """The expert-iteration trainer's keys (``trainer: exit``)."""

    generations: Annotated[Count, Field(le=MAX_STEP),
            doc("""generations to run (each:
        self-play games by the search around the current network, then training on the
        replay window, then export, checkpoint and maybe evaluation); ``max_minutes`` may stop
        the run earlier""")] = 10
    games: Annotated[Count, Field(le=limits.MAX_REPLAY_GAMES),
            doc("""self-play games per
        generation""")] = 8
    workers: Annotated[Count, Field(le=limits.MAX_WORKERS),
            doc("""processes playing the self-play
        games (1: in the trainer's process)""")] = 2
    iterations: Annotated[Count, Field(le=limits.MAX_SEARCH_ITERATIONS),
            doc("""search iterations per searched
        decision (a fixed budget, so a generation's targets do not depend on the machine's
        load)""")] = 64
    c_puct: Annotated[Positive, doc("""the search's PUCT exploration
        constant""")] = 1.5
    root_noise: Annotated[Positive, doc("""Dirichlet alpha of the noise
        mixed into the root prior of every self-play search (diversity)""")] = 0.3
    noise_fraction: Annotated[Share, doc("""weight of that noise in the
        root prior (0: none)""")] = 0.25
    play: Annotated[Literal["search", "network"], doc("""who moves in
        the self-play games.  ``search`` (default): the search plays and its decisions are the
        targets (AlphaZero); ``network``: the current network plays and the search only labels
        the states it reaches (Anthony et al.'s Expert Iteration, a DAgger-style imitation:
        the network learns on the states its own play leads to, the ones it meets when it
        plays alone)""")] = "search"
    temperature_moves: Annotated[Natural, doc("""each seat's first this
        many searched decisions of a game play a move drawn in proportion to the root visits
        (with ``play: network``, from the network's masked softmax) for diversity; later
        ones play the most visited move (the network's most probable one)""")] = 20
    search: Annotated[dict[str, Any], doc("""further keyword parameters
        of the search (``NetworkSearch``), passed through unchanged""")] = field(
        default_factory=dict)
    target: Annotated[Literal["move", "completed_q", "visits"], doc("""
        the policy target of a searched decision.  ``move`` (default): the search's choice, the
        most visited root action, with certainty (Expert Iteration's chosen-action target:
        it sharpens the network towards the search's decisions, and the noise of a small
        search's values and visits never flattens it); ``completed_q``: the network's own
        masked softmax shifted by the search's root action values, ``softmax(logits +
        (q_visit + max visits) * q_scale * q)`` with unvisited actions valued at
        the prior-weighted mean of the visited ones (Gumbel MuZero's completed Q), which is
        as sharp as the prior and never polluted by the root noise; ``visits``: the root visit
        distribution (AlphaZero's target).  Measured at 2 players, warm start, 64 iterations
        (docs/benchmarks.md): ``visits`` and ``completed_q`` both flattened the network
        generation after generation (distilling noisy targets averages their noise into the
        prior) until it lost to the heuristic""")] = "move"
    q_scale: Annotated[Positive, doc("""``completed_q``: the scale of
        the action values' shift (values are win estimates in [0, 1])""")] = 1.0
    q_visit: Annotated[Natural, doc("""``completed_q``: visits added to
        the most visited action's count in the shift's scale (Gumbel MuZero's
        c_visit)""")] = 50
    train_critic: Annotated[bool, doc("""train the critic on the
        self-play results (``vf_coef`` weighs its loss); false: it keeps the weights it started
        with (a warm start's PPO critic, trained against varied opponents, whose values the
        search's Q-values rest on; self-play between equal networks teaches it little but
        noise)""")] = True
    anchor_kl: Annotated[Real, Field(ge=0), doc("""weight of a trust
        region in the policy loss: the KL divergence from the network as it was before this
        generation's training (the one that played its games) to the network being trained
        (0: none).  The search changes only a few per cent of the network's decisions; the
        anchor keeps the others where they were while the network learns those (measured at
        2 players, docs/benchmarks.md)""")] = 0.0
    deviation_weight: Annotated[Real, Field(gt=0), doc("""weight in
        the policy loss of a decision whose target's most probable action differs from the
        choice of the network before this generation's training (the search's corrections,
        a few per cent of the decisions; the others weigh 1)""")] = 1.0
    search_below: Annotated[Share, doc("""with ``play: network``
        and ``target: move``: search only the decisions where the network's most
        probable legal action has a probability below this, and label the others with that
        action, which the search would almost always choose (measured on the shipped
        policies' own games: 64- and 160-iteration searches corrected no 2- or 4-player
        decision played with probability 0.9 or more; at 0.8 the 4-player search ran on 28% of
        the decisions and kept 98% of its corrections, docs/benchmarks.md).  1: search every
        decision""")] = 1.0
    replay_generations: Annotated[Count, Field(le=limits.MAX_REPLAY_GAMES),
            doc("""the replay window: the
        network trains on the searched decisions of the last this many generations""")] = 4
    retrain_from_init: Annotated[bool, doc("""each generation trains a
        fresh copy of ``init_policy`` (and a fresh optimizer) on the whole replay window, so
        the trust region (``anchor_kl``) and the corrections (``deviation_weight``)
        are measured from the warm start, and one generation's fitting errors are not carried
        into the next as its starting point (Expert Iteration's retraining of the apprentice;
        at 4 players it beat training on from the last generation, docs/benchmarks.md).
        ``init_policy`` is read again on ``--resume``.  false: train on from the network of
        the last generation""")] = False
    eval_every: Annotated[Natural, doc("""evaluate against
        ``eval_opponents`` every this many generations (0: only at the end)""")] = 1
    learning_rate: Annotated[Positive, doc("Adam step size")] = 3e-4
    batch_size: Annotated[Count, Field(le=limits.MAX_ROLLOUT_DECISIONS),
                          doc("minibatch size of the PPO update")] = 128
    n_epochs: Annotated[Count, Field(le=limits.MAX_EPOCHS), doc("passes over each rollout")
                        ] = 4
    max_grad_norm: Annotated[Positive, doc("gradient clipping")] = 0.5
    vf_coef: Annotated[Positive, doc("value-loss weight")] = 0.5

    def __post_init__(self) -> None:
        for key in self.search:  # str keys: the schema's strict dict[str, Any]
            require(key not in SEARCH_KEYS, "exit.search",
                    f"must not set {key!r}: the key 'exit.{key}' sets it")
            require(key.isidentifier(), "exit.search",
                    f"keys must be parameter names, got {key!r}")
            require(key not in ("seconds", "seed"), "exit.search",
                    f"must not set {key!r}: self-play uses a fixed iteration budget and the "
                    "trainer's seeds")
            require(key != "temperature", "exit.search",
                    "must not set 'temperature': the trainer picks self-play moves from the "
                    "root visits itself (exit.temperature_moves)")
        if self.search_below < 1.0:
            require(self.play == "network" and self.target == "move", "exit.search_below",
                    f"must be 1 unless exit.play is network and exit.target is move (the "
                    f"network's own move then labels the decisions left unsearched), got "
                    f"{self.search_below:g}")
        window = self.games * self.replay_generations
        require(window <= limits.MAX_REPLAY_GAMES, "exit.replay_generations",
                f"times exit.games must be <= {limits.MAX_REPLAY_GAMES:,} games in the replay "
                f"window, got {self.replay_generations:,} x {self.games:,}")

    def search_params(self) -> dict[str, Any]:
        """The self-play search's parameters: the section's own keys, then ``search`` passed
        through (it may not repeat them: :data:`SEARCH_KEYS`)."""
        return {**{key: getattr(self, key) for key in SEARCH_KEYS}, **self.search}


def check_search(section: ExitConfig) -> None:
    """Build the search once around a tiny network, so a parameter it refuses (an unknown
    name, a bad value) or a core without it fails in one line before the run starts, not in a
    worker after it started (called by the trainer: building a config builds nothing)."""
    from zavandor_env.agents.base import EngineUnavailableError
    from zavandor_env.agents.netsearch import NetworkSearch
    from zavandor_env.train.exit.model import ExitModel

    tiny = ExitModel([1], "tanh").to_policy()
    try:
        NetworkSearch(tiny, **section.search_params())  # it holds no resources to close
    except EngineUnavailableError as exc:  # e.g. a core built before the search existed
        raise TrainConfigError(f"config key 'trainer' is exit, but {exc}") from None
    except (TypeError, ValueError) as exc:
        raise TrainConfigError(f"config key 'exit.search': the search refuses its "
                               f"parameters: {' '.join(str(exc).split())}") from None
