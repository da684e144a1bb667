"""``metricc eval --interpret [SCALE]``: the band of each value on a published scale (numpy only).

Without SCALE each metric's default scale (its first) is used, ``--interpret all`` uses every
scale, ``--interpret fleiss`` that scale only. Metrics without the scale are printed without a
band; if no requested metric has one, that is an error naming the metrics that do.

>>> from metricc.cli import main
>>> main(["eval", "--matrix", "[[20, 5], [10, 15]]", "--metric", "cohen_kappa", "--interpret"]) == 0
cohen_kappa: 0.4 (Moderate: Landis and Koch)
True
"""

from __future__ import annotations

from metricc.core.errors import InputError

__all__ = ["add_option", "bands", "scale_names"]

DEFAULT = "default"


def add_option(parser) -> None:
    parser.add_argument("--interpret", nargs="?", const=DEFAULT, metavar="SCALE",
                        help="print each value's band on its metric's interpretation scale (default: the metric's "
                             "first; 'all': every scale; or a scale id such as fleiss); `metricc explain ID` lists them")


def bands(requests, values: dict, choice: str) -> dict:
    """``{key: {scale id: label(s)}}`` for the requests whose metric has the chosen scale."""
    from metricc.api import catalog
    from metricc.api.interpret import interpret
    from metricc.runtime.per_class import ClassValues
    from metricc.runtime.registry import name_key

    out = {}
    for request in requests:
        info = catalog()[request.id]
        if choice == DEFAULT:
            scales = info.interpretation[:1]
        elif choice == "all":
            scales = info.interpretation
        else:
            scales = [s for s in info.interpretation if name_key(s.id) == name_key(choice)]
        if not scales:
            continue
        value = values[request.key]
        labelled = {}
        for scale in scales:
            labels = interpret(info, value, scale.id)
            if isinstance(value, ClassValues) and value.labels is not None:
                labels = dict(zip(map(str, value.labels), labels))
            labelled[scale.id] = labels
        out[request.key] = labelled
    if not out:
        having = sorted({f"{i.id} ({', '.join(s.id for s in i.interpretation)})"
                         for i in catalog().values() if i.interpretation})
        what = "an interpretation scale" if choice in (DEFAULT, "all") else f"the scale {choice!r}"
        raise InputError("--interpret", f"no requested metric has {what}; these do: {'; '.join(having)}")
    return out


def scale_names() -> dict[str, str]:
    """Scale id -> its name, for the text lines of ``eval --interpret``."""
    from metricc.api import catalog

    return {s.id: s.name for info in catalog().values() for s in info.interpretation}
