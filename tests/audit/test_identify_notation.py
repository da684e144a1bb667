"""identify on notation it was never shown: generated variants of catalog formulas (random
letters, index names, sum bounds, wrappers, spacing, implicit products, definitions in random
styles) must come back as the metric they were built from, and perturbed ones must not; letters
of several meanings are resolved by trying each reading (issue 29 part 1, issue 27 item 9,
issue 30's identify items). The real-paper corpus is held out: no unit test reads it (its benchmark does)."""

import random

import pytest

from metricc.audit.identify import identify
from metricc.cli.app import main
from metricc.core.errors import InputError

# per-class formulas over {tp}, {fp}, {fn}, {tn}: (numerator, denominator, catalog metric)
BASES = [
    ("{tp}", "{tp} + {fp}", "precision"),
    ("{tp}", "{tp} + {fn}", "recall"),
    ("{tn}", "{tn} + {fp}", "specificity"),
    ("{tn}", "{tn} + {fn}", "npv"),
    ("2 {tp}", "2 {tp} + {fp} + {fn}", "f1"),
    ("{tp}", "{tp} + {fp} + {fn}", "jaccard"),
    ("{fp}", "{fp} + {tn}", "fpr"),
]
COUNTS = ("TP", "FP", "FN", "TN")
WRAPPERS = ("{}", r"\text{{{}}}", r"\mathrm{{{}}}", r"\mathit{{{}}}", r"\operatorname{{{}}}")
SPACES = (" ", r"\,", r"\;", r"\ ", "")
LETTERS = "abdefghuvwxyz"  # no letter with a customary meaning (p, n, c, s, m)


def _spell(rng: random.Random, index: str | None) -> tuple[dict, list[str]]:
    """How the counts are printed: a wrapper and case, or letters defined beside the formula."""
    if rng.random() < 0.4:
        letters = rng.sample(LETTERS.replace(index or "", ""), 4)
        names = {c.lower(): (f"{a}_{index}" if index else a) for c, a in zip(COUNTS, letters)}
        definitions = [f"{names[c.lower()]} = {c}_{index}" if index else f"{names[c.lower()]} = {c}" for c in COUNTS]
        return names, definitions
    wrapper, lower = rng.choice(WRAPPERS), rng.random() < 0.3
    names = {}
    for c in COUNTS:
        printed = wrapper.format(c.lower() if lower else c)
        names[c.lower()] = f"{printed}_{index}" if index else printed
    return names, []


def _spaced(text: str, rng: random.Random) -> str:
    return text.replace(" + ", rng.choice(SPACES) + "+" + rng.choice(SPACES))


def _with_definitions(formula: str, definitions: list[str], rng: random.Random) -> str:
    used = [d for d in definitions if d.split(" = ")[0] in formula]
    if not used:
        return formula
    style = rng.randrange(4)
    if style == 0:
        return formula + ", where " + ", ".join(used)
    if style == 1:
        return formula + r" \text{ with } " + ", ".join(used[:-1]) + (r" \text{ and } " if len(used) > 1 else "") + used[-1]
    if style == 2:
        return formula + r"\ (" + ", ".join(used) + ")"
    return formula + r" \quad " + r", \quad ".join(used)


def generated(seed: int) -> tuple[str, str, str]:
    """(formula, metric, averaging) built at random from a catalog formula."""
    rng = random.Random(seed)
    numerator, denominator, metric = rng.choice(BASES)
    mode = rng.choice(("binary", "macro", "micro", "weighted"))
    index = None if mode == "binary" else rng.choice("ijk")
    names, definitions = _spell(rng, index)
    num, den = numerator.format(**names), _spaced(denominator.format(**names), rng)
    bound = rng.choice(("l", "K", "L", "q", "|C|", "C"))
    left, right = rng.choice(((r"\left(", r"\right)"), ("(", ")"), (r"\left[", r"\right]")))
    if mode == "binary":
        body = rng.choice((r"\frac{%s}{%s}" % (num, den), r"%s\frac{%s}{%s}%s^{-1}" % (left, den, num, right)))
    elif mode == "macro":
        body = r"\frac{1}{%s}\sum_{%s=1}^{%s} \frac{%s}{%s}" % (bound, index, bound, num, den)
    elif mode == "micro":
        body = r"\frac{\sum_{%s=1}^{%s} %s}{\sum_{%s=1}^{%s} %s%s%s}" % (index, bound, num, index, bound, left, den, right)
    else:  # weighted by the support, an implicit product before \frac
        support = _spaced("%s + %s" % (names["tp"], names["fn"]), rng)
        body = r"\frac{1}{n}\sum_{%s=1}^{%s} %s%s%s\frac{%s}{%s}" % (index, bound, left, support, right, num, den)
    return _with_definitions(body, definitions, rng), metric, mode


