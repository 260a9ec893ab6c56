"""The settings both single-file PPOs share (``ppo_native`` in torch, ``ppo_jax`` in JAX): the env, the run's
length and seed, the PPO hyperparameters and the network. Each trainer's ``Args`` adds its own fields and its
output folder; every field is a ``--kebab-case`` flag (``flags.parse_dataclass_args``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class PPOArgs:
    """The settings of a PPO run that both trainers read."""

    env_id: str = "Maze-PartialObs-v0"
    env_kwargs: dict[str, Any] = field(default_factory=lambda: {"rows": 5, "cols": 5})
    ego_map: bool = False
    seed: int = 0
    total_timesteps: int = 500_000
    num_envs: int = 64
    num_steps: int = 64
    learning_rate: float = 2.5e-4
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 4
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int = 64
    network: str = "mlp"
    reveal_bonus: float = 0.0
    idle_end_fails: bool = True
