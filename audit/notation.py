"""What the symbols of a printed formula mean: the papers' notations mapped to the catalog's.

A printed name is split at underscores into parts (``TP_i`` -> ``TP``, ``i``;
``macro_precision`` -> ``macro``, ``precision``; ``P_{x}`` -> ``P``, ``x``). The parts say
what it is: a count (``TP``, ``tp``), a class total (``t_i``, ``p_i``, ``n_j``), a matrix
cell (``mat_{i,j}``, ``M_{j,k}``), a total (``n``, ``s``), the number of classes (``C``,
``c``, ``m``), a per-class metric (``precision_i``, ``P_x``, ``TPR``), or an averaged one
(``P_M``, ``\\bar{P}``, ``micro_recall``, ``p_w``), a scalar parameter (``\\beta``,
``\\alpha``), a per-class weight (``\\kappa_i``, ``\\phi(i)``: Kozak's preference vector,
Branco's relevance) or a weighted mean with it (``Rec^\\phi``). Puertolas Molina's names:
``N_n``/``N_p`` (the numbers of negatives and positives), ``G-mean``, ``F_2``, ``InvF_{0.5}``
(F0.5 with the labels switched), ``Dom`` (recall - specificity) and ``M``, "a performance
metric" in Eq. 3.6, read as the catalog's default base of ``iba``, the G-mean. Wang et al.'s
names: ``p_{i,j}`` and ``a_{i,j}`` (matrix cells), ``f(s,j)`` (1 if sample s is of class j), ``p(s,j)``
(its probability for class j), ``P(j)`` (the prevalence of class j), ``r_j`` (every class but j);
PyCM's ``Matrix(i,j)``. Every meaning is a sympy expression over the per-class counts, indexed
by the class (``TP[i]``) or not (a binary formula), over matrix cells or over samples' scores.
"""

from __future__ import annotations

import functools
import re

import sympy

from metricc.compiler.language import symbols
from metricc.core.errors import InputError

__all__ = ["UNKNOWN", "UNKNOWN_INDEXED", "customary", "unknown_readings", "marker", "CLASS_COUNTS", "CLASS_VECTOR", "INSTANCE_COUNTS", "SCALARS", "REST", "unless_equal", "Notation", "MEASURES", "label_metric"]

CLASS_COUNTS = {name: sympy.IndexedBase(f"class_{name}") for name in ("TP", "FP", "FN", "TN")}
CLASS_VECTOR = sympy.IndexedBase("class_weight")  # one number per class: relevance, preference
SCALARS = {name: sympy.Symbol(name, real=True) for name in ("beta", "alpha")}
_VECTOR_NAMES = ("kappa", "phi")
INSTANCE_COUNTS = {name: sympy.IndexedBase(f"instance_{name}") for name in ("TP", "FP", "FN", "TN")}
REST = sympy.Function("rest")  # Wang's r_j (Eq. 14): every class but j, taken as one class


# Letters of several readings (formula_readings tries each): customary meanings in the order
# papers use them most, and what a letter no notation knows may be.
# Customary meanings of plain letters, in the order the papers use them most.
_CUSTOMARY = {
    "P": ("precision", "positives"), "p": ("precision", "positives"),
    "N": ("total", "negatives", "classes"), "n": ("total", "negatives", "classes"),
    "c": ("classes", "correct"),
}
_CUSTOMARY_INDEXED = {"p": ("predicted count", "precision")}
UNKNOWN = ("TP", "FP", "FN", "TN", "positives", "negatives", "predicted positives", "predicted negatives",
            "total", "classes")
UNKNOWN_INDEXED = ("TP", "FP", "FN", "TN", "positives", "negatives", "predicted positives", "predicted negatives")


def customary(name: str, indexed: bool) -> tuple[str, ...] | None:
    """The readings of a letter with several customary meanings (``P``, ``n``, ``p_i``)."""
    return (_CUSTOMARY_INDEXED if indexed else _CUSTOMARY).get(name)


