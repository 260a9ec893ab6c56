"""Every registered env refuses an oversized or malformed size, count or path argument with a typed error naming it,
before any work: each make runs in a forked child that counts the calls into the generators and scene builders and
the peak of memory allocated, and a refusal must show neither (what was done, not how long it took); a generous
guard turns a hang into a failure instead of a stuck test. Products of sizes over the budget are refused, the
configurations the tests, benchmarks and README use still play, malformed nav actions raise ``InvalidActionError``
naming the field, and ``reset`` options that are not a mapping raise ``MazeConfigError`` in every env."""

import math
import random
import re
import warnings

import gymnasium as gym
import numpy as np
import pytest
from _env_arguments import (
    LEGITIMATE,
    PRODUCTS,
    SMALL,
    Watch,
    fuzz_calls,
    probes,
    run,
    run_probe,
    warm_up,
    work_codes,
)
from gymnasium.utils.env_checker import check_env

from maze_envs.core.budget import check_cost
from maze_envs.core.errors import InvalidActionError, MazeConfigError
from maze_envs.envs.registration import ENV_ENTRIES, VARIANT_ENTRIES

HANG_GUARD_SECONDS = 120.0  # a hang guard only: a refusal is judged by the work it did, never by its time
REFUSAL_PEAK_BYTES = 64 << 20  # a constructor's checks and the spaces of an allowed inner env; a built maze is more
MAX_MESSAGE = 500
IDS = [entry.id for entry in ENV_ENTRIES + VARIANT_ENTRIES]


def small(env_id):
    family = "nav" if env_id.startswith("GaussianNav") else "openings" if "Openings" in env_id else "grid"
    return SMALL[family]


@pytest.fixture(scope="module", autouse=True)
def compiled_kernels():
    """Compile the numba kernels once here, so that the forked children do not each compile them."""
    warm_up()


@pytest.mark.parametrize("probe", probes(), ids=lambda probe: probe.name)
def test_every_hostile_argument_is_refused_by_name_or_harmless(probe):
    outcomes = run_probe(probe, guard=HANG_GUARD_SECONDS)
    unhandled = [f"{o.value!r:.40}: {o.status} {o.detail}" for o in outcomes if not o.handled(probe)]
    assert not unhandled, f"{probe.name} ({probe.kind}):\n" + "\n".join(unhandled)
    assert all(o.length <= MAX_MESSAGE for o in outcomes), [o.length for o in outcomes]
    if probe.kind != "limit":  # refused before any work: no generator or scene builder ran, nothing big allocated
        worked = [f"{o.value!r:.40}: {o.work_calls} work calls, {o.peak_bytes} bytes" for o in outcomes
                  if o.work_calls or o.peak_bytes > REFUSAL_PEAK_BYTES]
        assert not worked, f"{probe.name}:\n" + "\n".join(worked)


def test_every_registered_id_and_vector_env_is_probed():
    probed = {probe.env_id for probe in probes()}
    assert probed == set(IDS)
    assert {p.env_id for p in probes() if p.vector} == {e.id for e in ENV_ENTRIES if e.vector_entry_point}
    named = {p.argument for p in probes() if p.env_id == "GaussianNav-PointGoal-v0"}
    assert {"scenes", "maze_size", "view_width", "view_height", "num_waypoints", "occ_dilation_meters"} <= named
    assert {"label_padding", "margin", "rows"} <= {p.argument for p in probes() if p.env_id == "Maze-Openings-v0"}


@pytest.mark.parametrize(("env_id", "kwargs", "vector"), PRODUCTS, ids=lambda v: str(v)[:40])
def test_sizes_that_fit_alone_and_not_together_are_refused_by_name(env_id, kwargs, vector):
    (status, detail, _, peak, calls), = run(env_id, [(kwargs, True)], vector=vector, guard=HANG_GUARD_SECONDS,
                                             watched=True)
    assert status == "typed" and "MazeConfigError" in detail, detail
    assert calls == 0 and peak <= REFUSAL_PEAK_BYTES, (calls, peak)
    assert any(name in detail for name in kwargs if name != "provide_history"), detail
    assert "allowed" in detail


def test_the_watch_sees_work_and_allocation():
    with Watch(work_codes()) as watch:
        gym.make("Maze-v0", rows=1000, cols=1000).reset(seed=0)
    assert watch.calls >= 1 and watch.peak > REFUSAL_PEAK_BYTES, (watch.calls, watch.peak)


@pytest.mark.parametrize(("env_id", "kwargs", "vector"), LEGITIMATE, ids=lambda v: str(v)[:40])
def test_the_configurations_in_use_still_make_reset_and_step(env_id, kwargs, vector):
    assert run(env_id, [(kwargs, False)], vector=vector, guard=HANG_GUARD_SECONDS)[0][:2] == ("accepted", "")


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("options", ["x", 3, ["maze"], ("a", 1)])
def test_reset_options_that_are_not_a_mapping_are_refused_by_name(env_id, options):
    env = gym.make(env_id, **small(env_id))
    with pytest.raises(MazeConfigError, match=r"^options: must be None or a dict, got "):
        env.reset(seed=0, options=options)
    env.reset(seed=0, options={})
    env.reset(seed=0, options=None)


