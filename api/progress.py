"""A progress bar for long loops: stderr only, only on a terminal, off with ``progress=False``.

Sweeps over large grids, bootstrap intervals, consistency searches and full builds run for
seconds to minutes; a bar tells the user that something happens and how long it will take.
A maintained library (tqdm) would be one more dependency for one line of output, so this is
a minimal built-in bar with the standard library only (importing it imports nothing else).

It draws nothing unless the stream is a TTY (pipes, files, CI logs and tests stay clean), and
nothing for work that ends within ``delay`` seconds (:data:`DELAY`), redraws at most ``1 / interval`` times a
second, and leaves the finished bar on its own line. With ``tick`` (seconds) a background
thread also redraws the elapsed time while one long step runs (a build stage).

Use it as a context manager around a loop of known length, or wrap an iterable::

    with progress(len(chunks), "sweep", enabled=show) as bar:
        for chunk in chunks:
            ...
            bar.update()            # or bar.update(k, "stage name")

    for sample in track(range(1000), "bootstrap", enabled=show):
        ...

>>> import io
>>> with progress(3, "quiet", stream=io.StringIO()) as bar:   # not a terminal: draws nothing
...     bar.update(3)
>>> bar.done, bar.shown
(3, False)
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterable, Iterator
from typing import TextIO, TypeVar

__all__ = ["Progress", "progress", "track"]

T = TypeVar("T")
WIDTH = 24  # characters of the bar itself
DELAY = 0.5  # seconds before a bar appears: quick work never draws one
INTERVAL = 0.1  # seconds between redraws


class Progress:
    """Counts ``done`` of ``total`` steps and draws a bar on ``stream`` when it is a terminal."""

    def __init__(self, total: int | None, label: str = "", *, enabled: bool = True, stream: TextIO | None = None,
                 delay: float | None = None, interval: float | None = None, tick: float | None = None) -> None:
        self.total = total if total is None else max(int(total), 0)
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        self.active = bool(enabled) and _is_terminal(self.stream)
        self.done = 0
        self.stage = ""
        self.shown = False
        self._start = time.monotonic()
        self._delay = DELAY if delay is None else delay
        self._interval = INTERVAL if interval is None else interval
        self._drawn_at = 0.0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        if self.active and tick:
            threading.Thread(target=self._ticker, args=(tick,), daemon=True).start()

    def _ticker(self, tick: float) -> None:
        while not self._stop.wait(tick):
            self.update(0)

    def update(self, steps: int = 1, stage: str | None = None) -> None:
        """``steps`` more are done; ``stage`` names what runs now (e.g. the build's next stage)."""
        self.done += steps
        if stage is not None:
            self.stage = stage
        with self._lock:
            now = time.monotonic()
            if self.active and now - self._start >= self._delay and now - self._drawn_at >= self._interval:
                self._draw(now)

    def close(self) -> None:
        """Draw the final state and end the line (only if the bar was ever shown)."""
        self._stop.set()
        with self._lock:
            if self.active and self.shown:
                self._draw(time.monotonic())
                self.stream.write("\n")
                self.stream.flush()
            self.active = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def line(self, now: float) -> str:
        """The text of the bar: label, bar, percentage, counts, elapsed time and estimate left."""
        elapsed = now - self._start
        parts = [self.label] if self.label else []
        if self.total:
            fraction = min(self.done / self.total, 1.0)
            filled = int(fraction * WIDTH)
            parts.append(f"[{'#' * filled}{'.' * (WIDTH - filled)}] {fraction:4.0%} {self.done}/{self.total}")
            if 0 < fraction < 1:
                parts.append(f"{_duration(elapsed)} elapsed, ~{_duration(elapsed * (1 - fraction) / fraction)} left")
            else:
                parts.append(_duration(elapsed))
        else:
            parts.append(f"{self.done} done, {_duration(elapsed)}")
        if self.stage:
            parts.append(self.stage)
        return " ".join(parts)

    def _draw(self, now: float) -> None:
        text = self.line(now)
        self.stream.write("\r" + text + "\x1b[K")  # erase what a longer previous line left
        self.stream.flush()
        self.shown, self._drawn_at = True, now


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def progress(total: int | None, label: str = "", *, enabled: bool = True, stream: TextIO | None = None,
             tick: float | None = None) -> Progress:
    """A :class:`Progress` over ``total`` steps (None: unknown), drawn only on a terminal."""
    return Progress(total, label, enabled=enabled, stream=stream, tick=tick)


def track(iterable: Iterable[T], label: str = "", *, total: int | None = None, enabled: bool = True,
          stream: TextIO | None = None) -> Iterator[T]:
    """Yield from ``iterable``, one step per item; ``total`` defaults to ``len(iterable)``."""
    if total is None and hasattr(iterable, "__len__"):
        total = len(iterable)
    with Progress(total, label, enabled=enabled, stream=stream) as bar:
        for item in iterable:
            yield item
            bar.update()
