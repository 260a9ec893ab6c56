"""Client input never ends in a traceback: ``generate minari`` with a bad seed, an env Minari cannot store or a
policy that cannot read the observations; a reply nested 50,000 deep; an Inspect ``-T`` value YAML reads as a
number; the single-file PPO on an env it cannot train. Each is one typed error (one line, exit 2 on the CLI)."""

import re

import pytest

from maze_envs.cli import main
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.replies import READING_RULES

DEEP = "[" * 50_000 + "]" * 50_000


@pytest.fixture
def minari_home(tmp_path, monkeypatch):
    minari = pytest.importorskip("minari")
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    return minari


@pytest.mark.parametrize(("flags", "words"), [
    (["--seed", "-1"], "--seed: must be an integer from 0 to 9223372036854775807, got -1"),
    (["--seed", str(2 ** 70)], "--seed: must be an integer from 0 to"),
    (["--envs", "Maze-Openings-v0"], "--envs: Minari cannot store the observation space of Maze-Openings-v0 .*record "
                                     "Maze-Openings-Numeric-v0"),
    (["--envs", "Maze-PartialObs-Image-v0", "--policies", "explorer"],
     "--policies: the explorer reads the window's codes; Maze-PartialObs-Image-5x5-v0 shows them as "
     "RGBImageObservation"),
    (["--envs", "hostile_mod:Maze-v0"], "--envs: 'hostile_mod:Maze-v0' is not a registered id"),
])
def test_generate_minari_refuses_in_one_line_and_writes_nothing(minari_home, capsys, flags, words):
    argv = ["generate", "minari", "--sizes", "5x5", "--episodes", "1", "--envs", "Maze-v0", "--policies", "random"]
    assert main(argv + flags) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert re.search(words, err), err
    assert minari_home.list_local_datasets() == {}


def test_the_default_policies_play_the_flat_ids(minari_home, capsys):
    assert main(["generate", "minari", "--envs", "Maze-PartialObs-Flat-v0", "--sizes", "5x5", "--episodes", "1"]) == 0
    assert sorted(minari_home.list_local_datasets()) == [f"maze-envs/maze-partialobs-flat-5x5/{policy}-v0"
                                                         for policy in ("explorer", "oracle", "random")]


def test_the_explorer_decodes_a_flat_window_to_the_codes_it_was_made_from():
    import gymnasium as gym

    from maze_envs.agents.explorer import DecodedObservations, FrontierExplorer, explorer_for

    flat = gym.make("Maze-PartialObs-Flat-v0", rows=3, cols=3)
    codes = gym.make("Maze-PartialObs-v0", rows=3, cols=3)
    observation, _ = flat.reset(seed=4)
    decoded = explorer_for(flat)
    assert isinstance(decoded, DecodedObservations) and isinstance(explorer_for(codes), FrontierExplorer)
    assert (decoded.flat.codes(observation) == codes.reset(seed=4)[0]).all()
    with pytest.raises(MazeConfigError, match="the explorer walks a partial view; Maze-v0 has none"):
        explorer_for(gym.make("Maze-v0"))


@pytest.mark.parametrize("rule", sorted(READING_RULES))
def test_a_reply_nested_50000_deep_is_read_as_no_answer(rule):
    reading = READING_RULES[rule]
    assert reading.path(DEEP).cells == [] and reading.moves(DEEP).moves == []
    if rule == "strict":
        assert reading.path("[[0, 0], [0, 1]]").cells == [(0, 0), (0, 1)]


def test_inspect_task_arguments_that_yaml_reads_as_numbers_are_refused_by_name():
    pytest.importorskip("inspect_ai")
    from inspect_ai._cli.util import parse_cli_args

    from maze_envs.integrations.inspect.tasks import config_for

    args = parse_cli_args(("sizes=0x0",))
    assert args == {"sizes": 0}
    with pytest.raises(MazeConfigError, match=r"sizes: must be sizes HxW such as '5x5,9x9', got 0 \(YAML reads"):
        config_for("text2d", protocol="default", count=1, seed=0, trials=1, mazes_dir=None, scoring="v2",
                   anti_cheat=True, **args)


def test_the_single_file_ppo_refuses_in_one_line_and_leaves_no_folder(tmp_path, capsys):
    pytest.importorskip("torch")
    from maze_envs.agents.rl import ppo_native
    from maze_envs.agents.rl.flags import FLAG_HELP, dataclass_parser, run_script

    out = tmp_path / "run"
    for flags, words in ((["--env-id", "Maze-Openings-v0"], "--env-id: PPO reads Box observations"),
                         (["--env-id", "hostile_mod:Maze-v0"], "--env-id: must be a registered environment id")):
        assert run_script(ppo_native.Args, "PPO", ppo_native.train, flags + ["--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err and not out.exists()
    text = "".join(dataclass_parser(ppo_native.Args, "PPO").format_help().split())
    assert [name for name in vars(ppo_native.Args()) if "".join(FLAG_HELP[name].split()) not in text] == []
