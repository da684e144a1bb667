"""``metricc eval --interval METHOD [--confidence LEVEL]``: text and JSON output."""

import json

import pytest

import metricc as mc
from metricc import cli

MATRIX = "[[40, 10, 3], [5, 45, 7], [2, 6, 30]]"


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_maps_each_metric_to_value_lower_upper_and_se(capsys):
    code, out, _ = run(capsys, "eval", "--matrix", MATRIX, "--metric", "mcc", "--metric", "recall:none",
                       "--interval", "delta", "--confidence", "0.9", "--format", "json")
    assert code == 0
    found = json.loads(out)
    expected = mc.evaluate(["mcc", "recall:none"], matrix=json.loads(MATRIX), interval="delta", confidence=0.9)
    assert found["mcc"] == expected["mcc"]._asdict()
    assert found["recall:none"]["upper"] == {str(k): float(v) for k, v in enumerate(expected["recall:none"].upper)}


def test_text_prints_the_interval_beside_the_value(capsys):
    code, out, _ = run(capsys, "eval", "--matrix", MATRIX, "--metric", "accuracy", "--metric", "precision:none",
                       "--labels", "a", "b", "c", "--interval", "wilson")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 4
    assert lines[0].startswith("accuracy: 0.777027027027027 (95% CI 0.70344259339549")
    assert lines[1].startswith("precision:none[a]: ") and ", se " in lines[1]


def test_the_bootstrap_is_seeded_from_the_command_line(capsys):
    argv = ["eval", "--matrix", MATRIX, "--metric", "cen", "--interval", "bootstrap", "--n-resamples", "200",
            "--random-state", "7", "--format", "json"]
    assert run(capsys, *argv)[1] == run(capsys, *argv)[1]


@pytest.mark.parametrize("argv, says", [
    (["--metric", "mcc", "--interval", "wilson"], "--interval: wilson does not apply to mcc"),
    (["--metric", "mcc", "--interval", "delta", "--confidence", "95"], "--confidence: expected a level"),
    (["--metric", "mcc", "--interval", "bootstrap", "--n-resamples", "3"], "--n-resamples"),
    (["--metric", "mcc", "--interval", "delta", "--normalized"], "--interval: not used with --normalized"),
])
def test_errors_name_the_option(capsys, argv, says):
    code, _, err = run(capsys, "eval", "--matrix", MATRIX, *argv)
    assert code != 0 and says in err
