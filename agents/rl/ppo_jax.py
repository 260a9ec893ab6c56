"""Single-file PPO in JAX (PureJaxRL style) that trains on the JAX twin of the grid envs, rollouts and updates
compiled together.

Run: ``python3 -m maze_envs.agents.rl.ppo_jax --env-id Maze-PartialObs-v0 --env-kwargs '{"rows": 5, "cols": 5}'
--ego-map --total-timesteps 1000000 --out runs/ppo_jax5``. Every field of ``Args`` is a ``--kebab-case`` flag, the
same flags as ``ppo_native`` plus ``--devices`` (needs the ``jax`` extra, not torch).

Read top to bottom: arguments, env, network, optimiser, the update (rollout by ``lax.scan`` over
``vmap``-ped twins with gymnax's same-step auto-reset, GAE, PPO epochs over shuffled minibatches), the loop.
``--log-every`` updates run as one jitted ``lax.scan``; between them the host only writes ``progress.csv``
(the columns of ``ppo_native``). The envs and their batch are sharded across every local device with
``jax.sharding`` (``--devices N``: the first N; ``num_envs`` a multiple of it); one device gives the same run.
The network and hyperparameters are ``ppo_native``'s: one-hot codes into separate tanh MLPs (``--network mlp``) or
the shared CNN (``--network cnn``), Adam (eps 1e-5) with a linearly annealed learning rate, global gradient
clipping, clipped value loss, per-minibatch advantage normalisation. ``--gru N`` adds memory beside the ego map, as
PureJaxRL's recurrent PPO does: the trunk (the CNN, or one tanh layer) feeds a GRU of ``N`` units, zeroed at each
episode's start, with linear actor and critic heads; its epochs replay whole envs' rollouts.
Truncated episodes bootstrap from the value of their last observation (``info["final_obs"]``, kept before
the reset), terminated ones and those ended by the no-exploration cutoff (``idle.py``) from 0. ``--reveal-bonus``
adds that much reward per newly
seen block. The trained network is ``<out>/model.npz`` (arguments and weights), loaded by ``load_policy``.
"""

from __future__ import annotations

import csv
import io
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

import maze_envs.jax as twin_envs
from maze_envs.core.atomic import ensure_directory
from maze_envs.core.codes import NUM_CODES
from maze_envs.core.errors import MazeConfigError, brief_repr
from maze_envs.core.validate import choice, integer

from .egomap_jax import EgoMap
from .flags import parse_dataclass_args, run_script
from .idle import idle_limit
from .policy_archive import (
    MAX_HIDDEN,
    NETWORKS,
    PolicyFileError,
    check_finite,
    checked_training,
    mlp_parameters,
    price_network,
    read_policy_archive,
)
from .ppo_args import PPOArgs
from .trained import TrainedEnv

LOG_COLUMNS = ("global_step", "charts/SPS", "charts/episodes", "charts/success_rate", "charts/episodic_length",
               "losses/value_loss", "losses/policy_loss", "losses/entropy", "losses/approx_kl", "losses/clipfrac")


# ---- arguments ------------------------------------------------------------------------------------------
@dataclass
class Args(PPOArgs):
    """Every setting of a run (``PPOArgs``, then this trainer's own); each field is also a command-line flag."""

    gru: int = 0
    log_every: int = 10
    devices: int = 0
    out: str = "ppo_jax_run"


def parse_args(argv: list[str] | None = None) -> Args:
    """Return ``Args`` from ``--kebab-case`` flags (``--env-kwargs`` is JSON; booleans are ``--flag``/``--no-flag``)."""
    return parse_dataclass_args(Args, __doc__.splitlines()[0], argv)


# ---- env -----------------------------------------------------------------------------------------------
def make_env(args: Args) -> tuple[Any, Any]:
    """Return the twin of ``args`` (under the ego map if asked) and its params."""
    env, params = twin_envs.make(args.env_id, **args.env_kwargs)
    if args.ego_map:
        if not hasattr(env, "k"):
            raise MazeConfigError(f"ego_map needs Maze-PartialObs-v0, got {args.env_id}", parameter="ego_map")
        env = EgoMap(env)
    return env, params


