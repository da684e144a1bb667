"""metricc identify: the numbered equations of the source papers, hostile text, the JSON."""

import json

import jsonschema
import pytest

from metricc.audit.identify import identify, schema
from metricc.cli.app import main
from metricc.core.errors import InputError

# (paper, equation, LaTeX as printed, expected (metric, average, holds) among the matches)
EQUATIONS = [
    ("Kozak", "5", r"accuracy_binary = \frac{TP + TN}{TP + FP + FN + TN} \quad (5)", ("class_accuracy", "binary", "all")),
    ("Kozak", "6", r"precision_binary = \frac{TP}{TP + FP} \quad (6)", ("precision", "binary", "all")),
    ("Kozak", "7", r"recall_binary = \frac{TP}{TP + FN} \quad (7)", ("recall", "binary", "all")),
    ("Kozak", "8", r"F_\beta = (1 + \beta^2) \times \frac{\text{precision_binary} \times \text{recall_binary}}{\beta^2 \times \text{precision_binary} + \text{recall_binary}} \quad (8)", ("f_beta", "binary", "all")),
    ("Kozak", "9", r"F1_binary = 2 \times \frac{\text{precision_binary} \times \text{recall_binary}}{\text{precision_binary} + \text{recall_binary}} = \frac{TP}{TP + \frac{1}{2}(FN + FP)} \quad (9)", ("f1", "binary", "all")),
    ("Kozak", "10", r"MCC_binary = \frac{TP \times TN - FP \times FN}{\sqrt{(TP + FP)(TP + FN)(TN + FP)(TN + FN)}} \quad (10)", ("mcc", None, "binary")),
    ("Kozak", "12", r"\text{BalancedAccuracy_binary} = \frac{1}{2} \left(\frac{TP}{TP + FN} + \frac{TN}{FP + TN} \right) \quad (12)", ("balanced_accuracy", None, "binary")),
    ("Kozak", "13", r"\text{specificity_binary} = \frac{TN}{FP + TN} \quad (13)", ("specificity", "binary", "all")),
    ("Kozak", "14", r"accuracy = \frac{\sum_{i=1}^c TP_i}{\sum_{i=1}^c TP_i + \sum_{i=1}^c FP_i} \quad (14)", ("precision", "micro", "all")),
    ("Kozak", "15", r"accuracy = \frac{\sum_{i=1}^c TP_i}{\sum_{i=1}^c TP_i + \sum_{i=1}^c FN_i} \quad (15)", ("recall", "micro", "all")),
    ("Kozak", "16", r"accuracy = \frac{\sum_{i=1}^c TP_i}{s} \quad (16)", ("accuracy", None, "single-label")),
    ("Kozak", "17", r"macro_precision = \frac{1}{c} \sum_{i=1}^c \frac{TP_i}{TP_i + FP_i} \quad (17)", ("precision", "macro", "all")),
    ("Kozak", "18", r"macro_recall = \frac{1}{c} \sum_{i=1}^c \frac{TP_i}{TP_i + FN_i} \quad (18)", ("recall", "macro", "all")),
    ("Kozak", "19", r"micro_precision = \frac{\sum_{i=1}^c TP_i}{\sum_{i=1}^c TP_i + \sum_{i=1}^c FP_i} \tag{19}", ("precision", "micro", "all")),
    ("Kozak", "20", r"micro_recall = \frac{\sum_{i=1}^c TP_i}{\sum_{i=1}^c TP_i + \sum_{i=1}^c FN_i} \tag{20}", ("recall", "micro", "all")),
    ("Kozak", "21", r"macro_F_\beta = (1 + \beta^2) \times \frac{macro_precision \times macro_recall}{\beta^2 \times macro_precision + macro_recall} \quad (21)", ("f_beta_of_macro_averages", None, "all")),
    ("Kozak", "22", r"micro_F_\beta = (1 + \beta^2) \times \frac{micro_precision \times micro_recall}{\beta^2 \times micro_precision + micro_recall} \quad (22)", ("f_beta_of_micro_averages", None, "all")),
    ("Kozak", "23", r"macro_F1 = 2 \times \frac{macro_precision \times macro_recall}{macro_precision + macro_recall} \quad (23)", ("f1_of_macro_averages", None, "all")),
    ("Kozak", "24", r"micro_F1 = 2 \times \frac{micro_precision \times micro_recall}{micro_precision + micro_recall} \quad (24)", ("f1", "micro", "all")),
    ("Kozak", "25", r"MCC_multiclass = \frac{s \times \sum_{i=1}^c TP_i - \sum_{i=1}^c ((TP_i + FP_i) \times (TP_i + FN_i))}{\sqrt{s^2 - \sum_{i=1}^c (TP_i + FP_i)^2} \times \sqrt{s^2 - \sum_{i=1}^c (TP_i + FN_i)^2}} \quad (25)", ("mcc", None, "single-label")),
    ("Kozak", "26", r"Balanced\ Accuracy = \frac{1}{c} \sum_{i=1}^c \frac{TP_i}{TP_i + FN_i} \tag{26}", ("recall", "macro", "all")),
    ("Kozak", "27", r"preference\text{-}driven_{\vec{\kappa}} = \frac{1}{c} \sum_{i=1}^c \kappa_i \times \frac{TP_i}{TP_i + FP_i} + (1 - \kappa_i) \times \frac{TP_i}{TP_i + FN_i} \tag{27}", ("preference_driven", "macro", "all")),
    ("Kozak", "28", r"precision_i = \frac{TP_i}{TP_i + FP_i} \tag{28}", ("precision", "binary", "all")),
    ("Kozak", "30", r"preference\text{-}driven_{\vec{\kappa}} = \frac{1}{c} \sum_{i=1}^c \kappa_i \times precision_i + (1 - \kappa_i) \times recall_i \tag{30}", ("preference_driven", "macro", "all")),
    ("Wenzel", "1", r"r = TPR = \frac{TP}{TP + FN} \quad (1)", ("recall", "binary", "all")),
    ("Wenzel", "3", r"FPR = 1 - TNR = \frac{FP}{FP + TN} \quad (3)", ("fpr", "binary", "all")),
    ("Wenzel", "6", r"NPV = \frac{TN}{TN + FN} = 1 - FOR \quad (6)", ("npv", "binary", "all")),
    ("Wenzel", "8", r"ERR = 1 - Acc = \frac{FP + FN}{TP + TN + FP + FN} \quad (8)", ("class_error_rate", "binary", "all")),
    ("Wenzel", "10", r"F_1 = \frac{2 \cdot p \cdot r}{p + r} = \left(\frac{p + r}{2 \cdot p \cdot r} \right)^{-1} \quad (10)", ("f1", "binary", "all")),
    ("Wenzel", "12", r"r_M = \frac{1}{m} \sum_{j=1}^m \frac{TP_j}{(TP_j + FN_j)} \quad (12)", ("recall", "macro", "all")),
    ("Wenzel", "14", r"p_\mu = \frac{\sum_{j=1}^m TP_j}{\sum_{j=1}^m (TP_j + FP_j)} \quad (14)", ("precision", "micro", "all")),
    ("Wenzel", "19", r"\mathcal{F}_1 = \frac{1}{m} \sum_{j=1}^m \frac{2 \cdot p_j \cdot r_j}{p_j + r_j} \quad (19)", ("f1", "macro", "all")),
    ("Wenzel", "20", r"\mathbb{F}_1 = \frac{2 \cdot p_M \cdot r_M}{p_M + r_M} \quad (20)", ("f1_of_macro_averages", None, "all")),
    ("Wenzel", "21", r"\mathcal{F}_{1w} = \frac{1}{n} \sum_{j=1}^m (TP_j + FN_j) \cdot \frac{2 \cdot p_j \cdot r_j}{p_j + r_j} \quad (21)", ("f1", "weighted", "single-label")),
    ("Wenzel", "23", r"r_M = \frac{1}{n} \sum_{i=1}^n \frac{|C_{h(x_i)} \cap C_{y_i}|}{|C_{y_i}|} = \frac{1}{n} \sum_{i=1}^n \frac{TP_i}{TP_i + FN_i} \quad (23)", ("recall", "samples", "all")),
    ("Wenzel", "24", r"p_M = \frac{1}{n} \sum_{i=1}^n \frac{|C_{h(x_i)} \cap C_{y_i}|}{|C_{h(x_i)}|} = \frac{1}{n} \sum_{i=1}^n \frac{TP_i}{TP_i + FP_i} \quad (24)", ("precision", "samples", "all")),
    ("Wenzel", "25", r"MR = \frac{1}{n} \sum_{i=1}^n I(C_{h(x_i)}, C_{y_i}), \quad \text{where } I = \begin{cases} 1 & \text{if } C_{h(x_i)} = C_{y_i} \\ 0 & \text{otherwise} \end{cases} \quad (25)", ("exact_match_ratio", "samples", "all")),
    ("Wenzel", "26", r"Acc = \frac{1}{n} \sum_{i=1}^n \frac{|C_{h(x_i)} \cap C_{y_i}|}{|C_{h(x_i)} \cup C_{y_i}|} = \frac{1}{n} \sum_{i=1}^n \frac{TP_i}{TP_i + FP_i + FN_i} \quad (26)", ("jaccard", "samples", "all")),
    ("Wenzel", "27", r"HL = \frac{1}{n} \sum_{i=1}^n \frac{1}{|C|} |\{c \mid (c \in C_{h(x_i)} \wedge c \notin C_{y_i}) \vee (c \notin C_{h(x_i)} \wedge c \in C_{y_i})\}|} \\ = \frac{1}{n} \sum_{i=1}^n \frac{FP_i + FN_i}{TP_i + TN_i + FP_i + FN_i} \quad (27)", ("hamming_loss", "samples", "all")),
    ("Puertolas", "3.1", r"F1 = \frac{2 \times \text{Precision} \times \text{Recall}}{\text{Precision} + \text{Recall}} \quad (3.1)", ("f1", "binary", "all")),
    ("Puertolas", "3.2", r"G - \text{mean} = \sqrt{\text{TruePositiveRate} * \text{TrueNegativeRate}} = \sqrt{\text{Recall} * \text{Specificity}} \quad (3.2)", ("g_mean", "binary", "all")),
    ("Puertolas", "3.4", r"AGF = \sqrt{F_2 \times InvF_{0.5}} \quad (3.4)", ("adjusted_f_measure", "binary", "all")),
    ("Puertolas", "3.5", r"OptimizedPrecision = \frac{specificity \times N_n + recall \times N_p}{N_n + N_p} - \frac{|specificity - recall|}{specificity + recall} \quad (3.5)", ("optimized_precision", "binary", "all")),
    ("Puertolas", "3.6", r"IBM = (1 + \alpha \times Dom) \times M \quad (3.6)", ("iba", "binary", "all")),
    ("Branco", "1", r"recall_i = \frac{tp_i}{t_i} \quad (1)", ("recall", "binary", "all")),
    ("Branco", "2", r"precision_i = \frac{tp_i}{p_i} \quad (2)", ("precision", "binary", "all")),
    ("Branco", "3", r"F_{\beta i} = \frac{(1+\beta^2)precision_i \cdot recall_i}{\beta^2 \cdot precision_i + recall_i} \quad (3)", ("f_beta", "binary", "all")),
    ("Branco", "4", r"Rec^\phi = \frac{1}{\sum_{i=1}^C \phi(i)} \sum_{i=1}^C \phi(i) \cdot recall_i \quad (4)", ("relevance_recall", None, "all")),
    ("Branco", "5", r"Prec^\phi = \frac{1}{\sum_{i=1}^C \phi(i)} \sum_{i=1}^C \phi(i) \cdot precision_i \quad (5)", ("relevance_precision", None, "all")),
    ("Branco", "6", r"F_\beta^\phi = \frac{(1+\beta^2) \cdot Prec^\phi \cdot Rec^\phi}{(\beta^2 \cdot Prec^\phi) + Rec^\phi} \quad (6)", ("relevance_f_beta", None, "all")),
    ("Branco", "7", r"AvF_\beta^\phi = \frac{1}{\sum_{i=1}^C \phi(i)} \sum_{i=1}^C \frac{\phi(i) \cdot (1+\beta^2) \cdot precision_i \cdot recall_i}{(\beta^2 \cdot precision_i) + recall_i} = \frac{1}{\sum_{i=1}^C \phi(i)} \sum_{i=1}^C \frac{\phi(i) \cdot (1+\beta^2) \cdot tp_i}{\beta^2 \cdot t_i + p_i} \quad (7)", ("relevance_av_f_beta", None, "all")),
]
# Not metric definitions: Branco Eq. 9-10 estimate the relevance phi; Puertolas Eq. 3.3 and
# Branco Eq. 8 are errata (tests below). Wang et al.'s equations: test_identify_wang.py.


