"""Score names of ``metricc consistent``: the catalog's, and the peers' a reader copies from.

A name is looked up as a catalog id or alias first, then as a name of the peer table
(``audit/peers.yaml``: scikit-learn's ``f1_score``, PyCM's ``TPR`` or ``F1 Macro``,
mlscorecheck's ``acc``, ``sens``, ``spec``, ``fm``...), exactly, then ignoring case. A peer
name that maps to several catalog entries reads as its first (the peer's own computation:
scikit-learn's ``balanced_accuracy_score`` is ``balanced_accuracy``); a peer name outside the
catalog is refused with the table's reason, which says how to write it here.

>>> resolve_name("fm")
('g_measure', 'binary')
>>> resolve_name("F1 Macro")
('f1', 'macro')
"""

from __future__ import annotations

import functools
import re

from metricc.audit import peers
from metricc.core.errors import InputError
from metricc.api.evaluate import metric

__all__ = ["AmbiguousAbbreviation", "resolve_name"]


@functools.lru_cache(maxsize=1)
def _peer_names() -> dict[str, list[tuple[str, str]]]:
    """Each peer name -> [(peer, first catalog entry or the reason it has none)], by exact spelling."""
    table: dict[str, list[tuple[str, str]]] = {}
    for peer in peers.load_peers().values():
        for name in peer.names:
            entry = name.metrics[0] if name.metrics else ""
            table.setdefault(name.name, []).append((peer.name, entry or f"!{name.reason}"))
    return table


@functools.lru_cache(maxsize=1)
def _class_statistics() -> set[tuple[str, str]]:
    """(peer, name) of the peers' per-class statistics (PyCM's ``ACC`` of one class)."""
    return {(peer.name, n.name) for peer in peers.load_peers().values() for n in peer.names if n.group == "class"}


def _from_peers(name: str) -> tuple[str, str | None] | None:
    table = _peer_names()
    found = table.get(name) or _any_case(name, table)
    if not found:
        return None
    entries = {entry for _, entry in found}
    usable = sorted(e for e in entries if not e.startswith("!"))
    if not usable:
        peer, reason = found[0]
        raise InputError("score", f"{name!r} ({peer}) is not one catalog metric: {reason[1:]}")
    if len(usable) > 1:
        owners = ", ".join(f"{peer}: {entry}" for peer, entry in found)
        raise InputError("score", f"{name!r} names different metrics in different peers ({owners}); "
                                  "write the catalog id, e.g. --score f1:macro=0.5")
    metric_id, params, average = peers.parse_entry(usable[0])
    if params:
        raise InputError("score", f"{name!r} is {usable[0]}: give the catalog id with its parameter instead")
    return metric_id, average


def _any_case(name: str, table: dict) -> list[tuple[str, str]] | None:
    """The peers' names spelled otherwise (``Acc``: PyCM's ``ACC``, mlscorecheck's ``acc``). A
    score printed for a whole set is not one class's statistic, so where spellings differ in
    that role the whole-set names are taken; the rest of the choice is left to the caller."""
    spellings = [k for k in table if k.lower() == name.lower()]
    found = [(peer, entry) for k in spellings for peer, entry in table[k]]
    overall = [(peer, entry) for k in spellings for peer, entry in table[k] if (peer, k) not in _class_statistics()]
    return (overall or found) or None


class AmbiguousAbbreviation(InputError):
    """A printed name that begins several metrics' names (``SE``: sensitivity or selectivity):
    ``name`` as printed and the catalog ids of its ``choices``, each a reading to try."""

    def __init__(self, name: str, choices: tuple[str, ...], message: str) -> None:
        super().__init__("score", message)
        self.name, self.choices = name, choices


# words a printed column header adds to a metric's name without changing it
_GENERIC_WORDS = {"avg", "average", "averaged", "coefficient", "score", "index", "measure", "value"}


def _from_label(name: str) -> tuple[str, str | None] | None:
    """identify's reader of printed labels (``PPV_Macro``, ``Dice coefficient``, ``macro avg
    precision``), with the words a header adds around a metric's name left out."""
    from metricc.audit.notation import label_metric

    words = re.split(r"[\s\-]+", name)
    for text in (name, " ".join(w for w in words if w.lower() not in _GENERIC_WORDS)):
        if text.strip():
            metric_id, average = label_metric(text)
            if metric_id:
                return metric_id, average
    return None


def _abbreviation(name: str, usable) -> tuple[str, str | None] | None:
    """A name that begins exactly one usable metric's name or alias (``Sen``, ``Spe``: papers'
    column headers); None when it begins none; InputError, with the choices, when several."""
    from metricc.audit.notation import catalog_names

    key = name.lower()
    if len(key) < 2 or not key.isalpha():
        return None
    found = {}
    for full, (metric_id, average) in catalog_names().items():
        if full.startswith(key) and usable(metric_id):
            found.setdefault(metric_id, (full, average))
    if len(found) > 1:
        choices = ", ".join(f"{metric_id} ({full})" for metric_id, (full, _) in sorted(found.items()))
        raise AmbiguousAbbreviation(name, tuple(sorted(found)), f"{name!r} abbreviates several metrics: {choices}; write "
                                    "the one meant, e.g. --score recall=0.8")
    return next(((metric_id, average) for metric_id, (_, average) in found.items()), None)


def resolve_name(name: str, usable=lambda metric_id: True) -> tuple[str, str | None]:
    """(catalog id, averaging the name implies or None) of a score name; InputError when unknown.

    Looked up as a catalog id or alias, a peer's name, a printed label (identify's reader), and
    last as an abbreviation of exactly one metric for which ``usable`` holds."""
    name = name.strip()
    try:
        return metric(name).id, None
    except InputError as unknown:
        catalog_error = unknown
    found = _from_peers(name) or _from_label(name) or _abbreviation(name, usable)
    if found is None:
        raise catalog_error
    return found