def observation_shape(env: Any, params: Any) -> tuple[int, ...]:
    """Return the shape of one observation of ``env``."""
    if isinstance(env, EgoMap):
        return env.shape
    return tuple(env.observation_space(params).shape)


def action_sizes(env: Any, params: Any) -> tuple[int, ...]:
    """Return the number of choices of each action component (``(4,)`` or ``(4, k)``)."""
    space = env.action_space(params)
    return (space.n,) if hasattr(space, "n") else tuple(space.nvec)


def step_keeping_final(env: Any, key: jax.Array, state: Any, action: Any, params: Any):
    """Return a twin's auto-resetting ``step`` with ``info["final_obs"]``, the observation before any reset."""
    obs, state, reward, terminated, truncated, info = env.step(key, state, action, params)
    return obs, state, reward, terminated | truncated, {**info, "final_obs": info["final_observation"]}


# ---- network -------------------------------------------------------------------------------------------
def orthogonal(key: jax.Array, shape: tuple[int, ...], scale: float) -> jax.Array:
    """Return orthogonally initialised weights of ``shape`` with gain ``scale``."""
    return jax.nn.initializers.orthogonal(scale)(key, shape, jnp.float32)


def dense(key: jax.Array, n_in: int, n_out: int, scale: float = float(np.sqrt(2))) -> dict[str, jax.Array]:
    """Return a dense layer's parameters (orthogonal weights, zero bias)."""
    return {"w": orthogonal(key, (n_in, n_out), scale), "b": jnp.zeros(n_out)}


def conv(key: jax.Array, c_in: int, c_out: int) -> dict[str, jax.Array]:
    """Return a 3x3 convolution's parameters (HWIO, orthogonal over the flattened kernel)."""
    w = orthogonal(key, (3 * 3 * c_in, c_out), float(np.sqrt(2))).reshape(3, 3, c_in, c_out)
    return {"w": w, "b": jnp.zeros(c_out)}


def conv_stride2(x: jax.Array, w: jax.Array) -> jax.Array:
    """Return the valid 3x3 stride-2 convolution of ``x`` (NHWC) with ``w`` (HWIO), as one matrix product over the
    nine shifted views (XLA's CPU convolution, inside the jitted rollout's loops, runs many times slower)."""
    rows, cols = conv_size_once(x.shape[1]), conv_size_once(x.shape[2])
    patches = jnp.concatenate([x[:, dy:dy + 2 * rows - 1:2, dx:dx + 2 * cols - 1:2, :]
                               for dy in range(3) for dx in range(3)], axis=-1)
    return patches @ w.reshape(-1, w.shape[-1])


def conv_size_once(n: int) -> int:
    """Return a side's length after one valid 3x3 stride-2 convolution."""
    return (n - 3) // 2 + 1


def conv_size(n: int) -> int:
    """Return a side's length after two valid 3x3 stride-2 convolutions."""
    return conv_size_once(conv_size_once(n))