def unknown_readings(name: str, indexed: bool) -> tuple[str, ...] | None:
    """The readings tried for a name no notation knows: a letter (``l``, ``K``, ``x'``) or a
    short capital abbreviation (``TOP``); None for a longer word (a misspelling, an unknown
    metric name), which stays an error."""
    if not re.fullmatch(r"[A-Za-z][0-9']?|[A-Z]{2,4}", name):
        return None
    return UNKNOWN_INDEXED if indexed else UNKNOWN


def marker(name: str, index: sympy.Symbol | None = None) -> sympy.Expr:
    """The stand-in for ``name`` until a reading replaces it."""
    clean = re.sub(r"[^A-Za-z0-9]", "_", name)
    if index is None:
        return sympy.Symbol(f"reading_{clean}", nonnegative=True)
    return sympy.IndexedBase(f"reading_{clean}")[index]


class unless_equal(sympy.Function):
    """``unless_equal(x, k, j)``: x, or 0 where k = j: a term of ``\\sum_{k \\neq j}``. Its own
    function, not a Piecewise, which sympy would fold out of the sum that binds k."""

    nargs = 3

    @classmethod
    def eval(cls, x, k, j):
        if k == j:
            return sympy.S.Zero
        if k.is_Integer and j.is_Integer:
            return x
        return None
N, C = symbols.N_TOTAL, symbols.N_CLASSES
INDEX_LETTERS = frozenset("ijklxyvu")
_COUNTED = re.compile(r"(?:(samples?|instances?|examples?|observations?|documents?|records?)|(?:class(?:es)?|labels?))")
_COUNT_WORDS = {"TP": "TP", "FP": "FP", "FN": "FN", "TN": "TN", "tp": "TP", "fp": "FP", "fn": "FN", "tn": "TN"}


def _precision(tp, fp, fn, tn):
    return tp / (tp + fp)


def _recall(tp, fp, fn, tn):
    return tp / (tp + fn)


def _specificity(tp, fp, fn, tn):
    return tn / (tn + fp)


def _f_beta(beta):
    return lambda tp, fp, fn, tn: (1 + beta ** 2) * tp / ((1 + beta ** 2) * tp + beta ** 2 * fn + fp)


# Per-class measures by printed name: the class-level formula over (TP, FP, FN, TN).
MEASURES = {
    "precision": _precision, "Precision": _precision, "Prec": _precision, "prec": _precision,
    "PPV": _precision, "P": _precision, "p": _precision,
    "recall": _recall, "Recall": _recall, "Rec": _recall, "rec": _recall, "TPR": _recall, "R": _recall,
    "r": _recall, "sensitivity": _recall, "Sensitivity": _recall, "TruePositiveRate": _recall,
    "specificity": _specificity, "Specificity": _specificity, "TNR": _specificity, "TrueNegativeRate": _specificity,
    "FPR": lambda tp, fp, fn, tn: fp / (fp + tn),
    "FNR": lambda tp, fp, fn, tn: fn / (fn + tp),
    "NPV": lambda tp, fp, fn, tn: tn / (tn + fn),
    "FDR": lambda tp, fp, fn, tn: fp / (fp + tp),
    "FOR": lambda tp, fp, fn, tn: fn / (fn + tn),
    "J": lambda tp, fp, fn, tn: tp / (tp + fn) + tn / (tn + fp) - 1,
    "Acc": lambda tp, fp, fn, tn: (tp + tn) / (tp + fp + fn + tn),
    "F1": lambda tp, fp, fn, tn: 2 * tp / (2 * tp + fp + fn),
    "Gmean": lambda tp, fp, fn, tn: sympy.sqrt(_recall(tp, fp, fn, tn) * _specificity(tp, fp, fn, tn)),
    "Dom": lambda tp, fp, fn, tn: _recall(tp, fp, fn, tn) - _specificity(tp, fp, fn, tn),
}
_MODES = {"M": "macro", "macro": "macro", "mu": "micro", "\\mu": "micro", "micro": "micro",
          "w": "weighted", "weighted": "weighted", "binary": None, "i": None}
