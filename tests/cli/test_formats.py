"""Every command that writes a result offers every format of :data:`metricc.api.formats.FORMATS`
(``--format``), and each writes something readable in it."""

from __future__ import annotations

import csv
import io
import json

import pytest

from metricc.api.formats import FORMATS
from metricc.cli import main

MATRIX = ["--matrix", "[[5, 1], [2, 4]]", "--labels", "=neg", "pos"]
COMMANDS = {
    "eval": ["eval", *MATRIX, "--metric", "recall:none", "--metric", "accuracy"],
    "eval-interval": ["eval", *MATRIX, "--metric", "recall:none", "--interval", "wilson"],
    "sweep": ["eval", *MATRIX, "--metric", "f_beta", "--sweep", "beta=1,2"],
    "report": ["report", *MATRIX],
    "consistent": ["consistent", "--score", "accuracy=0.75", "--class-totals", "6,6", "--quiet"],
    "suggest": ["suggest", "--class-counts", "10,30"],
    "list": ["list", "cohen"],
}


@pytest.mark.parametrize("form", list(FORMATS))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_writes_every_format(capsys, command, form):
    assert main([*COMMANDS[command], "--format", form]) == 0
    out = capsys.readouterr().out
    if form == "json":
        json.loads(out)
    elif form == "csv":
        rows = list(csv.reader(io.StringIO(out)))
        assert rows[0] == ["section", "row", "column", "value"]
        assert not any(cell.startswith("=") for row in rows for cell in row)
    elif form == "html":
        assert out.startswith("<!DOCTYPE html>") and "<script" not in out
    assert out.strip()
