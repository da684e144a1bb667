"""Headless Chromium from the OS packages, driven from the command line (no driver library):
``--dump-dom`` gives the document after its scripts ran, ``--screenshot`` a PNG."""

from __future__ import annotations

import shutil
import struct
import subprocess
import tempfile
import zlib
from pathlib import Path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


def _run(*arguments: str) -> str:
    with tempfile.TemporaryDirectory(prefix="metricc-chromium-") as profile:
        done = subprocess.run([CHROMIUM, *_FLAGS, f"--user-data-dir={profile}", *arguments],
                              capture_output=True, text=True, timeout=120, cwd=profile)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def dump_dom(url: str) -> str:
    """The serialized DOM of ``url`` once loaded (inline scripts have run)."""
    return _run("--dump-dom", url)


def screenshot(url: str, size: tuple[int, int] = (800, 600)) -> list[list[int]]:
    """Gray levels (0 black .. 255 white), one list per pixel row, of ``url`` rendered."""
    with tempfile.TemporaryDirectory(prefix="metricc-shot-") as folder:
        png = Path(folder, "shot.png")
        _run(f"--window-size={size[0]},{size[1]}", f"--screenshot={png}", url)
        return gray_rows(png.read_bytes())


def gray_rows(data: bytes) -> list[list[int]]:
    """Decode an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes) into gray rows."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks, header = 8, [], None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        position += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, header
    channels = 3 if color == 2 else 4
    raw, stride, rows, previous = zlib.decompress(b"".join(chunks)), width * channels, [], bytearray(width * channels)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up, corner = previous[x], previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 255
            elif kind == 2:
                line[x] = (line[x] + up) & 255
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                nearest = min((abs(p - left), 0, left), (abs(p - up), 1, up), (abs(p - corner), 2, corner))[2]
                line[x] = (line[x] + nearest) & 255
        rows.append([sum(line[i:i + 3]) // 3 for i in range(0, stride, channels)])
        previous = line
    return rows
