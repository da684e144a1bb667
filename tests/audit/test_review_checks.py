"""The checks of ``metricc review``'s numbers as data (``review_check.NUMBER_CHECKS``).

A new audit check is one function of the shared context and one entry in that tuple: the toy
check below is added to a copy of the package, and ``metricc review`` of that copy reports
its finding beside those of the checks already there.
"""

from __future__ import annotations

import json
import subprocess
import sys

from metricc.audit import review_check
from metricc.audit.review import review_text

PAPER = """Table 1. Confusion matrix (rows: actual class).

\tPredicted 1\tPredicted 2
Actual 1\t9\t1
Actual 2\t2\t8

On Table 1 the accuracy is 0.85 and the F1 is 0.95.
"""

_TOY = '''

def _toy_check(context):
    """Flags every printed score another check recomputed: reads an earlier check's findings."""
    return [Finding("number", "unchecked", f.line, f.section, f.name, f.printed, None, "the toy check saw this score")
            for f in context.found["recomputed"]]


NUMBER_CHECKS = NUMBER_CHECKS + (NumberCheck("toy", _toy_check),)
'''


def test_the_checks_run_in_the_order_of_the_table():
    assert [check.name for check in review_check.NUMBER_CHECKS] == [
        "unreadable matrices", "recomputed", "worked chains", "contradictions", "results tables"]
    report = review_text(PAPER, formulas=False)
    assert [(f.printed, f.status) for f in report.findings] == [("accuracy = 0.85", "ok"), ("F1 = 0.95", "wrong")]


def test_a_new_check_is_one_function_and_one_entry(package_copy, tmp_path):
    package, env = package_copy
    module = package / "audit" / "review_check.py"
    module.write_text(module.read_text(encoding="utf-8") + _TOY, encoding="utf-8")
    (tmp_path / "paper.txt").write_text(PAPER, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "metricc", "review", "paper.txt", "--format", "json", "--no-formulas",
                           "--quiet"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr  # the F1 printed is wrong
    findings = json.loads(done.stdout)["findings"]
    toy = [f for f in findings if f["sentence"] == "the toy check saw this score"]
    assert [f["printed"] for f in toy] == ["accuracy = 0.85", "F1 = 0.95"]
    assert {f["status"] for f in findings if f not in toy} == {"ok", "wrong"}
