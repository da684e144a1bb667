"""The speed benchmark's regression guard: this run's ratios against the committed results file.

``benchmarks/speed.py`` prints a Markdown table whose rows are named by their work and carry
metricc's time as a ratio to the hand-written target measured in the same run. The guard
reads the committed table (``benchmarks/results/speed.md``), matches rows by their work, and
prints on stderr every row whose ratio grew by more than :data:`SLOWER` (information, never
a failure: machines are noisy, and CI discards stdout). ``--save`` replaces the file.

    >>> now = "| work | hand | metricc | ratio |\\n|---|---|---|---|\\n| a | 1 ms | 3 ms | 3.00x |\\n| b | 1 ms | 1 ms | 1.00x |"
    >>> before = "| work | hand | metricc | ratio |\\n|---|---|---|---|\\n| a | 1 ms | 2 ms | 2.00x |\\n| b | 1 ms | 1 ms | 0.90x |"
    >>> slower_rows(now, before)
    [('a', 2.0, 3.0)]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

__all__ = ["RESULTS", "SLOWER", "ratios", "report", "slower_rows"]

RESULTS = Path(__file__).resolve().parent / "results" / "speed.md"
SLOWER = 1.3
_RATIO = re.compile(r"^(\d+(?:\.\d+)?)x$")


def ratios(markdown: str) -> dict[str, float]:
    """``{work: ratio}`` of a table ``speed.py`` printed (rows without a ratio left out)."""
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in markdown.splitlines() if line.startswith("|")]
    if len(rows) < 2:
        return {}
    column = next((i for i, name in enumerate(rows[0]) if name == "ratio"), None)
    found = {}
    for row in rows[2:]:
        match = _RATIO.match(row[column]) if column is not None and column < len(row) else None
        if match:
            found[row[0]] = float(match.group(1))
    return found


def slower_rows(now: str, before: str, slower: float = SLOWER) -> list[tuple[str, float, float]]:
    """``(work, ratio before, ratio now)`` of the rows of both tables whose ratio grew by more than ``slower``."""
    previous = ratios(before)
    return [(work, previous[work], ratio) for work, ratio in ratios(now).items()
            if work in previous and ratio > slower * previous[work]]


def report(markdown: str, results: Path = RESULTS, save: bool = False, header: str = "") -> None:
    """Print the rows slower than in ``results`` on stderr; with ``save``, write this run there."""
    if results.is_file():
        slower = slower_rows(markdown, results.read_text("utf-8"))
        compared = len(set(ratios(markdown)) & set(ratios(results.read_text("utf-8"))))
        lines = [f"  {work}: {old:.2f}x -> {new:.2f}x" for work, old, new in slower]
        print(f"regression guard: {len(slower)} of {compared} rows slower than {results.name} by more than "
              f"{SLOWER}x" + (":\n" + "\n".join(lines) if lines else ""), file=sys.stderr)
    else:
        print(f"regression guard: no {results} to compare with (run with --save to write it)", file=sys.stderr)
    if save:
        results.parent.mkdir(parents=True, exist_ok=True)
        results.write_text((header + "\n\n" if header else "") + markdown + "\n", "utf-8")
