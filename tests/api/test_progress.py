"""The progress bar: drawn on a terminal only, never for quick work, off on request."""

from __future__ import annotations

import io
import time

import numpy as np

from metricc.api import progress as progress_module, sweep
from metricc.api.progress import Progress, progress, track


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_nothing_is_drawn_off_a_terminal_or_when_disabled():
    for stream, enabled in ((io.StringIO(), True), (Terminal(), False)):
        with Progress(5, "work", enabled=enabled, stream=stream, delay=0, interval=0) as bar:
            for _ in range(5):
                bar.update()
        assert stream.getvalue() == "" and bar.done == 5


def test_a_terminal_sees_the_bar_and_a_final_line():
    stream = Terminal()
    with Progress(4, "sweep f1", stream=stream, delay=0, interval=0) as bar:
        bar.update(1)
        assert "sweep f1 [######..................]  25% 1/4" in stream.getvalue()
        bar.update(3, "emit")
    lines = stream.getvalue().split("\r")
    assert lines[-1].startswith("sweep f1 [########################] 100% 4/4") and lines[-1].endswith("emit\x1b[K\n")


def test_quick_work_draws_nothing():
    stream = Terminal()
    for _ in track(range(100), "fast", stream=stream):  # the default delay: half a second
        pass
    assert stream.getvalue() == ""


def test_unknown_totals_and_estimates():
    bar = progress(None, "bootstrap", stream=Terminal())
    bar.update(7)
    assert bar.line(time.monotonic()).startswith("bootstrap 7 done, ")
    bar = Progress(10, stream=Terminal())
    bar.update(5)
    assert "left" in bar.line(bar._start + 20) and "~20s left" in bar.line(bar._start + 20)


def test_a_ticking_bar_redraws_while_a_step_runs():
    stream = Terminal()
    with Progress(2, "build", stream=stream, delay=0, interval=0, tick=0.01) as bar:
        bar.update(0, "prove")
        time.sleep(0.1)
    assert stream.getvalue().count("prove") > 2


def test_sweep_shows_progress_on_a_terminal_only(monkeypatch):
    stream = Terminal()
    monkeypatch.setattr("sys.stderr", stream)
    monkeypatch.setattr(progress_module, "DELAY", 0.0)
    monkeypatch.setattr(progress_module, "INTERVAL", 0.0)
    matrix = [[5, 1], [2, 4]]
    values = sweep("f_beta", matrix=matrix, grid=np.linspace(0.5, 2, 4), param="beta", progress=False)
    assert stream.getvalue() == ""
    assert np.allclose(sweep("f_beta", matrix=matrix, grid=np.linspace(0.5, 2, 4), param="beta"), values)
    assert "sweep f_beta [" in stream.getvalue() and "4/4" in stream.getvalue()
