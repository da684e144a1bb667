"""Random specs through the whole compiler: a located refusal or a correct module, nothing else.

Each spec (tests/compiler/spec_strategies.py, YAML text) is compiled beside the catalog
specs it may reference, by the stages ``metricc build`` runs (``build.compile_metrics``,
then ``emit.emit_catalog``: the body of ``build.compile_catalog``), within a time budget.
The outcome must be a :class:`SpecError` whose diagnostics point into the spec (file, line,
key) and render, or a build whose module for the spec compiles, imports, and agrees with
exact sympy evaluation of the spec's written formula on random data (the oracle of
tests/generated/test_generated_sympy.py) without a warning. Anything else is a finding: an
exception of another type (``InternalError`` included), a hang, a wrong value.

``benchmarks/fuzz_specs.py`` runs :func:`fuzz_one` over thousands of specs in worker processes.
"""

from __future__ import annotations

import contextlib
import importlib.util
import math
import random
import shutil
import signal
import sys
import tempfile
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from metricc.compiler import build, emit
from metricc.compiler.errors import SpecError
from metricc.compiler.language import load
from metricc.core.errors import InputError

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def _load(name: str, path: Path):
    """A helper module of the test tree by path (the tests are not a package)."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


strategies = _load("metricc_fuzz_spec_strategies", HERE / "spec_strategies.py")
oracle = _load("metricc_fuzz_sympy_oracle", REPO / "tests" / "generated" / "test_generated_sympy.py")

# oracle_gap: the sympy reference itself could not evaluate (not a finding about metricc).
KINDS = ("accepted", "refused", "traceback", "hang", "module_error", "disagreement", "oracle_gap")


class Hang(Exception):
    """The spec's time budget ran out."""


@dataclass(frozen=True)
class Outcome:
    kind: str  # one of KINDS
    detail: str = ""


@contextlib.contextmanager
def time_budget(seconds: float):
    """Raise :class:`Hang` after ``seconds`` of this process's CPU time (SIGPROF: main thread
    only). CPU time, not wall-clock time, so that a loaded machine does not make a compile
    that takes 6-8 s of CPU look like a hang."""
    def expire(signum, frame):
        raise Hang(f"over {seconds} s of CPU time")

    previous = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def _diagnostics_problem(error: SpecError) -> str:
    """Why a refusal is not a proper located refusal ("" when it is)."""
    for d in error.diagnostics:
        where = d.location
        if Path(where.file).name != f"{strategies.SPEC_ID}.yaml":
            return f"diagnostic outside the spec: {d.render()}"
        if where.line < 1 or where.column < 1 or not d.key.startswith("$"):
            return f"diagnostic without line or key: {d.render()}"
    error.render()
    return ""


def compile_spec(text: str, folder: Path):
    """(IR of every metric, emitted files) for the spec beside the referenced catalog specs."""
    specs = folder / "specs"
    specs.mkdir()
    for name in strategies.REFERENCED:
        shutil.copy(REPO / "specs" / f"{name}.yaml", specs)
    (specs / f"{strategies.SPEC_ID}.yaml").write_text(text, encoding="utf-8", errors="surrogatepass")
    metrics = build.compile_metrics(specs)
    return metrics, emit.emit_catalog(metrics, load.load_errata(specs))


