"""Decoding images that come from outside (request bodies, server answers) with a pixel cap checked on the header.

PIL refuses only images above twice its ``MAX_IMAGE_PIXELS`` (about 179 Mpx) and merely warns above it, so a
41 KB PNG of 144 Mpx decodes, taking seconds and hundreds of MB. ``image_size`` reads only the header;
``decode_image`` refuses an image over ``max_pixels`` before decoding a single pixel. An image over the limit, PIL's
or ours, raises ``ImageTooLargeError`` (an image, too big), never the "not a readable image" of bytes that are none.
"""

from __future__ import annotations

import io
import re

from PIL import Image, UnidentifiedImageError

from .errors import MazeFormatError

MAX_DECODED_PIXELS = 4096 * 4096  # the largest picture anything here draws or asks a renderer for
_BOMB_PIXELS = re.compile(r"\((\d+) pixels\)")


class ImageTooLargeError(MazeFormatError):
    """An image whose header declares more pixels than the reader allows (refused before decoding)."""


def _open(data: bytes, source: str) -> Image.Image:
    try:  # PIL reads the header only (it warns, once, of an image over its own cap; ours below is lower)
        return Image.open(io.BytesIO(data))
    except Image.DecompressionBombError as exc:  # over twice PIL's cap: an image, far over ours too
        declared = _BOMB_PIXELS.search(str(exc))
        size = f"{declared[1]} pixels" if declared else f"over {2 * Image.MAX_IMAGE_PIXELS} pixels"
        raise ImageTooLargeError(f"the image is {size}, over the limit of {MAX_DECODED_PIXELS}",
                                 source=source) from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise MazeFormatError(f"not a readable image ({type(exc).__name__})", source=source) from None


def image_size(data: bytes, *, source: str = "<image>") -> tuple[int, int]:
    """Return (width, height) of the encoded image ``data`` read from its header alone; raises ``MazeFormatError``
    naming ``source`` when it is not an image PIL can open (``ImageTooLargeError`` when it declares more than twice
    PIL's own pixel cap)."""
    with _open(data, source) as image:
        return image.size


def check_pixels(width: int, height: int, max_pixels: int = MAX_DECODED_PIXELS, *, source: str = "<image>") -> None:
    """Return None when a ``width`` x ``height`` image is at most ``max_pixels``; else raise ``ImageTooLargeError``
    naming ``source``."""
    if width * height > max_pixels:
        raise ImageTooLargeError(f"the image is {width}x{height} = {width * height} pixels, over the limit of "
                              f"{max_pixels}", source=source)


def decode_image(data: bytes, *, max_pixels: int = MAX_DECODED_PIXELS, source: str = "<image>") -> Image.Image:
    """Return the encoded image ``data`` decoded as an RGB PIL image.

    Raises ``MazeFormatError`` naming ``source`` when it is not a readable image, ``ImageTooLargeError`` when its
    header declares more than ``max_pixels`` pixels (refused before any pixel is decoded).
    """
    with _open(data, source) as image:
        check_pixels(*image.size, max_pixels, source=source)
        try:
            return image.convert("RGB")
        except (OSError, ValueError, SyntaxError) as exc:  # a header that opened, then data that does not decode
            raise MazeFormatError(f"the image data is damaged ({type(exc).__name__})", source=source) from None
