"""Docstring examples run as tests: every module of the compiler and the runtime, found by walking
the packages (imported by package path, never by bare folder names), so a new module's examples
run without being listed here."""

import doctest
import importlib
import pkgutil

import pytest

import metricc.compiler
import metricc.api

MODULES = sorted(
    info.name
    for package in (metricc.compiler, metricc.runtime)
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
    if not info.name.endswith("__main__")
) + ["metricc.runtime"]


def test_the_walk_finds_the_modules_with_examples():
    assert {"metricc.compiler.language.load", "metricc.runtime.kernel", "metricc.runtime.scores"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