@pytest.mark.parametrize("paper, equation, latex, expected", EQUATIONS, ids=[f"{p}-{e}" for p, e, *_ in EQUATIONS])
def test_paper_equations_are_identified(paper, equation, latex, expected):
    result = identify(latex)
    assert expected in {(m.metric, m.average, m.holds) for m in result.matches}, result.text()


def test_branco_table1_mcc_has_a_root_too_many():
    """Erratum branco-table1-mcc-root: X / sqrt(Y Z) with Y, Z already square roots."""
    latex = (r"MCC = \frac{X}{\sqrt{Y Z}}, X = n \sum_{k=1}^C tp_k - \sum_{k=1}^C t_k p_k, "
             r"Y = \sqrt{\sum_{k=1}^C p_k (n - p_k)}, Z = \sqrt{\sum_{k=1}^C t_k (n - t_k)}")
    result = identify(latex, symbols_map={})
    assert result.matches == () and result.label_agrees is False
    assert result.nearest[0].metric == "mcc"
    assert result.nearest[0].differs == "has a square root that mcc does not"


def test_wenzel_eq16_weights_give_micro_precision():
    """Erratum wenzel-eq16-weighted-precision-weights: the printed weights TP + FP make the sum
    collapse to micro precision (accuracy), which the label p_w does not name."""
    result = identify(r"p_w = \frac{1}{n} \sum_{j=1}^m (TP_j + FP_j) \cdot \frac{TP_j}{(TP_j + FP_j)} \quad (16)")
    found = {(m.metric, m.average, m.holds) for m in result.matches}
    assert ("accuracy", None, "single-label") in found and ("precision", "micro", "single-label") in found
    assert ("precision", "weighted", "single-label") not in found
    assert result.label_agrees is False
    assert (result.nearest[0].metric, result.nearest[0].average) == ("precision", "weighted")
    assert result.nearest[0].differs == "uses FP where precision [weighted] uses FN"


