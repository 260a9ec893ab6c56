"""``ShortMemory``: a sliding window of multi-view frames and poses, history kept as shrunken front views."""

from __future__ import annotations

from typing import Sequence

import numpy as np
from PIL import Image

from maze_envs.core.validate import choice

RESAMPLE = {"bilinear": Image.Resampling.BILINEAR, "bicubic": Image.Resampling.BICUBIC}


def _as_pil(image) -> Image.Image:
    return image if isinstance(image, Image.Image) else Image.fromarray(np.asarray(image, np.uint8))


class ShortMemory:
    """The current frame's views plus up to ``max_history_frames`` earlier front views (shrunk by
    ``resize_ratio``), each stored with its pose and frame index.

    ``reorder_views`` takes input in the renderer's order [left, right, front] and stores [left, front, right].
    When full, ``add_frame(..., have_memory=True)`` drops the oldest history frame; the default drops the one
    closest in time to its predecessor, keeping the history spread out. ``input_img_size`` is kept for
    compatibility and unused. ``resample`` is the filter that shrinks history views: ``bilinear`` (this project's)
    or ``bicubic`` (Pillow's default for ``resize``, which ABot-Navigation's memory uses).
    """

    def __init__(self, max_history_frames: int = 20, num_current_views: int = 3,
                 input_img_size: tuple[int, int] = (476, 420), resize_ratio: float = 0.25,
                 reorder_views: bool = True, resize_on_add: bool = True, resample: str = "bilinear"):
        choice(resample, RESAMPLE, parameter="resample")
        self.resample = resample
        self.max_history_frames = max_history_frames
        self.num_current_views = num_current_views
        self.input_img_size = input_img_size
        self.resize_ratio = resize_ratio
        self.reorder_views = reorder_views
        self.resize_on_add = resize_on_add
        self.reset()

    def reset(self) -> None:
        """Forget every stored image, pose and counter; returns nothing."""
        self._images: list[Image.Image] = []
        self._poses: list[np.ndarray] = []
        self._indices: list[int] = []
        self._current = 0
        self.frame_count = 0

    def reset_history(self) -> None:
        """Forget the history, keeping the current frame's views; returns nothing."""
        keep = self._current
        self._images, self._poses, self._indices = (lst[len(lst) - keep:] if keep else [] for lst in
                                                    (self._images, self._poses, self._indices))

    def add_frame(self, rgbs: Sequence, pose: np.ndarray, have_memory: bool = False,
                  num_current_image: int | None = None) -> int:
        """Store a new frame (its views and pose); return its zero-based frame index."""
        views = [_as_pil(im) for im in rgbs]
        if self.reorder_views and len(views) == 3:
            views = [views[0], views[2], views[1]]
        if self._current > 1:  # the previous frame becomes history: keep only its front view
            front = len(self._images) - self._current + (1 if self._current == 3 else 0)
            for lst in (self._images, self._poses, self._indices):
                kept = lst[front]
                del lst[len(lst) - self._current:]
                lst.append(kept)
        if self._current and self.resize_on_add and self.resize_ratio != 1.0:
            old = self._images[-1]
            size = (max(1, int(old.width * self.resize_ratio)), max(1, int(old.height * self.resize_ratio)))
            self._images[-1] = old.resize(size, RESAMPLE[self.resample])
        index = self.frame_count
        self.frame_count += 1
        pose = np.array(pose, float)
        self._images.extend(views)
        self._poses.extend(pose for _ in views)
        self._indices.extend(index for _ in views)
        self._current = len(views)
        history = len(self._images) - self._current
        if history > self.max_history_frames:
            if have_memory or history < 2:
                drop = 0
            else:
                drop = int(np.argmin(np.diff(self._indices[:history]))) + 1
            for lst in (self._images, self._poses, self._indices):
                del lst[drop]
        return index

    def __len__(self) -> int:
        return len(self._images)

    def get_all_images(self) -> list[Image.Image]:
        """Return every stored image: history front views, then the current views."""
        return list(self._images)

    def get_current_images(self) -> list[Image.Image]:
        """Return the current frame's views (left, front, right when reordered)."""
        return self._images[len(self._images) - self._current:] if self._current else []

    def get_history_images(self) -> list[Image.Image]:
        """Return the history's shrunken front views, oldest first."""
        return self._images[:len(self._images) - self._current]

    def get_all_poses(self) -> list[np.ndarray]:
        """Return one pose per stored image."""
        return list(self._poses)

    def get_history_poses(self) -> list[np.ndarray]:
        """Return the poses of the history frames, oldest first."""
        return self._poses[:len(self._poses) - self._current]

    def get_last_pose(self) -> np.ndarray | None:
        """Return the most recent pose, or None when empty."""
        return self._poses[-1] if self._poses else None

    def get_image_indices(self) -> list[int]:
        """Return the frame index of every stored image."""
        return list(self._indices)
