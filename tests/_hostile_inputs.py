"""Hostile inputs for every file reader: a valid sample per reader and seeded mutations of its bytes.

Shared by the fuzz tests (``test_hostile_inputs.py``, driven by Hypothesis) and
``benchmarks/fuzz_readers.py`` (driven by ``random.Random``). A reader handles an input when it returns
or raises a ``MazeEnvsError`` whose message is at most ``MAX_MESSAGE`` characters.
"""

from __future__ import annotations

import json
import random
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
from PIL import Image

from maze_envs.core import generate
from maze_envs.core.errors import MazeEnvsError
from maze_envs.core.jsonfiles import read_jsonl
from maze_envs.core.layout_files import load_layout, save_layout
from maze_envs.core.mazebench_files import write_mazebench
from maze_envs.datasets import LOG_NAME, generate_tasks, write_openings_dataset
from maze_envs.evaluators.judge.manifest import read_records
from maze_envs.evaluators.judge.maze_task import load_tasks, maze_items_from_manifest
from maze_envs.evaluators.pixel.reference import metadata_geometries
from maze_envs.llm import load_model_config
from maze_envs.nav.ply import GaussianCloud, read_ply, write_ply
from maze_envs.nav.scene import Episode, Task, parse_meta
from maze_envs.openings.dataset import OpeningsDatasetConfig, maze_from_record
from maze_envs.runs import RunOptions
from maze_envs.tasks.spec import task_specs

MAX_MESSAGE = 500

HOSTILE_NUMBERS = (b"1e999", b"-1e999", b"NaN", b"Infinity", b"-Infinity", b".nan", b".inf", b"1e30", b"-1e30",
                   b"7" * 5000, b"-0", b"0", b"-1", b"1e-400", b"2147483648", b"18446744073709551616", b"0.5")
HOSTILE_VALUES = (b"null", b"true", b"[]", b"{}", b'"x"', b"42", b"[[1, 2], [3]]", b'{"a": {"b": {"c": []}}}',
                  b"[" * 100_000 + b"]" * 100_000, b"{\"k\":" * 50_000 + b"1" + b"}" * 50_000,
                  b'"' + b"A" * 100_000 + b'"', b"\xff\xfe\x00", b"\x00" * 16)
WHOLE_FILES = (b"", b"\n", b"null", b"42", b"[]", b"{}", b"\xef\xbb\xbf{}", bytes(range(256)))
_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_VALUE = re.compile(rb'"[^"\n]{0,40}"|-?\d+(?:\.\d+)?|\[[^\[\]\n]{0,80}\]|true|false|null')


def mutate(data: bytes, rng: random.Random) -> bytes:
    """Return ``data`` with one to three random mutations: byte edits, cut spans, hostile numbers or values,
    another text encoding, or a wholly different file."""
    for _ in range(rng.randint(1, 3)):
        data = rng.choice(_MUTATIONS)(data, rng)
    return data


def _flip(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return bytes([rng.randrange(256)])
    i = rng.randrange(len(data))
    return data[:i] + bytes([rng.randrange(256)]) + data[i + 1:]


def _cut(data: bytes, rng: random.Random) -> bytes:
    i = rng.randrange(len(data) + 1)
    return data[:i] + data[i + rng.randint(1, 64):] if rng.random() < 0.7 else data[:i]


def _duplicate(data: bytes, rng: random.Random) -> bytes:
    i = rng.randrange(len(data) + 1)
    j = min(len(data), i + rng.randint(1, 256))
    return data[:j] + data[i:j] * rng.randint(1, 50) + data[j:]


def _insert_junk(data: bytes, rng: random.Random) -> bytes:
    i = rng.randrange(len(data) + 1)
    return data[:i] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 16))) + data[i:]


def _replace(pattern: re.Pattern, choices: tuple[bytes, ...]) -> Callable[[bytes, random.Random], bytes]:
    def replace(data: bytes, rng: random.Random) -> bytes:
        found = list(pattern.finditer(data[:200_000]))
        if not found:
            return _insert_junk(data, rng)
        match = rng.choice(found)
        return data[:match.start()] + rng.choice(choices) + data[match.end():]
    return replace


def _encode(data: bytes, rng: random.Random) -> bytes:
    text = data.decode("utf-8", errors="replace")
    return text.encode(rng.choice(("utf-16", "utf-16-le", "utf-32", "latin-1")), errors="replace")


def _whole(data: bytes, rng: random.Random) -> bytes:
    return rng.choice(WHOLE_FILES)


_MUTATIONS = (_flip, _flip, _cut, _duplicate, _insert_junk, _replace(_NUMBER, HOSTILE_NUMBERS),
              _replace(_NUMBER, HOSTILE_NUMBERS), _replace(_VALUE, HOSTILE_VALUES), _replace(_VALUE, HOSTILE_VALUES),
              _encode, _whole)


@dataclass(frozen=True)
class Reader:
    """A reader under test: ``write(directory)`` makes a valid sample and returns the file to mutate;
    ``read(file)`` runs the reader on it."""

    name: str
    write: Callable[[Path], Path]
    read: Callable[[Path], object]


