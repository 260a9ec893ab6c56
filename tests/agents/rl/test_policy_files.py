"""Policy files are data: the env they record is named only by a registered id (a ``module:`` prefix would make
``gym.make`` import that module), their sizes are priced from the zip directory and the recorded arguments before
anything is loaded or built, and every damaged file is one ``PolicyFileError`` naming the file and the field."""

import io
import json
import os
import struct
import sys
import zipfile
from dataclasses import asdict

import numpy as np
import pytest
from _special_files import HOSTILE

torch = pytest.importorskip("torch")

from maze_envs.agents.rl import ppo_native  # noqa: E402
from maze_envs.agents.rl.policy_archive import MAX_UNPACKED_BYTES, PolicyFileError  # noqa: E402
from maze_envs.agents.rl.policy_file import TrainedEnv  # noqa: E402

KWARGS = {"rows": 3, "cols": 3}
REAL_AGENT = ppo_native.Agent


@pytest.fixture
def hostile_folder(tmp_path, monkeypatch):
    """A working folder holding ``hostile_mod.py`` (which writes ``ran.txt`` when imported), on ``sys.path``."""
    (tmp_path / "hostile_mod.py").write_text(HOSTILE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    assert not (tmp_path / "ran.txt").exists(), "the hostile module ran"
    assert "hostile_mod" not in sys.modules


def _torch_doc(hidden: int = 8) -> dict:
    args = ppo_native.Args(env_id="Maze-PartialObs-v0", env_kwargs=dict(KWARGS), hidden=hidden)
    trained, observation, action = TrainedEnv.probe(args.env_id, args.env_kwargs, False)
    network = REAL_AGENT(observation, action, hidden)
    return {"args": asdict(args), "env": trained.to_dict(), "state_dict": network.state_dict()}


def _save(path, doc):
    torch.save(doc, path)
    return path


@pytest.fixture
def no_network(monkeypatch):
    """Fail if the loader builds a network: the refusals come before it."""
    def refuse(*args, **kwargs):
        raise AssertionError("a network was built")

    monkeypatch.setattr(ppo_native, "Agent", refuse)


def test_a_good_policy_file_loads(tmp_path):
    agent, args = ppo_native.load_policy(_save(tmp_path / "model.pt", _torch_doc()))
    assert args.env_id == "Maze-PartialObs-v0" and agent.trained.kwargs == KWARGS


@pytest.mark.parametrize("where", ["args", "env"])
def test_a_module_prefix_in_the_recorded_env_never_imports_it(hostile_folder, no_network, where):
    doc = _torch_doc()
    key = "env_id"
    doc[where][key] = "hostile_mod:Maze-PartialObs-v0"
    path = _save(hostile_folder / "model.pt", doc)
    with pytest.raises(PolicyFileError, match=f"model.pt: field {where}.env_id: .*without a 'module:' prefix") as err:
        ppo_native.load_policy(path)
    assert err.value.field == f"{where}.env_id" and err.value.source == str(path)


@pytest.mark.parametrize(("field", "value", "words"), [
    ("env_id", "Nope-v0", "must be a registered environment id, got 'Nope-v0'"),
    ("env_id", 7, "must be a registered environment id"),
    ("env_kwargs", "x", "must be a mapping of argument names, got 'x'"),
    ("hidden", "abc", "must be an integer from 1 to 4096, got 'abc'"),
    ("hidden", -5, "must be an integer from 1 to 4096, got -5"),
    ("hidden", 1e9, "must be an integer from 1 to 4096, got 1000000000.0"),
    ("hidden", 20000, "must be an integer from 1 to 4096, got 20000"),
    ("hidden", 4096, "its network would hold 35,[0-9,]+ weights, over the 32,000,000"),
    ("network", "rnn", "must be one of mlp, cnn"),
    ("ego_map", "yes", "must be true or false"),
])
def test_recorded_arguments_are_checked_before_any_network_is_built(tmp_path, no_network, field, value, words):
    doc = _torch_doc()
    doc["args"][field] = value
    with pytest.raises(PolicyFileError, match=f"model.pt: field args.{field}: {words}"):
        ppo_native.load_policy(_save(tmp_path / "model.pt", doc))


def _patched_sizes(data: bytes, size: int) -> bytes:
    """Return the zip ``data`` whose central directory claims every member unpacks to ``size`` bytes."""
    out, start = bytearray(data), 0
    while (start := out.find(b"PK\x01\x02", start)) >= 0:
        out[start + 24:start + 28] = struct.pack("<I", size)
        start += 4
    return bytes(out)


def test_member_sizes_are_priced_from_the_zip_directory_before_reading(tmp_path, monkeypatch, no_network):
    path = _save(tmp_path / "model.pt", _torch_doc())
    path.write_bytes(_patched_sizes(path.read_bytes(), MAX_UNPACKED_BYTES // 2))
    monkeypatch.setattr(torch, "load", lambda *a, **k: pytest.fail("torch.load ran"))
    with pytest.raises(PolicyFileError, match=r"model.pt: its members unpack to \d+ bytes, over the"):
        ppo_native.load_policy(path)


@pytest.mark.parametrize(("content", "words"), [
    (b"", "empty file"),
    (b"PK\x03\x04 not really a zip", "not a readable zip archive"),
    (bytes(range(256)) * 4, "not a readable zip archive"),
])
def test_damaged_files_are_one_typed_error(tmp_path, content, words):
    (tmp_path / "model.pt").write_bytes(content)
    with pytest.raises(PolicyFileError, match=f"model.pt: .*{words}"):
        ppo_native.load_policy(tmp_path / "model.pt")


def test_a_fifo_is_refused_without_waiting(tmp_path):
    os.mkfifo(tmp_path / "model.pt")
    with pytest.raises(PolicyFileError, match="model.pt: a FIFO, not a regular file"):
        ppo_native.load_policy(tmp_path / "model.pt")


def test_pickled_objects_are_refused_without_torchs_advice(tmp_path, no_network):
    doc = _torch_doc()
    doc["args"]["out"] = io.StringIO("an object weights_only refuses")
    with pytest.raises(PolicyFileError, match="could run code") as err:
        ppo_native.load_policy(_save(tmp_path / "model.pt", doc))
    assert "weights_only" not in str(err.value) and err.value.__cause__ is None


def test_memory_errors_while_loading_are_one_typed_error(tmp_path, monkeypatch):
    path = _save(tmp_path / "model.pt", _torch_doc())

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(torch, "load", exhausted)
    with pytest.raises(PolicyFileError, match="model.pt: not a policy file"):
        ppo_native.load_policy(path)


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_non_finite_weights_are_refused(tmp_path, no_network, value):
    doc = _torch_doc()
    name = next(iter(doc["state_dict"]))
    doc["state_dict"][name] = torch.full_like(doc["state_dict"][name], value)
    with pytest.raises(PolicyFileError, match=f"field {name}: holds NaN or infinite weights"):
        ppo_native.load_policy(_save(tmp_path / "model.pt", doc))


def _npz(path, **arrays):
    np.savez(path, **arrays)
    return path


def test_the_jax_loader_keeps_the_same_rules(hostile_folder):
    pytest.importorskip("jax")
    from maze_envs.agents.rl import ppo_jax

    args = asdict(ppo_jax.Args(env_id="hostile_mod:Maze-PartialObs-v0", env_kwargs=dict(KWARGS), hidden=8))
    with pytest.raises(PolicyFileError, match="model.npz: field args.env_id: .*'module:' prefix"):
        ppo_jax.load_policy(_npz(hostile_folder / "model.npz", args=json.dumps(args)))
    args.update(env_id="Maze-PartialObs-v0", hidden="abc")
    with pytest.raises(PolicyFileError, match="field args.hidden: must be an integer"):
        ppo_jax.load_policy(_npz(hostile_folder / "model.npz", args=json.dumps(args)))
    for gru, words in (("abc", "must be an integer from 0 to 4096, got 'abc'"), (-1, "must be an integer from 0"),
                       (4096, "its network would hold 50,442,240 weights, over the 32,000,000")):
        args.update(hidden=8, gru=gru)
        with pytest.raises(PolicyFileError, match=f"model.npz: field args.gru: {words}"):
            ppo_jax.load_policy(_npz(hostile_folder / "model.npz", args=json.dumps(args)))
    args.update(hidden=8, gru=0)
    env = {"env_id": "hostile_mod:Maze-v0", "kwargs": {}}
    with pytest.raises(PolicyFileError, match="field env.env_id"):
        ppo_jax.load_policy(_npz(hostile_folder / "model.npz", args=json.dumps(args), env=json.dumps(env)))
    with pytest.raises(PolicyFileError, match="field leaf_0: holds NaN"):
        ppo_jax.load_policy(_npz(hostile_folder / "model.npz", args=json.dumps(args),
                                 leaf_0=np.full(4, np.nan, np.float32)))


def test_an_array_header_larger_than_its_member_is_refused_before_numpy_allocates(tmp_path):
    pytest.importorskip("jax")
    from maze_envs.agents.rl import ppo_jax

    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": (10 ** 9,)})
    with zipfile.ZipFile(tmp_path / "model.npz", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("args.npy", _npy(json.dumps(asdict(ppo_jax.Args(hidden=8)))))
        archive.writestr("leaf_0.npy", header.getvalue() + b"\0" * 64)
    with pytest.raises(PolicyFileError, match="field leaf_0: its header declares 4000000000 bytes of data"):
        ppo_jax.load_policy(tmp_path / "model.npz")


def _npy(text: str) -> bytes:
    out = io.BytesIO()
    np.save(out, np.array(text))
    return out.getvalue()
