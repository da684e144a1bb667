"""Definitions a paper gives in the sentences before its formula: "Let P denote ... . Then F = ...".

Papers define their letters before the formula as often as after it: "Let TOP = TP + FP and
P = TP + FN. Then RACC = ...", "Let l denote the number of classes; then ...", "Denote by n
the number of samples. The accuracy is ...". The sentences before the last one are read as the
definitions a formula carries after ", where": "Let X denote/be/stand for ..." and "Denote by
X ..." become "X is ...", "Let X = ..." (or ``:=``) stays "X = ...", and definitions joined by
"and" or ";" are separated. The last sentence is the formula, its opening words ("Then",
"Hence", "we have", "we define", "is given by") dropped. Only text that starts with such a
sentence is rewritten; each character keeps the user's column (:class:`.Source`).
"""

from __future__ import annotations

import re

from metricc.audit.formula_source import Source

__all__ = ["preceding_definitions"]

_OPENING = re.compile(r"\s*(?:(?:let|denote\s+by|suppose(?:\s+that)?|we\s+write|write|if)\s+)", re.IGNORECASE)
# the end of a sentence: a period, a semicolon or a colon outside braces, then space and more text
_END = re.compile(r"(?<![0-9])[.;:](?=\s+\S)|(?<![0-9])\.\s*$")
_LEAD = re.compile(r"\s*(?:then|hence|thus|so|and|now)?\s*,?\s*(?:(?:we|one)\s+(?:have|define|get|obtain|write)s?\s*:?\s*"
                   r"|(?:[A-Za-z][A-Za-z-]*\s+){1,6}(?:is|equals|reads|becomes)\s+(?:(?:given\s+by|defined\s+as)\s*:?\s*)?)?",
                   re.IGNORECASE)
_DENOTE_BY = re.compile(r"\s*denote\s+by\s+", re.IGNORECASE)
_VERB = re.compile(r"\s+(?:denotes?|be|stands?\s+for|represents?|is|are)\s+", re.IGNORECASE)
_AND = re.compile(r"\s+and\s+(?=\\?[A-Za-z][A-Za-z0-9_{}\\]*\s*(?::=|=|\s(?:denotes?|be|is|stands?)\s))|\s*[;,]\s+(?=let\s)",
                  re.IGNORECASE)


def _sentences(source: Source) -> list[Source]:
    """``source`` cut at the ends of its sentences (outside braces and dollar signs)."""
    depth, cuts = 0, [0]
    for i, ch in enumerate(source.text):
        depth = max(depth + (ch in "{(" and 1 or ch in "})" and -1 or 0), 0)
        if depth == 0 and _END.match(source.text, i):
            cuts.append(i + 1)
    cuts.append(len(source.text))
    pieces = [source.slice(a, b) for a, b in zip(cuts, cuts[1:])]
    return [p.sub(re.compile(r"[.;:]\s*$"), "") for p in pieces if p.text.strip(" .;:\n")]


def _definitions(sentence: Source) -> list[Source]:
    """The definitions of one sentence "Let X denote ... and Y = ..."."""
    opening = _OPENING.match(sentence.text)
    body = sentence.slice(opening.end() if opening else 0)
    if opening and _DENOTE_BY.match(opening.group(0)):  # "Denote by n the number of samples": n is ...
        body = body.sub(re.compile(r"^(\s*\\?[A-Za-z][A-Za-z0-9_{}]*)\s+(?=the\s)", re.IGNORECASE), lambda m: m.group(1) + " is ")
    out, start = [], 0
    for joint in list(_AND.finditer(body.text)) + [None]:
        end = joint.start() if joint else len(body.text)
        part = body.slice(start, end).strip()
        part = part.sub(re.compile(r"^\s*let\s+", re.IGNORECASE), "")
        if joint:
            start = joint.end()
        if not part.text:
            continue
        if ":=" in part.text or "=" in part.text:
            out.append(part.sub(re.compile(r":="), "="))
        else:
            out.append(part.sub(_VERB, lambda m: " is " if "denote" not in m.group(0).lower() else " denotes "))
    return out


def preceding_definitions(source: Source) -> Source:
    """``source`` with the definitions of its sentences before the formula moved after it."""
    if not _OPENING.match(source.text):
        return source
    sentences = _sentences(source)
    if len(sentences) < 2:
        return source
    formula = sentences[-1]
    formula = formula.slice(_LEAD.match(formula.text).end()).strip()
    definitions = [d for s in sentences[:-1] for d in _definitions(s)]
    if not definitions or not formula.text:
        return source
    joined = formula
    for definition in definitions:
        glue = Source(", ", (definition.cols[0],) * 3, source.user)
        joined = Source(joined.text + glue.text + definition.text, joined.cols[:-1] + glue.cols[:-1] + definition.cols,
                        source.user)
    return joined
