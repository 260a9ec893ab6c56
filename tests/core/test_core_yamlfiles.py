"""The one YAML reader and deep merge: typed errors naming the file and the key."""

import pytest

from maze_envs.core.errors import ConfigFileError, ConfigFileNotFoundError
from maze_envs.core.yamlfiles import deep_merge, read_yaml
from maze_envs.evaluators.bench.config import resolve_config


def test_read_yaml_returns_the_mapping_and_an_empty_file_as_empty(tmp_path):
    (tmp_path / "a.yaml").write_text("a: 1\nb: {c: 2}\n")
    (tmp_path / "empty.yaml").write_text("")
    assert read_yaml(tmp_path / "a.yaml") == {"a": 1, "b": {"c": 2}}
    assert read_yaml(tmp_path / "empty.yaml") == {}


@pytest.mark.parametrize(("text", "message"), [
    ("- 1\n", "agent config must be a mapping, got list"),
    ("a: [1\n", "cannot read agent config: while parsing"),
    ("1: x\n", "field names must be strings, got 1"),
    ("[" * 10_000 + "]" * 10_000, "nested too deeply"),
])
def test_read_yaml_names_the_file(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigFileError, match=message) as err:
        read_yaml(path, what="agent config")
    assert err.value.source == str(path) and str(err.value).startswith(f"{path}: ")


def test_a_missing_file_is_also_a_file_not_found_error(tmp_path):
    with pytest.raises(FileNotFoundError) as err:
        read_yaml(tmp_path / "absent.yaml")
    assert isinstance(err.value, ConfigFileNotFoundError) and "absent.yaml: cannot read config: file not found" in str(
        err.value
    )


def test_deep_merge_merges_nested_mappings_and_leaves_inputs_alone():
    base = {"a": 1, "s": {"x": 1, "y": {"z": 1}}}
    over = {"s": {"y": {"z": 2}, "w": 3}, "b": 2}
    assert deep_merge(base, over) == {"a": 1, "b": 2, "s": {"x": 1, "w": 3, "y": {"z": 2}}}
    assert base == {"a": 1, "s": {"x": 1, "y": {"z": 1}}}


def test_deep_merge_names_the_file_and_key_of_a_section_that_is_no_mapping(tmp_path):
    with pytest.raises(ConfigFileError, match=r"^local.yaml: sandbox: must be a mapping, got 5$") as err:
        deep_merge({}, 5, source="local.yaml", key="sandbox")
    assert (err.value.source, err.value.key) == ("local.yaml", "sandbox")
    path = tmp_path / "config.yaml"
    path.write_text("text2d: five\n")
    with pytest.raises(ConfigFileError, match="config.yaml: text2d: must be a mapping, got 'five'"):
        resolve_config({}, config=path, environ={})
