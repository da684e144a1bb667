"""Multi-label metrics: Wenzel's Figure 9 and Figure 10, ``samples`` averaging, scikit-learn.

- Figure 9 (``tests/acceptance/papers/data/wenzel_figure9.yaml``): the per-instance counts and every number
  Section 3.3 computes, recomputed from the printed label sets at the printed precision.
- Figure 10: its statements as a table of identities, each checked on random data of the
  kind it is about; the statements that are false are errata (docs/errata.yaml) and are
  pinned by a counterexample.
- scikit-learn as an oracle on random indicator matrices (``average='samples'`` and the
  per-class averages, ``hamming_loss``, subset ``accuracy_score``, ``jaccard_score``).
- ``samples`` through ``evaluate`` and the ``metricc eval --multilabel`` command.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import metricc as mc
from metricc import cli
from metricc.generated import CATALOG
from metricc.core.errors import InputError

FAST = settings(max_examples=30, deadline=None)
DATA = yaml.safe_load((Path(__file__).parent / "data" / "wenzel_figure9.yaml").read_text(encoding="utf-8"))
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")


def indicators(label_sets, label_space) -> np.ndarray:
    return np.array([[int(label in chosen) for label in label_space] for chosen in label_sets])


FIG9_TRUE = indicators([x["actual"] for x in DATA["instances"]], DATA["label_space"])
FIG9_PRED = indicators([x["predicted"] for x in DATA["instances"]], DATA["label_space"])


def ours(metric: str, y_true, y_pred, **kwargs) -> float:
    return float(mc.evaluate(metric, y_true=y_true, y_pred=y_pred, multilabel=True, **kwargs)[metric])


def at_printed_precision(value: float, decimals: int, rounding: str = "round") -> float:
    if rounding == "truncate":
        return math.floor(value * 10**decimals + 1e-9) / 10**decimals
    return round(value, decimals)


# ---------------------------------------------------------------- Figure 9

def test_figure9_counts_recomputed_from_the_label_sets():
    counts = mc.samplewise_counts(FIG9_TRUE, FIG9_PRED)
    for field, name in zip(counts, ("TP", "FP", "FN", "TN")):
        assert field.tolist() == [x[name] for x in DATA["instances"]], name
        assert int(field.sum()) == DATA["sums"][name], name
    assert int(sum(c.sum() for c in counts)) == DATA["sums"]["total"] == FIG9_TRUE.size


@pytest.mark.parametrize("entry", DATA["printed"], ids=lambda e: f"{e['metric']}-{e['value']}")
def test_figure9_printed_numbers(entry):
    kwargs = {"average": entry["average"]} if "average" in entry else {}
    value = ours(entry["metric"], FIG9_TRUE, FIG9_PRED, **kwargs)
    if isinstance(entry["value"], str):  # an exact fraction
        assert value == pytest.approx(float(Fraction(entry["value"])), abs=1e-12)
    else:
        assert at_printed_precision(value, entry["decimals"]) == entry["value"]


def test_figure9_per_instance_precision_and_recall_as_printed():
    counts = mc.samplewise_counts(FIG9_TRUE, FIG9_PRED)
    precision = CATALOG["precision"].function(*counts, average="none")
    recall = CATALOG["recall"].function(*counts, average="none")
    index = {x["id"]: k for k, x in enumerate(DATA["instances"])}
    for entry in DATA["per_instance_printed"]:
        k, rounding = index[entry["id"]], entry.get("rounding", "round")
        assert at_printed_precision(precision[k], entry["decimals"], rounding) == entry["precision"], entry
        assert at_printed_precision(recall[k], entry["decimals"], rounding) == entry["recall"], entry
    assert precision[index["x4"]] == pytest.approx(2 / 3)  # printed 0.66: truncated, not rounded


def test_figure9_difference_of_the_two_f1s():
    mean_of_f1 = ours("f1", FIG9_TRUE, FIG9_PRED, average="samples")
    f1_of_means = ours("f1_of_sample_averages", FIG9_TRUE, FIG9_PRED)
    printed = DATA["difference_printed"]
    assert round(f1_of_means - mean_of_f1, printed["decimals"]) == printed["value"]


def test_figure9_printed_working_of_recall_and_precision_is_wrong():
    """Errata wenzel-s331-per-instance-recall-working and wenzel-s332-per-instance-precision-working:
    both printed sums are 1/5 (3/3 + 4/5 + 0/2 + 2/4 + 1/5) = 0.5, which is neither printed result."""
    printed_terms = [Fraction(3, 3), Fraction(4, 5), Fraction(0, 2), Fraction(2, 4), Fraction(1, 5)]
    assert sum(printed_terms) / 5 == Fraction(1, 2)
    counts = mc.samplewise_counts(FIG9_TRUE, FIG9_PRED)
    recall = CATALOG["recall"].function(*counts, average="none")
    precision = CATALOG["precision"].function(*counts, average="none")
    assert recall.tolist() == pytest.approx([1, 4 / 5, 0, 2 / 4, 1])  # x5: 1/(1+0), not 1/(1+4)
    assert precision.tolist() == pytest.approx([1, 1, 0, 2 / 3, 1 / 5])  # x2: 4/(4+0), x4: 2/(2+1)


# ---------------------------------------------------------------- Figure 10 as identities

def harmonic(a, b):
    return 2 * a * b / (a + b)


def per_class(metric, mode, y_true, y_pred, **kwargs):
    return CATALOG[metric].function(*mc.multilabel_counts(y_true, y_pred), average=mode, **kwargs)


def per_instance(metric, y_true, y_pred, **kwargs):
    return CATALOG[metric].function(*mc.samplewise_counts(y_true, y_pred), average="samples", **kwargs)


def figure10_weighted(y_true, y_pred, per_class_values):
    """Figure 10's weighted row as printed: 1/n sum_j n_j m_j, n the number of instances."""
    support = np.asarray(y_true).sum(axis=0)
    return float(np.sum(support * per_class_values) / len(y_true))


