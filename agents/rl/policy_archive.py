"""Reading a saved policy file (``ppo_native``'s ``model.pt``, ``ppo_jax``'s ``model.npz``) without trusting it.

Both are zip archives. Before anything is unpacked, loaded or built: the file goes through the one data-file
opener (no FIFO, no device, at most ``MAX_POLICY_BYTES``); its zip directory must list at most
``MAX_UNPACKED_BYTES`` in all (a 2.5 MB deflated member may unpack to gigabytes), and every ``.npy`` member's
header must describe an array its member can hold. The arguments it records are checked as data: the env only by
a registered id (``maze_envs.core.validate.registered_id``: a ``module:`` prefix would make ``gym.make`` import
that module), ``env_kwargs`` a mapping, ``hidden`` an integer whose network is priced (``MAX_PARAMETERS``) before it
is built. Weights must be finite. Every refusal is one ``PolicyFileError`` naming the file and the field.
"""

from __future__ import annotations

import io
import os
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import fields
from typing import Any, TypeVar

import gymnasium as gym
import numpy as np

from maze_envs.core.datafiles import MIB, read_data_bytes, read_failure
from maze_envs.core.errors import MazeConfigError, brief_repr
from maze_envs.core.validate import choice, integer, registered_id

from .trained import TrainedEnv

MAX_POLICY_BYTES = 256 * MIB
MAX_UNPACKED_BYTES = 512 * MIB
MAX_HIDDEN = 4096
MAX_PARAMETERS = 32_000_000  # 128 MB of float32 weights; the documented runs use well under 1 M
NETWORKS = ("mlp", "cnn")

ArgsT = TypeVar("ArgsT")


class PolicyFileError(MazeConfigError):
    """A policy file cannot be used; ``source`` names the file and ``field`` (when known) the field at fault, and
    the message starts with both (``parameter`` is ``policy``, the flag that names such a file)."""

    def __init__(self, message: str, *, source: str | os.PathLike, field: str | None = None):
        self.source, self.field = os.fspath(source), field
        where = f"{self.source}: field {field}" if field else self.source
        super().__init__(f"{where}: {message}", parameter="policy")


def read_policy_archive(path: str | os.PathLike) -> bytes:
    """Return the bytes of the policy file at ``path`` once its zip directory is priced: at most
    ``MAX_UNPACKED_BYTES`` listed in all, each ``.npy`` member's array no larger than the member. Raises
    ``PolicyFileError`` naming the file otherwise (missing, a FIFO or device, empty, not a zip archive, too large)."""
    source = os.fspath(path)
    try:
        data = read_data_bytes(path, max_bytes=MAX_POLICY_BYTES)
    except OSError as exc:
        raise PolicyFileError(read_failure(exc), source=source) from None
    if not data:
        raise PolicyFileError("empty file, not a policy file", source=source)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
            listed = sum(member.file_size for member in members)
            if listed > MAX_UNPACKED_BYTES:
                raise PolicyFileError(f"its members unpack to {listed} bytes, over the {MAX_UNPACKED_BYTES}-byte "
                                      "limit of a policy file", source=source)
            for member in members:
                if member.filename.endswith(".npy"):
                    _check_npy_header(archive, member, source)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, NotImplementedError) as exc:
        raise PolicyFileError(f"not a policy file (not a readable zip archive: {brief_repr(str(exc), 80)})",
                              source=source) from None
    return data


def _check_npy_header(archive: zipfile.ZipFile, member: zipfile.ZipInfo, source: str) -> None:
    """Raise ``PolicyFileError`` unless the ``.npy`` ``member``'s header describes a plain array that fits in the
    member (numpy allocates what the header says before it reads)."""
    with archive.open(member) as fh:
        try:
            version = np.lib.format.read_magic(fh)
            read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else \
                np.lib.format.read_array_header_2_0
            shape, _, dtype = read_header(fh)
        except (ValueError, SyntaxError, TypeError) as exc:
            raise PolicyFileError(f"bad array header ({brief_repr(str(exc), 80)})", source=source,
                                  field=member.filename[:-4]) from None
    if dtype.hasobject:
        raise PolicyFileError("holds Python objects, not numbers (refused: loading them could run code)",
                              source=source, field=member.filename[:-4])
    nbytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
    if nbytes > member.file_size:
        raise PolicyFileError(f"its header declares {nbytes} bytes of data in a member of {member.file_size}",
                              source=source, field=member.filename[:-4])


