"""``metricc review`` on synthetic papers generated from the catalog, with planted errors.

Each paper takes random class-level metrics of the catalog (their formulas from the generated
LaTeX documentation), a random confusion matrix in a random layout (tabs as a PDF extraction
gives them, Markdown pipes or LaTeX rows; rows true or predicted), scores printed for it in
words or in math, and a results table with the class totals in a sentence. Errors are planted
in formulas (a count replaced by one the formula does not use, or a chain of two forms of
different metrics), numbers (a value no reading of the name gives), conventions (a weighted average printed as macro, a precision of the
transposed matrix) and tables (one score moved so no matrix gives the set). Every planted
error must be found at its line, and nothing else may be flagged.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest

import metricc as mc
from metricc.audit.consistent import consistent
from metricc.audit.review import review_text
from metricc.audit.review_numbers import metric_name
from metricc.audit.review_tools import label_names

DOCS = Path(__file__).parents[2] / "generated" / "docs" / "metrics"
COUNTS = ("TP", "FP", "FN", "TN")


def _simplified_latex(metric_id: str) -> str | None:
    text = (DOCS / f"{metric_id}.tex").read_text(encoding="utf-8")
    match = re.search(r"\\paragraph\{Simplified\.\}\n\\\[ (.*) \\\]", text)
    if not match:
        return None
    latex = re.sub(r"\\mathit\{(TP|FP|FN|TN)\}", r"\1", match.group(1))
    return latex if not re.search(r"\\mathit|\\sqrt|\\log|\\max|\\min|\\left|\|", latex) else None


def _label(info) -> str | None:
    """A printed label that identify and the review both read as this metric."""
    for candidate in [info.id.upper(), *(a.upper() for a in info.aliases), f"\\text{{{info.name}}}"]:
        if label_names(candidate)[0] == info.id and metric_name(candidate) == (info.id, None):
            return candidate
    return None


def _word(info) -> str | None:
    """A name in words the review reads as this metric, with and without an averaging."""
    for candidate in [info.name.lower(), info.id.replace("_", " "), *(a.replace("_", " ") for a in info.aliases)]:
        if metric_name(candidate) == (info.id, None) and metric_name(f"macro-averaged {candidate}") == (info.id, "macro"):
            return candidate
    return None


def _pool():
    pool = []
    for metric_id in sorted(m for m in mc.catalog() if (DOCS / f"{m}.tex").exists()):
        info = mc.metric(metric_id)
        if info.level != "class" or info.params or not {"binary", "macro", "micro", "weighted"} <= set(info.averages):
            continue
        latex, label, word = _simplified_latex(metric_id), _label(info), _word(info)
        if latex and label and word and tuple(info.range) == (0.0, 1.0):
            pool.append((metric_id, latex, label, word))
    return pool


POOL = _pool()


def test_the_pool_is_drawn_from_the_catalog():
    assert len(POOL) >= 5, POOL
    assert {"recall", "precision", "specificity"} <= {p[0] for p in POOL}


def _matrix_lines(rng, matrix, caption_number):
    size = len(matrix)
    names = [f"C{i}" for i in range(size)]
    pred_rows = rng.random() < 0.4
    shown = np.asarray(matrix).T.tolist() if pred_rows else matrix
    row_word, column_word = ("Predicted", "Actual") if pred_rows else ("Actual", "Predicted")
    layout = rng.choice(["tabs", "markdown", "latex"])
    header = [""] + [f"{column_word} {n}" for n in names]
    rows = [[f"{row_word} {n}"] + [str(v) for v in r] for n, r in zip(names, shown)]
    if layout == "tabs":
        body = ["\t".join(header)] + ["\t".join(r) for r in rows]
    elif layout == "markdown":
        body = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + ["| " + " | ".join(r) + " |" for r in rows]
    else:
        body = [" & ".join(header) + " \\\\"] + [" & ".join(r) + " \\\\" for r in rows]
    if rng.random() < 0.5:
        return [f"Table {caption_number}. Confusion matrix of the classifier.", ""] + body + [""], f"Table {caption_number}"
    return body + ["", f"Figure {caption_number}: Confusion matrix of the classifier.", ""], f"Figure {caption_number}"


def _readings(metric_id, matrix):
    """Every value a name without averaging may mean on this matrix (the review's readings)."""
    size = len(matrix)
    values = []
    with np.errstate(all="ignore"):
        if size == 2:
            values += [mc.evaluate(metric_id, matrix=matrix, average="binary", pos_label=p)[metric_id] for p in (0, 1)]
        values += [mc.evaluate(metric_id, matrix=matrix, average=a)[metric_id] for a in ("macro", "micro", "weighted")]
    return [float(v) for v in values]


def _far(value, others, gap=0.02):
    return all(np.isnan(o) or abs(value - o) > gap for o in others)


def _equal_metrics(first: str, second: str) -> bool:
    """Whether two class-level metrics give the same value at random 2 x 2 matrices (the runtime decides)."""
    rng = np.random.default_rng(7)
    for _ in range(4):
        matrix = rng.integers(1, 30, (2, 2))
        a, b = (float(mc.evaluate(m, matrix=matrix, average="binary")[m]) for m in (first, second))
        if not np.isclose(a, b, equal_nan=True):
            return False
    return True


def _paper(seed: int):
    """(text, planted lines) of one random paper."""
    rng = random.Random(seed)
    lines, planted = [f"# A study {seed}", "", "## 1 Metrics", ""], set()
    chosen = rng.sample(POOL, 2)
    for number, (metric_id, latex, label, _) in enumerate(chosen, 1):
        formula = latex.replace(" \\cdot ", rng.choice([" \\cdot ", " ", "\\,"])) if "\\cdot" in latex else latex
        used = [c for c in COUNTS if re.search(rf"\b{c}\b", formula)]
        if rng.random() < 0.5 and len(used) < 4:
            old, new = rng.choice(used), rng.choice([c for c in COUNTS if c not in used])
            formula = re.sub(rf"\b{old}\b", new, formula)
            planted.add(len(lines) + 1)
        elif rng.random() < 0.5:  # a chain: the formula again, or another metric's (a contradiction)
            other = rng.choice([p for p in POOL if p[0] != metric_id])
            if rng.random() < 0.5 and not _equal_metrics(metric_id, other[0]):
                formula = f"{formula} = {other[1]}"
                planted.add(len(lines) + 1)
            else:
                formula = f"{formula} = {formula.replace(' ', '  ')}"
        style = rng.choice(["dollars", "equation", "brackets"])
        if style == "dollars":
            lines.append(f"$${label} = {formula} \\quad ({number})$$")
        elif style == "equation":
            lines += ["\\begin{equation}", f"{label} = {formula} \\label{{eq:{number}}}", "\\end{equation}"]
        else:
            lines.append(f"\\[ {label} = {formula} \\tag{{{number}}} \\]")
        lines.append("")
    lines += ["## 2 Results", ""]
    size = rng.choice([2, 3])
    matrix = [[rng.randint(0 if i != j else 5, 12 if i != j else 40) for j in range(size)] for i in range(size)]
    block, name = _matrix_lines(rng, matrix, 1)
    lines += block
    for metric_id, _, label, word in rng.sample(POOL, 3):
        readings = _readings(metric_id, matrix)
        if any(np.isnan(r) for r in readings):
            continue
        average = "macro" if size > 2 and rng.random() < 0.5 else None
        stated = float(mc.evaluate(metric_id, matrix=matrix, average=average)[metric_id]) if average else readings[0]
        kind = rng.choice(["clean", "clean", "number", "convention"])
        value = stated
        if kind == "number":
            candidates = [v for v in np.linspace(0.03, 0.97, 95) if _far(v, readings + [stated], 0.03)]
            if candidates:
                value = rng.choice(candidates)
        elif kind == "convention":
            transposed = np.asarray(matrix).T.tolist()
            other = (mc.evaluate(metric_id, matrix=matrix, average="weighted")[metric_id] if average
                     else mc.evaluate(metric_id, matrix=transposed, average="binary" if size == 2 else "macro",
                                      **({"pos_label": 1} if size == 2 else {}))[metric_id])
            if _far(float(other), readings + [stated], 0.01):
                value = float(other)
        shown_name = f"macro-averaged {word}" if average else word
        text = f"{value:.3f}"
        if value != stated:
            planted.add(len(lines) + 1)
        if rng.random() < 0.5:
            lines.append(f"On the matrix of {name}, the {shown_name} is {text}.")
        else:
            lines.append(f"For {name} we obtain ${label}{'_M' if average else ''} = {text}$ here.")
        lines.append("")
    lines += _results_table(rng, planted, len(lines))
    return "\n".join(lines) + "\n", planted


def _results_table(rng, planted, offset):
    negatives, positives = rng.randint(15, 40), rng.randint(15, 40)
    tp, tn = rng.randint(positives // 2, positives), rng.randint(negatives // 2, negatives)
    matrix = [[tn, negatives - tn], [positives - tp, tp]]
    names = ("accuracy", "precision", "recall", "f1")
    scores = {m: float(mc.evaluate(m, matrix=matrix, **({"average": "binary"} if m != "accuracy" else {}))[m]) for m in names}
    printed = {m: f"{v:.4f}" for m, v in scores.items()}
    head = [f"The test set has {negatives + positives} instances: {negatives} of class N and {positives} of class P.", ""]
    if rng.random() < 0.5:
        moved = rng.choice(names)
        for shift in (0.11, -0.11, 0.23, -0.23):
            candidate = dict(printed, **{moved: f"{min(0.99, max(0.01, scores[moved] + shift)):.4f}"})
            texts = [f"{m}{':binary' if m != 'accuracy' else ''}={candidate[m]}" for m in names]
            if not any(consistent(texts, class_totals=t, progress=False).consistent for t in ([negatives, positives], [positives, negatives])):
                printed = candidate
                planted.add(offset + len(head) + 4)  # the row of values
                break
    return head + ["Table 2. Scores of the model.", "", "\t" + "\t".join(names),
                   "Model\t" + "\t".join(printed[m] for m in names), ""]


SEEDS = list(range(10))  # 40 seeds pass too (56 s); 10 keep the suite fast


@pytest.mark.parametrize("seed", SEEDS)
def test_every_planted_error_is_found_and_nothing_clean_is_flagged(seed):
    text, planted = _paper(seed)
    report = review_text(text, f"synthetic-{seed}.md")
    failed = {f.line for f in report.findings if f.failed}
    assert planted <= failed, (planted - failed, text, [f for f in report.findings if f.line in planted - failed])
    assert failed <= planted, ([f for f in report.findings if f.failed and f.line not in planted], text)
    assert report.exit_code == (1 if planted else 0)
    kinds = {f.kind for f in report.findings}
    assert {"formula", "number", "consistency"} <= kinds, report.findings


def test_the_synthetic_papers_plant_every_kind_of_error():
    """The seeds above cover every kind of plant, so the test above cannot pass vacuously."""
    kinds = set()
    for seed in SEEDS:
        text, planted = _paper(seed)
        lines = text.split("\n")
        for line in planted:
            content = lines[line - 1]
            kinds.add("formula" if "=" in content and ("$$" in content or "\\[" in content or "\\label" in content)
                      and "we obtain" not in content else "table" if content.startswith("Model") else "number")
    assert kinds == {"formula", "table", "number"}