@pytest.mark.parametrize("seed", range(14))
def test_generated_notation_is_identified_as_the_metric_it_was_built_from(seed):
    text, metric, mode = generated(seed)
    result = identify(text)
    assert (metric, mode) in {(m.metric, m.average) for m in result.matches}, (text, result.text())
    assert result.forced, (text, result.text())
    bound = text.split("^{")[1].split("}")[0].strip("|") if mode != "binary" else "C"  # the first sum's bound
    if bound != "C":
        assert any(f"read {bound} as the number of classes" in s for s in result.inferred), (text, result.inferred)


@pytest.mark.parametrize("seed", range(6))
def test_a_perturbed_generated_formula_is_not_its_metric(seed):
    """A count of the denominator swapped for one the formula does not use: never a match."""
    rng = random.Random(1000 + seed)
    numerator, denominator, metric = rng.choice(BASES)
    names = {c.lower(): c for c in COUNTS}
    present = [c for c in COUNTS if "{%s}" % c.lower() in numerator + denominator]
    absent = [c for c in COUNTS if c not in present]
    target = rng.choice([c for c in present if "{%s}" % c.lower() in denominator])
    perturbed_den = denominator.replace("{%s}" % target.lower(), rng.choice(absent), 1)
    text = r"\frac{%s}{%s}" % (numerator.format(**names), perturbed_den.format(**names))
    assert metric not in {m.metric for m in identify(text).matches}, text


def test_a_repeated_count_that_cancels_is_what_it_equals():
    """2TP/(2TP + FP + FP) equals TP/(TP + FP): precision, proved (issue 29 calls it not
    precision; it is, by cancellation). Labelled F1, it is a mislabel with the swap named."""
    plain = identify(r"\frac{2TP}{2TP + FP + FP}")
    assert ("precision", "binary", True) in {(m.metric, m.average, m.proved) for m in plain.matches}
    labelled = identify(r"F1 = \frac{2TP}{2TP + FP + FP}")
    assert labelled.label_agrees is False
    assert ("f1", None, "uses FP where f1 [binary] uses FN") in {(n.metric, n.average, n.differs) for n in labelled.nearest}


def test_equal_only_where_every_count_is_positive_is_no_match():
    """max(TP, 1) reads TP at every fixed point (counts from 1) but not at TP = 0: the fresh
    random points, zeros included, catch it; the proof cannot (issue 30)."""
    result = identify(r"\frac{\max(TP, 1)}{\max(TP, 1) + FP}")
    assert "precision" not in {m.metric for m in result.matches}
    assert result.nearest[0].metric == "precision" and result.nearest[0].differs.startswith("equal except where TP = 0")


@pytest.mark.parametrize("text, expected", [
    (r"\frac{TP+TN}{q}, where q is the total number of samples", ("accuracy", None)),
    (r"\frac{TP}{a}, where a is the number of positives", ("recall", "binary")),
    (r"\frac{x}{x+y} where x is the number of true positives, y is the number of false negatives", ("recall", "binary")),
])
def test_a_definition_in_words(text, expected):
    result = identify(text)
    assert expected in {(m.metric, m.average) for m in result.matches} and result.forced


def test_a_factor_printed_inside_a_sum_is_proved_outside_it():
    """sum (tp_i/(tp_i+fn_i)) / l in plain text puts 1/l inside the sum: still proved."""
    result = identify("sum_{i=1}^{l} (tp_i/(tp_i+fn_i)) / l", notation="text")
    assert ("recall", "macro", True) in {(m.metric, m.average, m.proved) for m in result.matches}