def import_module(files: dict[str, str], folder: Path):
    """The spec's emitted module, compiled and imported from a file of the temporary build."""
    for name, source in files.items():
        if name.endswith(".py"):
            compile(source, name, "exec")
    path = folder / f"{strategies.SPEC_ID}.py"
    path.write_text(files[f"{strategies.SPEC_ID}.py"], encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"metricc_fuzzed_{folder.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------- the oracle

def _matrix(rng: random.Random) -> np.ndarray:
    c = rng.randint(2, 4)
    sparse = rng.random() < 0.5
    return np.array([[0 if sparse and rng.random() < 0.4 else rng.randint(0, 30) for _ in range(c)] for _ in range(c)],
                    dtype=np.int64)


def _params(metric, rng: random.Random, n_classes: int, catalog: dict) -> dict:
    """Exact parameter values inside the domains, as ``oracle.draw_params`` draws them."""
    out = {}
    for p in metric.params:
        if p.kind == "metric":
            bound = rng.choice(strategies.BASES)
            out[p.symbol] = oracle.BoundMetric(bound, catalog[bound])
            continue
        pool = oracle.param_candidates(p)
        if p.kind == "scalar":
            out[p.symbol] = rng.choice(pool)
        else:
            out[p.symbol] = None if rng.random() < 0.5 else [rng.choice(pool) for _ in range(n_classes)]
    return out


def _scored(rng: random.Random):
    c, n = rng.randint(2, 3), rng.randint(2, 7)
    y = [rng.randrange(c) for _ in range(n)]
    y[0], y[1] = 0, 1  # two classes present
    rows = []
    for _ in range(n):
        weights = [rng.randint(0, 3) for _ in range(c)]
        weights[rng.randrange(c)] += 1
        rows.append([sympy.Rational(w, sum(weights)) for w in weights])
    return y, rows


def _check_scores(metric, info, rng: random.Random) -> None:
    """The score and curve parts of ``oracle.test_generated_equals_sympy_on_scores``."""
    y, scores = _scored(rng)
    floats = np.array(scores, dtype=float)
    where = f"{metric.id} on {y}, {floats.tolist()}"
    if metric.level == "score":
        oracle.assert_matches(info.function(y, floats), oracle.score_reference(metric, y, scores), where)
        return
    c = len(scores[0])
    per_class = [oracle.curve_reference(metric, [int(v == k) for v in y], [row[k] for row in scores]) for k in range(c)]
    pooled = oracle.curve_reference(metric, [int(v == k) for v in y for k in range(c)], [x for row in scores for x in row])
    support = [sum(1 for v in y if v == k) for k in range(c)]
    weighted = sum((w * v for w, v in zip(support, per_class) if w), sympy.S.Zero) / sum(support)
    expected = {"none": per_class, "binary": per_class[1], "micro": pooled,
                "macro": sum(per_class, sympy.S.Zero) / c, "weighted": weighted}
    for mode in info.averages:
        oracle.assert_matches(info.function(y, floats, average=mode, pos_label=1), expected[mode], f"{where} ({mode})")


def check_values(metric, info, catalog: dict, rng: random.Random, trials: int = 3) -> None:
    """Generated values against exact sympy evaluation of the written formula (AssertionError if not)."""
    oracle._EXPANDED.clear()  # cached by metric id, and every fuzzed spec has the same id
    for _ in range(trials):
        if metric.level in ("curve", "score"):
            _check_scores(metric, info, rng)
            continue
        matrix = _matrix(rng)
        c = matrix.shape[0]
        params = _params(metric, rng, c, catalog)
        weights = [rng.randint(0, 5) for _ in range(c)]
        oracle.check_metric(metric, info, matrix, params, rng.randrange(c), weights)


# ---------------------------------------------------------------- one spec

def fuzz_one(text: str, seed: int, budget: float) -> Outcome:
    """Compile ``text`` and judge the outcome (see the module docstring); never raises."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="metricc-fuzz-") as tmp:
        folder = Path(tmp)
        stage = "compile"
        try:
            with time_budget(budget):
                try:
                    metrics, files = compile_spec(text, folder)
                except SpecError as error:
                    problem = _diagnostics_problem(error)
                    return Outcome("traceback", problem) if problem else Outcome("refused", error.render())
                stage = "module"
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    module = import_module(files, folder)
                    stage = "values"
                    check_values(metrics[strategies.SPEC_ID], module.INFO, metrics, rng)
        except InputError:  # the runtime refusing data it cannot average (geometric mean of negatives)
            return Outcome("accepted")
        except Hang as hang:
            return Outcome("hang", f"{stage}: {hang}")
        except AssertionError:
            if stage == "values":
                return Outcome("disagreement", traceback.format_exc(limit=-3))
            return Outcome("traceback" if stage == "compile" else "module_error", traceback.format_exc(limit=-14))
        except BaseException as error:  # noqa: BLE001 - every other exception is the finding
            if isinstance(error, KeyboardInterrupt):
                raise
            frames = [f.filename for f in traceback.extract_tb(error.__traceback__) if "site-packages" not in f.filename]
            kind = "traceback" if stage == "compile" else "module_error"
            if stage == "values" and frames and Path(frames[-1]).is_relative_to(REPO / "tests"):
                kind = "oracle_gap"
            return Outcome(kind, f"{stage}: {traceback.format_exc(limit=-14)}")
    return Outcome("accepted")


# ---------------------------------------------------------------- CI: bounded examples

# No shrinking: each step recompiles a spec, so shrinking a failure would take minutes; the
# failing spec is reported as drawn. Derandomized: CI runs the same 30 + 30 specs every time
# (a red CI run is reproducible), besides the findings kept below; benchmarks/fuzz_specs.py
# --seed explores beyond them.
FUZZ = settings(max_examples=30, deadline=None, database=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])


def assert_clean(outcome: Outcome, text: str) -> None:
    assert outcome.kind in ("accepted", "refused", "oracle_gap"), f"{outcome.kind}: {outcome.detail}\n--- spec ---\n{text}"


@FUZZ
@given(text=strategies.valid_specs(), seed=st.integers(0, 2**32 - 1))
def test_valid_structure_compiles_or_is_refused_with_a_location(text, seed):
    assert_clean(fuzz_one(text, seed, budget=20), text)


@FUZZ
@given(text=strategies.mutated_specs(), seed=st.integers(0, 2**32 - 1))
def test_noisy_specs_are_refused_with_a_location(text, seed):
    assert_clean(fuzz_one(text, seed, budget=20), text)


def test_judge_tells_a_refusal_from_an_acceptance():
    """The judge itself: a spec that compiles is accepted, an unknown name refused at its key."""
    good = strategies.dump({"id": "fuzzed", "name": "F", "description": "d", "references": ["r"],
                            "formula": "TP / (TP + FP + 1)", "averages": ["macro", "none"], "default_average": "macro",
                            "range": [0, 1], "higher_is_better": True})
    assert fuzz_one(good, 0, budget=20) == Outcome("accepted")
    bad = fuzz_one(good.replace("TP / (TP + FP + 1)", "TP / nope"), 0, budget=20)
    assert bad.kind == "refused" and "fuzzed.yaml:6:15: $.formula: unknown name" in bad.detail


def test_judge_catches_a_wrong_value(compiled_metrics):
    """A generated function that is off by a little is a disagreement, not a pass."""
    from metricc.generated import CATALOG

    info = CATALOG["precision"]
    wrong = type("Info", (), {"function": staticmethod(lambda *a, **k: np.asarray(info.function(*a, **k)) * (1 + 1e-6)),
                              "averages": info.averages, "level": info.level})
    try:
        check_values(compiled_metrics["precision"], wrong, compiled_metrics, random.Random(1), trials=5)
    except AssertionError:
        return
    raise AssertionError("a relative error of 1e-6 passed the oracle")


def test_time_budget_interrupts():
    start = math.inf
    try:
        with time_budget(0.2):
            start = 0
            while True:
                start += 1
    except Hang:
        return
    raise AssertionError(f"no Hang after {start} iterations")


FINDINGS = Path(__file__).parent / "fuzz_findings"


@pytest.mark.parametrize("name", sorted(p.stem for p in FINDINGS.glob("*.yaml")))
def test_specs_the_fuzz_found_stay_fixed(name):
    """Reproducers saved by benchmarks/fuzz_specs.py (tracebacks, warnings, wrong values)."""
    text = (FINDINGS / f"{name}.yaml").read_text(encoding="utf-8")
    assert_clean(fuzz_one(text, 0, budget=20), text)
