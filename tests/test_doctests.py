"""Docstring examples run as tests (imported by package path, never by bare folder names)."""

import doctest
import importlib

import pytest

MODULES = [
    "metricc.compiler.cli.sweep",
    "metricc.compiler.language.load",
    "metricc.compiler.analysis.prove",
    "metricc.runtime",
    "metricc.runtime.confusion",
    "metricc.runtime.evaluate",
    "metricc.runtime.kernel",
    "metricc.runtime.normalize",
    "metricc.runtime.registry",
    "metricc.runtime.relevance",
    "metricc.runtime.sweep",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