def checked_args(cls: type[ArgsT], doc: Any, source: str | os.PathLike) -> ArgsT:
    """Return ``cls(**doc)`` (a trainer's ``Args``) once ``doc`` is checked as data: a mapping of ``cls``'s field
    names; ``env_id`` a registered id (no ``module:`` prefix); ``env_kwargs`` a mapping with text keys; ``ego_map``
    a bool; ``hidden`` an integer from 1 to ``MAX_HIDDEN`` (and ``gru``, where ``cls`` has it, from 0);
    ``network`` one of ``NETWORKS``. Raises
    ``PolicyFileError`` naming the file and the field otherwise."""
    def fail(message: str) -> Exception:
        field, _, detail = message.partition(": ")
        return PolicyFileError(detail, source=source, field=field)

    if not isinstance(doc, Mapping):
        raise PolicyFileError(f"must be a mapping, got {brief_repr(doc)}", source=source, field="args")
    known = {f.name for f in fields(cls)}
    unknown = sorted(str(key) for key in doc if key not in known)
    if unknown:
        raise PolicyFileError(f"unknown field(s) {', '.join(brief_repr(k, 40) for k in unknown[:5])}", source=source,
                              field="args")
    defaults: Any = cls()
    env_id = doc.get("env_id", defaults.env_id)
    registered_id(env_id, gym.registry, parameter="args.env_id", error=fail)
    kwargs = doc.get("env_kwargs", defaults.env_kwargs)
    if not isinstance(kwargs, Mapping) or not all(isinstance(key, str) for key in kwargs):
        raise PolicyFileError(f"must be a mapping of argument names, got {brief_repr(kwargs)}", source=source,
                              field="args.env_kwargs")
    if not isinstance(doc.get("ego_map", False), bool):
        raise PolicyFileError(f"must be true or false, got {brief_repr(doc['ego_map'])}", source=source,
                              field="args.ego_map")
    integer(doc.get("hidden", defaults.hidden), 1, MAX_HIDDEN, parameter="args.hidden", error=fail)
    if "gru" in known:
        integer(doc.get("gru", defaults.gru), 0, MAX_HIDDEN, parameter="args.gru", error=fail)
    choice(doc.get("network", defaults.network), NETWORKS, parameter="args.network", error=fail)
    return cls(**{**dict(doc), "env_kwargs": dict(kwargs)})


def checked_env_record(doc: Any, source: str | os.PathLike) -> dict[str, Any]:
    """Return the ``env`` record of a policy file (``TrainedEnv.to_dict``) once its ``env_id`` is a registered id
    and its ``kwargs`` a mapping; raises ``PolicyFileError`` naming the file and the field otherwise."""
    def fail(message: str) -> Exception:
        field, _, detail = message.partition(": ")
        return PolicyFileError(detail, source=source, field=field)

    if not isinstance(doc, Mapping):
        raise PolicyFileError(f"must be a mapping, got {brief_repr(doc)}", source=source, field="env")
    registered_id(doc.get("env_id"), gym.registry, parameter="env.env_id", error=fail)
    if not isinstance(doc.get("kwargs") or {}, Mapping):
        raise PolicyFileError(f"must be a mapping, got {brief_repr(doc.get('kwargs'))}", source=source,
                              field="env.kwargs")
    return dict(doc)


def mlp_parameters(inputs: int, hidden: int, outputs: int) -> int:
    """Return the weights and biases of the actor and critic MLPs (two hidden layers of ``hidden`` each) over
    ``inputs`` features with ``outputs`` logits."""
    layers = inputs * hidden + hidden + hidden * hidden + hidden
    return 2 * layers + hidden * outputs + outputs + hidden + 1


def price_network(parameters: int, source: str | os.PathLike, field: str = "args.hidden") -> None:
    """Raise ``PolicyFileError`` naming ``field`` when a network of ``parameters`` weights is over
    ``MAX_PARAMETERS``; called before the network is built."""
    if parameters > MAX_PARAMETERS:
        raise PolicyFileError(f"its network would hold {parameters:,} weights, over the {MAX_PARAMETERS:,} a policy "
                              "file may describe", source=source, field=field)


def check_finite(weights: Iterable[tuple[str, Any]], source: str | os.PathLike) -> None:
    """Raise ``PolicyFileError`` naming the first of ``(name, array)`` that holds NaN or an infinity (a network
    with such weights answers garbage for every observation)."""
    for name, array in weights:
        values = np.asarray(array)
        if values.dtype.kind in "fc" and not np.isfinite(values).all():
            raise PolicyFileError("holds NaN or infinite weights", source=source, field=name)


def checked_training(cls: type[ArgsT], args_doc: Any, env_doc: Any, source: str | os.PathLike
                     ) -> tuple[ArgsT, TrainedEnv, gym.Space, gym.Space]:
    """Return a policy file's checked ``Args`` (``checked_args``), the env it was trained on (its ``env`` record,
    else, for files older than the record, the saved id and kwargs) and that env's observation and action spaces
    as this version makes it. Raises ``PolicyFileError`` for a bad record and ``PolicyMismatchError`` when the env
    no longer gives the spaces the file records."""
    args = checked_args(cls, args_doc, source)
    recorded = TrainedEnv.from_dict(checked_env_record(env_doc, source)) if env_doc is not None else None
    made, observation_space, action_space = TrainedEnv.probe(args.env_id, args.env_kwargs, args.ego_map)
    (recorded or made).check(observation_space, action_space, source=source,
                             given=f"gym.make({args.env_id!r}, **{args.env_kwargs}) in this version")
    return args, recorded or made, observation_space, action_space
