"""Stable-Baselines3 on the native core: an SB3 ``VecEnv`` of C++-batched games.

SB3 takes its own ``VecEnv``, not Gymnasium's vector env, so
:class:`~zavandor_env.envs.vector.ZavandorVectorEnv` cannot be handed to it directly;
:func:`make_vec_env` builds the SB3 ``VecEnv`` that training itself uses
(:class:`zavandor_env.envs.sb3_vec.NativeVecEnv`): all games live in one native object and
the opponents' moves are played in C++, so one learner step crosses into C++ once for every
game.  It has ``action_masks()``, so sb3-contrib's ``MaskablePPO`` trains on it as is::

    from sb3_contrib import MaskablePPO
    from zavandor_env.envs.sb3 import make_vec_env

    venv = make_vec_env(8, num_players=2, opponents="novice", seed=0)
    MaskablePPO("MlpPolicy", venv, seed=0).learn(2_048)

SB3's step conventions hold: ``dones = terminated | truncated``, the next game's first
observation in ``obs`` and the finished game's last in ``infos[i]["terminal_observation"]``;
``infos[i]["outcome"]`` is the finished game's
:class:`~zavandor_env.engine.outcome.Outcome` (SB3 never batches infos).  A game cut off by a
safety limit is over for good (priced with ``truncation_reward``), so it is not reported as a
time limit to bootstrap (``infos[i]["truncated"]`` holds the raw flag).  Every ``infos[i]``
holds the single env's info keys (``action_mask``, ``seat``, the result keys); the rewards
default to the environment's (``RewardConfig``: the rulebook outcome, no shaping), as
``gymnasium.make("Zavandor-v0")``; an illegal action ends that game with ``illegal_reward``
(``illegal_action="raise"`` raises instead).

This module sits above ``train`` in the layering (it builds training's ``VecEnv``), beside the
CLI; it imports Stable-Baselines3.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zavandor_env.extras import require

# Stable-Baselines3 comes with the [train] extra: without it, one line naming the install
# rather than a bare ModuleNotFoundError from deep inside the imports below.
require("train", "zavandor_env.envs.sb3 (the Stable-Baselines3 vector env)",
        only=("stable_baselines3",))

from zavandor_env.agents.registry import parse_spec  # noqa: E402  (after the extra is known to be there)
from zavandor_env.envs.aec import _check_option_names  # noqa: E402
from zavandor_env.envs.contract import check_illegal_action  # noqa: E402
from zavandor_env.envs.rewards import RewardConfig  # noqa: E402
from zavandor_env.envs.sb3_vec import NativeVecEnv  # noqa: E402
from zavandor_env.train.config import ENV_REWARD_KEYS, TrainConfig  # noqa: E402
from zavandor_env.train.opponents import PoolSpec  # noqa: E402

__all__ = ["NativeVecEnv", "make_vec_env"]

#: The default opponents: those of ``gymnasium.make("Zavandor-v0")``.
DEFAULT_OPPONENTS = "novice"


def make_vec_env(
    num_envs: int = 8,
    num_players: int = 2,
    opponents: str | Mapping[str, float] = DEFAULT_OPPONENTS,
    seed: int = 0,
    learner_seat: int | None = None,
    illegal_action: str = "terminate",
    **options: Any,
) -> NativeVecEnv:
    """``num_envs`` games on the native core as an SB3 ``VecEnv`` with ``action_masks()``.

    Args:
        num_envs: games stepped together.
        num_players: 2 to 6.
        opponents: one agent spec for every opponent seat (``"novice"``, the default;
            ``"random"``, ``"heuristic"``, ``"naive"``, ``"planner"`` play natively; any other
            spec such as ``"mcts:iterations=16"`` plays in Python, slowly), or a mapping
            ``{spec: weight}`` drawn per seat and episode.
        seed: seeds the games, the learner seats and the opponents' draws (SB3's
            ``model.set_random_seed`` reseeds it, as for any ``VecEnv``).
        learner_seat: the learner's seat, or ``None`` to draw it per episode.
        illegal_action: ``"terminate"`` (default: an illegal action ends that game with
            ``illegal_reward``, ``infos[i]["illegal_action"]`` true) or ``"raise"``
            (``ValueError`` naming the game).
        **options: reward options (``reward``, ``vp_delta``, ``step_reward``,
            ``truncation_reward``, ``illegal_reward``; each defaults to
            :class:`~zavandor_env.envs.rewards.RewardConfig`'s, as ``gymnasium.make`` does:
            no shaping unless asked) and rule options (``max_rounds``, ...); an unknown one
            raises ``TypeError``.
    """
    _check_option_names({k: v for k, v in options.items() if k not in RewardConfig.names()})
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
    illegal_reward = options.pop("illegal_reward", RewardConfig.illegal_reward)
    # The environment's reward defaults, not the training config's shaping (the trainer
    # passes its own): one default on every face.
    rewards = {k: options.get(k, getattr(RewardConfig, k)) for k in ENV_REWARD_KEYS}
    rules = {k: v for k, v in options.items() if k not in ENV_REWARD_KEYS}
    cfg = TrainConfig(num_players=num_players, n_envs=num_envs, learner_seat=learner_seat,
                      seed=seed, game=rules, **rewards)
    weights = ({opponents: 1.0} if isinstance(opponents, str)
               else {str(k): float(v) for k, v in opponents.items()})
    for spec in weights:
        parse_spec(spec)  # an unknown agent is refused now, not at the first reset
    return NativeVecEnv(cfg, PoolSpec(weights=weights), seed=seed,
                        illegal_action=check_illegal_action(illegal_action),
                        illegal_reward=illegal_reward)