def init_network(key: jax.Array, shape: tuple[int, ...], sizes: tuple[int, ...], hidden: int,
                 network: str, gru: int = 0) -> dict[str, Any]:
    """Return the parameters of ``ppo_native.Agent``'s network for observations of ``shape``, or with ``gru`` units
    the recurrent network of ``forward_recurrent``."""
    keys = jax.random.split(key, 8)
    n_out = int(sum(sizes))
    if gru:
        trunk = init_network(keys[5], shape, (hidden,), hidden, network)
        embed = {name: trunk[name] for name in ("conv1", "conv2", "trunk")} if network == "cnn" else \
            {"trunk": trunk["actor"][0]}
        return {"embed": embed, "gru": {"wi": orthogonal(keys[0], (hidden, 3 * gru), 1.0),
                                        "wh": orthogonal(keys[1], (gru, 3 * gru), 1.0), "b": jnp.zeros(3 * gru)},
                "actor": dense(keys[2], gru, n_out, 0.01), "critic": dense(keys[3], gru, 1, 1.0)}
    if network == "cnn":
        if len(shape) != 2:
            raise MazeConfigError(f"network 'cnn' needs a 2-D code map (e.g. --ego-map), got shape {shape}",
                                  parameter="network")
        flat = conv_size(shape[0]) * conv_size(shape[1]) * 32
        return {"conv1": conv(keys[0], NUM_CODES, 16), "conv2": conv(keys[1], 16, 32),
                "trunk": dense(keys[2], flat, hidden), "actor": dense(keys[3], hidden, n_out, 0.01),
                "critic": dense(keys[4], hidden, 1, 1.0)}
    choice(network, NETWORKS, name="network")
    size = int(np.prod(shape)) * NUM_CODES
    return {"actor": [dense(keys[0], size, hidden), dense(keys[1], hidden, hidden),
                      dense(keys[2], hidden, n_out, 0.01)],
            "critic": [dense(keys[3], size, hidden), dense(keys[4], hidden, hidden), dense(keys[5], hidden, 1, 1.0)]}


def _mlp(layers: list[dict[str, jax.Array]], x: jax.Array) -> jax.Array:
    for layer in layers[:-1]:
        x = jnp.tanh(x @ layer["w"] + layer["b"])
    return x @ layers[-1]["w"] + layers[-1]["b"]


def _cnn_features(params: dict[str, Any], x: jax.Array) -> jax.Array:
    for name in ("conv1", "conv2"):
        x = jax.nn.relu(conv_stride2(x, params[name]["w"]) + params[name]["b"])
    return jax.nn.relu(x.reshape(x.shape[0], -1) @ params["trunk"]["w"] + params["trunk"]["b"])


def _heads(params: dict[str, Any], x: jax.Array) -> tuple[jax.Array, jax.Array]:
    value = x @ params["critic"]["w"] + params["critic"]["b"]
    return x @ params["actor"]["w"] + params["actor"]["b"], value[:, 0]


