"""``metricc.bridges`` itself imports no optional library: each bridge loads its own on use."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
import metricc.bridges
import metricc.runtime
heavy = sorted(m for m in sys.modules if m.split(".")[0] in {"dask", "sklearn", "pandas", "pyarrow", "sympy"})
assert not heavy, heavy
print("ok")
"""


def test_importing_the_bridges_package_loads_no_optional_library():
    result = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stdout) == (0, "ok\n"), result.stderr
