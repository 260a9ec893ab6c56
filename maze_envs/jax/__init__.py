"""The JAX twin of the grid envs, a gymnax 1.x environment (extra ``jax``; ``import maze_envs`` does not import it).

    >>> import jax, maze_envs.jax
    >>> env, params = maze_envs.jax.make("Maze-PartialObs-v0", rows=5, cols=5)
    >>> obs, state = env.reset(jax.random.key(0), params)
    >>> obs, state, reward, terminated, truncated, info = env.step(jax.random.key(1), state, 1, params)
    >>> obs.shape, int(info["steps"])
    ((7, 7), 1)

``make(env_id, **kwargs)`` returns ``(env, params)``; ``env.reset``/``env.step`` are pure (``jit``, ``vmap``,
``lax.scan``), ``step`` auto-resets as gymnax 1.x's does (``info["final_observation"]``). ``grid`` holds the envs,
``layouts`` the uploaded layout tables and the on-device generator, ``wrappers`` the Flat/Image variants and
next-step auto-reset, ``spaces`` gymnax's spaces, ``gym_adapter.JaxVectorEnv`` a Gymnasium ``VectorEnv`` over the
twin.
"""

from .grid import EnvParams, EnvState, MazeTwin, PartialObsTwin
from .registry import TWIN_ENTRIES, make

__all__ = ["EnvParams", "EnvState", "MazeTwin", "PartialObsTwin", "TWIN_ENTRIES", "make"]
