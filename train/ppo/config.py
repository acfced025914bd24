"""The ``ppo`` section of a training config: the masked PPO's (and RLlib PPO's) rollouts,
update and schedule, counted in learner decisions."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from zavandor_env.engine.schema import checked
from zavandor_env.io import limits
from zavandor_env.train.common.checkpointing import MAX_STEP
from zavandor_env.train.common.config import (
    Count,
    Positive,
    Real,
    TrainConfigError,
    doc,
    require,
)


@checked(TrainConfigError, what="ppo key", label="config key 'ppo.{}'")
class PPOConfig:
    """The PPO trainer's keys (``trainer: ppo``; ``trainer: rllib`` reads them too)."""

    total_timesteps: Annotated[Count, Field(le=MAX_STEP),
            doc("""learner decisions to train for (opponents'
        decisions are not counted)""")] = 2_048
    n_envs: Annotated[Count, Field(le=limits.MAX_ENVS),
            doc("""environments stepped in parallel (one policy forward
        serves all of them)""")] = 2
    n_steps: Annotated[Count, Field(le=limits.MAX_ROLLOUT_DECISIONS),
            doc("decisions collected per environment before each update")
                       ] = 256
    learning_rate: Annotated[Positive, doc("Adam step size")] = 3e-4
    batch_size: Annotated[Count, Field(le=limits.MAX_ROLLOUT_DECISIONS),
                          doc("minibatch size of the PPO update")] = 128
    n_epochs: Annotated[Count, Field(le=limits.MAX_EPOCHS), doc("passes over each rollout")
                        ] = 4
    gamma: Annotated[Positive, Field(le=1), doc("""discount factor; 1 (undiscounted) because
        with gamma < 1 a learner in a losing position gains by postponing the end, and learns
        to toggle a gem on and off forever""")] = 1.0
    gae_lambda: Annotated[Positive, Field(le=1), doc("GAE lambda")] = 0.95
    clip_range: Annotated[Positive, doc("PPO clipping of the policy ratio")] = 0.2
    ent_coef: Annotated[Real, Field(ge=0), doc("entropy bonus")] = 0.01
    vf_coef: Annotated[Positive, doc("value-loss weight")] = 0.5
    max_grad_norm: Annotated[Positive, doc("gradient clipping")] = 0.5
    target_kl: Annotated[Real | None, doc("""stop an update early above this KL divergence
        (null: never)""")] = None
    checkpoint_every: Annotated[Count, doc("""save the model, optimizer and pool every this
        many learner decisions (the newest two complete checkpoints are kept)""")] = 1_024
    imitate_decisions: Annotated[int, Field(ge=0, le=limits.MAX_IMITATION_DECISIONS),
            doc("""a new run first imitates ``imitate_teacher`` on this many of its decisions
        (behaviour cloning of actor and critic, counted in the run's clock); 0: start from
        random weights""")] = 0
    imitate_teacher: Annotated[str, doc("""the agent spec the network imitates (it plays
        every seat of the demonstration games)""")] = "heuristic"
    imitate_epochs: Annotated[Count, Field(le=limits.MAX_EPOCHS),
            doc("passes over the demonstrations")] = 4
    imitate_learning_rate: Annotated[Positive, doc("Adam step size of the imitation")] = 1e-3

    def __post_init__(self) -> None:
        decisions = self.n_steps * self.n_envs
        require(decisions <= limits.MAX_ROLLOUT_DECISIONS, "ppo.n_steps",
                f"times n_envs must be <= {limits.MAX_ROLLOUT_DECISIONS:,} decisions per "
                f"rollout, got {self.n_steps:,} x {self.n_envs:,}")
        require(self.batch_size <= decisions, "ppo.batch_size",
                f"must be <= n_steps * n_envs = {decisions}, got {self.batch_size}")
