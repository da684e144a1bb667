"""A sample's label sets printed in any letters: ``|P_i \\cap L_i|``, ``|A_i \\cup B_i|``, ``|L_i|``.

:func:`.formula_text.label_sets` reads the customary letters (``Y_i`` the truth, ``Z_i`` or
``\\hat{Y}_i`` the prediction). Any other letters (Spark's ``L_i`` and ``P_i``) say nothing of
which set is the truth, so nothing here decides it: the meet, the union and the symmetric
difference of two sets are the same whichever is which (TP_i, TP_i + FP_i + FN_i, FP_i + FN_i);
the size of one set is its count under a reading that :mod:`.identify` tries both ways (the
truth's TP_i + FN_i, or the prediction's TP_i + FP_i; :mod:`.formula_readings`). A hat is the
prediction, so a hatted and a plain set are read at once. A text rewrite: the sizes left open
become ``\\text{Set}X_{i}``, a name :class:`.notation.Notation` resolves to the reading's marker.
"""

from __future__ import annotations

import re

import sympy

from metricc.audit.formula_source import Source
from metricc.audit.notation import marker

__all__ = ["any_sets", "set_letters", "set_marker", "SET_NAME", "SET_LAYOUTS"]

SET_LAYOUTS = ("sets truth first", "sets prediction first")  # two label sets: which is the truth

# one sample's set: a letter (hatted or not) with the sample's index
_TOKEN = r"(\\(?:hat|widehat)\s*\{\s*[A-Za-z]\s*\}|\\(?:hat|widehat)\s+[A-Za-z]|[A-Za-z])\s*_\s*(?:\{\s*([a-z])\s*\}|([a-z]))"
_OPERATIONS = {"cap": "TP_{{{i}}}", "cup": "(TP_{{{i}}} + FP_{{{i}}} + FN_{{{i}}})",
               "Delta": "(FP_{{{i}}} + FN_{{{i}}})", "triangle": "(FP_{{{i}}} + FN_{{{i}}})",
               "ominus": "(FP_{{{i}}} + FN_{{{i}}})", "bigtriangleup": "(FP_{{{i}}} + FN_{{{i}}})"}
_PAIR = re.compile(rf"\|\s*{_TOKEN}\s*\\(cap|cup|setminus|Delta|triangle|ominus|bigtriangleup)\s*{_TOKEN}\s*\|")
_SIZE = re.compile(rf"\|\s*{_TOKEN}\s*\|")
SET_NAME = re.compile(r"\\text\{Set([A-Za-z])\}")
_TRUTH, _PREDICTION = "(TP_{{{i}}} + FN_{{{i}}})", "(TP_{{{i}}} + FP_{{{i}}})"


def _key(token: str) -> tuple[bool, str]:
    """(hatted, letter) of a printed set."""
    return token.startswith("\\"), re.sub(r"\\(?:hat|widehat)|[\s{}]", "", token)


def any_sets(source: Source) -> Source:
    """The set expressions of ``source`` in the counts of their sample; see the module docstring.
    More than two sets, or one expression over two samples, is an error naming its column."""
    found = [(m, *_key(m.group(k))) for m in _PAIR.finditer(source.text) for k in (1, 5)]
    if not found:  # |e_i| alone is an absolute value: only a meet, union or difference makes sets
        return source
    letters = {letter for _, _, letter in found}
    found += [(m, *_key(m.group(1))) for m in _SIZE.finditer(source.text) if _key(m.group(1))[1] in letters]
    sets = sorted({(hatted, letter) for _, hatted, letter in found})
    if len(sets) > 2:
        names = ", ".join(("\\hat " if h else "") + x for h, x in sets)
        raise source.error(found[0][0].start(), f"more than two label sets ({names}): a sample has a truth and a prediction")
    roles = _roles(sets)

    def size(key: tuple[bool, str], index: str) -> str:
        role = roles.get(key)
        return role.format(i=index) if role else f"\\text{{Set{key[1]}}}_{{{index}}}"

    def pair(match) -> str:
        index = _index(source, match, (match.group(2) or match.group(3), match.group(6) or match.group(7)))
        operation = match.group(4)
        if operation == "setminus":  # A \ B: A less what both hold
            return f"({size(_key(match.group(1)), index)} - TP_{{{index}}})"
        return _OPERATIONS[operation].format(i=index)

    source = source.sub(_PAIR, pair)
    return source.sub(_SIZE, lambda m: size(_key(m.group(1)), m.group(2) or m.group(3))
                      if _key(m.group(1))[1] in letters else m.group(0))


def _roles(sets: list[tuple[bool, str]]) -> dict:
    """The sets whose role the print decides: a hat is the prediction, beside a plain set the truth."""
    hatted = [s for s in sets if s[0]]
    if len(sets) == 2 and len(hatted) == 1:
        plain = next(s for s in sets if not s[0])
        return {hatted[0]: _PREDICTION, plain: _TRUTH}
    return {}


def _index(source: Source, match, indices: tuple) -> str:
    if len(set(indices)) != 1:
        raise source.error(match.start(), f"'{match.group(0)}' mixes two samples")
    return indices[0]


def set_letters(text: str) -> tuple[str, ...]:
    """The letters of the sets left to the readings, in order (after :func:`any_sets`)."""
    return tuple(sorted(set(SET_NAME.findall(text))))


def set_marker(notation, head: str, rest: list[str]) -> sympy.Expr | None:
    """The size of a sample's label set whose role the print leaves open (``\\text{Set}X_{i}``):
    one marker per set, read together (one set the truth, the other the prediction); None
    for any other name."""
    if not (re.fullmatch(r"Set[A-Za-z]", head) and len(rest) == 1 and head[3] in notation.sets):
        return None
    letter, index = head[3], sympy.Symbol(rest[0])
    bases = tuple(marker(f"set_{x}", index).base for x in notation.sets)
    if len(bases) == 1:
        notation.readings.setdefault(f"{letter}_{index}", (bases[0], ("positives", "predicted positives")))
    else:
        notation.readings.setdefault(", ".join(f"{x}_{index}" for x in notation.sets), (bases, SET_LAYOUTS))
    return bases[notation.sets.index(letter)][index]
