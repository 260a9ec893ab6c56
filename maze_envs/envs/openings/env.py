"""Maze-Openings-v0: one question about a labelled-openings puzzle image per episode."""

from __future__ import annotations

import copy
import itertools
import string
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from maze_envs.core.errors import MazeConfigError, brief_repr, reject_unknown_arguments
from maze_envs.core.validate import choice
from maze_envs.openings.dataset import OpeningsDatasetConfig, puzzle_input, sample_sizes
from maze_envs.openings.puzzle import LABELS, OpeningsPuzzle, generate_openings
from maze_envs.openings.render import OpeningsStyle, render_openings

from ..actions import checked_action, checked_options, reset_needed
from ..costs import Cost, check_env_cost, image_cost

QUESTION_FORMS: tuple[str, ...] = ("pair", "partner", "verify")


def unanswered_info() -> dict[str, Any]:
    """Return the answer's info keys as ``reset`` gives them, before any answer (``step`` fills them in)."""
    return {"correct": False, "answer": "", "connected_pair": ["", ""]}


QUESTION_CHARSET = string.ascii_letters + string.digits + string.punctuation + " "
NO, YES = 0, 1


def label_pairs(max_openings: int) -> list[tuple[int, int]]:
    """Return the label-index pairs ``(i, j)``, ``i < j``, in the order of the ``pair`` form's actions."""
    return list(itertools.combinations(range(max_openings), 2))


def _range(name: str, value: int | tuple[int, int]) -> tuple[int, int]:
    """Return ``value`` (an int or an inclusive ``(low, high)`` pair of ints) as ``(low, high)``."""
    pair = (value, value) if isinstance(value, (int, np.integer)) else value
    if (not isinstance(pair, (tuple, list)) or len(pair) != 2
            or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in pair)):
        raise MazeConfigError(f"{name}: expected an int or a (low, high) pair of ints, got {brief_repr(value)}")
    low, high = pair
    if low > high:
        raise MazeConfigError(f"{name}: low {low} is above high {high}")
    return int(low), int(high)


