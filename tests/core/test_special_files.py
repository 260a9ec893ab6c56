"""One opener for data files and one reader for config files: every reader that takes a path refuses a FIFO, a
device, a directory and (where it knows its folder) a link leading outside, without waiting on it; every YAML
reader refuses aliases and deep nesting before building anything."""

import os
import signal

import pytest
from _special_files import YAML_COSTS, YAML_READERS, make_case, reader_cases

from maze_envs.core import datafiles
from maze_envs.core.datafiles import UnsafeFileError, read_data_bytes
from maze_envs.core.errors import ConfigFileError, MazeEnvsError

HANG_GUARD_S = 60  # generous: a reader that waits on a FIFO never returns at all


@pytest.fixture
def hang_guard():
    def stop(signum, frame):
        raise AssertionError("the reader waited on the special file")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(HANG_GUARD_S)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def _opened(monkeypatch) -> list:
    """Record every path the one opener opens (``os.open`` inside ``maze_envs.core.datafiles``)."""
    opened = []
    real = os.open

    def spy(path, *args, **kwargs):
        opened.append(os.fspath(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(datafiles.os, "open", spy)
    return opened


CASES = [(reader, special) for _, reader, special in reader_cases()]


@pytest.mark.parametrize(("reader", "special"), CASES, ids=lambda case: getattr(case, "label", case))
def test_every_reader_refuses_special_files_without_opening_them(tmp_path, hang_guard, monkeypatch, reader, special):
    path = make_case(reader, special, tmp_path)
    opened = _opened(monkeypatch)
    if reader.label == "image (core)":  # answers None for a file that is no image
        assert reader.read(path) is None
    else:
        with pytest.raises(MazeEnvsError) as err:
            reader.read(path)
        assert len(str(err.value)) < 500
    assert os.fspath(path) not in opened


def test_the_opener_names_what_the_file_is(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(UnsafeFileError, match="a FIFO, not a regular file") as err:
        read_data_bytes(tmp_path / "pipe")
    assert err.value.source == str(tmp_path / "pipe") and isinstance(err.value, OSError)
    with pytest.raises(UnsafeFileError, match="a character device"):
        read_data_bytes("/dev/zero")
    (tmp_path / "big").write_bytes(b"x" * 11)
    with pytest.raises(UnsafeFileError, match="11 bytes, over the 10-byte limit"):
        read_data_bytes(tmp_path / "big", max_bytes=10)
    assert read_data_bytes(tmp_path / "big", root=tmp_path) == b"x" * 11


def test_a_file_swapped_for_a_fifo_after_the_check_is_refused_on_the_open_descriptor(tmp_path, hang_guard,
                                                                                    monkeypatch):
    path = tmp_path / "maze.json"
    path.write_text("{}")
    check = datafiles.check_data_file

    def then_swap(*args, **kwargs):
        info = check(*args, **kwargs)
        path.unlink()
        os.mkfifo(path)
        return info

    monkeypatch.setattr(datafiles, "check_data_file", then_swap)
    with pytest.raises(UnsafeFileError, match="a FIFO"):
        read_data_bytes(path)


@pytest.mark.parametrize("case", sorted(YAML_COSTS))
@pytest.mark.parametrize("reader", YAML_READERS, ids=lambda r: r.label)
def test_every_yaml_reader_refuses_aliases_and_deep_nesting_before_building(tmp_path, monkeypatch, reader, case):
    import yaml

    built = []
    real = yaml.SafeLoader.construct_document
    monkeypatch.setattr(yaml.SafeLoader, "construct_document", lambda self, node: built.append(1) or real(self, node))
    path = tmp_path / reader.name
    path.write_text(YAML_COSTS[case])
    with pytest.raises(ConfigFileError, match="alias|nested too deeply") as err:
        reader.read(path)
    assert str(path) in str(err.value)
    assert built == [], "nothing of the document is built"


def test_nav_base_files_go_through_the_same_reader(tmp_path):
    from maze_envs.evaluators.nav.config import load_agent_config

    (tmp_path / "base.yaml").write_text(YAML_COSTS["billion laughs"])
    (tmp_path / "agent.yaml").write_text("_base_: base.yaml\nmode: indoor\n")
    with pytest.raises(ConfigFileError, match="base.yaml: cannot read config: YAML aliases are not accepted"):
        load_agent_config(tmp_path / "agent.yaml")
    os.remove(tmp_path / "base.yaml")
    os.mkfifo(tmp_path / "base.yaml")
    with pytest.raises(ConfigFileError, match="a FIFO"):
        load_agent_config(tmp_path / "agent.yaml")


def test_anchors_without_aliases_and_plain_configs_still_read(tmp_path):
    from maze_envs.core.yamlfiles import read_yaml

    (tmp_path / "ok.yaml").write_text("a: &kept {b: [1, 2, {c: 3}]}\n")
    assert read_yaml(tmp_path / "ok.yaml") == {"a": {"b": [1, 2, {"c": 3}]}}