def forward(params: dict[str, Any], obs: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Return ``(logits, value)`` of a batch of code observations ``(B, ...)`` (one-hot encoded here)."""
    x = jax.nn.one_hot(obs, NUM_CODES, dtype=jnp.float32)
    if "conv1" in params:
        return _heads(params, _cnn_features(params, x))
    x = x.reshape(x.shape[0], -1)
    return _mlp(params["actor"], x), _mlp(params["critic"], x)[:, 0]


def forward_recurrent(params: dict[str, Any], memory: jax.Array, obs: jax.Array,
                      starts: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Return ``(logits, value, memory)`` of the recurrent network (``--gru``) for a batch of observations: the
    trunk's features (the CNN's, or one tanh layer) through a GRU cell whose ``memory`` ``(B, gru)`` is zeroed
    where ``starts`` (the observation begins an episode), then linear actor and critic heads."""
    x = jax.nn.one_hot(obs, NUM_CODES, dtype=jnp.float32)
    embed = params["embed"]
    if "conv1" in embed:
        x = _cnn_features(embed, x)
    else:
        x = jnp.tanh(x.reshape(x.shape[0], -1) @ embed["trunk"]["w"] + embed["trunk"]["b"])
    memory = jnp.where(starts[:, None], 0.0, memory)
    cell = params["gru"]
    gates_x = x @ cell["wi"] + cell["b"]
    gates_h = memory @ cell["wh"]
    size = memory.shape[1]
    reset = jax.nn.sigmoid(gates_x[:, :size] + gates_h[:, :size])
    update = jax.nn.sigmoid(gates_x[:, size:2 * size] + gates_h[:, size:2 * size])
    candidate = jnp.tanh(gates_x[:, 2 * size:] + reset * gates_h[:, 2 * size:])
    memory = (1.0 - update) * candidate + update * memory
    logits, value = _heads(params, memory)
    return logits, value, memory


def split_logits(logits: jax.Array, sizes: tuple[int, ...]) -> list[jax.Array]:
    """Return the logits of each action component."""
    return jnp.split(logits, np.cumsum(sizes)[:-1].tolist(), axis=-1)


def log_prob_entropy(logits: jax.Array, actions: jax.Array, sizes: tuple[int, ...]) -> tuple[jax.Array, jax.Array]:
    """Return the summed log-probability of ``actions`` ``(B, components)`` and the summed entropy."""
    log_prob, entropy = 0.0, 0.0
    for i, part in enumerate(split_logits(logits, sizes)):
        logp = jax.nn.log_softmax(part)
        log_prob = log_prob + jnp.take_along_axis(logp, actions[:, i:i + 1], axis=1)[:, 0]
        entropy = entropy - (jnp.exp(logp) * logp).sum(-1)
    return log_prob, entropy


def sample_actions(key: jax.Array, logits: jax.Array, sizes: tuple[int, ...]) -> jax.Array:
    """Return sampled actions ``(B, components)``."""
    keys = jax.random.split(key, len(sizes))
    return jnp.stack([jax.random.categorical(k, part) for k, part in zip(keys, split_logits(logits, sizes),
                                                                         strict=True)], axis=1)


# ---- optimiser -------------------------------------------------------------------------------------------
class AdamState(NamedTuple):
    """Adam's moment estimates and step count."""

    mu: Any
    nu: Any
    count: jax.Array


def adam_init(params: Any) -> AdamState:
    """Return a zeroed Adam state for ``params``."""
    zeros = jax.tree.map(jnp.zeros_like, params)
    return AdamState(zeros, zeros, jnp.int32(0))


def adam_update(params: Any, grads: Any, state: AdamState, lr: jax.Array, max_norm: float,
                eps: float = 1e-5) -> tuple[Any, AdamState]:
    """Return ``params`` after one Adam step (betas 0.9, 0.999) on ``grads`` clipped to global norm ``max_norm``."""
    norm = jnp.sqrt(sum(jnp.sum(g ** 2) for g in jax.tree.leaves(grads)))
    grads = jax.tree.map(lambda g: g * jnp.minimum(1.0, max_norm / (norm + 1e-6)), grads)
    count = state.count + 1
    mu = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, state.mu, grads)
    nu = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g ** 2, state.nu, grads)
    mu_hat_scale, nu_hat_scale = 1 / (1 - 0.9 ** count), 1 / (1 - 0.999 ** count)
    params = jax.tree.map(lambda p, m, v: p - lr * m * mu_hat_scale / (jnp.sqrt(v * nu_hat_scale) + eps),
                          params, mu, nu)
    return params, AdamState(mu, nu, count)


# ---- the update ------------------------------------------------------------------------------------------
class Carry(NamedTuple):
    """What one update hands the next: network, optimiser, env states, last observations, the recurrent memory
    (``(N, 0)`` without ``--gru``) and whether each last observation starts an episode, key, update count."""

    params: Any
    opt: AdamState
    env_state: Any
    obs: jax.Array
    memory: jax.Array
    starts: jax.Array
    key: jax.Array
    update: jax.Array


