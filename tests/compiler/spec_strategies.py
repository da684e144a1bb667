"""Hypothesis strategies for random spec documents, as YAML text (issue 13).

``valid_specs()`` draws specs that follow the structure of docs/spec-language.md at every
level (class, aggregate, matrix, curve, score), with parameters of each kind, ``let``
definitions, averages, ranges and aliases, and formulas drawn from the formula grammar.
"Valid" is about structure: the compiler may still refuse a drawn spec (a declared range or
direction the formula does not keep, a constant that is never defined), and that is an
allowed outcome; a traceback or a hang is not.

``mutated_specs()`` adds noise to such specs: structural (wrong types, missing and unknown
keys, huge or odd numbers, unicode, deep nesting, long strings) and in formulas (unbalanced
parentheses, unknown names, division by zero constants, deep nesting, huge exponents).
``spec_texts()`` mixes both. Every spec has the id ``fuzzed`` (file ``fuzzed.yaml``) and may
reference the catalog metrics in ``REFERENCED``, which the runner copies beside it.
"""

from __future__ import annotations

import yaml
from hypothesis import strategies as st

__all__ = ["REFERENCED", "SPEC_ID", "formulas", "mutated_specs", "spec_texts", "valid_specs"]

SPEC_ID = "fuzzed"
# Catalog specs a fuzzed spec may reference (closed under their own references).
REFERENCED = ("precision", "recall", "specificity", "f1", "f_beta", "g_mean", "jaccard", "roc_auc")
CLASS_METRICS = ("precision", "recall", "specificity", "f1", "g_mean", "jaccard", "f_beta(beta=2)", "f_beta(beta=1/2)")
BASES = ("g_mean", "f1", "recall", "jaccard")  # metric-parameter values (parameter-free class metrics)
MODES = ("micro", "macro", "weighted", "geometric")

_NUMBERS = st.sampled_from(["0", "1", "2", "3", "0.5", "1/2", "10", "pi", "1e-3", "7"])


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """One grammar step over sub-formulas: arithmetic, powers and the whitelisted calls."""
    pair = st.tuples(children, children)
    return st.one_of(
        st.builds(lambda ab, op: f"({ab[0]} {op} {ab[1]})", pair, st.sampled_from("+-*/")),
        st.builds(lambda a, k: f"({a})**{k}", children, st.sampled_from(["2", "3", "-1", "0.5", "1/2"])),
        st.builds(lambda a: f"-{a}", children),
        st.builds(lambda f, a: f"{f}({a})", st.sampled_from(["sqrt", "log", "abs"]), children),
        st.builds(lambda a: f"exp({a} / (1 + {a}))", children),
        st.builds(lambda f, ab: f"{f}({ab[0]}, {ab[1]})", st.sampled_from(["min", "max", "xlogy"]), pair),
        st.builds(lambda a: f"log({a}, 2)", children),
        st.builds(lambda ab, op: f"indicator({ab[0]} {op} {ab[1]})", pair, st.sampled_from(["==", "!="])),
    )


def formulas(atoms: st.SearchStrategy[str], max_leaves: int = 6) -> st.SearchStrategy[str]:
    """Formula text over ``atoms`` by the grammar of docs/spec-language.md, "Formula syntax"."""
    return st.recursive(atoms, _combine, max_leaves=max_leaves)


def _class_atoms(scalars: list[str], vectors: list[str], metric_params: list[str]) -> st.SearchStrategy[str]:
    names = ["TP", "FP", "FN", "TN", "n", *scalars, *vectors, *metric_params]
    return st.one_of(st.sampled_from(names), _NUMBERS, st.sampled_from(CLASS_METRICS))


def _averaged(vectors: list[str]) -> st.SearchStrategy[str]:
    plain = st.builds(lambda mode, m: f"{mode}({m})", st.sampled_from(MODES), st.sampled_from(CLASS_METRICS))
    if not vectors:
        return plain
    return plain | st.builds(lambda m, w: f"weighted({m}, {w})", st.sampled_from(CLASS_METRICS), st.sampled_from(vectors))