def mean_of_written_f1(y_true, y_pred):
    """Eq. 28 as written: mean over instances of 2 p_i r_i / (p_i + r_i) (0 where p_i = r_i = 0)."""
    tp, fp, fn, _ = (c.astype(float) for c in mc.samplewise_counts(y_true, y_pred))
    p, r = tp / (tp + fp), tp / (tp + fn)
    return float(np.mean(np.where(p + r == 0, 0.0, 2 * p * r / np.where(p + r == 0, 1, p + r))))


# (statement, kind of data, left, right). Each side is a function of (y_true, y_pred).
FIGURE10_TRUE = [
    ("Acc_mu = Acc_M (per class)", "any",
     lambda t, p: per_class("class_accuracy", "micro", t, p), lambda t, p: per_class("class_accuracy", "macro", t, p)),
    ("ERR_M = 1 - Acc_M", "any",
     lambda t, p: per_class("class_error_rate", "macro", t, p), lambda t, p: 1 - per_class("class_accuracy", "macro", t, p)),
    ("ERR_mu = 1 - Acc_mu", "any",
     lambda t, p: per_class("class_error_rate", "micro", t, p), lambda t, p: 1 - per_class("class_accuracy", "micro", t, p)),
    ("F1_mu = 2 p_mu r_mu / (p_mu + r_mu)", "any",
     lambda t, p: per_class("f1", "micro", t, p),
     lambda t, p: harmonic(per_class("precision", "micro", t, p), per_class("recall", "micro", t, p))),
    ("per class: blackboard F1 = 2 p_M r_M / (p_M + r_M)", "any",
     lambda t, p: CATALOG["f1_of_macro_averages"].function(*mc.multilabel_counts(t, p)),
     lambda t, p: harmonic(per_class("precision", "macro", t, p), per_class("recall", "macro", t, p))),
    ("per instance: blackboard F1 = 2 p_M r_M / (p_M + r_M)", "multi-label",
     lambda t, p: CATALOG["f1_of_sample_averages"].function(*mc.samplewise_counts(t, p)),
     lambda t, p: harmonic(per_instance("precision", t, p), per_instance("recall", t, p))),
    ("per instance: calligraphic F1 = mean of 2 p_i r_i / (p_i + r_i)", "multi-label",
     lambda t, p: per_instance("f1", t, p), mean_of_written_f1),
    ("per instance: Acc_M = mean Jaccard", "multi-label",
     lambda t, p: per_instance("jaccard", t, p),
     lambda t, p: float(np.mean([(a & b).sum() / (a | b).sum() for a, b in zip(t.astype(bool), p.astype(bool))]))),
    ("per instance: HL = mean (FP_i + FN_i) / |labels| = per-class micro error rate", "multi-label",
     lambda t, p: per_instance("hamming_loss", t, p), lambda t, p: per_class("class_error_rate", "micro", t, p)),
    ("per instance: HL = per-class macro Hamming loss", "multi-label",
     lambda t, p: per_instance("hamming_loss", t, p), lambda t, p: per_class("hamming_loss", "macro", t, p)),
    ("per instance: HL = per-class micro Hamming loss", "multi-label",
     lambda t, p: per_instance("hamming_loss", t, p), lambda t, p: per_class("hamming_loss", "micro", t, p)),
    ("micro over instances = micro over classes (pooling)", "multi-label",
     lambda t, p: CATALOG["precision"].function(*mc.samplewise_counts(t, p), average="micro"),
     lambda t, p: per_class("precision", "micro", t, p)),
    ("single-label: r_w = 1/n sum n_j r_j = micro recall = accuracy", "single-label",
     lambda t, p: figure10_weighted(t, p, per_class("recall", "none", t, p, zero_division=0.0)),
     lambda t, p: per_class("recall", "micro", t, p)),
    ("single-label: p_mu = r_mu = accuracy", "single-label",
     lambda t, p: per_class("precision", "micro", t, p), lambda t, p: float(np.mean(np.all(t == p, axis=1)))),
    ("single-label: per-instance p_M = r_M = Acc_M = MR = accuracy", "single-label",
     lambda t, p: [per_instance(m, t, p) for m in ("precision", "recall", "jaccard", "exact_match_ratio", "f1")],
     lambda t, p: [float(np.mean(np.all(t == p, axis=1)))] * 5),
]


