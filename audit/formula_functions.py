"""Functions a paper defines on sets and then uses: ``P(A, B) := \\frac{|A \\cap B|}{|B|}``.

scikit-learn's guide defines precision, recall and F-beta once, on two sets (``P(A, B) :=
\\frac{|A \\cap B|}{|B|}``, ``F_\\beta(A, B) := ...`` over P and R), and prints each averaging as
a use: ``\\frac{1}{|L|} \\sum_{l \\in L} P(y_l, \\hat{y}_l)``, ``R(y, \\hat{y})``. A definition
whose parameters are single letters is taken out of the definitions after the formula and each
use is expanded (the arguments put where the parameters stand, a definition over another one
expanded in turn). What the sets are, the definition does not say, so both readings are made:

- *pairs*: the sets hold (sample, label) pairs; ``y_l`` is the pairs of label l (its counts
  TP_l, TP_l + FN_l; the prediction, hatted, TP_l + FP_l), ``y`` the pairs of every label (the
  sums over the classes, so ``R(y, \\hat{y})`` is the micro average);
- *samples*: ``y_s`` is the labels of sample s (a sample's counts, :func:`.formula_text.label_sets`)
  and ``y`` one class's samples (the plain counts).

:mod:`.identify` reads the formula under each and says which reading each match needs. A text
rewrite; nothing is evaluated.
"""

from __future__ import annotations

import re

from metricc.audit.formula_set_uses import implied_uses

__all__ = ["READINGS", "function_readings"]

READINGS = {"pairs": "the sets hold (sample, label) pairs: y_l the pairs of label l, y the pairs of every label",
            "samples": "the sets are one sample's labels (y_s) or one class's samples (y)"}
_DEFINITION = re.compile(r"\s*(?:where\s+|with\s+|\\text\{\s*where\s*\}\s*)?(?P<name>(?:\\(?:text|mathrm|operatorname)\s*\{\s*[A-Za-z]+\s*\}|[A-Za-z]+)(?:_\s*(?:\{\s*\\?[A-Za-z]+\s*\}|\\?[A-Za-z]+))?)"
                         r"\s*\(\s*(?P<params>[A-Za-z](?:\s*,\s*[A-Za-z])*)\s*\)\s*(?::=|\\coloneqq|=)\s*(?P<body>.+?)\s*$", re.DOTALL)
_SET = r"(?P<{0}hat>\\hat\s*\{{\s*|\\widehat\s*\{{\s*)?[yY](?({0}hat)\s*\}}|)(?:\s*_\s*(?:\{{\s*(?P<{0}i>[a-z])\s*\}}|(?P<{0}j>[a-z])))?"
_MEET = re.compile(r"\|\s*" + _SET.format("a") + r"\s*\\(?P<op>cap|cup)\s*" + _SET.format("b") + r"\s*\|")
_SIZE = re.compile(r"\|\s*" + _SET.format("a") + r"\s*\|")


def _pieces(text: str) -> list[str]:
    """``text`` split at the commas outside any bracket."""
    depth, out, start = 0, [], 0
    for i, ch in enumerate(text):
        depth += {"(": 1, "{": 1, "[": 1, ")": -1, "}": -1, "]": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    return out + [text[start:]]


def _expanded(text: str, functions: dict) -> str:
    """Each use ``NAME(a, b)`` of a defined function replaced by its body, the parameters put in."""
    for _ in range(6):  # a definition over another (F_beta over P and R), at most this deep
        changed = False
        for name, (params, body) in functions.items():
            pattern = re.compile(rf"(?<![A-Za-z\\]){re.escape(name)}\s*\(")
            while True:
                found = pattern.search(text)
                if found is None:
                    break
                depth, end = 0, None
                for i in range(found.end() - 1, len(text)):
                    depth += {"(": 1, ")": -1}.get(text[i], 0)
                    if depth == 0:
                        end = i
                        break
                args = [a.strip() for a in _pieces(text[found.end():end])] if end else []
                if len(args) != len(params):
                    return text  # not a use of the definition: left to the scanner, which refuses it
                used = body
                for param, arg in zip(params, args):
                    used = re.sub(rf"(?<![A-Za-z\\]){param}(?![A-Za-z])", lambda _m, a=arg: f" {a} ", used)
                text = text[:found.start()] + "(" + used + ")" + text[end + 1:]
                changed = True
        if not changed:
            break
    return text


def _counts(match, reading: str, fresh: str) -> str:
    """The counts of one set expression under a reading (``fresh``: an unused class letter)."""
    groups = match.groupdict()
    index = groups["ai"] or groups["aj"]
    if "bhat" in groups:
        if (groups["bi"] or groups["bj"]) != index or bool(groups["ahat"]) == bool(groups["bhat"]):
            return match.group(0)
        terms = ("TP",) if groups["op"] == "cap" else ("TP", "FP", "FN")
    else:
        terms = ("TP", "FP") if groups["ahat"] else ("TP", "FN")
    if reading == "samples" and index:
        return match.group(0)  # a sample's sets: formula_text.label_sets reads them
    k = index or fresh
    inner = " + ".join(f"{t}_{{{k}}}" for t in terms) if reading == "pairs" else " + ".join(terms)
    if reading == "pairs" and not index:
        return rf"\sum_{{{k}=1}}^{{C}}({inner})"
    return f"({inner})"


def function_readings(formula: str) -> list[tuple[str, str]] | None:
    """(reading, formula rewritten under it) for a formula that uses functions it defines on
    sets, or metric names on sets with no definition (:mod:`.formula_set_uses`); None for any
    other formula."""
    pieces = _pieces(formula.replace(":=", "=").replace("\\coloneqq", "="))
    candidates, kept = {}, [pieces[0]]
    for piece in pieces[1:]:
        found = _DEFINITION.fullmatch(piece)
        if found:
            params = tuple(p.strip() for p in found.group("params").split(","))
            candidates[re.sub(r"\s+", "", found.group("name"))] = (params, found.group("body"), piece)
        else:
            kept.append(piece)
    functions = {}
    for _ in range(len(candidates)):  # on sets: over set operations, or over a function on sets
        for name, (params, body, _piece) in candidates.items():
            if name not in functions and (re.search(r"\\cap|\\cup|\|", body)
                                          or any(re.search(rf"(?<![A-Za-z\\]){re.escape(f)}\s*\(", body) for f in functions)):
                functions[name] = (params, body)
    kept += [piece for name, (_, _, piece) in candidates.items() if name not in functions]
    text = _expanded(",".join(kept), functions) if functions else implied_uses(",".join(kept), _pieces)
    if text is None:  # neither a definition nor a metric's name used on sets
        return None
    text = text.replace("\\left|", "|").replace("\\right|", "|")
    fresh = next(x for x in "kmuvw" if not re.search(rf"(?<![A-Za-z\\]){x}(?![A-Za-z])", text))
    out = []
    for reading in READINGS:
        rewritten = _MEET.sub(lambda m: _counts(m, reading, fresh), text)
        out.append((reading, _SIZE.sub(lambda m: _counts(m, reading, fresh), rewritten)))
    return out
