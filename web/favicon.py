"""Draws service/site/static/favicon.ico (served at /favicon.ico): a card with
a spade on the felt's green, 16 and 32 pixels square, PNG images in an ICO,
with the standard library only. Run it from the repository: python3 web/favicon.py"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

FELT, PAPER, INK = (29, 107, 63, 255), (255, 254, 251, 255), (29, 27, 24, 255)


def spade(x: float, y: float) -> bool:
    """Whether (x, y) of a unit box (y down) is in a spade: tip, lobes, stem."""
    r = 0.22
    if (x - 0.29) ** 2 + (y - 0.58) ** 2 <= r * r or (x - 0.71) ** 2 + (y - 0.58) ** 2 <= r * r:
        return True
    if 0.04 <= y <= 0.6 and abs(x - 0.5) <= (y - 0.04) / 0.56 * 0.42:
        return True
    return 0.6 <= y <= 0.98 and abs(x - 0.5) <= 0.05 + max(0.0, y - 0.82) * 0.9


def colour(x: float, y: float) -> tuple[int, int, int, int]:
    left, right, top, bottom, r = 0.14, 0.86, 0.04, 0.96, 0.12
    dx = max(left + r - x, 0, x - (right - r))
    dy = max(top + r - y, 0, y - (bottom - r))
    if not (left <= x <= right and top <= y <= bottom and dx * dx + dy * dy <= r * r):
        return FELT
    sx, sy = (x - 0.22) / 0.56, (y - 0.2) / 0.62
    return INK if 0 <= sx <= 1 and 0 <= sy <= 1 and spade(sx, sy) else PAPER


def png(size: int, samples: int = 4) -> bytes:
    rows = b""
    for py in range(size):
        rows += b"\x00"  # no filter
        for px in range(size):
            found = [
                colour((px + (i + 0.5) / samples) / size, (py + (j + 0.5) / samples) / size)
                for i in range(samples)
                for j in range(samples)
            ]
            rows += bytes(round(sum(c[k] for c in found) / len(found)) for k in range(4))

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    head = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def ico(sizes: tuple[int, ...] = (16, 32)) -> bytes:
    images = [png(size) for size in sizes]
    out = struct.pack("<HHH", 0, 1, len(images))
    offset = 6 + 16 * len(images)
    for size, image in zip(sizes, images, strict=True):
        out += struct.pack("<BBBBHHII", size, size, 0, 0, 1, 32, len(image), offset)
        offset += len(image)
    return out + b"".join(images)


if __name__ == "__main__":
    target = Path(__file__).resolve().parents[1] / "service" / "site" / "static" / "favicon.ico"
    target.write_bytes(ico())
