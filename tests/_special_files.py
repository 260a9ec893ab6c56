"""Special files for every reader that takes a path: a FIFO, a link to ``/dev/zero``, a directory, a link
leading outside the folder, and YAML that costs far more than its bytes (aliases, deep nesting).

Shared by ``test_special_files.py`` (in process, each case under a generous hang guard) and
``benchmarks/fuzz_readers.py --special`` (each case in a child process under a memory limit, with its time and
peak memory). A reader handles a case when it returns without reading the special file, or raises a
``MazeEnvsError``; a reader that waits on a FIFO or reads ``/dev/zero`` never returns.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from maze_envs.core import generate
from maze_envs.core.layout_files import load_layout
from maze_envs.core.mazebench_files import write_mazebench
from maze_envs.core.paths import read_image
from maze_envs.core.yamlfiles import read_yaml
from maze_envs.evaluators.bench.config import resolve_config
from maze_envs.evaluators.bench.mazes import bench_mazes
from maze_envs.evaluators.bench.sandbox.api import DefaultService
from maze_envs.evaluators.nav.config import load_agent_config
from maze_envs.evaluators.pixel import reference
from maze_envs.evaluators.pixel.video.scoring import iter_frames
from maze_envs.llm import load_model_config
from maze_envs.llm.media import file_data_url, sample_video_frames
from maze_envs.llm.policies import ScriptedPolicy
from maze_envs.llm.prompts import PromptTemplate
from maze_envs.nav.ply import read_ply
from maze_envs.nav.scene import parse_meta
from maze_envs.runs.log import ResultLog

# A module that data might name: imported, it leaves ran.txt next to itself.
HOSTILE = "import pathlib\npathlib.Path(__file__).with_name('ran.txt').write_text('hostile code ran')\n"


@dataclass(frozen=True)
class PathReader:
    """A reader of one file: ``read(path)`` runs it on ``path`` (whose name is ``name``, in a folder of its own)."""

    label: str
    name: str
    read: Callable[[Path], object]


def _bench_folder(path: Path) -> object:
    """Read ``path`` as the only 3x3 maze of a ``--mazes-dir`` next to a good one, as ``bench`` does."""
    write_mazebench(generate(3, 3, "dfs", seed=1), path.parent.parent, 1)
    return bench_mazes(path.parent.parent, "3x3")


def _sandbox_load(path: Path) -> object:
    """Ask the sandbox to ``/load`` ``path`` after a good maze loads, as its route does."""
    service = DefaultService(path.parent.parent)
    write_mazebench(generate(3, 3, "dfs", seed=1), path.parent.parent, 1)
    service.load("maze_3x3_1")
    return service.load(path.stem)


READERS: tuple[PathReader, ...] = (
    PathReader("maze json", "maze.json", load_layout),
    PathReader("bench --mazes-dir", "3x3/maze_3x3_0.json", _bench_folder),
    PathReader("sandbox /load", "3x3/maze_3x3_0.json", _sandbox_load),
    PathReader("YAML config", "config.yaml", read_yaml),
    PathReader("bench --config", "bench.yaml", lambda p: resolve_config({}, config=p)),
    PathReader("nav-eval --agent-config", "agent.yaml", load_agent_config),
    PathReader("--model-config", "model.yaml", load_model_config),
    PathReader("image (core)", "image.png", read_image),
    PathReader("image (pixel evaluator)", "image.png", reference.read_image),
    PathReader("image data URL", "image.png", lambda p: file_data_url(p, "image")),
    PathReader("video frames (model client)", "video.mp4", sample_video_frames),
    PathReader("video frames (pixel evaluator)", "video.mp4", lambda p: list(iter_frames(p))),
    PathReader("scene point_cloud.ply", "gs/0/point_cloud.ply", read_ply),
    PathReader("scene occ_map_meta.txt", "map/occ_map_meta.txt", parse_meta),
    PathReader("prompt template", "prompt.txt", PromptTemplate.load),
    PathReader("scripted replies", "replies.jsonl", ScriptedPolicy.from_jsonl),
    PathReader("run log (--resume)", "results.jsonl", ResultLog),
)


def _fifo(path: Path, scratch: Path) -> None:
    os.mkfifo(path)


def _dev_zero(path: Path, scratch: Path) -> None:
    os.symlink("/dev/zero", path)


def _directory(path: Path, scratch: Path) -> None:
    path.mkdir()


def _outside(path: Path, scratch: Path) -> None:
    outside = scratch / "outside" / path.name
    outside.parent.mkdir(parents=True, exist_ok=True)
    outside.write_bytes(b"{}")
    os.symlink(outside, path)


SPECIAL: dict[str, Callable[[Path, Path], None]] = {"FIFO": _fifo, "link to /dev/zero": _dev_zero,
                                                    "directory": _directory, "link outside": _outside}
OUTSIDE_REFUSED = ("bench --mazes-dir", "sandbox /load")  # the readers that know the folder a file must stay in


def reader_cases() -> list[tuple[int, PathReader, str]]:
    """Return every ``(index, reader, special)`` case: each reader with each special file (a link leading outside
    only for the readers that know their folder)."""
    return [(index, reader, special) for index, reader in enumerate(READERS) for special in sorted(SPECIAL)
            if special != "link outside" or reader.label in OUTSIDE_REFUSED]


def make_case(reader: PathReader, special: str, scratch: Path) -> Path:
    """Return the path under ``scratch/case`` that ``reader`` reads, made the ``special`` file."""
    path = scratch / "case" / reader.name
    path.parent.mkdir(parents=True, exist_ok=True)
    SPECIAL[special](path, scratch)
    return path


def yaml_bomb(levels: int = 9, width: int = 9) -> str:
    """Return a "billion laughs" YAML mapping: ``levels`` anchors, each a list of ``width`` aliases of the one
    before (``width ** levels`` strings from a few hundred bytes)."""
    lines = ['l0: &l0 ["lol"]']
    for level in range(1, levels + 1):
        lines.append(f"l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


YAML_COSTS: dict[str, str] = {"billion laughs": yaml_bomb(), "merge-key alias": "a: &a {x: 1}\nb: {<<: *a}\n",
                              "deep nesting": "a: " + "[" * 5000 + "]" * 5000 + "\n"}
YAML_READERS = tuple(r for r in READERS if r.name.endswith(".yaml"))


def peak_bytes() -> int:
    """Return this process's peak resident memory in bytes (Linux reports kilobytes)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _policy_doc(hidden: int = 8) -> dict:
    """Return the contents of a small valid ``ppo_native`` policy file (torch imported here, lazily)."""
    from dataclasses import asdict

    from maze_envs.agents.rl import ppo_native
    from maze_envs.agents.rl.policy_file import TrainedEnv

    args = ppo_native.Args(env_id="Maze-PartialObs-v0", env_kwargs={"rows": 3, "cols": 3}, hidden=hidden)
    trained, observation, action = TrainedEnv.probe(args.env_id, args.env_kwargs, False)
    network = ppo_native.Agent(observation, action, hidden)
    return {"args": asdict(args), "env": trained.to_dict(), "state_dict": network.state_dict()}