def _matrix_atoms(scalars: list[str], lets: list[str]) -> st.SearchStrategy[str]:
    body = formulas(st.sampled_from(["M[k, k]", "t[k]", "p[k]", "n", "k", "1", "recall[k]", "precision[k]"]), 3)
    pairs = formulas(st.sampled_from(["M[i, j]", "t[i]", "p[j]", "abs(i - j)", "indicator(i == j)"]), 3)
    sums = st.one_of(
        st.builds(lambda b: f"Sum({b}, k)", body),
        st.builds(lambda b: f"Sum({b}, (i, j))", pairs),
        st.just("Sum(xlogy(M[i, j], M[i, j] / p[j]), (i, j))"),
        st.just("Sum(t[k] * p[k], k)"),
    )
    return st.one_of(st.sampled_from(["n", "C", *scalars, *lets]), _NUMBERS, sums, _averaged([]))


_CURVE_FORMULAS = (
    "Sum((FP[i] - FP[i - 1]) * (TP[i] + TP[i - 1]), i) / (2 * P * N)",
    "Sum((TP[i] - TP[i - 1]) * TP[i] / (TP[i] + FP[i]), i) / P",
    "Sum((FP[i] - FP[i - 1]) * TP[i], i) / (P * N)",
    "Sum(TN[i] - TN[i - 1], i) / N",
    "roc_auc",
)
_SCORE_FORMULAS = (
    "Sum(Sum((S[s, k] - Y[s, k])**2, k), s) / n",
    "Sum(Sum(abs(S[s, k] - Y[s, k]), k), s) / (n * C)",
    "Sum(Sum(Y[s, k] * S[s, k], k), s) / n",
    "Sum(Sum(Y[s, j] * step(S[s, j] - 1/2), j), s) / n",
    "Sum(size[k], k) / n",
    # rank sums the emitter counts from one sort per row (compiler/emit/row_ranks.py): the top
    # label, and comparisons weighted by the truth over two class indices
    "Sum(Sum(Y[s, k] * indicator(Sum(indicator(S[s, l] > S[s, k]) + indicator(S[s, l] == S[s, k]) * indicator(l < k), l) == 0), k), s) / n",
    "Sum(Sum(Y[s, j] * (1 - Y[s, l]) * indicator(S[s, l] >= S[s, j]), (j, l)), s) / n",
)


@st.composite
def _params(draw, level: str) -> dict:
    """Parameters of each kind the level allows, with domains and defaults inside them."""
    if level in ("curve", "score"):
        return {}
    params = {}
    for i in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["scalar", "class_vector", "metric"] if level == "class" else ["scalar", "class_vector"]))
        name = draw(st.sampled_from(["alpha", "beta", "gamma", "w"])) + str(i)
        if kind == "metric":
            params[name] = {"kind": "metric", "default": draw(st.sampled_from(BASES + ("f_beta(beta=2)",)))}
            continue
        domain, default = draw(st.sampled_from([
            ("0 <= {p} <= 1", 0.5), ("{p} > 0", 2), (None, 1), ("{p} >= 0", 0), ("0 < {p} < 1", "1/4")]))
        if kind == "class_vector" and level == "class" and draw(st.booleans()):
            domain, default = "0 <= {p} <= 1", draw(st.sampled_from(["(TP + FN) / n", "TP / (TP + FN + 1)"]))
        params[name] = {"kind": kind, "default": default}
        if domain:
            params[name]["domain"] = domain.format(p=name)
        if draw(st.booleans()):
            params[name]["description"] = draw(st.text(min_size=1, max_size=20))
    return params