@st.composite
def indicator_pairs(draw, kind: str = "multi-label"):
    """(y_true, y_pred) of N in 1..15 samples and C in 2..6 labels; single-label: one-hot rows.

    Rows may be empty (no label). scikit-learn calls a single column binary, not multi-label.
    """
    n, c = draw(st.integers(1, 15)), draw(st.integers(2, 6))
    if kind == "single-label":
        labels = st.lists(st.integers(0, c - 1), min_size=n, max_size=n)
        return np.eye(c, dtype=int)[draw(labels)], np.eye(c, dtype=int)[draw(labels)]
    rows = st.lists(st.lists(st.integers(0, 1), min_size=c, max_size=c), min_size=n, max_size=n)
    return np.array(draw(rows)), np.array(draw(rows))


@pytest.mark.parametrize("statement, kind, left, right", FIGURE10_TRUE, ids=[r[0] for r in FIGURE10_TRUE])
@FAST
@given(data=st.data())
def test_figure10_identities(statement, kind, left, right, data):
    kinds = ("single-label", "multi-label") if kind == "any" else (kind,)
    y_true, y_pred = data.draw(indicator_pairs(data.draw(st.sampled_from(kinds))))
    with np.errstate(invalid="ignore", divide="ignore"):
        a, b = np.asarray(left(y_true, y_pred), dtype=float), np.asarray(right(y_true, y_pred), dtype=float)
    defined = ~np.isnan(a) & ~np.isnan(b)
    np.testing.assert_allclose(a[defined], b[defined], rtol=1e-12, atol=1e-12, err_msg=statement)


