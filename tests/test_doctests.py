"""Docstring examples run as tests: every module of the compiler and the runtime, found by walking
the packages (imported by package path, never by bare folder names), so a new module's examples
run without being listed here; and the ``>>>`` examples of the README and the user guide."""

import doctest
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import metricc.compiler
import metricc.api

MODULES = sorted(
    info.name
    for package in (metricc.compiler, metricc.runtime)
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
    if not info.name.endswith("__main__")
) + ["metricc.runtime"]


REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs" / "guide").glob("*.md"))]


def test_the_walk_finds_the_modules_with_examples():
    assert {"metricc.compiler.language.load", "metricc.runtime.kernel", "metricc.runtime.scores"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(REPO).as_posix())
def test_documentation_examples(page):
    """Each page's ``python`` blocks written as sessions (``>>>``) run in one namespace, as a reader types them."""
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL)
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, page.name, str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
