"""Single-file PPO (CleanRL style) in torch that steps the native maze vector env directly, with no adapter.

Run: ``python3 -m maze_envs.agents.rl.ppo_native --env-id Maze-PartialObs-v0 --env-kwargs '{"rows": 5, "cols": 5}'
--ego-map --total-timesteps 2000000 --out runs/ppo5``. Every field of ``Args`` is a ``--kebab-case`` flag.

Read top to bottom: arguments, seeding, env, network, rollout storage, the loop (rollout, GAE, PPO update,
logging). The env is ``gym.make_vec(..., vectorization_mode="vector_entry_point")`` (next-step autoreset)
under ``VectorEpisodeMetrics``; ``--ego-map`` adds the dead-reckoned egocentric map (``egomap.py``) as the
observation. Observations enter the network as one-hot codes (like ``FlatObservation``; ``Dict`` keys sorted
and concatenated); ``--network mlp`` (default) has separate actor and critic MLPs (tanh, ``--hidden`` units
per layer), the network of stable-baselines3's ``MlpPolicy``; ``--network cnn`` a small shared CNN for the ego
map. With next-step autoreset the step after an episode's end only resets its sub-env: that sample is left
out of the loss, and its value (of the episode's final observation) bootstraps truncated episodes, except those
ended by the env's no-exploration cutoff, which count as failures (``idle.py``; ``--no-idle-end-fails`` bootstraps
them too). ``--reveal-bonus`` adds that much reward per newly seen block (an intrinsic reward the trainer pays; the
env's reward and success are unchanged). Logs:
``<out>/progress.csv``, one row per update (TensorBoard-style scalar names as columns); the trained network
is ``<out>/model.pt`` (arguments, the env it was trained on with its spaces, and weights), loaded by
``load_policy``. Any id trains: one with a native vector env steps it, any other (the ``-Flat`` variants, the
sized ids' variants) a ``SyncVectorEnv``; code observations enter one-hot, other boxes as floats.
"""

from __future__ import annotations

import csv
import io
import pickle
import random
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
import torch.nn as nn
from gymnasium import spaces
from torch.distributions import Categorical

import maze_envs  # noqa: F401  (registers the ids)
from maze_envs.core.atomic import ensure_directory
from maze_envs.core.codes import NUM_CODES
from maze_envs.core.errors import MazeConfigError, brief_repr
from maze_envs.core.validate import choice, registered_id
from maze_envs.envs.metrics import VectorEpisodeMetrics