_WORDS = sorted({*MEASURES, *_COUNT_WORDS, "mat", "bar", "macro", "micro", "binary", "weighted"}, key=len, reverse=True)


class Notation:
    """Resolves printed names; ``symbols`` adds user meanings (``--symbol a=TP``) and the
    formula's own definitions (``\\bar{P} = ...``); ``n_means`` is ``"instances"`` or
    ``"classes"`` (Kozak and Wenzel write n for the instances, some texts for the classes)."""

    def __init__(self, defined: dict[str, sympy.Expr] | None = None, params: frozenset = frozenset(SCALARS)):
        self.defined = dict(defined or {})
        self.params = params
        self.patterns: dict[str, list] = {}  # head -> [(Pattern, meaning)]: see formula_definitions
        self.bounds: dict[str, sympy.Expr] = {}  # a letter bounding a sum over samples or classes (Wang Eq. 18)
        self.inferred: dict[str, str] = {}  # letter -> the sentence saying what its role made it
        # name -> (marker, readings): a name with several customary meanings or none, read as a
        # marker that identify replaces by each reading in turn (formula_readings)
        self.readings: dict[str, tuple[sympy.Expr, tuple[str, ...]]] = {}
        self.used: set[str] = set()  # the letters of self.bounds and self.defined the formula used
        self.index_letters = set(INDEX_LETTERS)  # and every letter a sum binds (\sum_{c \in C}: TP_c)
        self.sets: tuple[str, ...] = ()  # the letters of a sample's label sets of open role (formula_sets)
        self.cells: dict[str, int] = {}  # a, b, c, d as a 2 x 2 table's cells: letter -> place
        self.cell = None  # (notation, head, rest) -> the marker of a 2 x 2 table's cell, None for another name
        self.named = None  # (head, rest) -> a catalog metric's formula by its printed name (formula_names)

    def resolve(self, parts: list[str], bar: bool, where: str) -> sympy.Expr:
        """The meaning of one printed name, split at underscores; ``where`` names it in errors."""
        key = ("\\bar " if bar else "") + "_".join(parts)
        if key in self.defined:
            self.used.add(key)
            return self.defined[key]
        if not bar and parts[0] in self.defined and len(parts) == 2 and parts[1] in self.index_letters:
            self.used.add(parts[0])
            return self.defined[parts[0]]
        head, rest = parts[0], parts[1:]
        cell = self.cell(self, head, rest) if self.cell and not bar else None  # a, D, n_{10}, |L_i|: formula_readings
        if cell is not None:
            return cell
        if head in self.bounds and not rest and not bar:
            self.used.add(head)
            return self.bounds[head]
        several = customary(head, indexed=bool(rest))
        if several and not bar and (not rest or len(rest) == 1 and rest[0] in self.index_letters):
            return self.marked(head, rest, several)
        if head in ("macro", "micro", "weighted") and rest and rest[0] in MEASURES:
            return self._averaged(rest[0], head)
        if head == "binary" and rest:
            return self.resolve(rest, bar, where)
        if rest and rest[-1] in ("binary",):
            rest = rest[:-1]
        if head in _COUNT_WORDS:
            return self._count(_COUNT_WORDS[head], rest, where)
        if head in ("n", "N", "num") and len(rest) == 1 and _COUNTED.fullmatch(rest[0]):  # n_{samples}: of what
            return N if _COUNTED.fullmatch(rest[0]).group(1) else C  # (multi-label data's labels are its classes)
        if head == "s" and not rest:
            return N
        if head in ("C", "c", "m") and not rest:
            return C
        if head in ("t", "n") and len(rest) == 1 and rest[0] in self.index_letters:
            i = sympy.Symbol(rest[0])
            return CLASS_COUNTS["TP"][i] + CLASS_COUNTS["FN"][i]
        total = re.fullmatch(r"([a-z]):|:([a-z])", rest[0]) if len(rest) == 1 else None
        if total:  # C_{k\cdot}, n_{+k}: a row (true) or column (predicted) total of the matrix
            i = sympy.Symbol(total.group(1) or total.group(2))
            return CLASS_COUNTS["TP"][i] + CLASS_COUNTS["FN" if total.group(1) else "FP"][i]
        if head in ("mat", "M", "p", "a", "C") and len(rest) == 1 and re.fullmatch(r"[a-z],?[a-z]", rest[0]):
            i, j = (sympy.Symbol(x) for x in rest[0].replace(",", ""))
            return symbols.M[i, j]
        if head in SCALARS and not rest and head in self.params:
            return SCALARS[head]
        if head == "SetMatch" and len(rest) == 1 and rest[0] in self.index_letters:  # I(Y_i = Z_i)
            i = sympy.Symbol(rest[0])
            wrong = CLASS_COUNTS["FP"][i] + CLASS_COUNTS["FN"][i]
            return sympy.Piecewise((1, sympy.Eq(wrong, 0)), (0, True))
        if head in _VECTOR_NAMES and len(rest) == 1 and rest[0] in self.index_letters:
            return CLASS_VECTOR[sympy.Symbol(rest[0])]
        if head == "N" and rest in (["n"], ["p"]):  # Puertolas Molina: numbers of negatives, positives
            tp, fp, fn, tn = symbols.COUNTS
            return tn + fp if rest == ["n"] else tp + fn
        if head == "M" and not rest and not bar:
            return MEASURES["Gmean"](*symbols.COUNTS)
        if head in ("F", "InvF") and len(rest) == 1:
            beta = SCALARS["beta"] if rest[0].lstrip("\\") == "beta" else _number(rest[0])
            if beta is not None:
                tp, fp, fn, tn = symbols.COUNTS
                return _f_beta(beta)(*((tp, fp, fn, tn) if head == "F" else (tn, fn, fp, tp)))
        if head in MEASURES and rest == ["^phi"]:
            return self._averaged(head, "relevance")
        if head in MEASURES:
            if bar and not rest:
                return self._averaged(head, "macro")
            if not rest:
                return MEASURES[head](*(symbols.COUNTS))
            if len(rest) == 1 and rest[0] in self.index_letters:
                i = sympy.Symbol(rest[0])
                return MEASURES[head](*(CLASS_COUNTS[c][i] for c in ("TP", "FP", "FN", "TN")))
            if len(rest) == 1 and rest[0] in _MODES and _MODES[rest[0]]:
                return self._averaged(head, _MODES[rest[0]])
        named = self.named(head, rest) if self.named and not bar else None
        if named is not None:
            return named
        indexed = len(rest) == 1 and rest[0] in self.index_letters
        tried = unknown_readings(head, indexed) if not bar and (indexed or not rest) else None
        if tried:
            return self.marked(head, rest, tried)
        raise InputError("FORMULA", f"{where}: unknown symbol '{key}'; give its meaning with --symbol "
                                    f"'{key}=MEANING' (e.g. TP, FP, n, C, precision)")

    def marked(self, head: str, rest: list[str], tried: tuple[str, ...]) -> sympy.Expr:
        """The marker of a name with several readings (see :mod:`.formula_readings`)."""
        index = sympy.Symbol(rest[0]) if rest else None
        name = head if index is None else f"{head}_i"
        stand_in = marker(name, index)
        self.readings.setdefault(name, (stand_in if index is None else stand_in.base, tried))
        return stand_in

    def call(self, head: str, args: tuple) -> sympy.Expr | None:
        """A printed call with index arguments: ``f(s,j)``, ``p(s,j)``, ``P(j)``, ``Matrix(i,j)``; None else."""
        if head in ("f", "p", "Matrix") and len(args) == 2:  # PyCM's Matrix(i,j): true class i, predicted j
            return {"f": symbols.TRUTH, "p": symbols.SCORE, "Matrix": symbols.M}[head][args]
        if head == "P" and len(args) == 1:
            return (CLASS_COUNTS["TP"][args[0]] + CLASS_COUNTS["FN"][args[0]]) / N
        return None

    def _count(self, count: str, rest: list[str], where: str) -> sympy.Expr:
        if not rest:
            return dict(zip(("TP", "FP", "FN", "TN"), symbols.COUNTS))[count]
        if len(rest) == 1 and rest[0] in self.index_letters:
            return CLASS_COUNTS[count][sympy.Symbol(rest[0])]
        if len(rest) == 1 and rest[0] in ("mu", "\\mu", "micro"):
            return self._pooled(count)
        raise InputError("FORMULA", f"{where}: '{count}_{'_'.join(rest)}': a count takes a class index (TP_i)")

    def _pooled(self, count: str) -> sympy.Expr:
        k = sympy.Dummy("k", integer=True, nonnegative=True)
        return sympy.Sum(CLASS_COUNTS[count][k], (k, 0, C - 1))

    def _averaged(self, measure: str, mode: str) -> sympy.Expr:
        """A per-class measure averaged over the classes, as an explicit sum."""
        k = sympy.Dummy("k", integer=True, nonnegative=True)
        counts = [CLASS_COUNTS[c][k] for c in ("TP", "FP", "FN", "TN")]
        if mode == "micro":
            return MEASURES[measure](*(self._pooled(c) for c in ("TP", "FP", "FN", "TN")))
        value = MEASURES[measure](*counts)
        if mode == "relevance":
            return sympy.Sum(CLASS_VECTOR[k] * value, (k, 0, C - 1)) / sympy.Sum(CLASS_VECTOR[k], (k, 0, C - 1))
        if mode == "weighted":
            support = counts[0] + counts[2]
            return sympy.Sum(support * value, (k, 0, C - 1)) / sympy.Sum(support, (k, 0, C - 1))
        return sympy.Sum(value, (k, 0, C - 1)) / C


