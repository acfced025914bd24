"""The options every face shares, read in one place: reward and rule options, the learner's
seat, the number of games, and the retired ``backend`` switch.

Every face passes its keyword options through :func:`env_settings`, so a misspelt option, a
bad reward number or an old ``backend=`` argument reads the same on each of them.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from zavandor_env.engine import GameConfig
from zavandor_env.engine.game import retire_backend
from zavandor_env.envs.rewards import RewardConfig

#: The rule options (every :class:`~zavandor_env.engine.GameConfig` field but the players).
RULE_OPTIONS = tuple(sorted(f.name for f in fields(GameConfig) if f.name != "num_players"))


def check_backend(options: dict[str, Any]) -> None:
    """Remove a retired ``backend`` option from ``options`` (see
    :func:`zavandor_env.engine.game.retire_backend`: ``"native"`` warns, anything else is a
    one-line ``ValueError``)."""
    if "backend" in options:
        retire_backend(options.pop("backend") or "native", stacklevel=4)


def check_option_names(options: dict[str, Any]) -> None:
    """Refuse an unknown reward or rule option in one line naming every option there is: a
    ``TypeError`` in Python's own wording for an unexpected keyword, which libraries probing
    optional keywords match (TorchRL's ``GymEnv`` retries without ``frameskip`` on
    "unexpected keyword argument 'frameskip'")."""
    if "score_truncated" in options:
        raise TypeError("score_truncated was removed: a truncated game has no winner and "
                        "pays truncation_reward to every seat")
    unknown = sorted(set(options) - set(RULE_OPTIONS) - set(RewardConfig.names()))
    if unknown:
        others = f" (unknown options: {unknown})" if len(unknown) > 1 else ""
        raise TypeError(f"got an unexpected keyword argument {unknown[0]!r}{others}; "
                        f"reward options: {list(RewardConfig.names())}; rule options: "
                        f"{list(RULE_OPTIONS)}")


def env_settings(num_players: int, options: dict[str, Any]) -> tuple[RewardConfig, GameConfig]:
    """The reward settings and the game's rules of a face's keyword ``options`` (reward
    options by :class:`RewardConfig`'s names, the rest :class:`GameConfig` fields), each
    validated; ``options`` itself is left as it was but for a retired ``backend``."""
    check_backend(options)
    check_option_names(options)
    rewards = {k: v for k, v in options.items() if k in RewardConfig.names()}
    rules = {k: v for k, v in options.items() if k not in rewards}
    return RewardConfig(**rewards), GameConfig(num_players=num_players, **rules)


def check_learner_seat(learner_seat: object, num_players: int) -> None:
    """``learner_seat`` is None (drawn each episode) or a seat; else a one-line ValueError."""
    if learner_seat is not None and (
        type(learner_seat) is not int or not 0 <= learner_seat < num_players
    ):
        raise ValueError(f"learner_seat must be None or a seat 0..{num_players - 1}, "
                         f"got {learner_seat!r}")


def check_num_envs(num_envs: object) -> int:
    """``num_envs`` if it is a positive integer, else a one-line ValueError."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
    return num_envs