def test_puertolas_eq33_with_a_count_of_negatives_is_not_the_adjusted_g_mean():
    """Erratum thesis-eq33-agm-proportion-and-zero-recall: N_n printed as 'the number of
    negatives'; the adjusted G-mean takes their proportion (and is 0 when TP = 0)."""
    printed = r"AGm = \frac{G - \text{mean} + \text{specificity} \times N_n}{N_n + 1} \quad (3.3)"
    result = identify(printed)
    assert result.matches == () and result.label_agrees is False
    assert result.nearest[0].metric == "adjusted_g_mean"
    result = identify(printed, symbols_map={"N_n": "(TN + FP) / n"})
    # equal but where TP = 0, where the catalog's AGM is 0: not a match (issue 30), the nearest
    assert result.matches == ()
    assert (result.nearest[0].metric, result.nearest[0].average) == ("adjusted_g_mean", "binary")
    assert result.nearest[0].differs.startswith("equal except where TP = 0")


def test_branco_eq8_misses_the_division_by_the_total_relevance():
    """Erratum branco-eq8-cba-phi-normalization: Eq. 8 sums phi(i) CBA_i without dividing by
    the sum of phi, unlike Eq. 4-7."""
    result = identify(r"CBA^\phi = \sum_{i=1}^C \phi(i) \cdot \frac{mat_{i,i}}{\max\left(\sum_{j=1}^C mat_{i,j}, "
                      r"\sum_{j=1}^C mat_{j,i}\right)} \quad (8)")
    assert result.matches == () and result.label_agrees is False
    assert (result.nearest[0].metric, result.nearest[0].differs) == (
        "relevance_cba", "not divided by the sum of the class weights, as relevance_cba is")


