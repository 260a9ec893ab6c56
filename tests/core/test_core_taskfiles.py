"""Task-file conventions: names a task's files get, media kinds, and generated file -> task, one matcher for all."""

from hypothesis import given
from hypothesis import strategies as st

from maze_envs.tasks.files import (
    generated_name,
    media_of,
    puzzle_name,
    solution_name,
    solution_stems,
    task_of,
    task_stem,
)

STEM = task_stem("dfs", "easy", 5, 5, 3, "var1_fixed_both")


def test_a_task_s_files_are_named_after_its_stem():
    assert STEM == "dfs_easy_5x5_n003_var1_fixed_both"
    assert puzzle_name(STEM) == f"{STEM}.png" and solution_name(STEM) == f"{STEM}_solution.png"
    assert generated_name(STEM, "image") == f"{STEM}_targeted_solution.png"
    assert generated_name(STEM, "video") == f"{STEM}.mp4"


def test_media_kind_by_suffix_in_any_case():
    assert media_of("a.PNG") == "image" and media_of("a.webm") == "video" and media_of("a.txt") is None


def test_generated_names_map_back_to_their_task():
    stems = [STEM, "dfs_easy_5x5_n003", "wilson_hard_12x12_n000_var3_far"]
    assert task_of(generated_name(STEM, "image"), stems) == STEM
    assert task_of(generated_name(STEM, "video"), stems) == STEM
    assert task_of(f"{STEM}_take2.jpg", stems) == STEM
    assert task_of("dfs_easy_5x5_n003_other.png", stems) == "dfs_easy_5x5_n003"
    assert task_of("unrelated.png", stems) is None
    assert task_of(f"{STEM}_targeted_solution.png") == STEM


@given(st.sampled_from(["dfs", "wilson"]), st.sampled_from(["easy", "hard"]), st.integers(3, 13),
       st.integers(0, 999), st.sampled_from(["var1_fixed_both", "var3_far"]), st.sampled_from(["image", "video"]))
def test_every_generated_name_round_trips(algo, difficulty, side, idx, variant, media):
    stem = task_stem(algo, difficulty, side, side, idx, variant)
    assert task_of(generated_name(stem, media), [stem, stem[:-4]]) == stem


def test_solution_stems_lists_the_tasks_of_a_solution_folder(tmp_path):
    for name in (solution_name(STEM), puzzle_name(STEM), "notes.txt"):
        (tmp_path / name).write_bytes(b"x")
    assert solution_stems(tmp_path) == [STEM]
