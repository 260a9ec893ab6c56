"""Anti-shortcut statistics over many seeds: the answer is not predictable from label order or sides."""

import itertools

import numpy as np
from scipy import stats

from maze_envs.core.generate import dfs
from maze_envs.core.openings import OPPOSITE, eligible_openings, generate_openings, qualifying_pairs, select_pair

N = 400
P_MIN = 1e-3


def _puzzles(n_openings=5, **kwargs):
    out = []
    for seed in range(N):
        rng = np.random.default_rng(seed)
        out.append(generate_openings(int(rng.integers(8, 11)), int(rng.integers(8, 11)), n_openings, rng, **kwargs))
    return out


def test_pair_not_biased_to_first_or_adjacent_labels():
    puzzles = _puzzles()
    pairs = [tuple(ord(x) - 65 for x in p.connected_pair) for p in puzzles]
    with_a = sum(0 in pair for pair in pairs)
    adjacent = sum(abs(i - j) == 1 for i, j in pairs)
    assert stats.binomtest(with_a, N, 2 / 5).pvalue > P_MIN  # P(A in the pair) = 2/5 for 5 openings
    assert stats.binomtest(adjacent, N, 4 / 10).pvalue > P_MIN  # 4 of the 10 label pairs are adjacent letters
    counts = [pairs.count(pair) for pair in itertools.combinations(range(5), 2)]
    assert stats.chisquare(counts).pvalue > P_MIN  # every label pair equally likely


def test_pair_selection_adds_no_side_bias():
    """The chosen pair is on opposite sides as often as the qualifying candidates are."""
    rng = np.random.default_rng(0)
    candidates = eligible_openings(10, 10)
    chosen_opposite, expected = 0, []
    for _ in range(N):
        qualifying = qualifying_pairs(dfs(10, 10, rng), candidates)
        i, j = select_pair(candidates, qualifying, rng)
        chosen_opposite += OPPOSITE[candidates[i].side] == candidates[j].side
        a, b = np.nonzero(np.triu(qualifying, 1))
        expected.append(np.mean([OPPOSITE[candidates[x].side] == candidates[y].side for x, y in zip(a, b)]))
    mean = float(np.mean(expected))
    sd = np.sqrt(sum(p * (1 - p) for p in expected)) / N
    assert abs(chosen_opposite / N - mean) < 4 * sd


def test_pair_not_always_on_opposite_sides_unless_asked():
    relation = {"opposite": 0, "same": 0, "adjacent": 0}
    for p in _puzzles(4):
        s0, s1 = (p.opening(x).side for x in p.connected_pair)
        relation["opposite" if OPPOSITE[s0] == s1 else "same" if s0 == s1 else "adjacent"] += 1
    assert relation["opposite"] < N / 2 and relation["same"] > 0 and relation["adjacent"] > relation["opposite"]
    for p in _puzzles(4, opposite_sides=True)[:50]:
        s0, s1 = (p.opening(x).side for x in p.connected_pair)
        assert OPPOSITE[s0] == s1
