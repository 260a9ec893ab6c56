"""Anti-shortcut statistics over many seeds: the answer is not predictable from label order or positions."""

import itertools

import numpy as np
import pytest
from scipy import stats

from maze_envs.core.generators import dfs
from maze_envs.openings.puzzle import OPPOSITE, eligible_openings, generate_openings, qualifying_pairs, select_pair

N = 600
P_MIN = 1e-3
Z_MAX = stats.norm.isf(P_MIN / 2)


@pytest.fixture(scope="module")
def puzzles():
    out = []
    for seed in range(N):
        rng = np.random.default_rng(seed)
        out.append(generate_openings(int(rng.integers(8, 11)), int(rng.integers(8, 11)), 5, rng))
    return out


def _z(hits, probabilities):
    """Return the z-score of ``sum(hits)`` against independent Bernoulli ``probabilities``."""
    p = np.asarray(probabilities, dtype=float)
    return (np.sum(hits) - p.sum()) / np.sqrt((p * (1 - p)).sum())


def _relation(puzzle, a, b):
    sa, sb = puzzle.labels[a].opening.side, puzzle.labels[b].opening.side
    return "same" if sa == sb else "opposite" if OPPOSITE[sa] == sb else "adjacent"


def _pair(puzzle):
    return tuple(i for i, lo in enumerate(puzzle.labels) if lo.is_connected)


def test_pair_not_biased_to_first_or_adjacent_labels(puzzles):
    pairs = [_pair(p) for p in puzzles]
    assert stats.binomtest(sum(0 in pair for pair in pairs), N, 2 / 5).pvalue > P_MIN  # P(A in the pair) = 2/5
    assert stats.binomtest(sum(j - i == 1 for i, j in pairs), N, 4 / 10).pvalue > P_MIN  # 4 of 10 pairs adjacent
    counts = [pairs.count(pair) for pair in itertools.combinations(range(5), 2)]
    assert stats.chisquare(counts).pvalue > P_MIN  # every label pair equally likely


@pytest.mark.parametrize("relation", ["opposite", "same", "adjacent"])
def test_pair_sides_match_a_random_pair_of_the_same_openings(puzzles, relation):
    """Guessing by side relation (e.g. 'the pair on opposite sides') does no better than chance."""
    hits = [_relation(p, *_pair(p)) == relation for p in puzzles]
    base = [np.mean([_relation(p, a, b) == relation for a, b in itertools.combinations(range(5), 2)])
            for p in puzzles]
    assert abs(_z(hits, base)) < Z_MAX


@pytest.mark.parametrize("pick", [max, min])
def test_farthest_or_nearest_pair_is_right_at_chance(puzzles, pick):
    hits = []
    for p in puzzles:
        cells = [lo.opening.cell(p.maze.rows, p.maze.cols) for lo in p.labels]
        spread = {(a, b): abs(cells[a][0] - cells[b][0]) + abs(cells[a][1] - cells[b][1])
                  for a, b in itertools.combinations(range(5), 2)}
        best = pick(spread.values())
        ties = [pair for pair, d in spread.items() if d == best]
        hits.append((_pair(p) in ties) / len(ties))  # expected score of guessing among the ties
    assert abs(_z(hits, [0.1] * N)) < Z_MAX


def test_pair_step_is_uniform_over_qualifying_pairs():
    """The spec's pair step (before balancing) picks opposite-side pairs as often as they qualify."""
    rng = np.random.default_rng(0)
    candidates = eligible_openings(10, 10)
    hits, expected = [], []
    for _ in range(400):
        qualifying = qualifying_pairs(dfs(10, 10, rng), candidates)
        i, j = select_pair(candidates, qualifying, rng)
        hits.append(OPPOSITE[candidates[i].side] == candidates[j].side)
        a, b = np.nonzero(np.triu(qualifying, 1))
        expected.append(
            np.mean([OPPOSITE[candidates[x].side] == candidates[y].side for x, y in zip(a, b, strict=False)])
        )
    assert abs(_z(hits, expected)) < Z_MAX


def test_opposite_sides_only_when_asked():
    for seed in range(40):
        p = generate_openings(9, 10, 4, seed, opposite_sides=True)
        assert _relation(p, *_pair(p)) == "opposite"
