"""``metricc.bridges`` itself imports no optional library: each bridge loads its own on use."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
import metricc.bridges
import metricc.api
heavy = sorted(m for m in sys.modules if m.split(".")[0] in {"dask", "sklearn", "pandas", "pyarrow", "sympy"})
assert not heavy, heavy
print("ok")
"""


def test_importing_the_bridges_package_loads_no_optional_library():
    result = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stdout) == (0, "ok\n"), result.stderr


LAZY = """
import sys
import metricc
assert [m for m in sys.modules if m.startswith("metricc.") or m.split(".")[0] in {"numpy", "sympy"}] == [], "eager"
value = metricc.evaluate("accuracy", y_true=[0, 1], y_pred=[0, 0])["accuracy"]
assert value == 0.5
for name in ("report", "confusion_matrix", "metric", "catalog"):
    getattr(metricc, name)
loaded = sorted(m for m in sys.modules if m.startswith("metricc.compiler") or m.split(".")[0] in {"sympy", "jinja2"})
assert loaded == [], loaded  # the runtime never imports the compiler
assert callable(metricc.identify) and callable(metricc.consistent) and callable(metricc.audit_file)
assert "metricc.audit" in sys.modules
print("ok")
"""


def test_import_metricc_is_lazy_and_exposes_the_api():
    """``import metricc`` imports nothing; the runtime names load numpy only, the audit names the compiler.
    Measured by the modules imported, never by time."""
    result = subprocess.run([sys.executable, "-c", LAZY], capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stdout) == (0, "ok\n"), result.stderr


def test_the_package_names_are_the_runtime_and_audit_names():
    import doctest

    import metricc
    import metricc.audit as audit
    import metricc.api as runtime

    assert set(metricc.__all__) == set(runtime.__all__) | {"plot"} | set(audit.__all__)
    assert metricc.evaluate is runtime.evaluate and metricc.identify is audit.identify
    assert doctest.testmod(metricc).failed == 0
    try:
        metricc.no_such_name
    except AttributeError as error:
        assert "no_such_name" in str(error)
