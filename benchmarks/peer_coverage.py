"""How much of PyCM's statistics the catalog computes, from the tables the peer tests check.

Not a test. The mappings live in tests/acceptance/peers/test_pycm_class_statistics.py and
test_pycm_overall_statistics.py, where every mapped name is compared with PyCM at 1e-12, so
the counts printed here are the tested ones. Needs PyCM (the ``test`` extra).

    python benchmarks/peer_coverage.py
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

PEERS = Path(__file__).resolve().parent.parent / "tests" / "acceptance" / "peers"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, PEERS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _line(kind: str, names: set, covered: set, groups: dict) -> str:
    rest = "; ".join(f"{label}: {', '.join(sorted(group & names))}" for label, group in groups.items() if group & names)
    return f"PyCM {kind} statistics covered: {len(covered & names)}/{len(names)} ({rest})"


def main() -> None:
    import pycm

    class_tests, overall_tests = _load("test_pycm_class_statistics"), _load("test_pycm_overall_statistics")
    matrix = pycm.ConfusionMatrix(matrix={0: {0: 2, 1: 1}, 1: {0: 1, 1: 2}})
    class_names = set(matrix.class_stat) - class_tests.RAW_COUNTS
    overall_names = set(matrix.overall_stat)
    print(f"PyCM {pycm.__version__}")
    print(_line("class", class_names, set(class_tests.CLASS_STATISTICS), {
        "by a combination": class_tests.COMBINATIONS, "interpretation bands, elsewhere": class_tests.INTERPRETATIONS,
        "not yet": class_tests.NOT_YET_IN_CATALOG}))
    print(_line("overall", overall_names, set(overall_tests.OVERALL_STATISTICS) | {"Overall J"}, {
        "standard errors, intervals and interpretation bands, elsewhere": overall_tests.ELSEWHERE,
        "not yet": overall_tests.NOT_YET_IN_CATALOG}))


if __name__ == "__main__":
    main()
