"""Every output of the compiler, in one tuple.

A new output (another array library, another document format) is one module in this folder
defining a :class:`~.target.Target`, and one entry here: ``metricc build`` writes the files of
the targets whose output is ``generated/``, ``metricc docs --html`` those of the website.
"""

from __future__ import annotations

from metricc.compiler.emit import array_module, array_scores, html, latex, numpy_module
from metricc.compiler.emit.target import Target

__all__ = ["TARGETS", "of"]

TARGETS: tuple[Target, ...] = (numpy_module.TARGET, array_module.TARGET, array_scores.TARGET, latex.TARGET, html.TARGET)


def of(output: str) -> tuple[Target, ...]:
    """The targets writing into ``output`` (:data:`~.target.GENERATED` or :data:`~.target.SITE`)."""
    return tuple(target for target in TARGETS if target.output == output)
