"""Every number the seed papers print that can be recomputed from data they print.

The claims live in the audit files ``audits/*.yaml`` (the format of ``metricc audit``):
matrices with rows = true classes, each printed value at the paper's printed precision.
A claim known to be wrong names its erratum (``docs/errata.yaml``) and the value the data
really give; the audit must find exactly that.
"""

from pathlib import Path

import numpy as np
import pytest
import yaml

import metricc as mc
from metricc.audit.claims import audit_file, printed_value
from metricc.core.errors import InputError

AUDITS = sorted((Path(__file__).parents[3] / "audits").glob("*.yaml"))
ERRATA = Path(__file__).parents[3] / "docs" / "errata.yaml"
ERRATA_IDS = {entry["id"] for entry in yaml.safe_load(ERRATA.read_text(encoding="utf-8"))}
RESULTS = [result for path in AUDITS for result in audit_file(path)]


def test_audit_files_are_found():
    assert {p.stem for p in AUDITS} >= {"wenzel", "kozak", "branco", "wang"}
    assert len(RESULTS) >= 40


@pytest.mark.parametrize("result", RESULTS, ids=[f"{Path(r.file).stem}:{r.line} {r.metric} | {r.where}" for r in RESULTS])
def test_printed_value(result):
    """Each claim agrees with the data, or is a recorded erratum whose correct value the data give."""
    assert result.status in ("agrees", "erratum"), f"{result.printed} printed, {result.recomputed} recomputed"
    if result.erratum:
        assert result.erratum in ERRATA_IDS


def _examples():
    for path in AUDITS:
        for example in yaml.safe_load(path.read_text(encoding="utf-8")):
            yield pytest.param(example, id=f"{path.stem}: {example['source']}")


@pytest.mark.parametrize("example", list(_examples()))
def test_printed_orientation_is_explicit(example):
    """The stored matrix is the paper's, transposed exactly when the paper prints predictions in rows."""
    if "matrix" not in example:
        return
    assert example["printed_orientation"] in ("true-rows", "pred-rows")
    if "printed_matrix" in example:
        np.testing.assert_array_equal(mc.orient(example["printed_matrix"], example["printed_orientation"]), example["matrix"])


@pytest.mark.parametrize(
    ("text", "value", "tolerance"),
    [("0.82", 0.82, 0.005), ("~0.745", 0.745, 0.0005), ("9/10", 0.9, 1e-9), ("36.5%", 0.365, 0.0005),
     (0.7, 0.7, 0.05), ("0.000", 0.0, 0.0005), (1, 1.0, 0.5), ("-0.25", -0.25, 0.005)],
)
def test_printed_precision_sets_the_tolerance(text, value, tolerance):
    got_value, got_tolerance = printed_value(text)
    assert got_value == pytest.approx(value) and got_tolerance == pytest.approx(tolerance)


@pytest.mark.parametrize("text", ["abc", "1/0", "0.8.2", True, None])
def test_unreadable_printed_values_are_refused(text):
    with pytest.raises(ValueError):
        printed_value(text)


def _write(tmp_path, text: str) -> Path:
    path = tmp_path / "claims.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_wrong_claim_differs_and_a_right_erratum_is_stale(tmp_path):
    path = _write(tmp_path, """\
- source: test
  matrix: [[9, 1], [2, 8]]
  claims:
    - {metric: accuracy, printed: "0.85"}
    - {metric: accuracy, printed: "0.80"}
    - {metric: accuracy, printed: "0.80", erratum: e1, correct: "0.850"}
    - {metric: accuracy, printed: "0.80", erratum: e2, correct: "0.81"}
    - {metric: accuracy, printed: "0.8500", erratum: e3, correct: "0.85"}
    - {metric: recall, average: none, printed: ["0.9", "0.8"]}
""")
    assert [r.status for r in audit_file(path)] == ["agrees", "differs", "erratum", "differs", "stale-erratum", "agrees"]
    assert [r.line for r in audit_file(path)] == [4, 5, 6, 7, 8, 9]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- source: x\n  matrix: [[1, 0], [0, 1]]\n", "claims.yaml:1: an example needs a non-empty list of 'claims'"),
        ("- matrix: [[1, 0], [0, 1]]\n  claims:\n    - {printed: 1}\n", "claims.yaml:3: a claim needs 'metric'"),
        ("- matrix: [[1, 0], [0, 1]]\n  claims:\n    - {metric: nope, printed: 1}\n", "claims.yaml:3: metric: unknown metric 'nope'"),
        ("- matrix: [[1, 0], [0, 1]]\n  claims:\n    - {metric: accuracy, printed: one}\n", "claims.yaml:3: cannot read 'one'"),
        ("- matrix: [[1, 0], [0, 1]]\n  claims:\n    - {metric: accuracy, printed: 1, erratum: x}\n", None),
        ("- matrix: [[1, 0], [0, 1]]\n  claims:\n    - {metric: accuracy, printed: 0, erratum: x}\n", "claims.yaml:3: a claim with an erratum needs 'correct'"),
        ("- matrix: [[1, 0], [0, 1]]\n  colour: red\n  claims:\n    - {metric: accuracy, printed: 1}\n", "claims.yaml:2: unknown key 'colour'"),
        ("- matrix: [[1, 0]\n", "claims.yaml:2: invalid YAML"),
        # Same YAML as specs: a billion-laughs alias, a tag building bytes, or nesting
        # deeper than PyYAML's recursion are errors at their line, never a hang or traceback.
        ("- matrix: &m [[1, 0], [0, 1]]\n  x: *m\n  claims:\n    - {metric: accuracy, printed: 1}\n",
         "claims.yaml:1: YAML anchors and aliases are not allowed here ('m')"),
        ("- matrix: [[1, 0], [0, 1]]\n  claims:\n    - {metric: accuracy, printed: !!binary aGk=}\n",
         "claims.yaml:3: explicit YAML tags are not allowed ('!!binary')"),
        ("- matrix: " + "[" * 2000 + "]" * 2000 + "\n", "claims.yaml:1: nested too deeply: 51 levels"),
        ("claims: 1\n", "claims.yaml:1: an audit file is a list of examples"),
    ],
)
def test_bad_audit_files_name_the_line(tmp_path, text, message):
    path = _write(tmp_path, text)
    if message is None:  # agrees although an erratum is named: reported, not an error
        assert audit_file(path)[0].status == "stale-erratum"
        return
    with pytest.raises(InputError) as raised:
        audit_file(path)
    assert message in str(raised.value)


def test_audit_command_reports_and_fails_on_differences(tmp_path, capsys):
    from metricc.cli import main

    assert main(["audit", str(Path(__file__).parents[3] / "audits")]) == 0
    out = capsys.readouterr().out
    assert "erratum  f1" in out and " 0 differ" in out
    path = _write(tmp_path, "- matrix: [[9, 1], [2, 8]]\n  claims:\n    - {metric: accuracy, printed: '0.80'}\n")
    assert main(["audit", str(path)]) == 1
    assert "DIFFERS" in capsys.readouterr().out
    assert main(["audit", str(tmp_path / "missing.yaml")]) == 2
    assert "metricc: error: files:" in capsys.readouterr().err