@st.composite
def valid_spec_data(draw) -> dict:
    """A spec as plain data, following the structure of the spec language."""
    level = draw(st.sampled_from(["class", "class", "aggregate", "matrix", "curve", "score"]))
    params = draw(_params(level))
    scalars = [p for p, v in params.items() if v["kind"] == "scalar"]
    vectors = [p for p, v in params.items() if v["kind"] == "class_vector"]
    metric_params = [p for p, v in params.items() if v["kind"] == "metric"]
    spec: dict = {"id": SPEC_ID, "name": draw(st.text(min_size=1, max_size=30).filter(str.strip)),
                  "description": "A fuzzed metric.", "references": ["Fuzz, Eq. 1"]}
    if draw(st.booleans()):
        spec["aliases"] = [f"fuzzed_alias{i}" for i in range(draw(st.integers(1, 2)))]
    if level != "class" or draw(st.booleans()):
        spec["level"] = level
    if params:
        spec["params"] = params
    if level == "class":
        spec["formula"] = draw(formulas(_class_atoms(scalars, vectors, metric_params)))
        averages = ["none", "binary", "macro", "weighted", "geometric", "samples"] + ([] if vectors else ["micro"])
        chosen = draw(st.lists(st.sampled_from(averages), min_size=1, max_size=4, unique=True))
        spec["averages"] = chosen
        spec["default_average"] = draw(st.sampled_from(chosen))
    elif level == "aggregate":
        spec["formula"] = draw(formulas(st.one_of(_averaged(vectors), _NUMBERS, st.sampled_from(scalars or ["1"]))))
    elif level == "matrix":
        lets = []
        if draw(st.booleans()):
            spec["let"] = {"h": draw(formulas(_matrix_atoms(scalars, []), 3))}
            lets = ["h"]
        spec["formula"] = draw(formulas(_matrix_atoms(scalars, lets), 4))
    elif level == "curve":
        spec["formula"] = draw(st.sampled_from(_CURVE_FORMULAS))
        chosen = draw(st.lists(st.sampled_from(["none", "binary", "micro", "macro", "weighted"]), min_size=1, max_size=3, unique=True))
        spec["averages"], spec["default_average"] = chosen, draw(st.sampled_from(chosen))
    else:
        spec["let"] = {"size[k]": "Sum(Y[s, k], s)"}
        spec["formula"] = draw(st.sampled_from(_SCORE_FORMULAS))
        if draw(st.booleans()):
            spec["scores"] = draw(st.sampled_from(["probabilities", "any"]))
    spec["range"] = draw(st.sampled_from([["-inf", "inf"], ["-inf", "inf"], [0, 1], [0, "inf"], [-1, 1]]))
    spec["higher_is_better"] = draw(st.booleans())
    return spec


def dump(spec) -> str:
    """YAML text of plain data, block style, keys in the order written."""
    return yaml.safe_dump(spec, sort_keys=False, allow_unicode=True, width=10**6)


def valid_specs() -> st.SearchStrategy[str]:
    return valid_spec_data().map(dump)


# ---------------------------------------------------------------- noise

_ODD_VALUES = st.one_of(
    st.sampled_from([None, True, [], {}, "", " ", 0, -1, 1e308, -1e308, 10**400, float("nan"), "inf", "-inf",
                     "1:30", "off", "yes", "0x1F", "0o17", "1_000", ".inf", "\u00e9\u4e2d\U0001f600", "a\nb", "\t",
                     "x" * 5000, [[[[[]]]]], {"a": {"b": {"c": None}}}]),
    st.integers(), st.floats(allow_nan=True), st.text(max_size=30),
)
_KEYS = ("id", "name", "aliases", "description", "references", "level", "params", "let", "formula", "averages",
         "default_average", "range", "higher_is_better", "conditioning", "scores")
_BAD_FORMULAS = st.sampled_from([
    "(TP + FP", "TP + FP)", "TP / 0", "TP / (FP - FP)", "log(0)", "sqrt(-1)", "unknown_name * TP", "TP ** 99999",
    "TP ** (FP ** 99)", "9**9**9**9", "exp(exp(exp(exp(TP))))", "TP / (TP + FP) # comment", "TP.__class__",
    "__import__('os')", "lambda: 1", "'text'", "TP if FP else FN", "TP < FP", "Sum(TP, k)", "M[0, 0]", "macro(TP)",
    "precision(beta=2)", "f_beta(gamma=1)", "f_beta(beta=precision)", "macro(macro(recall))", "min()", "max(TP)",
    "log(TP, 0)", "xlogy(TP)", "indicator(TP)", "indicator(TP < FP)", "1e309 * TP", "TP[k]", "recall[k]", "C * TP",
    "TP +", "", " ", "\u00e9 + TP", "TP\u2028+ FP", "TP / (" + "(" * 200 + "TP" + ")" * 200 + ")",
    "+".join(["TP"] * 3000), "(" * 5000 + "TP" + ")" * 5000, "-" * 3000 + "TP", "1/" * 500 + "TP",
    "TP / (((TP+FP+FN+TN)**16 + 1)**16)", " + ".join(f"TP/(FP+{j})" for j in range(40)),
])