def _policy_with(**changes) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        import torch

        doc = _policy_doc()
        doc["args"].update(changes)
        torch.save(doc, path)
    return write


def _nan_policy(path: Path) -> None:
    import torch

    doc = _policy_doc()
    doc["state_dict"] = {k: torch.full_like(v, float("nan")) for k, v in doc["state_dict"].items()}
    torch.save(doc, path)


def _pickled_policy(path: Path) -> None:
    import io

    import torch

    doc = _policy_doc()
    doc["args"]["out"] = io.StringIO("an object")
    torch.save(doc, path)


def _zip_bomb(path: Path, unpacked: int = 1 << 30) -> None:
    """Write a zip whose one member, about 1 MB deflated, unpacks to ``unpacked`` bytes of zeros."""
    import zipfile

    chunk = bytes(1 << 24)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive, archive.open("data/0", "w",
                                                                                     force_zip64=True) as member:
        for _ in range(unpacked // len(chunk)):
            member.write(chunk)


# Hostile ``ppo_native`` policy files: name -> writer of the file at a path.
POLICY_CASES: dict[str, Callable[[Path], None]] = {
    "env_id 'hostile_mod:...'": _policy_with(env_id="hostile_mod:Maze-PartialObs-v0"),
    "unregistered env_id": _policy_with(env_id="Nope-v0"),
    "env_kwargs 'x'": _policy_with(env_kwargs="x"),
    "hidden 20000": _policy_with(hidden=20000),
    "hidden 'abc'": _policy_with(hidden="abc"),
    "hidden -5": _policy_with(hidden=-5),
    "hidden 1e9": _policy_with(hidden=1e9),
    "all-NaN weights": _nan_policy,
    "pickled object": _pickled_policy,
    "zero-byte file": lambda path: path.write_bytes(b""),
    "not a zip": lambda path: path.write_bytes(bytes(range(256)) * 8),
    "1 GB member, 1 MB deflated": _zip_bomb,
    "FIFO": lambda path: os.mkfifo(path),
}