def test_figure10_identities_hold_on_figure9():
    """Label f is never true, so per-class recall (and the per-class blackboard F1) is NaN."""
    undefined = []
    for statement, kind, left, right in FIGURE10_TRUE:
        if kind != "single-label":
            a, b = left(FIG9_TRUE, FIG9_PRED), right(FIG9_TRUE, FIG9_PRED)
            assert np.allclose(a, b, rtol=1e-12, equal_nan=True), statement
            undefined += [statement] if np.isnan(a) else []
    assert undefined == ["per class: blackboard F1 = 2 p_M r_M / (p_M + r_M)"]


def test_figure10_weighted_row_is_wrong_for_multi_label_data():
    """Erratum wenzel-fig10-weighted-multilabel: 1/n sum_j n_j m_j with n instances is not a
    weighted mean when label sets have several labels; on Figure 9 recall gives 2.0."""
    recall = per_class("recall", "none", FIG9_TRUE, FIG9_PRED, zero_division=0.0)  # f: never true, weight 0
    printed_form = figure10_weighted(FIG9_TRUE, FIG9_PRED, recall)
    assert printed_form == pytest.approx(Fraction(10, 5))  # sum_j TP_j / n = 10 / 5
    weighted = per_class("recall", "weighted", FIG9_TRUE, FIG9_PRED)
    assert weighted == pytest.approx(10 / 15)  # weights normalised by the total support 15
    assert weighted == pytest.approx(skm.recall_score(FIG9_TRUE, FIG9_PRED, average="weighted"))
    precision = per_class("precision", "none", FIG9_TRUE, FIG9_PRED, zero_division=0.0)
    assert figure10_weighted(FIG9_TRUE, FIG9_PRED, precision) > 1


def test_single_label_identities_fail_on_multi_label_data():
    """Micro precision = micro recall and samples(precision) = samples(recall) are
    single-label facts; Figure 9 separates them (10/17 vs 10/15, 0.573 vs 0.66)."""
    assert per_class("precision", "micro", FIG9_TRUE, FIG9_PRED) == pytest.approx(10 / 17)
    assert per_class("recall", "micro", FIG9_TRUE, FIG9_PRED) == pytest.approx(10 / 15)
    assert per_instance("precision", FIG9_TRUE, FIG9_PRED) != pytest.approx(per_instance("recall", FIG9_TRUE, FIG9_PRED))


# ---------------------------------------------------------------- scikit-learn

SK_ZERO_DIVISIONS = (0.0, 1.0)


@FAST
@given(data=indicator_pairs(), zero_division=st.sampled_from(SK_ZERO_DIVISIONS))
def test_precision_recall_fscore_support_on_indicator_matrices(data, zero_division):
    y_true, y_pred = data
    for average in ("samples", "micro", "macro", "weighted"):
        if average == "weighted" and not y_true.any():
            continue  # no true label at all: test_weighted_average_without_any_true_label
        expected = skm.precision_recall_fscore_support(y_true, y_pred, average=average, zero_division=zero_division)[:3]
        values = mc.evaluate(["precision", "recall", "f1"], y_true=y_true, y_pred=y_pred, multilabel=True,
                             average=average, zero_division=zero_division)
        np.testing.assert_allclose(list(values.values()), expected, rtol=1e-12, atol=1e-15, err_msg=average)
    beta2 = skm.fbeta_score(y_true, y_pred, beta=2, average="samples", zero_division=zero_division)
    assert ours("f_beta", y_true, y_pred, average="samples", params={"beta": 2},
                zero_division=zero_division) == pytest.approx(beta2, rel=1e-12, abs=1e-15)


@FAST
@given(data=indicator_pairs(), zero_division=st.sampled_from(SK_ZERO_DIVISIONS))
def test_jaccard_hamming_and_subset_accuracy(data, zero_division):
    y_true, y_pred = data
    jaccard = skm.jaccard_score(y_true, y_pred, average="samples", zero_division=zero_division)
    assert ours("jaccard", y_true, y_pred, average="samples", zero_division=zero_division) == pytest.approx(jaccard, abs=1e-12)
    for average in ("samples", "micro", "macro"):
        assert ours("hamming_loss", y_true, y_pred, average=average) == pytest.approx(skm.hamming_loss(y_true, y_pred), abs=1e-12)
    assert ours("exact_match_ratio", y_true, y_pred) == pytest.approx(skm.accuracy_score(y_true, y_pred), abs=1e-12)


