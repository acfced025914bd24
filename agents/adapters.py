"""Your own policy as an :class:`~zavandor_env.agents.base.Agent`: a function of the
observation and mask, or a torch module.

Both read what the environments give a player: the ``float32[710]`` observation and the
``int8[67]`` action mask of :mod:`zavandor_env.encoding.observation` (the Gymnasium and
PettingZoo faces' ``observation`` / ``action_mask``), and answer an action index.  An answer
that is not a legal action is refused in one line naming it, rather than played.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from zavandor_env.agents.base import Agent
from zavandor_env.engine.view import PlayerView

__all__ = ["CallableAgent", "TorchModuleAgent"]

#: ``(observation float32[710], action_mask int8[67]) -> action index``.
ObsMaskFn = Callable[[np.ndarray, np.ndarray], Any]


def _legal(action: Any, legal_actions: Sequence[int], who: str) -> int:
    """``action`` as an int if it is one of ``legal_actions``, else one line saying so."""
    try:
        index = int(action)
    except (TypeError, ValueError):
        raise ValueError(f"{who} answered {action!r}, not an action index") from None
    if index not in legal_actions:
        raise ValueError(f"{who} chose action {index}, which is not legal here (legal: "
                         f"{list(legal_actions)[:12]}...); read the action_mask")
    return index


class CallableAgent(Agent):
    """An agent from ``fn(observation, action_mask) -> action``, the signature of a policy
    trained on the environments (e.g. ``lambda obs, mask: int(np.flatnonzero(mask)[0])``)."""

    needs_observation = True
    name = "callable"

    def __init__(self, fn: ObsMaskFn, seed: int | None = None) -> None:
        super().__init__(seed)
        if not callable(fn):
            raise TypeError(f"CallableAgent needs a function, got {type(fn).__name__}")
        self.fn = fn
        self.name = getattr(fn, "__name__", type(fn).__name__)

    def act(self, observation: dict[str, Any] | None, view: PlayerView,
            legal_actions: Sequence[int]) -> int:
        assert observation is not None  # needs_observation
        answer = self.fn(observation["observation"], observation["action_mask"])
        return _legal(answer, legal_actions, f"policy {self.name!r}")


class TorchModuleAgent(Agent):
    """A torch module that maps observations ``[batch, 710]`` to action logits ``[batch, 67]``
    (or a tuple whose first item they are, as actor-critic modules return) as an agent: the
    most probable legal action, or one sampled from the masked softmax
    (``deterministic=False``, seeded).  Evaluated without gradients, on the module's device."""

    needs_observation = True
    name = "torch"

    def __init__(self, module: Any, deterministic: bool = True,
                 seed: int | None = None) -> None:
        super().__init__(seed)
        import torch

        if not isinstance(module, torch.nn.Module):
            raise TypeError(f"TorchModuleAgent needs a torch.nn.Module, got "
                            f"{type(module).__name__}")
        self.module, self.deterministic = module, deterministic
        self.name = type(module).__name__
        self._np_rng = np.random.default_rng(seed)

    def reset(self, seat: int, num_players: int, seed: int | None = None) -> None:
        super().reset(seat, num_players, seed)
        if seed is not None:
            self._np_rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, Any] | None, view: PlayerView,
            legal_actions: Sequence[int]) -> int:
        import torch

        assert observation is not None  # needs_observation
        weights = next(self.module.parameters(), None)
        device = weights.device if weights is not None else torch.device("cpu")
        obs = torch.as_tensor(observation["observation"], dtype=torch.float32, device=device)
        with torch.no_grad():
            out = self.module(obs.unsqueeze(0))
        logits = (out[0] if isinstance(out, (tuple, list)) else out).reshape(-1)
        logits = logits.detach().to("cpu", torch.float64).numpy()
        mask = np.asarray(observation["action_mask"], dtype=bool)
        if logits.shape != mask.shape:
            raise ValueError(f"torch module {self.name!r} answered {logits.size} logits for "
                             f"{mask.size} actions")
        masked = np.where(mask, logits, -np.inf)
        if self.deterministic:
            return _legal(int(np.argmax(masked)), legal_actions, f"torch module {self.name!r}")
        p = np.exp(masked - masked.max())
        return _legal(int(self._np_rng.choice(p.size, p=p / p.sum())), legal_actions,
                      f"torch module {self.name!r}")
