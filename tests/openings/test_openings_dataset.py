"""``maze-envs generate openings``: records, images, variants, determinism, resume and per-sample errors."""

import json

import numpy as np
import pytest
from PIL import Image

from maze_envs.cli import main
from maze_envs.core.errors import MazeFormatError
from maze_envs.openings.dataset import maze_from_record
from maze_envs.openings.puzzle import connected_labels

SPEC_FIELDS = ["image", "rows", "cols", "cell_size", "wall_width", "margin", "num_openings", "openings",
               "connected_pair", "answer", "path_length", "difficulty"]
EXTRAS = ["vertical_walls", "horizontal_walls", "opening_pixels", "path", "decoy_cells"]
SMALL = ["--rows", "8", "10", "--cols", "8", "10"]


def _records(out):
    return [json.loads(line) for line in (out / "annotations.jsonl").read_text().splitlines()]


def test_dataset_records_and_images(tmp_path):
    assert main(["generate", "openings", "--count", "6", *SMALL, "--seed", "3", "--out", str(tmp_path)]) == 0
    records = _records(tmp_path)
    assert [r["image"] for r in records] == [f"images/maze_{i:05d}.png" for i in range(6)]
    for record in records:
        assert list(record) == SPEC_FIELDS + EXTRAS
        assert 8 <= record["rows"] <= 10 and 3 <= record["num_openings"] <= 6
        assert [o["label"] for o in record["openings"]] == [chr(65 + i) for i in range(record["num_openings"])]
        assert set(record["openings"][0]) == {"label", "side", "index", "is_connected"}
        pair = [o["label"] for o in record["openings"] if o["is_connected"]]
        assert record["connected_pair"] == pair and record["answer"] == "-".join(pair)
        assert record["path_length"] == len(record["path"]) >= record["rows"] * record["cols"] / 3
        maze, openings = maze_from_record(record)
        assert connected_labels(maze, openings) == [tuple(pair)]
        image = Image.open(tmp_path / record["image"])
        box = max(p["label_box"][2] for p in record["opening_pixels"])
        assert box <= image.width and image.width == 2 * 28 + record["cols"] * 32 + (record["cols"] + 1) * 5
        assert set(record["decoy_cells"]) == {o["label"] for o in record["openings"] if not o["is_connected"]}


def test_minimal_records_and_variants(tmp_path):
    args = ["generate", "openings", "--count", "8", "--variant", "small-grids", "few-openings", "opposite-sides",
            "fixed-size", "thin-walls", "--no-extras", "--out", str(tmp_path)]
    assert main(args) == 0
    records = _records(tmp_path)
    opposite = {"top": "bottom", "bottom": "top", "left": "right", "right": "left"}
    assert len({(r["rows"], r["cols"]) for r in records}) == 1
    for r in records:
        assert list(r) == SPEC_FIELDS and r["wall_width"] == 2 and 8 <= r["rows"] <= 12 and r["num_openings"] <= 4
        sides = [o["side"] for o in r["openings"] if o["is_connected"]]
        assert opposite[sides[0]] == sides[1]
    with pytest.raises(MazeFormatError, match="vertical_walls"):
        maze_from_record(records[0], source="annotations.jsonl")


def test_explicit_flags_override_variants(tmp_path):
    assert main(["generate", "openings", "--count", "3", "--variant", "large-grids", "thick-walls", "--rows", "9",
                 "--wall-width", "3", "--openings", "4", "--no-balance", "--out", str(tmp_path)]) == 0
    assert json.loads((tmp_path / "config.json").read_text())["balance"] is False
    for r in _records(tmp_path):
        assert r["rows"] == 9 and 14 <= r["cols"] <= 20 and r["wall_width"] == 3 and r["num_openings"] == 4


def test_same_seed_same_dataset(tmp_path):
    for name in ("a", "b"):
        assert main(["generate", "openings", "--count", "4", *SMALL, "--seed", "9", "--out", str(tmp_path / name)]) == 0
    assert _records(tmp_path / "a") == _records(tmp_path / "b")
    for i in range(4):
        a = np.asarray(Image.open(tmp_path / "a" / f"images/maze_{i:05d}.png"))
        assert np.array_equal(a, np.asarray(Image.open(tmp_path / "b" / f"images/maze_{i:05d}.png")))


def test_resume_continues_to_the_same_dataset(tmp_path):
    full, part = tmp_path / "full", tmp_path / "part"
    assert main(["generate", "openings", "--count", "6", *SMALL, "--out", str(full)]) == 0
    assert main(["generate", "openings", "--count", "3", *SMALL, "--out", str(part)]) == 0
    ann = part / "annotations.jsonl"
    ann.write_text(ann.read_text() + '{"image": "images/maze_00003.png", "rows"')  # a run killed mid-line
    assert main(["generate", "openings", "--count", "6", *SMALL, "--resume", "--out", str(part)]) == 0
    assert _records(part) == _records(full)


def test_resume_refuses_other_settings(tmp_path, capsys):
    assert main(["generate", "openings", "--count", "2", *SMALL, "--out", str(tmp_path)]) == 0
    assert (
        main(["generate", "openings", "--count", "4", *SMALL, "--seed", "1", "--resume", "--out", str(tmp_path)]) == 2
    )
    assert "other settings" in capsys.readouterr().err


def test_failed_samples_are_recorded_and_the_run_goes_on(tmp_path):
    assert main(["generate", "openings", "--count", "8", "--rows", "3", "--cols", "4", "--openings", "2", "6",
                 "--seed", "1", "--out", str(tmp_path)]) == 0
    errors = [json.loads(line) for line in (tmp_path / "errors.jsonl").read_text().splitlines()]
    records = _records(tmp_path)
    assert errors and records and len(errors) + len(records) == 8
    assert all("openings fit" in e["error"] for e in errors)


@pytest.mark.parametrize("argv,message", [
    (["--rows", "8", "9", "10"], "--rows takes one value or LOW HIGH"),
    (["--variant", "small-grids", "large-grids"], "exclude each other"),
    (["--openings", "1", "3"], "--openings: must be an integer from 2 to 26, got 1"),
    (["--cell-size", "8", "--wall-width", "2"], "cell size 8"),
    (["--count", "0"], "--count: must be a positive integer, got 0"),
    (["--rows", "3", "--cols", "3", "--openings", "6"], "fewer than the 6 asked"),
])
def test_bad_flags_fail_with_one_line(tmp_path, capsys, argv, message):
    assert main(["generate", "openings", *argv, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
