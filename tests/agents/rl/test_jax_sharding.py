"""``ppo_jax`` shards its envs and batch across local devices with ``jax.sharding``: two CPU devices (XLA's forced
host device count, in a subprocess, since the count is fixed when JAX starts) give the one-device run's network
and log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("jax")

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = """
import json, sys
import jax, numpy as np
from maze_envs.agents.rl import ppo_jax

runs = {}
for devices in (1, 2):
    args = ppo_jax.Args(env_id="Maze-PartialObs-Flat-5x5-v0", env_kwargs={}, num_envs=8, num_steps=16, hidden=16,
                        total_timesteps=8 * 16 * 2, log_every=2, devices=devices, out=f"{sys.argv[1]}/{devices}")
    out = ppo_jax.train(args)
    agent, _ = ppo_jax.load_policy(out / "model.npz")
    rows = (out / "progress.csv").read_text().splitlines()[1:]
    runs[devices] = {"leaves": [np.asarray(x).tolist() for x in jax.tree.leaves(agent.params)],
                     "log": [row.split(",")[2:] for row in rows]}
print(json.dumps({"local_devices": len(jax.local_devices()), "runs": runs}))
"""


def test_ppo_jax_on_two_cpu_devices_equals_one(tmp_path: Path) -> None:
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=2", "JAX_PLATFORMS": "cpu",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["local_devices"] == 2
    one, two = result["runs"]["1"], result["runs"]["2"]
    assert one["log"] and [row[:3] for row in one["log"]] == [row[:3] for row in two["log"]]  # episodes, successes
    for a, b in zip(one["leaves"], two["leaves"], strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)


def test_num_envs_must_split_across_the_devices() -> None:
    from maze_envs.agents.rl.ppo_jax import shardings
    from maze_envs.core.errors import MazeConfigError

    with pytest.raises(MazeConfigError, match="devices"):
        shardings(8, 5)
