"""The ``metricc`` command line; :func:`main` is the entry point. One module per command."""

from metricc.compiler.cli.app import main

__all__ = ["main"]
