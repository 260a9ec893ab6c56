"""The action and observation spaces of the JAX twin: gymnax's own ``Discrete``, ``Box`` and ``Dict``.

Where gymnax is installed (``pip install --no-deps gymnax``: its metadata caps Gymnasium below 1.4, so the ``jax``
extra does not depend on it), ``Discrete``, ``Box`` and ``Dict`` are ``gymnax.environments.spaces``' classes, so
gymnax's wrappers (``FlattenObservationWrapper``, ``GymnaxToGymWrapper``, ...) take the twin's spaces. Without
gymnax they are the classes below, with gymnax's constructors and attributes (``n``; ``low``, ``high``, ``shape``,
``dtype``; ``spaces``), ``sample(key)`` and ``contains(x)``. ``MultiDiscrete`` (the partial env's ``multi``
actions) is the twin's own: gymnax has none. ``to_gymnasium(space)`` gives the Gymnasium space.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from gymnasium import spaces as gym_spaces


@dataclass(frozen=True)
class Discrete:
    """``n`` actions ``0 .. n-1`` (a scalar ``int32``)."""

    n: int
    shape: tuple[int, ...] = ()
    dtype: Any = jnp.int32

    def sample(self, key: jax.Array) -> jax.Array:
        """Return a uniform random action."""
        return jax.random.randint(key, self.shape, 0, self.n, dtype=self.dtype)

    def contains(self, x: Any) -> jax.Array:
        """Return whether ``x`` is an action of this space."""
        x = jnp.asarray(x)
        if x.shape != self.shape:
            return jnp.asarray(False)
        return jnp.logical_and(x >= 0, x < self.n).all()


@dataclass(frozen=True)
class MultiDiscrete:
    """One action per entry of ``nvec``, entry ``i`` in ``0 .. nvec[i]-1`` (an ``int32`` vector)."""

    nvec: tuple[int, ...]
    dtype: Any = jnp.int32

    @property
    def shape(self) -> tuple[int, ...]:
        """Return ``(len(nvec),)``."""
        return (len(self.nvec),)

    def sample(self, key: jax.Array) -> jax.Array:
        """Return a uniform random action."""
        return jax.random.randint(key, self.shape, 0, jnp.asarray(self.nvec), dtype=self.dtype)

    def contains(self, x: Any) -> jax.Array:
        """Return whether ``x`` is an action of this space."""
        x = jnp.asarray(x)
        if x.shape != self.shape:
            return jnp.asarray(False)
        return jnp.logical_and(x >= 0, x < jnp.asarray(self.nvec)).all()


@dataclass(frozen=True)
class Box:
    """Arrays of ``shape`` and ``dtype`` with every entry in ``[low, high]``."""

    low: float
    high: float
    shape: tuple[int, ...]
    dtype: Any

    def sample(self, key: jax.Array) -> jax.Array:
        """Return a uniform random array (integers for an integer dtype)."""
        if jnp.issubdtype(self.dtype, jnp.integer):
            return jax.random.randint(key, self.shape, int(self.low), int(self.high) + 1).astype(self.dtype)
        return jax.random.uniform(key, self.shape, minval=self.low, maxval=self.high).astype(self.dtype)

    def contains(self, x: Any) -> jax.Array:
        """Return whether ``x`` has this shape and lies within the bounds."""
        x = jnp.asarray(x)
        if x.shape != self.shape:
            return jnp.asarray(False)
        return jnp.logical_and(x >= self.low, x <= self.high).all()


@dataclass(frozen=True)
class Dict:
    """A dict of named spaces (the partial env's ``explored_map=True`` observation)."""

    spaces: dict[str, Any]

    def sample(self, key: jax.Array) -> dict[str, jax.Array]:
        """Return a sample of every sub-space."""
        keys = jax.random.split(key, len(self.spaces))
        return {name: space.sample(k) for (name, space), k in zip(self.spaces.items(), keys, strict=True)}

    def contains(self, x: Any) -> jax.Array:
        """Return whether every entry of ``x`` lies in its sub-space."""
        if set(x) != set(self.spaces):
            return jnp.asarray(False)
        return jnp.all(jnp.stack([space.contains(x[name]) for name, space in self.spaces.items()]))


try:
    from gymnax.environments.spaces import Box, Dict, Discrete  # noqa: F811  (gymnax's own classes where installed)
except ImportError:
    pass


def to_gymnasium(space: Any) -> gym_spaces.Space:
    """Return the Gymnasium space equal to a twin space."""
    if isinstance(space, MultiDiscrete):
        return gym_spaces.MultiDiscrete(list(space.nvec))
    if isinstance(space, Discrete):
        return gym_spaces.Discrete(space.n)
    if isinstance(space, Box):
        return gym_spaces.Box(space.low, space.high, space.shape, np.dtype(space.dtype))
    return gym_spaces.Dict({name: to_gymnasium(sub) for name, sub in space.spaces.items()})


def from_gymnasium(space: gym_spaces.Space) -> Any:
    """Return the twin's space for a Gymnasium ``Discrete``, ``MultiDiscrete``, ``Box`` or ``Dict`` space."""
    if isinstance(space, gym_spaces.Discrete):
        return Discrete(int(space.n))
    if isinstance(space, gym_spaces.MultiDiscrete):
        return MultiDiscrete(tuple(int(n) for n in space.nvec))
    if isinstance(space, gym_spaces.Box):
        return Box(float(space.low.min()), float(space.high.max()), tuple(space.shape), jnp.dtype(space.dtype))
    if isinstance(space, gym_spaces.Dict):
        return Dict({name: from_gymnasium(sub) for name, sub in space.spaces.items()})
    raise TypeError(f"no twin space for {space}")
