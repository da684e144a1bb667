"""Hostile command lines of the audit commands (issue 30): ``metricc consistent``, ``audit``,
``identify`` and ``review`` with hostile sizes, for ``tests/api/test_fuzz.py`` and
``benchmarks/fuzz_runtime.py`` beside :mod:`fuzz_inputs`'s ``eval`` generator.

Sizes are drawn around the documented bounds (docs/guide/performance.md, "Limits"): totals of
10**9, 2**53 and 2**60, tens of thousands of classes, a hundred scores and more, numbers of
thousands of digits, thousands of claims and equations, brackets and fractions nested past
their bounds, lines and files longer than a paper. The rule is the eval generator's: exit 0,
1 or 4 (an answer: consistent, inconsistent, not refuted) or 2 (the input refused, with a
message), never 3 or a traceback.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from fuzz_inputs import Case, CliResult, Source, _maybe, _run_cli  # the eval generator's module, on the same path

__all__ = ["audit_case"]

ANSWERS = (0, 1, 4)  # consistent or not, or not refuted: each an answer, not a failure

_HUGE = ("1000000000", str(2 ** 53), str(2 ** 60), "9" * 5000, "-1", "0", "1e9", "x")
_SCORES = ("accuracy=0.8429", "f1:macro=0.494", "mcc=0.301", "recall@0=0.91", "precision:weighted=0.7",
           "f1=0.5", "specificity=0.91", "kappa=0.25", "nope=0.5", "accuracy=1e400", "accuracy=" + "9" * 5000,
           "accuracy=0." + "3" * 60, "f1:micro=1.5", "accuracy")


def _totals(source: Source) -> list[str]:
    classes = source.choice((2, 2, 3, 5, 50, 100_000))
    value = source.choice(("0", "1", "5", "270", "10000", "1000000000", str(2 ** 53), str(2 ** 60), "9" * 5000))
    if classes > 100 or _maybe(source, 0.5):
        return ["--class-totals", ",".join([value] * classes)]
    return ["--class-totals", ",".join(source.choice(("0", "1", "7", "232", "270", value)) for _ in range(classes))]


def _consistent(source: Source) -> list[str]:
    argv = ["consistent"]
    if _maybe(source, 0.5):
        argv += _totals(source)
    else:
        argv += ["--samples", source.choice(_HUGE + ("500", "10"))]
        if _maybe(source, 0.5):
            argv += ["--classes", source.choice(("2", "3", "50", "100000", "0", "1"))]
    count = source.choice((1, 2, 3, 5, 64, 101, 300))
    for _ in range(count):
        argv += ["--score", source.choice(_SCORES)]
    if _maybe(source, 0.3):
        argv.append("--no-readings")
    return argv + ["--quiet", "--format", source.choice(("text", "json"))]


def _claim(source: Source, long: bool) -> str:
    printed = source.choice(('"0.365"', '"0.' + "3" * 5000 + '"', "0." + "1" * 500, "9" * 5000, '"abc"', "1e400"))
    printed = printed if long or len(printed) < 10 else '"0.5"'
    extra = source.choice(("", ", erratum: no-such-erratum", ", tolerance: 0.01", ", average: macro", ", params: {beta: 2}"))
    return f"    - {{metric: {source.choice(('accuracy', 'mcc', 'f1', 'nope'))}, printed: {printed}{extra}}}"


def _audit_file(source: Source) -> str:
    classes = source.choice((2, 3, 50, 1_001))
    cell = source.choice(("1", "0", "7", "9" * 5000, "-1", "0.5"))
    classes = classes if len(cell) < 10 else 2  # a 1,001 x 1,001 matrix of 5,000-digit cells is 5 GB of text
    # rows past MAX_CLASSES (1,000) are refused; a full 1,001 x 1,001 matrix takes 40 s of YAML reading first
    width = classes if classes <= 50 else 2
    matrix = "[" + ", ".join("[" + ", ".join([cell] * width) + "]" for _ in range(classes)) + "]"
    # thousands of claims past MAX_CLAIMS (2,000) are refused; hundreds under it take a minute (a convention
    # search per differing claim), and so do 2,001 of 5,000 digits (10 MB of YAML read before the count):
    # more than a fuzz run affords
    copies = source.choice((1, 1, 1, 2_001))
    claims = [_claim(source, long=copies == 1) for _ in range(source.choice((1, 2, 3)))] * copies
    entry = ["- source: fuzz", f"  matrix: {matrix}", "  claims:", *claims]
    if _maybe(source, 0.1):  # nesting past the YAML bound
        entry[1] = "  matrix: " + "[" * 60 + "1" + "]" * 60
    return "\n".join(entry) + "\n"


def _fraction(depth: int) -> str:
    return "1" if depth == 0 else r"\frac{1}{TP + " + _fraction(depth - 1) + "}"


def _formula(source: Source) -> str:
    kind = source.choice(("fraction", "sum", "nesting", "number", "sums", "plain", "text"))
    size = source.choice((3, 12, 40, 200, 3000))
    if kind == "fraction":
        return _fraction(min(size, 60))
    if kind == "sum":
        return " + ".join(r"\frac{TP}{FP + %d}" % k for k in range(size))
    if kind == "nesting":
        return "(" * size + "TP" + ")" * size
    if kind == "number":
        return r"\frac{TP}{TP + " + "9" * size + "}"
    if kind == "sums":
        return r"\sum_{i}" * min(size, 50) + " TP_i"
    if kind == "text":
        return "TP / (TP + FP" + " + FN" * size + ")"
    return r"\frac{TP}{TP + \frac{1}{2}(FP + FN)}"


def _paper(source: Source) -> tuple[str, bool]:
    """A paper's text and whether its equations may be identified (few of them: about a second each)."""
    equations = source.choice((0, 1, 3, 3000))
    parts = ["\\section{Results}"]
    parts += [f"$$ {_formula(source)} $$" for _ in range(min(equations, 3))] * (1 if equations < 10 else 1000)
    classes = source.choice((2, 3, 60))
    cell = source.choice(("12", "9" * 5000, "0"))
    parts += ["Confusion matrix (rows true classes):", *("\t".join([cell] * classes) for _ in range(classes))]
    parts.append(f"The accuracy is {source.choice(('0.84', '9' * 5000, '1e400', '0.' + '5' * 100))} and the F1 is 0.5.")
    parts.append(f"Table 1: {source.choice(('1000000000', str(2 ** 60), '500'))} samples. "
                 "Accuracy 0.81, F1 0.77, MCC 0.42.")
    if _maybe(source, 0.1):
        parts.append("x" * 25_000)  # a line past the bound
    if _maybe(source, 0.05):
        parts.append(("y" * 1000 + "\n") * 5_100)  # a text past the bound
    return "\n\n".join(parts) + "\n", equations < 10


