"""Plots of metricc's results as matplotlib figures (the optional extra ``metricc[plot]``).

Reached as ``metricc.api.plot`` (``mc.plot``), which imports matplotlib on first use, so
``import metricc.runtime`` stays numpy-only. Every function returns a new
:class:`matplotlib.figure.Figure` on its own Agg canvas (no pyplot state): save it with
``figure.savefig("out.png")``, or :func:`save` (PNG or SVG by suffix).

>>> import metricc as mc
>>> figure = mc.plot.confusion_matrix([[5, 1], [2, 4]], labels=["cat", "dog"])
>>> figure.axes[0].get_xlabel(), figure.axes[0].get_ylabel()
('predicted class', 'true class')
"""

try:
    import matplotlib  # noqa: F401 - only to fail early with the install command
except ImportError:
    raise ImportError("metricc's plots need matplotlib: pip install 'metricc[plot]'") from None

from metricc.bridges.plot._figure import save
from metricc.bridges.plot.calibration import reliability
from metricc.bridges.plot.curves import det, precision_recall, roc, threshold
from metricc.bridges.plot.matrix import confusion_matrix
from metricc.bridges.plot.preference import preference_space
from metricc.bridges.plot.rankings import rankings

__all__ = ["KINDS", "confusion_matrix", "det", "precision_recall", "preference_space", "rankings", "reliability", "roc",
           "save", "threshold"]

KINDS = ("confusion_matrix", "preference_space", "threshold", "roc", "precision_recall", "det", "reliability",
         "rankings")
