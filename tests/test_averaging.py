"""Averaging has one home per side of the compiler/runtime wall: a new mode is one row in each table.

The compiler's table (:mod:`metricc.compiler.language.averaging`) and the runtime's
(:mod:`metricc.runtime.averaging`) list the same modes, which the spec schema offers; and a toy
mode added to those two tables only, in a copy of the source tree, is declared by a spec,
written as a call in an aggregate formula, compiled (numpy module, LaTeX and the checks of the
build) and evaluated to the hand-computed number, on numpy and, through the generated array
modules, on array-api-strict: the array kernel has no table of its own.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

from metricc.compiler.language import averaging as language
from metricc.runtime import averaging as runtime

REPO = Path(__file__).resolve().parents[1]

# The harmonic mean of the per-class values, one row per table; the runtime's in the Array API
# standard's functions of the values' namespace, so numpy and the array modules both read it.
_LANGUAGE_ROW = '''\
    Mode("harmonic", call=True, binary=lambda per_class, values: 2 / (1 / values[0] + 1 / values[1]),
         sample=lambda per_row, weights: (per_row.shape[0] / np.sum(1 / per_row, axis=0), True),
         words="the harmonic mean of the per-class values",
         display=lambda d: sympy.Mul(d.count, sympy.Pow(sympy.Sum(1 / d.value, (d.k, 1, d.count)), -1), evaluate=False),
         latex=lambda d: rf"C \\Bigl/ \\sum_{{k=1}}^{{C}} \\frac{{1}}{{{d.value}}}",
         latex_by_class=r"C \\Bigl/ \\sum_{k=1}^{C} \\frac{1}{m_k}"),
'''
_RUNTIME_ROW = '''\
    Mode("harmonic", lambda xp, c: c.values.shape[-1] / xp.sum(1 / c.values, axis=-1), None),
'''

_DICE = """\
id: toy_dice
name: Toy Dice
description: Twice the true positives over the predicted and the true members of a class.
references: ["a test"]
formula: 2 * TP / (2 * TP + FP + FN)
averages: [none, macro, harmonic]
default_average: harmonic
range: [0, 1]
higher_is_better: true
"""
_OF_HARMONIC = """\
id: toy_half_harmonic
name: Half the harmonic Dice
description: Half the harmonic mean of the per-class Dice scores.
references: ["a test"]
level: aggregate
formula: harmonic(toy_dice) / 2
range: [0, 0.5]
higher_is_better: true
"""

# Dice per class: 2/3 (TP 1, FP 1), 1 (TP 2), 2/3 (TP 1, FN 1); harmonic mean 3 / (3/2 + 1 + 3/2) = 3/4.
_EVALUATE = """\
import importlib.util, json, warnings
import array_api_strict as xp
from metricc.runtime.xp_kernel import HostFallbackWarning
warnings.simplefilter("error", HostFallbackWarning)  # the harmonic mean is computed in array-api-strict
def load(name, folder="out"):
    spec = importlib.util.spec_from_file_location(name, f"{folder}/{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)
counts = ([1, 2, 1], [1, 0, 0], [0, 0, 1], [4, 4, 4])
stacked = xp.asarray(counts, dtype=xp.int64)  # (4, C), TP, FP, FN, TN
print(json.dumps({"harmonic": float(load("toy_dice")(*counts)), "macro": float(load("toy_dice")(*counts, average="macro")),
                  "aggregate": float(load("toy_half_harmonic")(*counts)),
                  "strict_harmonic": float(load("toy_dice", "out/arrays")(stacked)),
                  "strict_aggregate": float(load("toy_half_harmonic", "out/arrays")(stacked))}))
"""


def test_the_tables_list_the_same_modes():
    assert tuple(language.MODES) == runtime.AVERAGES


# The facts of a mode that both sides read by field rather than by the mode's name.
_SHARED_FIELDS = ("pools", "per_instance", "per_class", "positive_class", "takes_weights")


def test_the_tables_agree_on_what_each_mode_reads():
    """Pooled counts, per-instance counts, one value per class, the positive class's value and
    class weights are facts of a mode both sides act on."""
    for name in runtime.AVERAGES:
        for field in _SHARED_FIELDS:
            assert getattr(language.MODES[name], field) == getattr(runtime.MODES[name], field), (name, field)
        assert language.per_instance(name) == runtime.per_instance(name), name


def test_every_row_has_what_its_readers_need():
    """Readers ask a row, never a name: a new row must say how it is computed and written, and
    the modes read by name constant (``PER_CLASS``, ``POSITIVE_CLASS``) are one row each."""
    for table in (language.MODES, runtime.MODES):
        assert [m.name for m in table.values() if m.per_class] == [runtime.PER_CLASS]
        assert [m.name for m in table.values() if m.positive_class] == [runtime.POSITIVE_CLASS]
    assert language.PER_CLASS == runtime.PER_CLASS
    readings = [m.reading for m in runtime.MODES.values() if m.reading is not None]
    assert sorted(readings) == list(range(len(readings)))
    for name, mode in runtime.MODES.items():
        assert mode.pools != (mode.combine is not None), f"{name}: pools the counts or combines per-class values"
        assert not (mode.per_class and mode.positive_class), name
    for name, mode in language.MODES.items():
        assert mode.call or mode.per_class or mode.positive_class, f"{name}: a mode that is no call keeps classes"
        assert mode.words and mode.display and mode.latex and mode.sample, name
        assert mode.binary is not None or mode.per_class, f"{name}: its value on a 2 x 2 matrix, for the prover"
        assert (mode.uniform is not None) == mode.takes_weights, f"{name}: the mode it is under equal class weights"
        assert mode.uniform is None or language.MODES[mode.uniform].call, name


def test_the_spec_schema_lists_the_modes_of_the_table():
    """The schema file names the modes for editors; validation reads the table."""
    schema = json.loads((REPO / "specs" / "schema.json").read_text(encoding="utf-8"))
    assert schema["$defs"]["average"]["enum"] == list(language.MODES)


def _with_row(path: Path, row: str) -> None:
    text = path.read_text(encoding="utf-8")
    end = text.index("\n)})\n")
    path.write_text(text[:end + 1] + row + text[end + 1:], encoding="utf-8")


def test_a_mode_added_to_the_two_tables_flows_through_the_build(package_copy, tmp_path):
    package, env = package_copy
    _with_row(package / "compiler" / "language" / "averaging.py", _LANGUAGE_ROW)
    _with_row(package / "runtime" / "averaging.py", _RUNTIME_ROW)
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "toy_dice.yaml").write_text(_DICE, encoding="utf-8")
    (specs / "toy_half_harmonic.yaml").write_text(_OF_HARMONIC, encoding="utf-8")
    shutil.copy(REPO / "specs" / "schema.json", specs)

    built = subprocess.run([sys.executable, "-m", "metricc", "build", "--specs", "specs", "--out", "out", "--no-cache", "--quiet"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout + built.stderr
    assert "harmonic" in (tmp_path / "out" / "toy_dice.py").read_text(encoding="utf-8")

    evaluated = subprocess.run([sys.executable, "-c", textwrap.dedent(_EVALUATE)], cwd=tmp_path, env=env,
                               capture_output=True, text=True, timeout=300)
    assert evaluated.returncode == 0, evaluated.stderr
    values = json.loads(evaluated.stdout)
    assert abs(values["harmonic"] - 3 / 4) < 1e-12
    assert abs(values["macro"] - 7 / 9) < 1e-12
    assert abs(values["aggregate"] - 3 / 8) < 1e-12
    assert abs(values["strict_harmonic"] - 3 / 4) < 1e-12
    assert abs(values["strict_aggregate"] - 3 / 8) < 1e-12


def test_the_weights_of_a_linear_mode_are_its_combine_of_the_unit_vectors():
    """``metricc consistent`` bounds a linear average as a weighted sum over classes: the
    weights the table derives are, bit for bit, the ones the audit wrote by hand per mode."""
    totals = [7, 0, 12, 5]
    assert runtime.MODES["macro"].class_weights(totals).tolist() == [0.25] * 4
    assert runtime.MODES["weighted"].class_weights(totals).tolist() == (np.asarray(totals, dtype=float) / 24).tolist()
    assert runtime.MODES["binary"].class_weights(totals, 2).tolist() == [0.0, 0.0, 1.0, 0.0]
    assert [name for name, mode in runtime.MODES.items() if mode.class_weights(totals) is not None] == [
        name for name, mode in runtime.MODES.items() if mode.linear]


def test_the_readings_of_an_unqualified_score_come_from_the_table():
    assert runtime.READINGS == ("binary", "macro", "micro", "weighted")
    assert runtime.POSITIVE_CLASS == "binary"
    assert [name for name, mode in runtime.MODES.items() if mode.per_class] == ["none"]