def test_issue_examples():
    assert ("recall", "geometric", "all") in {(m.metric, m.average, m.holds) for m in identify(r"\sqrt[C]{\prod_{i=1}^{C} recall_i}").matches}
    result = identify(r"\frac{2\bar{P}\bar{R}}{\bar{P}+\bar{R}},\ \bar{P}=\frac{1}{n}\sum_x P_x, \bar{R}=\frac{1}{n}\sum_x R_x")
    assert result.matches[0].metric == "f1_of_macro_averages" and result.matches[0].proved


MULTILABEL = [  # the issue's instance notation: (formula, expected among the matches)
    (r"\frac{1}{n}\sum_{i=1}^{n} I(Y_i = Z_i)", ("exact_match_ratio", "samples", "all")),
    (r"\frac{1}{n}\sum_{i=1}^{n} \frac{|Y_i \Delta Z_i|}{C}", ("hamming_loss", "samples", "all")),
    (r"\frac{1}{n}\sum_{i=1}^{n} \frac{2|Y_i \cap Z_i|}{|Y_i| + |Z_i|}", ("f1", "samples", "all")),
    (r"\frac{1}{n}\sum_{i=1}^{n} \frac{|Y_i \cap Z_i|}{|Y_i \cup Z_i|}", ("jaccard", "samples", "all")),
    (r"\frac{\sum_{i=1}^{n} |Y_i \cap Z_i|}{\sum_{i=1}^{n} |Z_i|}", ("precision", "micro", "all")),
]