def _number(text: str) -> sympy.Rational | None:
    """``2``, ``0.5`` as an exact number (F_2, F_{0.5}); None for anything else."""
    if not text.replace(".", "", 1).isdigit() or len(text) > 6:
        return None
    return sympy.Rational(text)


def split_name(text: str) -> list[str]:
    """``precision_binary`` -> [precision, binary]; a run of letters such as ``PR`` is split
    into known names, longest first (``TPR`` stays one name, ``PR`` is P times R)."""
    return [p for p in text.split("_") if p]


def split_run(run: str) -> list[str] | None:
    """A run of letters as a product of known names, or None when it is not one."""
    if not run:
        return []
    for word in _WORDS:
        if run.startswith(word):
            rest = split_run(run[len(word):])
            if rest is not None:
                return [word, *rest]
    if len(run) == 1 or run[0] in "nstcmC":
        rest = split_run(run[1:])
        return None if rest is None else [run[0], *rest]
    return None


_LABELS = (
    (("mcc", "rk", "matthews"), "mcc"), (("balancedaccuracy", "bacc", "ba"), "balanced_accuracy"),
    (("accuracy", "acc"), "accuracy"), (("err", "errorrate", "error"), "error_rate"),
    (("precision", "prec", "ppv", "p"), "precision"), (("recall", "rec", "tpr", "r", "sensitivity"), "recall"),
    (("specificity", "tnr", "spec"), "specificity"), (("f1", "fmeasure"), "f1"), (("fbeta", "f"), "f_beta"),
    (("fpr",), "fpr"), (("fnr",), "fnr"), (("npv",), "npv"), (("fdr",), "fdr"), (("for",), "false_omission_rate"),
    (("gmean",), "g_mean"), (("agm",), "adjusted_g_mean"), (("agf",), "adjusted_f_measure"),
    (("optimizedprecision", "op"), "optimized_precision"), (("ibm", "iba"), "iba"),
    (("preferencedriven",), "preference_driven"), (("recphi",), "relevance_recall"),
    (("precphi",), "relevance_precision"), (("fbetaphi",), "relevance_f_beta"),
    (("avfbetaphi",), "relevance_av_f_beta"), (("cbaphi",), "relevance_cba"), (("hl", "hammingloss"), "hamming_loss"), (("mr", "exactmatch"), "exact_match_ratio"),
    (("cen", "rpcen", "pcen", "confusionentropy"), "cen"), (("aunu",), "aunu"), (("aunp",), "aunp"), (("au1u",), "au1u"),
    (("au1p",), "au1p"), (("mae",), "mean_absolute_error"), (("mse",), "mean_squared_error"),
)