class OpeningsEnv(gym.Env):
    """Answer one question about which labelled border openings of a maze are connected.

    ## Description
    Each episode shows one labelled-openings puzzle (see ``maze_envs.openings.puzzle``): a
    perfect DFS maze, drawn black on white, with 3-6 gaps in its outer wall labelled A, B, C, ...
    Exactly two openings are joined by a path through the maze; every other opening leads into
    a walled-off dead-end pocket. The agent answers one question and the episode ends. The
    question form is fixed per environment (``question``):

    - ``pair``: which two openings are connected?
    - ``partner``: given one connected opening, which opening does it connect to?
    - ``verify``: is a proposed pair of openings connected?

    ## Action Space
    - ``pair``: ``Discrete(K*(K-1)/2)`` for ``K`` the most openings: action ``k`` answers the label
      pair ``label_pairs(K)[k]`` (``0 = A-B, 1 = A-C, ...``).
    - ``partner``: ``Discrete(K)``: the index of the answered label (``0 = A``).
    - ``verify``: ``Discrete(2)``: ``0`` no, ``1`` yes.

    ``info["action_mask"]`` marks the actions that name labels present in this puzzle (and, for
    ``partner``, not the given label itself).

    ## Observation Space
    ``Dict`` with ``image`` (``Box(0, 255, (H, W, 3), uint8)``: the puzzle, drawn from the top-left
    corner of a white canvas sized for the largest maze), ``labels`` (``Sequence(Text(1))``: the
    labels present, in order, as a tuple of one-letter strings, e.g. ``("A", "B", "C", "D")``) and
    ``question`` (``Text``: the question in English). ``partner`` adds
    ``given`` (``Discrete(K)``, the given label's index); ``verify`` adds ``proposal``
    (``MultiDiscrete([K, K])``, the two proposed label indices).

    ## Rewards
    ``1`` for a correct answer, ``0`` otherwise.

    ## Starting State
    ``reset`` draws a size in ``rows x cols``, a number of openings in ``openings`` and a new
    puzzle from the environment's seeded generator; for ``partner`` the given label is one of
    the connected pair, for ``verify`` the proposal is the connected pair with probability 1/2,
    else a uniform wrong pair. ``info["puzzle"]`` holds the maze walls and the labelled openings
    (without the answer), the input an oracle solves by BFS.

    ## Episode End
    The episode terminates after the single answer. ``reset`` and ``step`` return the same info keys (as
    Minari's ``DataCollector(record_infos=True)`` needs): the answer's ``correct``, ``answer`` (``"B-D"``,
    ``"D"`` or ``"yes"``/``"no"``) and ``connected_pair`` hold ``False``, ``""`` and ``["", ""]`` until the
    answer fills them in.

    ## Arguments
    ``gym.make("Maze-Openings-v0", question="pair", rows=(8, 20), cols=(8, 20), openings=(3, 6),
    opposite_sides=False, balance=True, cell_size=32, wall_width=5, margin=8, label_padding=20,
    render_mode=None)``. ``balance`` keeps the pair's position from giving the answer away
    (see ``maze_envs.openings.puzzle``). ``rows``, ``cols`` and ``openings`` take an int or an inclusive
    ``(low, high)`` range. ``render_mode="rgb_array"`` makes ``render()`` return the image.

    - An unknown keyword argument raises ``UnknownArgumentError``, a ``MazeConfigError`` that is also a ``TypeError``
      worded as Python's ("got an unexpected keyword argument 'x'"), so TorchRL's ``GymEnv`` drops its ``frameskip``.
    - Sizes and counts whose estimated cost passes the budget (2 GiB for one array, 1 s of work for one make,
      reset or step on one core; ``maze_envs.envs.costs``), products of them included, raise ``MazeConfigError``
      naming them at make; ``reset(options=...)`` takes None or a mapping (else ``MazeConfigError``).

    ``Maze-Openings-Numeric-v0`` registers the same env under ``NumericObservation``: ``labels`` as
    ``MultiBinary(K)``, no ``question`` text, so stable-baselines3 and ``FlattenObservation`` accept it.

    ## Version History
    - v0: initial version (maze-envs 0.1.0).
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 1}

    def __init__(self, question: str = "pair", rows: int | tuple[int, int] = (8, 20),
                 cols: int | tuple[int, int] = (8, 20), openings: int | tuple[int, int] = (3, 6),
                 opposite_sides: bool = False, balance: bool = True, cell_size: int = 32, wall_width: int = 5,
                 margin: int = 8, label_padding: int = 20, render_mode: str | None = None, **unknown: Any):
        reject_unknown_arguments(type(self).__name__, unknown)
        choice(question, QUESTION_FORMS, parameter="question")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise MazeConfigError(
                f"render_mode: {brief_repr(render_mode)} is not one of {self.metadata['render_modes']}"
            )
        self.question_form = question
        self.render_mode = render_mode
        self.style = OpeningsStyle(cell_size, wall_width, margin, label_padding)
        rows, cols = _range("rows", rows), _range("cols", cols)
        geometry = self.style.geometry(rows[1], cols[1])
        self.image_shape = (geometry.height, geometry.width, 3)
        image = image_cost(geometry.height * geometry.width)
        image_arguments = "rows/cols with cell_size, wall_width, margin and label_padding (the puzzle image)"
        check_env_cost(image_arguments, Cost(nbytes=image.nbytes), "reset")  # its memory before the sample's work
        self.config = OpeningsDatasetConfig(count=1, rows=rows, cols=cols, openings=_range("openings", openings),
                                            opposite_sides=opposite_sides, balance=balance, style=self.style)
        check_env_cost(image_arguments, image, "reset")
        self.max_openings = self.config.openings[1]
        self.pairs = label_pairs(self.max_openings)
        obs = {
            "image": spaces.Box(0, 255, self.image_shape, np.uint8),
            "labels": spaces.Sequence(spaces.Text(1, min_length=1, charset=LABELS[:self.max_openings])),
            "question": spaces.Text(400, min_length=1, charset=QUESTION_CHARSET),
        }
        if question == "pair":
            self.action_space = spaces.Discrete(len(self.pairs))
        elif question == "partner":
            self.action_space = spaces.Discrete(self.max_openings)
            obs["given"] = spaces.Discrete(self.max_openings)
        else:
            self.action_space = spaces.Discrete(2)
            obs["proposal"] = spaces.MultiDiscrete([self.max_openings, self.max_openings])
        self.observation_space = spaces.Dict(obs)
        self.puzzle: OpeningsPuzzle | None = None
        self._truth: int | None = None
        self._mask: np.ndarray | None = None
        self._obs: dict[str, Any] = {}
        self._done = True

    def _question(self) -> tuple[dict[str, Any], int, np.ndarray]:
        """Return the form's observation fields, the correct action and the action mask."""
        assert self.puzzle is not None
        n = self.puzzle.num_openings
        labels = LABELS[:n]
        listed = ", ".join(labels)
        a, b = (LABELS.index(x) for x in self.puzzle.connected_pair)
        if self.question_form == "pair":
            mask = np.array([j < n for _, j in self.pairs], dtype=np.int8)
            text = (f"Which two labelled openings of this maze are connected by a path through the maze? "
                    f"The openings are {listed}. Answer with two labels, e.g. A-B.")
            return {"question": text}, self.pairs.index((a, b)), mask
        if self.question_form == "partner":
            given, other = (a, b) if self.np_random.random() < 0.5 else (b, a)
            mask = np.array([i < n and i != given for i in range(self.max_openings)], dtype=np.int8)
            text = (f"Opening {LABELS[given]} is connected by a path through the maze to exactly one other "
                    f"labelled opening. Which one? The openings are {listed}. Answer with one label.")
            return {"given": given, "question": text}, other, mask
        if self.np_random.random() < 0.5:
            proposal, truth = (a, b) if self.np_random.random() < 0.5 else (b, a), YES
        else:
            wrong = [p for p in itertools.combinations(range(n), 2) if p != (a, b)]
            proposal = wrong[int(self.np_random.integers(len(wrong)))]
            if self.np_random.random() < 0.5:
                proposal = proposal[::-1]
            truth = NO
        text = (f"Are openings {LABELS[proposal[0]]} and {LABELS[proposal[1]]} of this maze connected by a path "
                f"through the maze? The openings are {listed}. Answer yes or no.")
        return {"proposal": np.array(proposal, dtype=np.int64), "question": text}, truth, np.ones(2, dtype=np.int8)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Draw a new puzzle and question; return ``(observation, info)``. ``options`` (None or a mapping) are
        not used."""
        checked_options(options)
        super().reset(seed=seed)
        rows, cols, n = sample_sizes(self.config, self.np_random)
        self.puzzle = generate_openings(rows, cols, n, self.np_random, opposite_sides=self.config.opposite_sides,
                                        balance=self.config.balance)
        rendering = render_openings(self.puzzle, self.style)
        canvas = np.full(self.image_shape, 255, dtype=np.uint8)
        rgb = rendering.rgb()
        canvas[:rgb.shape[0], :rgb.shape[1]] = rgb
        fields, self._truth, self._mask = self._question()
        self._obs = {"image": canvas, "labels": tuple(LABELS[:n]), **fields}
        self._done = False
        self._info = {
            "question_form": self.question_form,
            "action_mask": self._mask.copy(),
            "num_openings": n,
            "max_openings": self.max_openings,
            "difficulty": self.puzzle.difficulty,
            "puzzle": puzzle_input(self.puzzle),
            "opening_pixels": [p.to_dict() for p in rendering.labels],
            **unanswered_info(),
        }
        info = copy.deepcopy(self._info)
        return self._observation(), info

    def _observation(self) -> dict[str, Any]:
        return {key: value.copy() if isinstance(value, np.ndarray) else value for key, value in self._obs.items()}

    def answer_text(self, action: int) -> str:
        """Return the answer that ``action`` gives in this environment's form (``"A-C"``, ``"C"``, ``"yes"``)."""
        if self.question_form == "pair":
            i, j = self.pairs[int(action)]
            return f"{LABELS[i]}-{LABELS[j]}"
        if self.question_form == "partner":
            return LABELS[int(action)]
        return "yes" if int(action) == YES else "no"

    def step(self, action: int):
        """Score the answer; return ``(observation, reward, terminated=True, truncated=False, info)``."""
        if self._done or self.puzzle is None:
            raise reset_needed(type(self).__name__, " or after this episode's one answer")
        checked_action(self.action_space, action)
        correct = int(action) == self._truth
        self._done = True
        info = {**copy.deepcopy(self._info), "correct": correct, "answer": self.answer_text(self._truth),
                "connected_pair": list(self.puzzle.connected_pair)}
        return self._observation(), float(correct), True, False, info

    def render(self) -> np.ndarray | None:
        """Return the current puzzle image (``rgb_array``), or None without a render mode."""
        if self.render_mode != "rgb_array":
            return None
        return self._obs["image"].copy() if "image" in self._obs else None
