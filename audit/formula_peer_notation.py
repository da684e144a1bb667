"""The notation of the peer libraries a reader copies formulas from, as definitions.

PyCM's documentation prints its statistics over its own basic parameters (P, N for the
condition positives and negatives, TOP, TON for the test outcomes, POP for the population) and
its confusion entropies over probabilities ``P^{j}_{i,j}``, ``P^{i}_{i,j}`` that CEN and MCEN
define differently (MCEN leaves the diagonal cell out of the class's total). A formula copied
without those definitions names letters no paper-neutral notation settles; :mod:`.identify`
then reads it once more under each notation here (the definitions, in our LaTeX, appended as a
paper's own would be) and says which it used. The facts come from PyCM's documentation
(Document/Document.ipynb, "Basic parameters", "CEN", "MCEN"); the text is ours.
"""

from __future__ import annotations

import dataclasses
import re

__all__ = ["PeerNotation", "NOTATIONS", "applicable"]


@dataclasses.dataclass(frozen=True)
class PeerNotation:
    """One peer's way of writing: its name, what it is for, and its definitions (name, formula)."""

    peer: str
    scope: str
    definitions: tuple[tuple[str, str], ...]

    def said(self) -> str:
        """The sentence of the answer that says which notation was read."""
        return f"read in {self.name()}: " + ", ".join(f"{n} = {m}" for n, m in self.definitions)

    def name(self) -> str:
        return f"{self.peer}'s notation{self.scope}"


_BASIC = (("P", "TP + FN"), ("N", "TN + FP"), ("TOP", "TP + FP"), ("TON", "TN + FN"), ("POP", "TP + TN + FP + FN"))


def _entropy_probabilities(leave_out_diagonal: bool) -> tuple[tuple[str, str], ...]:
    """PyCM's P^{j}_{i,j} and P^{i}_{i,j}: a cell's share of the total of the row and column of
    the class in the superscript (less the diagonal cell counted there once, for MCEN)."""
    out = []
    for owner, other in (("j", "i"), ("i", "j")):
        total = rf"\sum_{{k=1}}^{{C}}(C_{{{owner}k}} + C_{{k{owner}}})"
        if leave_out_diagonal:
            total += rf" - C_{{{owner}{owner}}}"
        out.append((rf"P_{{i,j}}^{{{owner}}}", rf"\frac{{C_{{ij}}}}{{{total}}}"))
    return tuple(out)


NOTATIONS = (
    PeerNotation("PyCM", "", _BASIC),
    PeerNotation("PyCM", " (as defined for CEN)", _entropy_probabilities(False)),
    PeerNotation("PyCM", " (as defined for MCEN)", _entropy_probabilities(True)),
)


def _printed(name: str) -> str:
    """A pattern for where a formula prints ``name``: a name with indices (P^{j}_{i,j}) only
    with indices, a plain name only plain."""
    head = re.match(r"[A-Za-z]+", name).group(0)
    return rf"(?<![A-Za-z\\]){head}" + (r"\s*[_^]" if "_" in name else r"(?![A-Za-z_])")


def applicable(formula: str) -> list[tuple[PeerNotation, str]]:
    """(notation, the formula with the definitions of the names it prints appended) of each
    notation that defines a name the formula prints."""
    out = []
    for notation in NOTATIONS:
        used = [(n, m) for n, m in notation.definitions if re.search(_printed(n), formula)]
        if used:
            joined = ", ".join(f"{n} = {m}" for n, m in used)
            out.append((dataclasses.replace(notation, definitions=tuple(used)), f"{formula}, where {joined}"))
    return out