def test_weighted_average_without_any_true_label():
    """Total support 0: metricc's weighted mean is undefined (``zero_division``);
    scikit-learn falls back to the unweighted mean of the per-class values."""
    y_true, y_pred = np.array([[0, 0]]), np.array([[0, 1]])
    assert ours("precision", y_true, y_pred, average="weighted", zero_division=1.0) == 1.0
    assert skm.precision_score(y_true, y_pred, average="weighted", zero_division=1.0) == 0.5
    assert math.isnan(ours("precision", y_true, y_pred, average="weighted"))


def test_empty_label_sets_follow_zero_division():
    """An instance with no true and no predicted label: precision, recall, F1 and Jaccard are
    0/0 for it, so its value is ``zero_division`` (NaN by default, like every metric; 0 or 1
    as scikit-learn's ``zero_division``); it is an exact match and has no Hamming error."""
    y_true = np.array([[1, 0, 1], [0, 0, 0], [0, 1, 0]])
    y_pred = np.array([[1, 0, 0], [0, 0, 0], [0, 1, 0]])
    for metric in ("precision", "recall", "f1", "jaccard"):
        assert math.isnan(ours(metric, y_true, y_pred, average="samples"))
        for zero_division in (0.0, 1.0):
            value = ours(metric, y_true, y_pred, average="samples", zero_division=zero_division)
            sk = {"jaccard": skm.jaccard_score}.get(metric)
            if sk is None:
                index = ("precision", "recall", "f1").index(metric)
                expected = skm.precision_recall_fscore_support(y_true, y_pred, average="samples", zero_division=zero_division)[index]
            else:
                expected = sk(y_true, y_pred, average="samples", zero_division=zero_division)
            assert value == pytest.approx(expected), (metric, zero_division)
    assert ours("exact_match_ratio", y_true, y_pred) == pytest.approx(2 / 3)
    assert ours("hamming_loss", y_true, y_pred, average="samples") == pytest.approx(1 / 9)


def test_nan_zero_division_differs_from_sklearn_which_leaves_instances_out():
    """scikit-learn's zero_division=np.nan drops undefined instances from the samples mean
    (docs/differences.md); metricc's NaN says that some instance is undefined."""
    y_true = np.array([[1, 0], [0, 0], [1, 1]])
    y_pred = np.array([[1, 0], [0, 1], [0, 1]])
    sk_recall = skm.recall_score(y_true, y_pred, average="samples", zero_division=np.nan)
    assert sk_recall == pytest.approx(0.75)  # mean of 1 and 1/2: the empty instance left out
    assert math.isnan(ours("recall", y_true, y_pred, average="samples"))


# ---------------------------------------------------------------- evaluate and generated code

def test_samples_is_a_mode_of_the_catalog():
    for metric in ("precision", "recall", "f1", "f_beta", "jaccard", "specificity", "fpr", "fnr", "hamming_loss"):
        assert "samples" in CATALOG[metric].averages, metric
    assert CATALOG["exact_match_ratio"].averages == ("samples",)
    assert CATALOG["f1_of_sample_averages"].per_instance
    assert not CATALOG["f1_of_macro_averages"].per_instance


def test_batched_indicator_matrices_equal_a_loop():
    rng = np.random.default_rng(9)
    y_true, y_pred = rng.integers(0, 2, size=(2, 3, 4, 6, 5))  # a (3, 4) batch of 6 x 5 matrices
    names = ["precision", "jaccard", "hamming_loss", "exact_match_ratio", "f1_of_sample_averages"]
    batched = mc.evaluate(names, y_true=y_true, y_pred=y_pred, multilabel=True, average="samples", zero_division=0.0)
    for name in names:
        looped = [[ours(name, t, p, average="samples", zero_division=0.0) for t, p in zip(ts, ps)] for ts, ps in zip(y_true, y_pred)]
        np.testing.assert_allclose(batched[name], looped, rtol=1e-12, err_msg=name)