@pytest.mark.parametrize("env_id", [e.id for e in ENV_ENTRIES if e.vector_entry_point])
def test_vector_reset_options_that_are_not_a_mapping_are_refused_by_name(env_id):
    venv = gym.make_vec(env_id, num_envs=2, vectorization_mode="vector_entry_point", rows=4, cols=4)
    with pytest.raises(MazeConfigError, match="^options: must be None or a dict"):
        venv.reset(seed=0, options="x")
    assert len(venv.reset(seed=0, options={"reset_mask": np.array([True, False])})) == 2


@pytest.mark.parametrize("env_id", IDS)
def test_every_registered_env_passes_gymnasium_check_env(env_id):
    env = gym.make(env_id, **small(env_id))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # check_env's advice on Text/Sequence spaces and image bounds
        check_env(env.unwrapped)


@pytest.mark.parametrize("env_id", IDS)
def test_hostile_actions_step_or_raise_invalid_action_error_in_every_env(env_id):
    assert fuzz_calls(env_id, random.Random(env_id), 60) == []


def started_nav(env_id="GaussianNav-PointGoal-v0", **kwargs):
    env = gym.make(env_id, **{**SMALL["nav"], **kwargs}).unwrapped
    env.reset(seed=0)
    return env


NAN = math.nan
BAD_NAV_ACTIONS = [
    ({}, "missing field"), ({"waypoint": [[0.5, 0.0]]}, "missing field.*arrive"), ("x", "expected a dict"),
    (None, "expected a dict"), ([[0.5, 0.0]], "expected a dict"),
    ({"waypoint": [[0.5, 0.0]], "arrive": 0, "extra": 1}, "unknown field"),
    ({"waypoint": [0.5, 0.0], "arrive": 0}, "field 'waypoint'.*expected shape \\(1, 2\\), got \\(2,\\)"),
    ({"waypoint": np.zeros((3, 2)), "arrive": 0}, "field 'waypoint'.*expected shape"),
    ({"waypoint": [[0.5]], "arrive": 0}, "field 'waypoint'.*expected shape"),
    ({"waypoint": [[0.5, [1]]], "arrive": 0}, "field 'waypoint'"),
    ({"waypoint": [[NAN, 0.0]], "arrive": 0}, "field 'waypoint'.*finite"),
    ({"waypoint": [[math.inf, 0.0]], "arrive": 0}, "field 'waypoint'.*finite"),
    ({"waypoint": [[1e308, 0.0]], "arrive": 0}, "field 'waypoint'.*bounds"),
    ({"waypoint": [[10**30, 0]], "arrive": 0}, "field 'waypoint'"),
    ({"waypoint": [["a", "b"]], "arrive": 0}, "field 'waypoint'.*not numbers"),
    ({"waypoint": [[True, False]], "arrive": 0}, "field 'waypoint'.*not numbers"),
    ({"waypoint": "ahead", "arrive": 0}, "field 'waypoint'"),
    ({"waypoint": [[0.5, 0.0]], "arrive": 2}, "field 'arrive'"),
    ({"waypoint": [[0.5, 0.0]], "arrive": "yes"}, "field 'arrive'"),
    ({"waypoint": [[0.5, 0.0]], "arrive": 0.5}, "field 'arrive'"),
    ({"waypoint": [[0.5, 0.0]], "arrive": None}, "field 'arrive'"),
]


@pytest.mark.parametrize("env_id", ["GaussianNav-PointGoal-v0", "GaussianNav-PoiGoal-v0"])
@pytest.mark.parametrize(("action", "named"), BAD_NAV_ACTIONS, ids=lambda v: repr(v)[:30])
def test_malformed_nav_actions_raise_invalid_action_error_naming_the_field(env_id, action, named):
    env = started_nav(env_id)
    with pytest.raises(InvalidActionError, match=r"^action .* is not in the action space Dict\(") as err:
        env.step(action)
    assert isinstance(err.value, ValueError) and len(str(err.value)) <= MAX_MESSAGE
    assert re.search(named, str(err.value)), str(err.value)
    assert env.session.steps == 0  # nothing moved


@pytest.mark.parametrize("waypoint", [np.array([[0.5, 0.0]], np.float32), [[0.5, 0.0]], np.array([[1, 0]]),
                                      np.array([[0.5, -0.25]], np.float64)])
def test_nav_actions_of_any_real_dtype_within_the_space_still_step(waypoint):
    for arrive in (0, np.int64(0), True):
        assert len(started_nav().step({"waypoint": waypoint, "arrive": arrive})) == 5
    wide = started_nav(num_waypoints=3, max_waypoint_metres=1.0)
    assert len(wide.step({"waypoint": np.full((3, 2), 0.25), "arrive": 1})) == 5


def test_check_cost_applies_both_budgets():
    check_cost("x", nbytes=1 << 20, seconds=0.5)
    with pytest.raises(MazeConfigError, match=r"^--n would need about 2\^9,970 GiB"):
        check_cost("--n", nbytes=10**3010)
    with pytest.raises(MazeConfigError, match=r"^--n would take about 3 s per step \(estimated for one core\)"):
        check_cost("--n", seconds=3.0, per="step")
    with pytest.raises(MazeConfigError, match="would need inf GiB"):
        check_cost("--n", nbytes=math.inf)
