"""The one statistics module: Wilson intervals for rates and seeded bootstrap intervals for everything else always
hold the estimate, never leave the range the values can take, and repeat exactly for the same values."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maze_envs.core.stats import bootstrap_interval, summarise, wilson_interval

FINITE = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_a_wilson_interval_holds_the_rate_inside_zero_and_one(counts):
    successes, n = counts
    low, high = wilson_interval(successes, n)
    assert 0.0 <= low <= successes / n <= high <= 1.0


@settings(max_examples=60, deadline=None)
@given(st.lists(FINITE, min_size=1, max_size=60))
def test_a_bootstrap_interval_holds_the_mean_inside_the_values_range(values):
    summary = summarise(values)
    assert min(values) <= summary.low <= summary.mean <= summary.high <= max(values)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=40))
def test_path_efficiencies_in_zero_one_get_an_interval_in_zero_one(values):
    summary = summarise(values)
    assert 0.0 <= summary.low <= summary.mean <= summary.high <= 1.0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=80))
def test_a_rate_of_outcomes_gets_its_wilson_interval(outcomes):
    summary = summarise(outcomes, interval="wilson")
    assert summary.mean == sum(outcomes) / len(outcomes)
    assert (summary.low, summary.high) == wilson_interval(sum(outcomes), len(outcomes))


def test_the_figures_the_reports_showed_out_of_range_now_stay_in_range():
    success = summarise([1] + [0] * 14, interval="wilson").scaled(100)  # was 6.667 [-7.63, 21]
    assert success.mean == pytest.approx(100 / 15) and 0 < success.low < success.mean < success.high < 100
    latency = summarise([0.9644, 0.0045])  # was [-0.189, 0.449] by a normal interval
    assert 0.0045 <= latency.low <= latency.high <= 0.9644
    efficiency = summarise([1.0, 0.64, 1.0])  # was 0.88 [0.69, 1.07]
    assert 0.64 <= efficiency.low <= efficiency.mean <= efficiency.high <= 1.0
    rare = summarise([0.0] * 16 + [1.0])  # a rare success as a mean, was 0.06 [-0.06, 0.18]
    assert rare.low == 0.0 and rare.high <= 1.0


def test_the_same_values_give_the_same_interval_and_a_seed_changes_the_draw():
    values = [0.1 * k for k in range(23)]
    assert bootstrap_interval(values) == bootstrap_interval(list(values))
    assert bootstrap_interval(values, seed=1) != bootstrap_interval(values)
    many = [float(k % 7) for k in range(5000)]  # drawn in chunks, still inside the values' range
    low, high = bootstrap_interval(many)
    assert 0 < low < sum(many) / len(many) < high < 6


def test_constant_and_single_values_get_a_point_interval_and_empty_gets_nan():
    assert bootstrap_interval([2.5]) == (2.5, 2.5) and bootstrap_interval([0.1] * 9) == (0.1, 0.1)
    empty = summarise([])
    assert empty.count == 0 and math.isnan(empty.low) and math.isnan(empty.mean)


@pytest.mark.parametrize("call, message", [
    (lambda: summarise([1, 2], interval="normal"), "interval must be one of wilson, bootstrap"),
    (lambda: summarise([0, 2], interval="wilson"), "needs 0/1 values"),
    (lambda: summarise([1.0, math.inf]), "values must be finite"),
    (lambda: wilson_interval(3, 2), "0 <= successes <= n"),
    (lambda: bootstrap_interval([]), "at least one value"),
])
def test_bad_input_raises_naming_what_is_wrong(call, message):
    with pytest.raises(ValueError, match=message):
        call()