def handled(reader: Reader, path: Path) -> str | None:
    """Return None when ``reader`` returns on ``path`` or raises a short ``MazeEnvsError``; else what went wrong."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reader.read(path)
    except MazeEnvsError as exc:
        if len(str(exc)) > MAX_MESSAGE:
            return f"{type(exc).__name__} message of {len(str(exc))} characters"
        return None
    except Exception as exc:  # everything else is the defect being measured
        return f"{type(exc).__name__}: {str(exc)[:200]}"
    return None


def _maze_json(directory: Path) -> Path:
    return save_layout(generate(4, 5, "wilson", seed=3), directory / "maze.json")


def _benchmark_json(directory: Path) -> Path:
    return write_mazebench(generate(3, 4, "dfs", seed=1), directory, 0)


def _openings(directory: Path) -> Path:
    config = OpeningsDatasetConfig(count=2, rows=(4, 5), cols=(4, 5), openings=(2, 3))
    return write_openings_dataset(config, directory).indexes[0]


def _read_annotations(path: Path) -> None:
    for record in read_jsonl(path):
        maze_from_record(record, source=str(path))


def _resume(path: Path) -> None:
    config = OpeningsDatasetConfig(count=3, rows=(4, 5), cols=(4, 5), openings=(2, 3))
    write_openings_dataset(config, path.parent, options=RunOptions(resume=True))


def _tasks(directory: Path) -> Path:
    return generate_tasks(task_specs(["dfs"], ["easy"], 2, 0), directory).indexes[0]


def _maze_manifest(directory: Path) -> Path:
    tasks = _tasks(directory)
    ids = [record["id"] for record in read_jsonl(tasks)]
    maze = json.loads(json.dumps(read_jsonl(tasks)[0]["maze"]))
    lines = [{"file": f"{ids[0]}_solution.png", "task_id": ids[0]}, {"file": "own.png", "maze": maze}]
    path = directory / "manifest.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _trajectory(directory: Path) -> Path:
    path = directory / "traj_0.json"
    points = [{"x": 1.5, "y": 2.0, "z": 0.6, "roll": 0.0, "pitch": 0.1, "yaw": 3.1}, [2.0, 3.0], [2.5, 3.5, 0.5]]
    path.write_text(json.dumps({"trajectory": points, "label": {"extend": {"goal_label": "Red Kiosk"}}}))
    return path


def _scene(directory: Path) -> Path:
    folder = directory / "scene" / "map"
    folder.mkdir(parents=True)
    occ = np.full((12, 16), 255, np.uint8)
    occ[:, 6:8] = 0
    Image.fromarray(occ).save(folder / "occ_map.png")
    Image.fromarray(np.full((12, 16), 0.5, np.float32)).save(folder / "occ_map_height.tiff")
    (folder / "occ_map_meta.txt").write_text("Top Left: (10.0, 24.0)\nTop Right: (18.0, 24.0)\n"
                                             "Bottom Left: (10.0, 18.0)\nBottom Right: (18.0, 18.0)\n"
                                             "Image size in pixels: 16, 12\n")
    return folder


def _ply(directory: Path) -> Path:
    rng = np.random.default_rng(0)
    cloud = GaussianCloud(rng.normal(size=(5, 3)), np.full((5, 3), 0.1), np.tile([1.0, 0, 0, 0], (5, 1)),
                          np.full(5, 0.8), rng.normal(size=(5, 3)), rng.normal(size=(5, 3, 3)))
    return write_ply(cloud, directory / "scene.ply")


def _model_yaml(directory: Path) -> Path:
    path = directory / "model.yaml"
    path.write_text("model: judge-model\nbase_url: http://127.0.0.1:9/v1\nprovider: openai\ntimeout: 30\n"
                    "max_retries: 2\nbackoff_base: 0.5\nvideo_mode: frames\nvideo_frames: 8\nprice_prompt: 0.15\n",
                    encoding="utf-8")
    return path


def _read_scene(path: Path) -> None:
    Episode.from_scene_dir(path.parent.parent)


READERS: tuple[Reader, ...] = (
    Reader("maze json (ours)", _maze_json, load_layout),
    Reader("maze json (benchmark)", _benchmark_json, load_layout),
    Reader("openings annotations", _openings, _read_annotations),
    Reader("openings --resume annotations", _openings, _resume),
    Reader("openings --resume generation log", lambda d: _openings(d).parent / LOG_NAME, _resume),
    Reader("openings --resume config.json", lambda d: _openings(d).parent / "config.json", _resume),
    Reader("pixel metadata.jsonl", _tasks, metadata_geometries),
    Reader("judge task metadata", _tasks, load_tasks),
    Reader("judge manifest", _maze_manifest, lambda p: (read_records(p), maze_items_from_manifest(p, p.parent))),
    Reader("nav traj json", _trajectory, Task.from_json),
    Reader("nav occ_map_meta.txt", lambda d: _scene(d) / "occ_map_meta.txt", parse_meta),
    Reader("nav occ_map.png", lambda d: _scene(d) / "occ_map.png", _read_scene),
    Reader("nav occ_map_height.tiff", lambda d: _scene(d) / "occ_map_height.tiff", _read_scene),
    Reader("nav PLY", _ply, read_ply),
    Reader("model YAML config", _model_yaml, load_model_config),
)
