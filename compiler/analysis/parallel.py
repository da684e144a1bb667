"""The slow stages of a build on every core: a pure function mapped over the catalog's metrics.

Analysis, proofs and emission are per metric (or per pair of forms) and deterministic, so the
build maps them over worker processes and gets the same bytes as in one process (each item's
result is computed the same way and sent back by the build cache's pickler, which rebuilds sympy
trees exactly as they were, where sympy's own pickles re-evaluate them). Workers are
forked: they inherit the function and its items, which are never pickled, and only results
travel back. A worker that raises hands the item back to the parent, which computes it again
itself so that the error is raised and rendered exactly as in a serial build.

``METRICC_BUILD_JOBS`` sets the number of processes (1: serial); the default is the number of
cores this process may use. Without ``fork`` (Windows, macOS's default) the build is serial.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
from collections.abc import Callable, Iterable
from typing import TypeVar

from metricc.compiler.analysis.cache import dumps
from metricc.core.errors import InputError

__all__ = ["JOBS_ENVIRONMENT", "jobs", "mapped"]

JOBS_ENVIRONMENT = "METRICC_BUILD_JOBS"
_FEWEST = 4  # fewer items than this are not worth a process pool
_Item, _Result = TypeVar("_Item"), TypeVar("_Result")
_work: tuple[Callable, list] | None = None  # what the forked workers read: inherited, never pickled


def jobs() -> int:
    """The number of processes a build uses: ``METRICC_BUILD_JOBS``, else the usable cores."""
    given = os.environ.get(JOBS_ENVIRONMENT, "").strip()
    if given:
        if not given.isdigit() or int(given) < 1:
            raise InputError(JOBS_ENVIRONMENT, f"{given!r} is no number of processes: give a whole number, 1 or "
                             "more (1 builds in this process)")
        return int(given)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _run(index: int):
    function, items = _work
    try:
        return True, dumps(function(items[index]))
    except Exception:  # the parent computes the item again and raises its error itself
        return False, None


def mapped(function: Callable[[_Item], _Result], items: Iterable[_Item]) -> list[_Result]:
    """``[function(item) for item in items]``, on :func:`jobs` processes where that pays."""
    global _work
    items = list(items)
    processes = min(jobs(), len(items))
    if (processes < 2 or len(items) < _FEWEST or multiprocessing.current_process().daemon
            or "fork" not in multiprocessing.get_all_start_methods()):
        return [function(item) for item in items]
    _work = (function, items)
    try:
        with multiprocessing.get_context("fork").Pool(processes) as pool:
            done = pool.map(_run, range(len(items)), chunksize=1)
    finally:
        _work = None
    return [pickle.loads(sent) if ok else function(item) for (ok, sent), item in zip(done, items)]