def test_a_constant_formula_defines_no_metric():
    """sqrt of a ratio that cancels is 1 everywhere: not chi_squared_df (1 for two classes)."""
    assert identify(r"\sqrt{\frac{TP + FP}{FP + TP}}").matches == ()
    assert ("chi_squared_df", None) in {(m.metric, m.average) for m in identify(r"(C - 1)^2").matches}


def test_a_bound_letter_is_read_from_what_its_index_subscripts():
    result = identify(r"\frac{\sum_{i=1}^{l} \frac{tp_i}{tp_i+fn_i}}{l}")
    assert ("recall", "macro", True) in {(m.metric, m.average, m.proved) for m in result.matches}
    assert result.inferred[0].startswith("read l as the number of classes")
    assert "read l as the number of classes" in result.text()
    samples = identify(r"\frac{1}{N}\sum_{i=1}^{N} \frac{|Y_i \cap Z_i|}{|Y_i \cup Z_i|}")
    assert ("jaccard", "samples") in {(m.metric, m.average) for m in samples.matches} and samples.forced


@pytest.mark.parametrize("text, expected, words", [
    (r"TPR = \frac{TP}{P}", ("recall", "binary"), "read P as the number of positives (TP + FN)"),
    (r"\frac{tp + tn}{p + n}", ("accuracy", None), "read n as the number of negatives (TN + FP)"),
    (r"\frac{TP + TN}{N}", ("accuracy", None), "read N as the number of samples n"),
    (r"\frac{c \times s - \sum_{k}^{K} p_k \times t_k}{\sqrt{(s^2 - \sum_{k}^{K} p_k^2)\times(s^2 - \sum_{k}^{K} t_k^2)}}",
     ("mcc", None), "read c as the number correctly classified (the sum of TP over the classes)"),
])
def test_a_letter_of_several_meanings_is_tried_in_each(text, expected, words):
    result = identify(text)
    assert expected in {(m.metric, m.average) for m in result.matches}, result.text()
    assert result.forced and words in result.inferred


def test_an_unknown_letter_is_tried_as_each_count_and_the_answer_says_under_which(capsys):
    result = identify(r"\frac{TP}{x}")
    assert not result.forced
    found = {(m.metric, m.average, m.reading) for m in result.matches}
    assert ("recall", "binary", ("x is the number of positives (TP + FN)",)) in found
    assert ("precision", "binary", ("x is the number predicted positive (TP + FP)",)) in found
    assert all(m.reading for m in result.matches)
    assert "if x is the number of positives (TP + FN): = recall [binary]" in result.text()
    assert main(["identify", r"\frac{TP}{x}"]) == 1  # exit 0 only when the reading is forced
    capsys.readouterr()
    assert main(["identify", r"\frac{TP}{TP + x}"]) == 1
    capsys.readouterr()
    assert main(["identify", r"\frac{TP}{TP + FP + x}", "--symbol", "x=FN"]) == 0
    capsys.readouterr()
    none = identify(r"\frac{x^2}{x + 3y}")  # no reading matches: the one shown is named (x/(x + 3y) is Tversky)
    assert none.matches == () and none.inferred == ("no reading of x, y matches a catalog metric; shown reading "
                                                    "x as TP and y as FP",)


def test_parameters_name_their_values_and_their_roles():
    f1 = identify(r"\frac{2TP}{2TP+FP+FN}")
    assert ("f_beta", "binary", (("beta", "1"),)) in {(m.metric, m.average, m.params) for m in f1.matches}
    assert "f_beta [binary] with beta = 1" in f1.text()
    tversky = identify(r"\frac{TP}{TP + \alpha FN + \beta FP}")  # PyCM's: alpha on FN
    [match] = [m for m in tversky.matches if m.metric == "tversky_index"]
    assert match.proved and dict(match.params) == {"alpha": "the formula's beta", "beta": "the formula's alpha"}
    ours = identify(r"\frac{TP}{TP + \alpha FP + \beta FN}")
    assert ("tversky_index", ()) in {(m.metric, m.params) for m in ours.matches}