from .egomap import EgocentricMapVector
from .flags import parse_dataclass_args, run_script
from .idle import idle_limit
from .policy_archive import (
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

LOG_COLUMNS = ("global_step", "charts/SPS", "charts/episodes", "charts/success_rate", "charts/episodic_return",
               "charts/episodic_length", "charts/path_efficiency", "losses/value_loss", "losses/policy_loss",
               "losses/entropy", "losses/approx_kl", "losses/clipfrac")


# ---- arguments ------------------------------------------------------------------------------------------
@dataclass
class Args(PPOArgs):
    """Every setting of a run (``PPOArgs``, then this trainer's own); each field is also a command-line flag."""

    torch_threads: int = 1
    out: str = "ppo_native_run"


def parse_args(argv: list[str] | None = None) -> Args:
    """Return ``Args`` from ``--kebab-case`` flags (``--env-kwargs`` is JSON; booleans are ``--flag``/``--no-flag``)."""
    return parse_dataclass_args(Args, __doc__.splitlines()[0], argv)


def seed_everything(seed: int, torch_threads: int) -> None:
    """Seed Python, numpy and torch, and fix torch's CPU thread count."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(torch_threads)


def make_env(args: Args) -> gym.vector.VectorEnv:
    """Return the vector env of ``args`` under the metrics wrapper (and the ego map if asked): the id's native
    vector env where it registers one, else Gymnasium's ``SyncVectorEnv`` of ``gym.make`` envs (any id, such as
    the ``-Flat`` variants)."""
    registered_id(args.env_id, gym.registry, parameter="env_id")
    native = gym.spec(args.env_id).vector_entry_point is not None
    env = gym.make_vec(args.env_id, num_envs=args.num_envs,
                       vectorization_mode="vector_entry_point" if native else "sync", **args.env_kwargs)
    env = VectorEpisodeMetrics(env)
    return EgocentricMapVector(env) if args.ego_map else env


# ---- network -------------------------------------------------------------------------------------------
def layer_init(layer: nn.Linear, std: float = float(np.sqrt(2)), bias: float = 0.0) -> nn.Linear:
    """Return ``layer`` with orthogonal weights of gain ``std`` and constant bias."""
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


def _boxes(space: spaces.Space) -> list[spaces.Box]:
    """Return the ``Box`` spaces of an observation space (a ``Dict``'s by sorted key); raises ``MazeConfigError``
    about ``env_id`` when it holds another kind (text, sequences), which the network cannot read."""
    boxes = [space.spaces[k] for k in sorted(space.spaces)] if isinstance(space, spaces.Dict) else [space]
    other = next((box for box in boxes if not isinstance(box, spaces.Box)), None)
    if other is not None:
        raise MazeConfigError(f"PPO reads Box observations or a Dict of them; this env's observation holds "
                              f"{brief_repr(str(other))} (the grid ids and their -Flat variants train)",
                              parameter="env_id")
    return boxes


def _is_codes(box: spaces.Box) -> bool:
    """Return whether ``box`` holds observation codes (integers 0 .. NUM_CODES - 1), which enter one-hot."""
    return np.issubdtype(box.dtype, np.integer) and int(np.min(box.low)) >= 0 and int(np.max(box.high)) < NUM_CODES


def _input_size(space: spaces.Space) -> int:
    return sum(int(np.prod(b.shape)) * (NUM_CODES if _is_codes(b) else 1) for b in _boxes(space))


def encoder(space: spaces.Space):
    """Return the function that turns a batch of ``space``'s observations into flat float rows: code boxes one-hot
    (as ``FlatObservation``), other boxes as floats (integer ones such as images scaled to [0, 1]); ``Dict``
    keys sorted and concatenated."""
    parts = [(key, box, _is_codes(box)) for key, box in
             (sorted(space.spaces.items()) if isinstance(space, spaces.Dict) else [(None, space)])]

    def encode(observation: Any) -> torch.Tensor:
        rows = []
        for key, box, codes in parts:
            value = np.asarray(observation if key is None else observation[key])
            if codes:
                flat = torch.as_tensor(value, dtype=torch.long).flatten(1)
                rows.append(nn.functional.one_hot(flat, NUM_CODES).flatten(1).float())
            else:
                scale = float(np.max(box.high)) if np.issubdtype(box.dtype, np.integer) else 1.0
                rows.append(torch.as_tensor(value, dtype=torch.float32).flatten(1) / scale)
        return torch.cat(rows, 1)

    return encode


def _action_sizes(space: spaces.Space) -> list[int]:
    """Return the choices of each action component; raises ``MazeConfigError`` about ``env_id`` unless the action
    space is ``Discrete`` or ``MultiDiscrete``."""
    if not isinstance(space, (spaces.Discrete, spaces.MultiDiscrete)):
        raise MazeConfigError(f"PPO takes Discrete or MultiDiscrete actions, got {brief_repr(str(space))}",
                              parameter="env_id")
    return [int(space.n)] if isinstance(space, spaces.Discrete) else [int(n) for n in space.nvec]


class Channels(nn.Module):
    """Move the one-hot axis of ``(B, H, W, C)`` maps first: ``(B, C, H, W)`` for the convolutions."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return ``x`` with its last axis moved to position 1."""
        return x.permute(0, 3, 1, 2)


def conv_trunk(shape: tuple[int, int], hidden: int) -> nn.Sequential:
    """Return a small CNN over one-hot ``(H, W)`` code maps (flat rows in, ``hidden`` ReLU features out)."""
    convs = nn.Sequential(nn.Unflatten(1, (*shape, NUM_CODES)), Channels(),
                          layer_init(nn.Conv2d(NUM_CODES, 16, 3, stride=2)), nn.ReLU(),
                          layer_init(nn.Conv2d(16, 32, 3, stride=2)), nn.ReLU(), nn.Flatten())
    with torch.no_grad():
        size = convs(torch.zeros(1, shape[0] * shape[1] * NUM_CODES)).shape[1]
    return nn.Sequential(*convs, layer_init(nn.Linear(size, hidden)), nn.ReLU())


class Agent(nn.Module):
    """Actor and critic over one-hot observation codes; ``Discrete`` or ``MultiDiscrete`` actions.

    ``network="mlp"``: separate actor and critic MLPs (tanh, ``hidden`` units per layer), any observation.
    ``network="cnn"``: one shared CNN trunk (``conv_trunk``) with linear actor and critic heads, for a single
    ``(H, W)`` code map such as the ego map; its strided convolutions see the same local shapes anywhere.
    """

    def __init__(self, observation_space: spaces.Space, action_space: spaces.Space, hidden: int,
                 network: str = "mlp") -> None:
        super().__init__()
        choice(network, NETWORKS, name="network")
        if network == "cnn" and not (isinstance(observation_space, spaces.Box) and len(observation_space.shape) == 2
                                     and _is_codes(observation_space)):
            raise MazeConfigError(f"network 'cnn' needs a 2-D Box of observation codes (e.g. --ego-map), "
                                  f"got {observation_space}")
        size = _input_size(observation_space)
        self._encode = encoder(observation_space)
        self.action_sizes = _action_sizes(action_space)
        self.multi = isinstance(action_space, spaces.MultiDiscrete)
        if network == "cnn":
            self.shared = conv_trunk(observation_space.shape, hidden)
            self.critic = layer_init(nn.Linear(hidden, 1), 1.0)
            self.actor = layer_init(nn.Linear(hidden, sum(self.action_sizes)), 0.01)
            return
        self.shared = nn.Identity()
        self.critic = nn.Sequential(layer_init(nn.Linear(size, hidden)), nn.Tanh(),
                                    layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
                                    layer_init(nn.Linear(hidden, 1), 1.0))
        self.actor = nn.Sequential(layer_init(nn.Linear(size, hidden)), nn.Tanh(),
                                   layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
                                   layer_init(nn.Linear(hidden, sum(self.action_sizes)), 0.01))

    def encode(self, observation: Any) -> torch.Tensor:
        """Return a batch of observations (array or dict of arrays) as the network's flat float rows
        (``encoder``)."""
        return self._encode(observation)

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        """Return the critic's values of encoded observations ``x``."""
        return self.critic(self.shared(x)).squeeze(-1)

    def logits(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """Return the actor's logits of encoded observations ``x``, one tensor per action component."""
        return torch.split(self.actor(self.shared(x)), self.action_sizes, dim=1)

    def get_action_and_value(self, x: torch.Tensor, action: torch.Tensor | None = None):
        """Return ``(action, log_prob, entropy, value)``; ``action`` is sampled unless given."""
        features = self.shared(x)
        logits = torch.split(self.actor(features), self.action_sizes, dim=1)
        dists = [Categorical(logits=lg) for lg in logits]
        if action is None:
            action = torch.stack([d.sample() for d in dists], dim=1)
        action = action.reshape(x.shape[0], len(dists))
        log_prob = sum(d.log_prob(action[:, i]) for i, d in enumerate(dists))
        entropy = sum(d.entropy() for d in dists)
        return action, log_prob, entropy, self.critic(features).squeeze(-1)

    def env_action(self, action: torch.Tensor) -> np.ndarray:
        """Return sampled actions in the env's shape (``(n, 2)`` for ``MultiDiscrete``, ``(n,)`` for ``Discrete``)."""
        out = action.cpu().numpy()
        return out if self.multi else out[:, 0]


def train(args: Args) -> Path:
    """Train PPO as ``args`` say; return the output directory holding ``progress.csv`` and ``model.pt``."""
    seed_everything(args.seed, args.torch_threads)
    envs = make_env(args)
    agent = Agent(envs.single_observation_space, envs.single_action_space, args.hidden, args.network)
    out = ensure_directory(args.out, "out")  # only once the env and network are made: a refusal leaves no folder
    idle_cutoff = idle_limit(args.env_id, args.env_kwargs) if args.idle_end_fails else None
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    # ---- rollout storage ---------------------------------------------------------------------------
    T, N = args.num_steps, args.num_envs
    batch_size = T * N
    num_updates = max(1, args.total_timesteps // batch_size)
    n_act = len(agent.action_sizes)
    size = _input_size(envs.single_observation_space)
    obs = torch.zeros((T, N, size))
    actions = torch.zeros((T, N, n_act), dtype=torch.long)
    logprobs, rewards, values = torch.zeros((T, N)), torch.zeros((T, N)), torch.zeros((T, N))
    dones, terminals, valid = torch.zeros((T, N)), torch.zeros((T, N)), torch.zeros((T, N))

    # ---- the loop ----------------------------------------------------------------------------------
    next_raw, info = envs.reset(seed=args.seed)
    next_obs = agent.encode(next_raw)
    next_valid = torch.ones(N)
    last_revealed = np.asarray(info.get("revealed", np.zeros(N)), dtype=np.float64)
    global_step, start = 0, time.time()
    with open(out / "progress.csv", "w", newline="", encoding="utf-8") as log_file:
        log = csv.writer(log_file)
        log.writerow(LOG_COLUMNS)
        for update in range(1, num_updates + 1):
            if args.anneal_lr:
                optimizer.param_groups[0]["lr"] = (1.0 - (update - 1.0) / num_updates) * args.learning_rate
            ended: list[dict[str, np.ndarray]] = []

            # rollout
            for t in range(T):
                global_step += N
                obs[t], valid[t] = next_obs, next_valid
                with torch.no_grad():
                    action, logprob, _, value = agent.get_action_and_value(next_obs)
                actions[t], logprobs[t], values[t] = action, logprob, value
                next_raw, reward, terminated, truncated, info = envs.step(agent.env_action(action))
                reward = np.asarray(reward, dtype=np.float64)
                if args.reveal_bonus and "revealed" in info:
                    revealed = np.asarray(info["revealed"], dtype=np.float64)
                    reward = reward + args.reveal_bonus * np.where(next_valid.numpy() > 0, revealed - last_revealed, 0)
                    last_revealed = revealed
                done = np.asarray(terminated) | np.asarray(truncated)
                failed = np.asarray(terminated).copy()
                if idle_cutoff is not None and "no_exploration_steps" in info:  # the cutoff ends as a failure
                    failed |= np.asarray(truncated) & (np.asarray(info["no_exploration_steps"]) >= idle_cutoff)
                rewards[t] = torch.as_tensor(reward, dtype=torch.float32)
                dones[t] = torch.as_tensor(done, dtype=torch.float32)
                terminals[t] = torch.as_tensor(failed, dtype=torch.float32)
                next_obs, next_valid = agent.encode(next_raw), torch.as_tensor(~done, dtype=torch.float32)
                if "episode_metrics" in info:
                    mask = info["_episode_metrics"]
                    ended.append({k: v[mask] for k, v in info["episode_metrics"].items()})

            # generalised advantage estimation; values[t + 1] of a restart sample is V(final observation)
            with torch.no_grad():
                next_value = agent.get_value(next_obs)
                advantages = torch.zeros((T, N))
                last_gae = torch.zeros(N)
                for t in reversed(range(T)):
                    following = next_value if t == T - 1 else values[t + 1]
                    delta = rewards[t] + args.gamma * following * (1.0 - terminals[t]) - values[t]
                    last_gae = delta + args.gamma * args.gae_lambda * (1.0 - dones[t]) * last_gae
                    advantages[t] = last_gae
                returns = advantages + values

            # PPO update over the valid samples
            keep = valid.reshape(-1).bool()
            b_obs, b_actions = obs.reshape(-1, size)[keep], actions.reshape(-1, n_act)[keep]
            b_logprobs, b_advantages = logprobs.reshape(-1)[keep], advantages.reshape(-1)[keep]
            b_returns, b_values = returns.reshape(-1)[keep], values.reshape(-1)[keep]
            count = int(keep.sum())
            minibatch = max(1, count // args.num_minibatches)
            clipfracs = []
            for _ in range(args.update_epochs):
                order = torch.randperm(count)
                for lo in range(0, count, minibatch):
                    mb = order[lo:lo + minibatch]
                    _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb], b_actions[mb])
                    logratio = newlogprob - b_logprobs[mb]
                    ratio = logratio.exp()
                    with torch.no_grad():
                        approx_kl = ((ratio - 1) - logratio).mean()
                        clipfracs.append(((ratio - 1.0).abs() > args.clip_coef).float().mean().item())
                    adv = b_advantages[mb]
                    adv = (adv - adv.mean()) / (adv.std() + 1e-8) if adv.numel() > 1 else adv
                    pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                    v_clipped = b_values[mb] + (newvalue - b_values[mb]).clamp(-args.clip_coef, args.clip_coef)
                    v_loss = 0.5 * torch.max((newvalue - b_returns[mb]) ** 2, (v_clipped - b_returns[mb]) ** 2).mean()
                    entropy_loss = entropy.mean()
                    loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef
                    optimizer.zero_grad()
                    loss.backward()
                    nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                    optimizer.step()

            # logging
            episodes = {k: np.concatenate([e[k] for e in ended]) for k in ended[0]} if ended else {}

            def mean(key: str, episodes: dict = episodes) -> float:
                if episodes and np.isfinite(episodes[key]).any():
                    return float(np.nanmean(episodes[key]))
                return float("nan")

            log.writerow([global_step, int(global_step / (time.time() - start)), len(episodes.get("steps", ())),
                          mean("success"), mean("return"), mean("steps"), mean("path_efficiency"), v_loss.item(),
                          pg_loss.item(), entropy_loss.item(), approx_kl.item(), float(np.mean(clipfracs))])
            log_file.flush()
    trained = TrainedEnv.of(args.env_id, args.env_kwargs, args.ego_map, envs.single_observation_space,
                            envs.single_action_space)
    envs.close()
    torch.save({"args": asdict(args), "env": trained.to_dict(), "state_dict": agent.state_dict()}, out / "model.pt")
    return out


# ---- using a trained network ------------------------------------------------------------------------
class NativePolicyAgent:
    """A trained ``Agent`` network behind the agent interface (``reset()``, ``act(observation, info)``).

    ``trained`` (a ``TrainedEnv``) says what it was trained on; its ``observation_space`` and ``action_space``
    are those of that env, which ``agents.evaluate.evaluate`` compares with the env it is handed before any
    episode."""

    def __init__(self, network: Agent, deterministic: bool = True, name: str = "ppo_native", *,
                 trained: TrainedEnv | None = None, observation_space: spaces.Space | None = None,
                 action_space: spaces.Space | None = None) -> None:
        self.network = network
        self.deterministic = deterministic
        self.name = name
        self.trained = trained
        self.observation_space = observation_space
        self.action_space = action_space

    def reset(self) -> None:
        """Nothing to forget: the policy is memoryless (memory lives in the ego-map wrapper)."""

    def act(self, observation: Any, info: dict[str, Any]) -> Any:
        """Return the policy's action for one observation (the most likely one when deterministic)."""
        batch = {k: np.asarray(v)[None] for k, v in observation.items()} if isinstance(observation, dict) \
            else np.asarray(observation)[None]
        with torch.no_grad():
            x = self.network.encode(batch)
            if self.deterministic:
                action = torch.stack([lg.argmax(dim=1) for lg in self.network.logits(x)], dim=1)
            else:
                action = self.network.get_action_and_value(x)[0]
        return self.network.env_action(action)[0]


def load_policy(path: str | Path, deterministic: bool = True) -> tuple[NativePolicyAgent, Args]:
    """Return the agent saved at ``path`` (a ``model.pt``) and the ``Args`` it was trained with.

    The file is read as data (``policy_archive``): its zip directory and recorded arguments are checked, the env
    named only by a registered id, and the network priced, before any env or network is made. The agent's
    ``trained`` record comes from the file (files older than the record: from the saved id and kwargs). Raises
    ``PolicyFileError`` naming the file and field for a file that is not such a policy, and ``PolicyMismatchError``
    when the saved env no longer gives the spaces the file records."""
    source = str(path)
    data = read_policy_archive(path)
    try:
        saved = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:  # torch's own message advises weights_only=False, which would run the file's code
        raise PolicyFileError("holds Python objects beyond plain weights (refused: loading them could run code)",
                              source=source) from None
    except (RuntimeError, ValueError, EOFError, OSError, MemoryError) as exc:
        raise PolicyFileError(f"not a policy file of agents.rl.ppo_native ({brief_repr(str(exc), 120)})",
                              source=source) from None
    if not isinstance(saved, dict) or not isinstance(saved.get("state_dict"), dict):
        raise PolicyFileError("not a policy file of agents.rl.ppo_native (no state_dict)", source=source)
    check_finite(saved["state_dict"].items(), source)
    args, trained, observation_space, action_space = checked_training(Args, saved.get("args"), saved.get("env"),
                                                                      source)
    if args.network == "mlp":
        price_network(mlp_parameters(_input_size(observation_space), args.hidden,
                                     sum(_action_sizes(action_space))), source)
    network = Agent(observation_space, action_space, args.hidden, args.network)
    try:
        network.load_state_dict(saved["state_dict"])
    except (KeyError, RuntimeError) as exc:
        raise PolicyFileError("its weights do not fit the network its arguments describe",
                              source=source, field="state_dict") from exc
    network.eval()
    return NativePolicyAgent(network, deterministic, trained=trained, observation_space=observation_space,
                             action_space=action_space), args


if __name__ == "__main__":
    sys.exit(run_script(Args, __doc__.splitlines()[0], train))
