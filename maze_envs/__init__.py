"""maze-envs: Gymnasium maze environments, datasets, agents and evaluators."""

__version__ = "0.1.0"
