"""Media as chat content parts: images as base64 data URLs, videos as evenly sampled timestamped frames."""

from __future__ import annotations

import base64
import io
import mimetypes
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Union

import numpy as np
from PIL import Image

from maze_envs.core.datafiles import UnsafeFileError, check_data_file, read_data_bytes
from maze_envs.core.errors import MazeFormatError
from maze_envs.core.paths import utf8_path

ImageLike = Union[str, os.PathLike, Image.Image, np.ndarray]


def _png_bytes(image: Image.Image) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def image_data_url(image: ImageLike) -> str:
    """Return ``image`` (a file path, PIL image or RGB array) as a ``data:<mime>;base64,...`` URL."""
    if isinstance(image, np.ndarray):
        image = Image.fromarray(np.asarray(image, dtype=np.uint8))
    if isinstance(image, Image.Image):
        return _data_url(_png_bytes(image), "image/png")
    return file_data_url(image, "image")


def _data_url(data: bytes, mime: str) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def file_data_url(path: str | os.PathLike, kind: Literal["image", "video"]) -> str:
    """Return the ``kind`` file at ``path`` as a data URL, its MIME type guessed from the name (else
    ``image/png`` or ``video/mp4``); raises ``MazeFormatError`` naming the file if it cannot be read."""
    path = Path(path)
    try:
        data = read_data_bytes(path)
    except UnsafeFileError as exc:
        raise MazeFormatError(f"cannot read {kind}: {exc.detail}", source=path) from None
    except OSError as exc:
        raise MazeFormatError(f"cannot read {kind}: {exc.strerror or exc}", source=path) from exc
    mime = mimetypes.guess_type(path.name)[0] or ("video/mp4" if kind == "video" else "image/png")
    return _data_url(data, mime)


def image_part(image: ImageLike) -> dict[str, Any]:
    """Return an OpenAI ``image_url`` content part holding ``image`` as a data URL."""
    return {"type": "image_url", "image_url": {"url": image_data_url(image)}}


@dataclass(frozen=True)
class VideoFrame:
    """One sampled frame: its index in the video, its time in seconds and the RGB pixels."""

    index: int
    time: float
    rgb: np.ndarray


def sample_video_frames(path: str | os.PathLike, count: int = 16) -> list[VideoFrame]:
    """Return ``count`` frames evenly spaced over the video at ``path`` (all frames if it has fewer)."""
    import cv2

    try:
        check_data_file(path)
    except OSError as exc:
        raise MazeFormatError(f"cannot open video: {getattr(exc, 'detail', None) or exc.strerror or exc}",
                              source=path) from None
    with utf8_path(path) as name:
        cap = cv2.VideoCapture(name)
    try:
        if not cap.isOpened():
            raise MazeFormatError("cannot open video", source=path)
        total = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
        fps = cap.get(cv2.CAP_PROP_FPS) or 0.0
        if total <= 0:
            raise MazeFormatError("video has no frames", source=path)
        wanted = sorted({int(round(i)) for i in np.linspace(0, total - 1, min(count, total))})
        frames = []
        for index in wanted:
            cap.set(cv2.CAP_PROP_POS_FRAMES, index)
            ok, bgr = cap.read()
            if not ok:
                continue
            frames.append(VideoFrame(index, index / fps if fps > 0 else float(index),
                                     cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)))
    finally:
        cap.release()
    if not frames:
        raise MazeFormatError("no frame could be decoded", source=path)
    return frames


def video_parts(path: str | os.PathLike, count: int = 16, *, native: bool = False) -> list[dict[str, Any]]:
    """Return the content parts of a video: a ``video_url`` data URL if ``native``, else a line stating
    the sampled timestamps followed by each frame as an image part (each preceded by its time)."""
    if native:
        return [{"type": "video_url", "video_url": {"url": file_data_url(path, "video")}}]
    frames = sample_video_frames(path, count)
    stamps = ", ".join(f"{f.time:.2f}s" for f in frames)
    parts: list[dict[str, Any]] = [{"type": "text", "text": f"The video is given as {len(frames)} frames sampled "
                                                            f"evenly over its length, at {stamps}."}]
    for frame in frames:
        parts.append({"type": "text", "text": f"Frame at {frame.time:.2f}s:"})
        parts.append(image_part(frame.rgb))
    return parts