@pytest.mark.parametrize("latex, expected", MULTILABEL, ids=range(len(MULTILABEL)))
def test_multilabel_instance_notation(latex, expected):
    result = identify(latex)
    assert expected in {(m.metric, m.average, m.holds) for m in result.matches}, result.text()
    assert not any(m.proved for m in result.matches)  # sums over instances: confirmed numerically only


def test_multilabel_labels_and_a_swapped_set():
    """Wenzel's Acc of multi-label data is the Jaccard index averaged over instances, which is
    accuracy on single-label data: no mislabel (identify_single_label); a cap where a cup
    belongs is caught."""
    acc = identify(r"Acc = \frac{1}{n} \sum_{i=1}^n \frac{|C_{h(x_i)} \cap C_{y_i}|}{|C_{h(x_i)} \cup C_{y_i}|}")
    assert [(m.metric, m.average) for m in acc.matches] == [("jaccard", "samples")]
    assert acc.label_agrees is True and "labelled" not in acc.text()
    assert identify(r"r_M = \frac{1}{n} \sum_{i=1}^n \frac{|Y_i \cap Z_i|}{|Y_i|}").label_agrees is True
    wrong = identify(r"\frac{1}{n}\sum_{i=1}^{n} \frac{|Y_i \cap Z_i|}{|Y_i \cap Z_i|}", setting="multilabel")
    assert ("jaccard", "samples", "all") not in {(m.metric, m.average, m.holds) for m in wrong.matches}
    with pytest.raises(InputError, match="mixes two instances"):
        identify(r"\frac{1}{n}\sum_{i=1}^{n} |Y_i \cap Z_j|")


def test_wenzel_blackboard_f1_label_agrees():
    assert identify(r"\mathbb{F}_1 = \frac{2 \cdot p_M \cdot r_M}{p_M + r_M}").label_agrees is True


def test_label_that_names_another_metric():
    result = identify(r"\text{Precision} = \frac{TP}{TP+FN}")
    assert result.label_agrees is False
    assert "labelled precision, but it defines recall [binary]" in result.text()
    assert result.nearest[0].differs == "uses FN where precision [binary] uses FP"


def test_f1_of_means_is_not_mean_of_f1():
    result = identify(r"macro_F1 = 2 \times \frac{macro_precision \times macro_recall}{macro_precision + macro_recall}")
    assert result.label_agrees is False
    assert result.nearest[0].differs == "the F1 of macro precision and macro recall, not the mean of per-class F1"


