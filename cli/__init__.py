"""The ``metricc`` command line; :func:`main` is the entry point.

:mod:`.app` parses the command line and renders every error once; each command is a module
(:mod:`.build` for ``build`` and ``check``, :mod:`.catalog` for ``list`` and ``explain``,
:mod:`.evaluate` for ``eval`` with :mod:`.scores`, :mod:`.sweep` and :mod:`.relevance`,
:mod:`.audit`, :mod:`.suggest`); :mod:`.inputs` reads the data files they share.

>>> main(["eval", "--matrix", "[[5, 1], [2, 4]]", "--metric", "accuracy", "--format", "json"])
{"accuracy": 0.75}
0
"""

from metricc.cli.app import main

__all__ = ["main"]