@st.composite
def _structural_noise(draw, spec: dict) -> dict:
    spec = dict(spec)
    action = draw(st.sampled_from(["drop", "add", "replace", "nest", "param", "long"]))
    key = draw(st.sampled_from(_KEYS))
    if action == "drop":
        spec.pop(key, None)
    elif action == "add":
        spec[draw(st.sampled_from(["extra", "Formula", "id ", "\u00e9", "formula2", key]))] = draw(_ODD_VALUES)
    elif action == "replace":
        spec[key] = draw(_ODD_VALUES)
    elif action == "nest":
        depth = draw(st.sampled_from([10, 100, 400]))
        value: object = "TP"
        for _ in range(depth):
            value = [value] if draw(st.booleans()) else {"k": value}
        spec[key] = value
    elif action == "param":
        spec["params"] = {draw(st.sampled_from(["beta", "np", "TP", "average", "x__y", "Beta", "n", "if", "k"])): {
            "kind": draw(st.sampled_from(["scalar", "class_vector", "metric", "matrix", 3])),
            "default": draw(st.one_of(_ODD_VALUES, st.sampled_from(["TP", "recall", "f_beta(beta=2)", "beta", "1/0"]))),
            **({"domain": draw(st.sampled_from(["beta > 0", "0 < beta", "beta", "beta == 1", "1 > 2", "beta > k"]))}
               if draw(st.booleans()) else {}),
        }}
    else:
        spec[key] = draw(st.sampled_from(["x" * 100_000, "TP + " * 20_000 + "TP", ["x"] * 5000]))
    return spec


@st.composite
def _formula_noise(draw, spec: dict) -> dict:
    spec = dict(spec)
    bad = draw(_BAD_FORMULAS)
    if draw(st.booleans()):
        spec["formula"] = bad
    else:
        spec["formula"] = f"{spec['formula']} + {bad}" if draw(st.booleans()) else bad + " * " + spec["formula"]
    return spec


_TEXT_NOISE = st.sampled_from([
    lambda t: t[: len(t) // 2], lambda t: t.replace(":", "", 1), lambda t: t.replace("  ", "\t", 1),
    lambda t: "\ufeff" + t, lambda t: t + "\n" + t, lambda t: t.replace("\n", "\r\n"),
    lambda t: t.replace("id: fuzzed", "id: &a fuzzed\nname2: *a"), lambda t: t.replace("id: fuzzed", "id: !!int fuzzed"),
    lambda t: t.replace("\n", "\n\x00", 1), lambda t: "[" * 3000 + t, lambda t: t + "\nformula: TP\n",
    lambda t: t.replace("formula: ", "formula: !!python/name:os.system ", 1), lambda t: t.replace("true", "off"),
    lambda t: "%YAML 1.1\n---\n" + t, lambda t: t + "\n---\nid: other\n", lambda t: t.encode("utf-16").decode("latin-1"),
    lambda t: t + "\nextra: " + "9" * 5000, lambda t: t.replace("range: ", "range: [0, 1" + "0" * 400 + "]\nold_range: ", 1),
    lambda t: t + "\nnested: " + "{a: " * 3000 + "1" + "}" * 3000,
])


@st.composite
def mutated_specs(draw) -> str:
    """A drawn valid spec with structural, formula or raw-text noise, as YAML text."""
    spec = draw(valid_spec_data())
    kind = draw(st.sampled_from(["structure", "formula", "text"]))
    if kind == "structure":
        return dump(draw(_structural_noise(spec)))
    if kind == "formula":
        return dump(draw(_formula_noise(spec)))
    return draw(_TEXT_NOISE)(dump(spec))


def spec_texts() -> st.SearchStrategy[str]:
    return st.one_of(valid_specs(), mutated_specs())