def test_definitions_beside_the_formula_and_a_symbol_bound_to_a_catalog_metric(capsys):
    printed = (r"\kappa = \frac{p_o - p_e}{1 - p_e}\ (p_o = \frac{\sum_{k} C_{kk}}{n}, "
               r"p_e = \frac{1}{n^2}\sum_{k} C_{k\cdot} C_{\cdot k})")
    result = identify(printed)
    assert ("cohen_kappa", None, True) in {(m.metric, m.average, m.proved) for m in result.matches}
    assert result.label_agrees is True
    lines = "\\frac{p_o - p_e}{1 - p_e}\n  p_o = \\frac{\\sum_{k} C_{kk}}{n}\n  p_e = \\frac{1}{n^2}\\sum_{k} C_{k+} C_{+k}"
    assert "cohen_kappa" in {m.metric for m in identify(lines).matches}  # a list of definition lines
    bound = identify(r"\frac{p_o - p_e}{1 - p_e}",
                     symbols_map={"p_o": "accuracy", "p_e": r"\frac{1}{n^2}\sum_{k} C_{k+} C_{+k}"})
    assert "cohen_kappa" in {m.metric for m in bound.matches}
    assert main(["identify", r"\frac{p_o - p_e}{1 - p_e}", "--symbol", "p_o=accuracy", "--symbol",
                 r"p_e=\frac{1}{n^2}\sum_{k} C_{k+} C_{+k}"]) == 0
    capsys.readouterr()
    with pytest.raises(InputError, match="class vector"):
        identify("x", symbols_map={"x": "preference_driven"})


@pytest.mark.parametrize("text, expected", [
    (r"\frac{1}{K}\sum_{k=1}^{K}\frac{\sum_{f \neq k} C_{fk}}{\sum_{f \neq k} \sum_{g} C_{fg}}", ("fpr", "macro")),
    (r"\frac{\sum_{k,l,m=1}^{K} C_{kk}C_{lm} - C_{kl}C_{mk}}{\sqrt{\sum_{k=1}^{K}\left(\sum_{l=1}^{K}C_{kl}\right)"
     r"\left(\sum_{f,g=1, f \neq k}^{K}C_{fg}\right)}\sqrt{\sum_{k=1}^{K}\left(\sum_{l=1}^{K}C_{lk}\right)"
     r"\left(\sum_{f,g=1, f \neq k}^{K}C_{gf}\right)}}", ("mcc", None)),
    (r"\frac{TP_j}{TP_j+FP_j}\quad\text{for}\quad j = 1, \dots, K", ("precision", "binary")),
    (r"\hat{P} = \left[ \frac{TP}{TP+FP} \right]", ("precision", "binary")),
    (r"Precision^{micro} = \frac{\sum_i TP_i}{\sum_i (TP_i+FP_i)}", ("precision", "micro")),
    (r"\frac{1}{|L|}\sum_{l \in L} \frac{TP_l}{TP_l + FP_l}", ("precision", "macro")),
    (r"\frac{1}{|\mathcal{C}|}\sum_{c \in \mathcal{C}} \frac{TP_c}{TP_c + FN_c}", ("recall", "macro")),
    (r"(1+\beta^2)\frac{P \cdot R}{\beta^2 P + R}", ("f_beta", "binary")),
    (r"\texttt{balanced-accuracy} = \frac{1}{2}\left( \frac{TP}{TP + FN} + \frac{TN}{TN + FP}\right )", ("balanced_accuracy", None)),
    (r"F1^{macro} = \frac{1}{C}\sum_i \frac{2TP_i}{2TP_i+FP_i+FN_i}", ("f1", "macro")),
])
def test_sums_with_several_indices_conditions_and_brackets(text, expected):
    assert expected in {(m.metric, m.average) for m in identify(text).matches}


