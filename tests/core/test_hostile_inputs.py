"""Every file reader, fed mutated and hostile inputs, returns or raises a short ``MazeEnvsError``; nothing else."""

import json
import random
import shutil

import numpy as np
import pytest
from _hostile_inputs import MAX_MESSAGE, READERS, handled, mutate
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from maze_envs.core.errors import MazeEnvsError, MazeFormatError

TARGETED = {
    "deep nesting": b"[" * 100_000 + b"]" * 100_000,
    "5000-digit integer": b"7" * 5000,
    "non-finite numbers": b'{"x": NaN, "y": Infinity, "z": -1e999}',
    "empty": b"",
    "binary junk": bytes(range(256)) * 4,
    "null": b"null",
    "a list of scalars": b"[1, true, null]",
}


@pytest.fixture(scope="module")
def templates(tmp_path_factory):
    """Return {reader name: (directory holding a valid sample, the sample file within it)}, made once."""
    made = {}
    for reader in READERS:
        directory = tmp_path_factory.mktemp("template")
        made[reader.name] = (directory, reader.write(directory).relative_to(directory))
    return made


def _copy(templates, tmp_path_factory, reader):
    directory, relative = templates[reader.name]
    fresh = tmp_path_factory.mktemp("input")
    shutil.copytree(directory, fresh, dirs_exist_ok=True)
    return fresh / relative, (directory / relative).read_bytes()


@pytest.mark.parametrize("reader", READERS, ids=lambda r: r.name)
@settings(max_examples=100)
@given(rng=st.randoms(use_true_random=False))
def test_mutated_inputs_are_handled(templates, tmp_path_factory, reader, rng):
    target, valid = _copy(templates, tmp_path_factory, reader)
    target.write_bytes(mutate(valid, rng))
    assert handled(reader, target) is None


@pytest.mark.parametrize("reader", READERS, ids=lambda r: r.name)
@pytest.mark.parametrize("case", [*TARGETED, "utf-16 of the valid file"])
def test_targeted_hostile_files_are_handled(templates, tmp_path_factory, reader, case):
    target, valid = _copy(templates, tmp_path_factory, reader)
    target.write_bytes(valid.decode("utf-8", "replace").encode("utf-16") if case.startswith("utf-16")
                       else TARGETED[case])
    assert handled(reader, target) is None


def _reader(name):
    return next(r for r in READERS if r.name == name)


def _edited_json(target, edit):
    doc = json.loads(target.read_text())
    edit(doc)
    target.write_text(json.dumps(doc))


STRUCTURAL = [
    ("maze json (ours)", lambda t: _edited_json(t, lambda d: d.update(openings=5)), "openings"),
    ("maze json (ours)", lambda t: _edited_json(t, lambda d: d.update(meta="x" * 100_000)), "meta"),
    ("openings annotations", lambda t: t.write_text("null\n42\ntrue\n"), "expected a JSON object"),
    ("openings --resume config.json", lambda t: t.write_text("null"), "expected the settings object"),
    ("nav traj json", lambda t: t.write_text('{"trajectory": [[1e30, 2], [1' + "0" * 400 + ", 2]]}"), "finite"),
    ("nav traj json", lambda t: t.write_text('{"trajectory": [[1e999, 2]]}'), "finite"),
    ("nav occ_map_meta.txt", lambda t: t.write_text(t.read_text().replace("16, 12", "1e999, 12")), "Image size"),
    ("nav occ_map_meta.txt", lambda t: t.write_text(t.read_text().replace("(18.0, 18.0)", "(1e400, 18)")), "finite"),
    ("nav occ_map_meta.txt", lambda t: t.write_text(t.read_text().replace("(18.0, 18.0)", "(1.5e308, -1.5e308)")),
     "too far apart"),
    ("nav occ_map_height.tiff", lambda t: Image.new("RGBA", (16, 12)).save(t, format="TIFF"), "one band"),
    ("nav occ_map_height.tiff", lambda t: Image.fromarray(np.full((12, 16), np.nan, np.float32))
     .save(t, format="TIFF"), "finite"),
    ("nav PLY", lambda t: t.write_bytes(t.read_bytes().replace(b"element vertex 5", b"element vertex 0")),
     "no Gaussians"),
    ("nav PLY", lambda t: t.write_bytes(t.read_bytes()[:-4] + np.float32(np.nan).tobytes()), "non-finite"),
    ("pixel metadata.jsonl", lambda t: t.write_text('{"solution": "a.png", "geometry": {"rows": "5"}}\n'),
     "geometry"),
    ("model YAML config", lambda t: t.write_text("model: m\ntimeout: .nan\n"), "finite"),
    ("model YAML config", lambda t: t.write_text("model: m\n? [1, 2]\n: 3\n"), "cannot read"),
]


@pytest.mark.parametrize(("name", "break_it", "message"), STRUCTURAL, ids=[f"{n}: {m}" for n, _, m in STRUCTURAL])
def test_structural_defects_get_a_typed_error_that_names_them(templates, tmp_path_factory, name, break_it, message):
    reader = _reader(name)
    target, _ = _copy(templates, tmp_path_factory, reader)
    break_it(target)
    assert handled(reader, target) is None
    with pytest.raises(MazeEnvsError, match=message) as err:
        reader.read(target)
    assert len(str(err.value)) <= MAX_MESSAGE


def test_the_mutations_are_seeded():
    assert mutate(b'{"rows": 3}', random.Random(5)) == mutate(b'{"rows": 3}', random.Random(5))


def test_a_ply_vertex_count_past_the_digit_limit_is_a_format_error(templates, tmp_path_factory):
    reader = _reader("nav PLY")
    target, valid = _copy(templates, tmp_path_factory, reader)
    target.write_bytes(valid.replace(b"element vertex 5", b"element vertex " + b"7" * 5000))
    with pytest.raises(MazeEnvsError, match="bad vertex count") as err:
        reader.read(target)
    assert len(str(err.value)) <= MAX_MESSAGE


@pytest.mark.parametrize(("field", "value"), [("side", "x" * 100_000), ("index", "9" * 3000)])
def test_an_annotation_with_a_huge_opening_gets_a_short_message(field, value):
    from maze_envs.openings.dataset import maze_from_record

    record = {"rows": 2, "cols": 2, "vertical_walls": [[1], [1]], "horizontal_walls": [[1, 1]],
              "openings": [{"label": "A", "side": "top", "index": 0, field: value}]}
    with pytest.raises(MazeFormatError, match="is outside the border") as caught:
        maze_from_record(record, source="annotations.jsonl")
    assert len(str(caught.value)) < MAX_MESSAGE and "annotations.jsonl" in str(caught.value)