def _review(source: Source, folder: Path) -> list[str]:
    text, few = _paper(source)
    paper = folder / source.choice(("paper.tex", "paper.md", "paper.txt"))
    paper.write_text(text, encoding="utf-8")
    argv = ["review", str(paper), "--quiet", "--format", source.choice(("text", "json", "markdown", "html")),
            "--output", str(folder / "report")]
    if not few or _maybe(source, 0.7):
        argv.append("--no-formulas")
    if _maybe(source, 0.3):
        argv += source.choice((["--samples", source.choice(_HUGE)], _totals(source)))
    return argv


def audit_case(source: Source) -> Case:
    """One of ``consistent``, ``audit``, ``identify``, ``review`` with hostile sizes; files in a temporary folder."""
    command = source.choice(("consistent", "audit", "identify", "review"))
    folder = Path(tempfile.mkdtemp(prefix="metricc-fuzz-"))
    if command == "consistent":
        argv = _consistent(source)
    elif command == "audit":
        (folder / "claims.yaml").write_text(_audit_file(source), encoding="utf-8")
        argv = ["audit", str(folder / "claims.yaml"), "--format", source.choice(("text", "json"))]
    elif command == "identify":
        formula = _formula(source)
        argv = ["identify", formula, "--notation", "text" if formula.startswith("TP /") else "latex"]
        if _maybe(source, 0.2):
            argv += ["--symbol", source.choice(("a=TP", "P=precision:macro", "x=" + "9" * 5000, "=", "N=n"))]
    else:
        argv = _review(source, folder)
    shown = " ".join(a if len(a) < 80 else a[:60] + f"...({len(a)} characters)" for a in argv)
    return Case(f"metricc {shown}", lambda: _answered(argv, folder))


def _answered(argv: list[str], folder: Path) -> CliResult:
    """The command's result, an answer's exit status (1 or 4) read as 0 by the eval generator's rule."""
    try:
        result = _run_cli(argv)
    finally:
        for path in sorted(folder.rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()
        folder.rmdir()
    return CliResult(0, result.stderr) if result.code in ANSWERS else result