@pytest.mark.parametrize("text, agrees", [
    (r"BM = PPV + NPV - 1", False),  # PyCM's BM is informedness; this is markedness
    (r"MK = PPV + NPV - 1", True),
    (r"Dice = \frac{TP}{TOP + P - TP}", False),  # Jaccard, with PyCM's TOP and P
    (r"PPV_{Macro} = \frac{\sum_i TP_i}{\sum_i (TP_i + FP_i)}", False),  # a micro formula
    (r"\mathit{Acc} = \frac{TP+TN}{TP+TN+FP+FN}", True),
    (r"\text{Recall}_k = \frac{\mathrm{TP}_k}{\mathrm{TP}_k + \mathrm{FN}_k}", True),
])
def test_a_label_is_checked_by_every_name_the_catalog_and_its_peers_give(text, agrees):
    assert identify(text).label_agrees is agrees


def test_dice_reads_top_as_the_predicted_positives():
    result = identify(r"Dice = \frac{TP}{TOP + P - TP}")
    assert result.forced and "jaccard" in {m.metric for m in result.matches}
    assert "read TOP as the number predicted positive (TP + FP)" in result.inferred


def test_the_formula_budget_bounds_identify_before_any_sympy_work():
    deep = "TP"
    for _ in range(16):
        deep = r"\frac{TP}{TP + %s}" % deep
    with pytest.raises(InputError, match="nested more than"):
        identify(deep)
    wide = " + ".join(f"TP/(FP + {i})" for i in range(1, 60))
    with pytest.raises(InputError, match="fractions in one formula"):
        identify(wide, notation="text")
    nested = "TP"
    for _ in range(8):
        nested = r"\frac{TP}{TP + FP + %s}" % nested
    with pytest.raises(InputError, match="too complex to simplify"):
        identify(nested + " + " + nested.replace("FP", "FN"))


def test_seed_paper_literals():
    """Kozak et al. Eq. 25 (MCC with s and c) and Eq. 26, as printed."""
    eq25 = (r"MCC_multiclass = \frac{s \times \sum_{i=1}^c TP_i - \sum_{i=1}^c ((TP_i + FP_i) \times (TP_i + FN_i))}"
            r"{\sqrt{s^2 - \sum_{i=1}^c (TP_i + FP_i)^2} \times \sqrt{s^2 - \sum_{i=1}^c (TP_i + FN_i)^2}} \quad (25)")
    result = identify(eq25)
    assert ("mcc", None, "single-label") in {(m.metric, m.average, m.holds) for m in result.matches}
    assert result.label_agrees is True and result.forced
    eq26 = r"Balanced\ Accuracy = \frac{1}{c} \sum_{i=1}^c \frac{TP_i}{TP_i + FN_i} \tag{26}"
    result = identify(eq26)
    assert {("balanced_accuracy", None), ("recall", "macro")} <= {(m.metric, m.average) for m in result.matches}
    assert result.label_agrees is True


_TOKENS = ["TP", "FP", "FN", "TN", "P", "N", "n", "x", "l", "K", "TOP", r"\frac{", "}{", "}", "(", ")", "+", "-",
           r"\cdot", r"\sqrt{", r"\sum_{i=1}^{l}", "TP_i", "C_{ik}", "_", "^{2}", "=", ",", r"\text{", r"\left[",
           r"\right]", "2", "0.5", r"\beta", r"\alpha", " ", r"\,", "|C|", "where ", r"\quad", "\n"]


@pytest.mark.parametrize("seed", range(30))
def test_random_token_soup_is_read_or_refused_never_an_internal_error(seed):
    """Hostile input (issue 30): a result or an InputError with a message, never another exception."""
    rng = random.Random(5000 + seed)
    text = "".join(rng.choice(_TOKENS) for _ in range(rng.randint(1, 18)))
    try:
        result = identify(text)
    except InputError as error:
        assert str(error).strip()
    else:
        assert all(m.proved or m.holds for m in result.matches)


@pytest.mark.parametrize("text", [r"\mathit_k + TP", r"\bar_k", r"\hat{}", r"\text{}"])
def test_a_wrapper_without_a_name_is_refused_with_its_column(text):
    """Found by mutating generated formulas: these raised IndexError."""
    with pytest.raises(InputError, match="column 1: .* needs a name"):
        identify(text)