def test_symbol_option_maps_another_notation():
    result = identify(r"\frac{a}{a + b}", symbols_map={"a": "TP", "b": "FP"})
    assert ("precision", "binary", "all") in {(m.metric, m.average, m.holds) for m in result.matches}


TEXT = [
    ("2*TP/(2*TP+FP+FN)", ("f1", "binary", "all")),
    ("TP/(TP+FP)", ("precision", "binary", "all")),
    ("sqrt(TP/(TP+FN) * TN/(TN+FP))", ("g_mean", "binary", "all")),
    ("(TP*TN - FP*FN)/sqrt((TP+FP)*(TP+FN)*(TN+FP)*(TN+FN))", ("mcc", None, "binary")),
    ("1/C * sum_{i=1}^{C} (TP_i/(TP_i+FP_i))", ("precision", "macro", "all")),
    ("(1 + beta**2)*TP/((1+beta**2)*TP + beta^2*FN + FP)", ("f_beta", "binary", "all")),
    ("(spec*N_n + rec*N_p)/(N_n + N_p) - abs(spec - rec)/(spec + rec), spec = TN/(TN+FP), rec = TP/(TP+FN)",
     ("optimized_precision", "binary", "all")),
]


@pytest.mark.parametrize("text, expected", TEXT, ids=range(len(TEXT)))
def test_plain_text_notation_reads_the_same_names(text, expected):
    result = identify(text, notation="text")
    assert expected in {(m.metric, m.average, m.holds) for m in result.matches}, result.text()


@pytest.mark.parametrize("text", ["__import__('os').system('ls')", r"\frac{TP}{TP+FP}", "sqrt(TP", "TP**(10**10)"])
def test_plain_text_notation_is_never_code(text):
    with pytest.raises(InputError) as error:
        identify(text, notation="text")
    assert error.value.argument == "FORMULA"


HOSTILE = [
    "import os; os.system('ls')",
    "__import__('os').system('ls')",
    r"\input{/etc/passwd}",
    r"\def\x{1} \x",
    r"10^{10^{10}}",
    r"2^{1000000}",
    "+".join(["TP"] * 10_000),
    r"\frac{TP}{",
    r"\sum_{i=1}^{100000000} TP_i",
    "",
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_text_is_a_clear_error(text):
    """How long each takes is timed by benchmarks/identify_hostile.py."""
    with pytest.raises(InputError) as error:
        identify(text)
    assert error.value.argument == "FORMULA"


def test_cli_json_follows_the_schema_and_exit_codes(capsys):
    assert main(["identify", "--format", "json", r"\frac{TP}{TP + \frac{1}{2}(FP + FN)}"]) == 0
    document = json.loads(capsys.readouterr().out)
    jsonschema.validate(document, schema())
    assert {"metric": "f1", "average": "binary", "holds": "all", "proved": True, "params": {}, "reading": [],
            "boundary": []} in document["matches"]
    assert {"metric": "f_beta", "average": "binary", "holds": "all", "proved": True, "params": {"beta": "1"},
            "reading": [], "boundary": []} in document["matches"]  # a match with a parameter names its value (issue 27 item 9)
    assert document["forced"] is True and document["inferred"] == []
    assert main(["identify", "--format", "json", r"\frac{TP}{TP + \frac{1}{2}(FP + TN)}"]) == 1
    document = json.loads(capsys.readouterr().out)
    jsonschema.validate(document, schema())
    assert document["nearest"][0]["differs"].startswith("uses TN where")
    assert main(["identify", "--format", "json", r"\frac{1}{c} \sum_{i=1}^c \kappa_i \times precision_i + (1 - \kappa_i) \times recall_i"]) == 0
    document = json.loads(capsys.readouterr().out)
    jsonschema.validate(document, schema())
    assert {"metric": "preference_driven", "average": "macro", "holds": "all", "proved": False, "params": {},
            "reading": [], "boundary": []} in document["matches"]
    assert main(["identify", r"\frac{TP}{"]) == 2
    assert "FORMULA" in capsys.readouterr().err