def test_samples_needs_indicator_matrices():
    with pytest.raises(InputError, match="^average: precision averages over instances"):
        mc.evaluate("precision", y_true=[0, 1, 1], y_pred=[0, 1, 0], average="samples")
    with pytest.raises(InputError, match="^multilabel: exact_match_ratio averages over instances"):
        mc.evaluate("exact_match_ratio", matrix=[[3, 1], [0, 2]])
    with pytest.raises(InputError, match="^multilabel: f1_of_sample_averages"):
        mc.evaluate(["accuracy", "f1_of_sample_averages"], matrix=[[3, 1], [0, 2]])
    with pytest.raises(InputError, match="^average: mcc_per_class does not support 'samples'"):
        mc.evaluate("mcc_per_class", y_true=FIG9_TRUE, y_pred=FIG9_PRED, multilabel=True, average="samples")


def test_per_class_and_per_instance_metrics_in_one_call():
    """Each class-level metric under its default mode: precision per class (macro), exact
    match per instance; the aggregate over per-instance counts."""
    values = mc.evaluate(["precision", "exact_match_ratio", "f1_of_sample_averages"],
                         y_true=FIG9_TRUE, y_pred=FIG9_PRED, multilabel=True)
    assert values["precision"] == pytest.approx(skm.precision_score(FIG9_TRUE, FIG9_PRED, average="macro"))
    assert values["exact_match_ratio"] == pytest.approx(0.2)
    assert round(values["f1_of_sample_averages"], 2) == 0.61
    with pytest.raises(InputError, match="^average: exact_match_ratio does not support 'micro'"):
        mc.evaluate(["precision", "exact_match_ratio"], y_true=FIG9_TRUE, y_pred=FIG9_PRED, multilabel=True, average="micro")


def test_indicator_prints_as_an_iverson_bracket(compiled_metrics):
    from metricc.compiler.emit import text

    metric = compiled_metrics["exact_match_ratio"]
    assert text.plain(metric.simplified) in ("[0 == FN + FP]", "[FN + FP == 0]")
    assert CATALOG["exact_match_ratio"].function([1, 0], [0, 0], [0, 2], [3, 1], average="samples") == 0.5


# ---------------------------------------------------------------- command line

def write_indicators(path: Path, rows) -> Path:
    path.write_text("\n".join(",".join(str(int(v)) for v in row) for row in rows) + "\n")
    return path


def test_cli_eval_multilabel_samples(capsys, tmp_path):
    y_true = write_indicators(tmp_path / "true.csv", FIG9_TRUE)
    y_pred = write_indicators(tmp_path / "pred.csv", FIG9_PRED)
    code = cli.main(["eval", "--multilabel", "--y-true", str(y_true), "--y-pred", str(y_pred), "--average", "samples",
                     "--metric", "recall", "--metric", "precision", "--metric", "jaccard", "--metric", "hamming_loss",
                     "--metric", "f1", "--metric", "subset_accuracy", "--metric", "f1_of_sample_averages", "--format", "json"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    import json

    values = json.loads(out)
    assert {k: round(v, 3) for k, v in values.items()} == {
        "recall": 0.66, "precision": 0.573, "jaccard": 0.48, "hamming_loss": 0.343, "f1": 0.559,
        "subset_accuracy": 0.2, "f1_of_sample_averages": 0.614}


def test_cli_samples_without_multilabel_is_a_usage_error(capsys):
    code = cli.main(["eval", "--matrix", "[[3, 1], [0, 2]]", "--metric", "precision", "--average", "samples"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("metricc: error: --average: precision averages over instances (samples)")
    code = cli.main(["eval", "--matrix", "[[3, 1], [0, 2]]", "--metric", "exact_match_ratio"])
    out, err = capsys.readouterr()
    assert code == 2 and err.startswith("metricc: error: --multilabel: exact_match_ratio")