def make_update(args: Args, env: Any, env_params: Any, sizes: tuple[int, ...], num_updates: int):
    """Return the jittable ``update(carry) -> (carry, metrics)``: one rollout and its PPO epochs. Without ``--gru``
    the epochs shuffle single steps; with it they shuffle whole envs and replay each env's rollout through the GRU
    from the memory it began with (PureJaxRL's recurrent PPO)."""
    T, N = args.num_steps, args.num_envs
    step = jax.vmap(env.step if isinstance(env, EgoMap) else lambda k, s, a, p: step_keeping_final(env, k, s, a, p),
                    in_axes=(0, 0, 0, None))
    inner_of = (lambda s: s.inner) if isinstance(env, EgoMap) else (lambda s: s)
    idle_cutoff = idle_limit(args.env_id, args.env_kwargs) if args.idle_end_fails else None
    recurrent = args.gru > 0

    def act(params, memory, obs, starts):
        if recurrent:
            return forward_recurrent(params, memory, obs, starts)
        return (*forward(params, obs), memory)

    def rollout_step(carry, _):
        params, env_state, obs, memory, starts, key = carry
        key, act_key, step_key = jax.random.split(key, 3)
        logits, value, memory = act(params, memory, obs, starts)
        actions = sample_actions(act_key, logits, sizes)
        log_prob, _ = log_prob_entropy(logits, actions, sizes)
        env_actions = actions if len(sizes) > 1 else actions[:, 0]
        revealed_before = inner_of(env_state).revealed
        next_obs, env_state, reward, done, info = step(jax.random.split(step_key, N), env_state, env_actions,
                                                       env_params)
        if args.reveal_bonus and "revealed" in info:
            reward = reward + args.reveal_bonus * (info["revealed"] - revealed_before)
        final_value = act(params, memory, info["final_obs"], jnp.zeros(N, dtype=bool))[1]
        bootstrap = info["truncated"]
        if idle_cutoff is not None and "no_exploration_steps" in info:  # the cutoff ends as a failure (idle.py)
            bootstrap = bootstrap & (info["no_exploration_steps"] < idle_cutoff)
        sample = (obs, starts, actions, log_prob, value, reward, done, bootstrap, final_value, info["terminated"],
                  info["steps"])
        return (params, env_state, next_obs, memory, done, key), sample

    def update(carry: Carry, _):
        (params, env_state, obs, memory, starts, key), samples = jax.lax.scan(
            rollout_step, (carry.params, carry.env_state, carry.obs, carry.memory, carry.starts, carry.key), None,
            length=T)
        obs_b, starts_b, actions, log_prob, values, rewards, dones, truncated, final_values, terminated, lengths = \
            samples
        last_value = act(params, memory, obs, starts)[1]

        def gae(next_state, t):
            gae_next, value_next = next_state
            following = jnp.where(dones[t], jnp.where(truncated[t], final_values[t], 0.0), value_next)
            delta = rewards[t] + args.gamma * following - values[t]
            gae_t = delta + args.gamma * args.gae_lambda * (1.0 - dones[t]) * gae_next
            return (gae_t, values[t]), gae_t

        _, advantages = jax.lax.scan(gae, (jnp.zeros(N), last_value), jnp.arange(T - 1, -1, -1))
        advantages = advantages[::-1]
        returns = advantages + values
        lr = args.learning_rate * (1.0 - carry.update / num_updates) if args.anneal_lr else args.learning_rate

        def replayed(p, mb_obs, mb_starts, mb_memory):
            if not recurrent:
                return forward(p, mb_obs)

            def one_step(m, inputs):
                logits, value, m = forward_recurrent(p, m, *inputs)
                return m, (logits, value)

            _, (logits, value) = jax.lax.scan(one_step, mb_memory, (mb_obs, mb_starts))
            return logits.reshape(-1, logits.shape[-1]), value.reshape(-1)

        def loss_fn(p, mb):
            mb_obs, mb_starts, mb_memory, mb_actions, mb_logp, mb_values, mb_adv, mb_returns = mb
            logits, new_value = replayed(p, mb_obs, mb_starts, mb_memory)
            new_logp, entropy = log_prob_entropy(logits, mb_actions, sizes)
            logratio = new_logp - mb_logp
            ratio = jnp.exp(logratio)
            adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            pg_loss = jnp.maximum(-adv * ratio, -adv * jnp.clip(ratio, 1 - args.clip_coef, 1 + args.clip_coef)).mean()
            v_clipped = mb_values + jnp.clip(new_value - mb_values, -args.clip_coef, args.clip_coef)
            v_loss = 0.5 * jnp.maximum((new_value - mb_returns) ** 2, (v_clipped - mb_returns) ** 2).mean()
            ent = entropy.mean()
            loss = pg_loss - args.ent_coef * ent + args.vf_coef * v_loss
            stats = (v_loss, pg_loss, ent, ((ratio - 1) - logratio).mean(),
                     (jnp.abs(ratio - 1.0) > args.clip_coef).mean())
            return loss, stats

        def minibatch_step(state, mb):
            p, opt = state
            grads, stats = jax.grad(loss_fn, has_aux=True)(p, mb)
            p, opt = adam_update(p, grads, opt, lr, args.max_grad_norm)
            return (p, opt), stats

        M = args.num_minibatches
        if recurrent:
            def minibatches(order):
                def by_env(x):  # (T, N, ...) -> (M, T, N / M, ...), the envs in ``order``
                    return jnp.swapaxes(x[:, order].reshape(T, M, N // M, *x.shape[2:]), 0, 1)

                def flat(x):  # (T, N, ...) -> (M, T * N / M, ...), time-major as ``replayed`` returns it
                    return by_env(x).reshape(M, -1, *x.shape[2:])

                return (by_env(obs_b), by_env(starts_b), carry.memory[order].reshape(M, N // M, -1),
                        *(flat(x) for x in (actions, log_prob, values, advantages, returns)))

            count = N
        else:
            batch = jax.tree.map(lambda x: x.reshape(T * N, *x.shape[2:]),
                                 (obs_b, starts_b, actions, log_prob, values, advantages, returns))

            def minibatches(order):
                obs_s, starts_s, *rest = (x[order].reshape(M, -1, *x.shape[1:]) for x in batch)
                return (obs_s, starts_s, jnp.zeros((M, 0)), *rest)

            count = T * N

        def epoch(state, k):
            return jax.lax.scan(minibatch_step, state, minibatches(jax.random.permutation(k, count)))

        key, epoch_key = jax.random.split(key)
        (new_params, opt), stats = jax.lax.scan(epoch, (params, carry.opt), jax.random.split(epoch_key,
                                                                                            args.update_epochs))
        ended = dones.sum()
        metrics = {"episodes": ended, "successes": (terminated & dones).sum(),
                   "length_sum": jnp.where(dones, lengths, 0).sum(),
                   **{name: s[-1, -1] for name, s in zip(LOG_COLUMNS[5:], stats, strict=True)}}
        return Carry(new_params, opt, env_state, obs, memory, starts, key, carry.update + 1), metrics

    return update


# ---- the loop --------------------------------------------------------------------------------------------
def shardings(num_envs: int, count: int = 0) -> tuple[NamedSharding, NamedSharding]:
    """Return the shardings over the first ``count`` local devices (0: all): envs (and so each rollout's batch)
    split along their first axis, and everything else (network, optimiser, keys) replicated. ``jit`` then runs each
    device's envs there and averages the gradients across devices; on one device both are that device."""
    local = jax.local_devices()
    count = integer(count, 0, len(local), parameter="devices")
    devices = local[:count or len(local)]
    if num_envs % len(devices):
        raise MazeConfigError(f"num_envs ({num_envs}) must be a multiple of the {len(devices)} local devices it is "
                              "split across", parameter="num_envs")
    mesh = Mesh(np.array(devices), ("envs",))
    return NamedSharding(mesh, PartitionSpec("envs")), NamedSharding(mesh, PartitionSpec())


def train(args: Args) -> Path:
    """Train PPO as ``args`` say; return the output directory holding ``progress.csv`` and ``model.npz``."""
    integer(args.gru, 0, MAX_HIDDEN, parameter="gru")
    env, env_params = make_env(args)
    sizes = action_sizes(env, env_params)
    batch_size = args.num_steps * args.num_envs
    if batch_size % args.num_minibatches:
        raise MazeConfigError(f"num_envs * num_steps ({batch_size}) must divide into {args.num_minibatches} "
                              "minibatches", parameter="num_minibatches")
    if args.gru and args.num_envs % args.num_minibatches:
        raise MazeConfigError(f"with --gru, num_envs ({args.num_envs}) must divide into {args.num_minibatches} "
                              "minibatches of whole envs", parameter="num_minibatches")
    out = ensure_directory(args.out, "out")  # once the env and the batch are checked: a refusal leaves no folder
    num_updates = max(1, args.total_timesteps // batch_size)
    envs, replicated = shardings(args.num_envs, args.devices)
    key = jax.random.key(args.seed)
    key, net_key, env_key = jax.random.split(key, 3)
    params = init_network(net_key, observation_shape(env, env_params), sizes, args.hidden, args.network, args.gru)
    obs, env_state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(env_key, args.num_envs), env_params)
    memory, starts = jnp.zeros((args.num_envs, args.gru)), jnp.ones(args.num_envs, dtype=bool)
    carry = Carry(*jax.device_put((params, adam_init(params)), replicated),
                  *jax.device_put((env_state, obs, memory, starts), envs),
                  *jax.device_put((key, jnp.int32(0)), replicated))
    update = make_update(args, env, env_params, sizes, num_updates)
    chunk = max(1, min(args.log_every, num_updates))
    run_chunk = jax.jit(lambda c: jax.lax.scan(update, c, None, length=chunk))
    tail = num_updates % chunk
    run_tail = jax.jit(lambda c: jax.lax.scan(update, c, None, length=tail)) if tail else None
    done_updates, start = 0, time.time()
    with open(out / "progress.csv", "w", newline="", encoding="utf-8") as log_file:
        log = csv.writer(log_file)
        log.writerow(LOG_COLUMNS)
        while done_updates < num_updates:
            runner = run_chunk if num_updates - done_updates >= chunk else run_tail
            carry, metrics = runner(carry)
            metrics = jax.tree.map(np.asarray, metrics)
            for i in range(len(metrics["episodes"])):
                done_updates += 1
                episodes = int(metrics["episodes"][i])
                success = metrics["successes"][i] / episodes if episodes else float("nan")
                length = metrics["length_sum"][i] / episodes if episodes else float("nan")
                step = done_updates * batch_size
                log.writerow([step, int(step / (time.time() - start)), episodes, float(success), float(length),
                              *[float(metrics[name][i]) for name in LOG_COLUMNS[5:]]])
            log_file.flush()
    save_policy(out / "model.npz", args, carry.params)
    return out


# ---- using a trained network ------------------------------------------------------------------------------
def save_policy(path: Path, args: Args, params: Any) -> Path:
    """Write ``args``, the Gymnasium env the twin stands for (``TrainedEnv``: id, kwargs, ego map, spaces) and the
    network ``params`` to ``path`` (an ``.npz``); return ``path``."""
    trained = TrainedEnv.probe(args.env_id, args.env_kwargs, args.ego_map)[0]
    leaves = jax.tree.leaves(params)
    np.savez(path, args=json.dumps(asdict(args)), env=json.dumps(trained.to_dict()),
             **{f"leaf_{i}": np.asarray(x) for i, x in enumerate(leaves)})
    return path


def _recurrent_logits(params: Any, memory: jax.Array, obs: jax.Array, starts: jax.Array) -> tuple[jax.Array, ...]:
    logits, _, memory = forward_recurrent(params, memory, obs, starts)
    return logits, memory


def _memoryless_logits(params: Any, memory: jax.Array, obs: jax.Array, starts: jax.Array) -> tuple[jax.Array, ...]:
    return forward(params, obs)[0], memory


class JaxPolicyAgent:
    """A trained network behind the agent interface (``reset()``, ``act(observation, info)``), acting on the
    Gymnasium env's observations (the numpy ego map under ``egomap.EgocentricMap``)."""

    def __init__(self, params: Any, sizes: tuple[int, ...], deterministic: bool = True, seed: int = 0,
                 name: str = "ppo_jax", *, trained: TrainedEnv | None = None) -> None:
        self.params, self.sizes = params, sizes
        self.deterministic = deterministic
        self.name = name
        self.trained = trained  # what ``agents.evaluate.evaluate`` checks the env it is handed against
        self._key = jax.random.key(seed)
        recurrent = "gru" in params
        self._step = jax.jit(_recurrent_logits if recurrent else _memoryless_logits)
        self._memory = jnp.zeros((1, params["gru"]["wh"].shape[0] if recurrent else 0))
        self._starts = True

    def reset(self) -> None:
        """Forget the recurrent memory (``--gru``): the next observation starts an episode."""
        self._starts = True

    def act(self, observation: Any, info: dict[str, Any]) -> Any:
        """Return the policy's action for one observation (the most likely one when deterministic)."""
        logits, self._memory = self._step(self.params, self._memory, jnp.asarray(np.asarray(observation))[None],
                                          jnp.asarray([self._starts]))
        self._starts = False
        if self.deterministic:
            action = [int(jnp.argmax(part[0])) for part in split_logits(logits, self.sizes)]
        else:
            self._key, sub = jax.random.split(self._key)
            action = [int(a) for a in np.asarray(sample_actions(sub, logits, self.sizes))[0]]
        return action[0] if len(self.sizes) == 1 else np.array(action, dtype=np.int64)


def load_policy(path: str | Path, deterministic: bool = True) -> tuple[JaxPolicyAgent, Args]:
    """Return the agent saved at ``path`` (a ``model.npz``) and the ``Args`` it was trained with.

    The file is read as data (``policy_archive``): its zip directory, array headers and recorded arguments are
    checked, the env named only by a registered id, and the network priced, before any env or network is made.
    The agent's ``trained`` record comes from the file (files older than the record: from the saved id and
    kwargs). Raises ``PolicyFileError`` naming the file and field when it is not a policy file of this module,
    and ``PolicyMismatchError`` when the saved env no longer gives the spaces the file records."""
    source = str(path)
    data = read_policy_archive(path)
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as archive:
            saved = {name: archive[name] for name in archive.files}
        args_doc = json.loads(str(saved["args"]))
        env_doc = json.loads(str(saved["env"])) if "env" in saved else None
    except KeyError:
        raise PolicyFileError("not a policy file of agents.rl.ppo_jax (no args)", source=source) from None
    except (OSError, ValueError, TypeError, RecursionError, EOFError, MemoryError) as exc:
        raise PolicyFileError(f"not a policy file of agents.rl.ppo_jax ({brief_repr(str(exc), 120)})",
                              source=source) from None
    check_finite(((name, leaf) for name, leaf in saved.items() if name.startswith("leaf_")), source)
    args, trained, observation_space, action_space = checked_training(Args, args_doc, env_doc, source)
    env, env_params = make_env(args)
    sizes = action_sizes(env, env_params)
    shape = observation_shape(env, env_params)
    if args.network == "mlp":
        price_network(mlp_parameters(int(np.prod(shape)) * NUM_CODES, args.hidden, int(sum(sizes))), source)
    price_network(3 * args.gru * (args.gru + args.hidden + 1), source, "args.gru")  # the GRU's gates
    template = init_network(jax.random.key(0), shape, sizes, args.hidden, args.network, args.gru)
    treedef = jax.tree.structure(template)
    leaves = [saved.get(f"leaf_{i}") for i in range(treedef.num_leaves)]
    if any(leaf is None or leaf.shape != shaped.shape
           for leaf, shaped in zip(leaves, jax.tree.leaves(template), strict=True)):
        raise PolicyFileError("its weights do not fit the network its arguments describe", source=source,
                              field="leaf_*")
    leaves = [jnp.asarray(leaf) for leaf in leaves]
    return JaxPolicyAgent(jax.tree.unflatten(treedef, leaves), sizes, deterministic, args.seed,
                          trained=trained), args


if __name__ == "__main__":
    sys.exit(run_script(Args, __doc__.splitlines()[0], train))
