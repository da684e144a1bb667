"""Benchmark: how long ``metricc identify`` takes to refuse hostile text and to answer deeply
nested sums.

Not a test (no thresholds: machines are noisy). The inputs are those of
tests/audit/test_identify.py (``HOSTILE``, each a clear error) and
tests/audit/test_identify_wang.py (``NESTED_SUMS``, no match); the tests check the answers,
this prints the seconds. Each took well under 10 s (the hostile texts) and 20 s (the nested
sums) on an unloaded machine when those bounds were asserted in the tests.

    python benchmarks/identify_hostile.py
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

from metricc.audit.identify import identify
from metricc.core.errors import InputError

TESTS = Path(__file__).resolve().parent.parent / "tests" / "audit"


def _inputs(name: str, attribute: str):
    """``attribute`` of ``tests/audit/NAME.py``, imported by path (tests are not a package to install)."""
    spec = importlib.util.spec_from_file_location(f"metricc_bench_{name}", TESTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, attribute)


def _seconds(text: str) -> float:
    start = time.perf_counter()
    try:
        identify(text)
    except InputError:
        pass
    return time.perf_counter() - start


def main() -> None:
    rows = [(text, _seconds(text)) for text in _inputs("test_identify", "HOSTILE")]
    rows.append(("nested sums (8 deep)", _seconds(_inputs("test_identify_wang", "NESTED_SUMS"))))
    for text, seconds in rows:
        shown = text if len(text) <= 50 else text[:47] + "..."
        print(f"{seconds:8.3f} s  {shown!r}")


if __name__ == "__main__":
    main()