def label_metric(label: str) -> tuple[str | None, str | None]:
    """(metric id, averaging mode) a printed label names, e.g. ``p_w`` -> (precision, weighted),
    ``macro_F1`` -> (f1, macro); (None, None) for a label metricc does not recognise."""
    if "\\mathbb{F}" in label.replace(" ", ""):  # Wenzel's blackboard F1: the F1 of the macro averages
        return "f1_of_macro_averages", None
    text = re.sub(r"\\(mathcal|mathbb|texttt|text|mathrm|mathit|operatorname|boldsymbol|mathbf|mathsf|textit|textrm|hat|widehat"
                  r"|tilde)(?![A-Za-z])", "", label)
    text = text.replace("\\mu", "_mu").replace("\\beta", "beta").replace("\\bar", "").replace("\\vec{\\kappa}", "")
    parts = [p for p in "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in text).split("_") if p]
    modes = {**_MODES, "Macro": "macro", "Micro": "micro", "Weighted": "weighted", "MACRO": "macro", "MICRO": "micro"}
    mode = next((modes[p] for p in parts if p in modes and modes[p]), None)
    words = [p for p in parts if p not in modes and p not in ("multiclass", "binary", "Binary")]
    indexed = False
    while len(words) > 1 and words[-1] in INDEX_LETTERS | {"k", "j", "c"}:  # Recall_k: the class's value
        words, indexed = words[:-1], True
    if indexed and "".join(words) in class_statistics():  # CEN_j: PyCM's class CEN, not the overall one
        return class_statistics()["".join(words)], mode
    if words and words[-1] == "1mu":
        words, mode = words[:-1] + ["1"], "micro"
    if words and words[-1] == "1w":
        words, mode = words[:-1] + ["1"], "weighted"
    name = "".join(words).lower()
    for names, metric in _LABELS:
        if name in names:
            return metric, mode
    known = catalog_names().get(name) or catalog_names().get("".join(words))
    if known:
        return known[0], mode or known[1]
    return None, None


@functools.lru_cache(maxsize=1)
def class_statistics() -> dict[str, str]:
    """PyCM's class statistics by name (``CEN`` -> class_cen): what a label with a class index names."""
    from metricc.audit.peers import load_peers, parse_entry

    out = {}
    for peer in load_peers().values():
        for entry in peer.names:
            if entry.group == "class" and len(entry.metrics) == 1:
                metric, params, _ = parse_entry(entry.metrics[0])
                if not params:
                    out[entry.name] = metric
    return out


@functools.lru_cache(maxsize=1)
def catalog_names() -> dict[str, tuple[str, str | None]]:
    """Every name a reader may print for a catalog metric -> (metric id, averaging): the ids,
    aliases and names of the catalog and the names scikit-learn, torchmetrics and PyCM give
    it (``audit/peers.yaml``: PyCM's ``BM`` is youden_j, ``MK`` markedness). Lower-case
    and without separators; a peer's name kept as printed too when its case matters."""
    import metricc.api as mc
    from metricc.audit.peers import load_peers, parse_entry

    def key(text: str) -> str:
        return re.sub(r"[^a-z0-9.]", "", text.lower())

    out: dict = {}
    for info in mc.catalog().values():
        for name in (info.id, *info.aliases, info.name):
            out.setdefault(key(name), (info.id, None))
    for peer in load_peers().values():
        for entry in peer.names:
            if len(entry.metrics) != 1:
                continue
            metric, params, mode = parse_entry(entry.metrics[0])
            if params:
                continue
            for name in {entry.name, key(entry.name), key(re.sub(r"_score$", "", entry.name))}:
                out.setdefault(name, (metric, mode))
    return out
