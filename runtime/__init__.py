"""The kernel: what generated code imports, numpy only.

Below :mod:`metricc.generated`: counts from labels, indicator and score matrices
(:mod:`.confusion`, :mod:`.inputs`, :mod:`.scores`, :mod:`.curves`, :mod:`.probabilistic`), a
matrix read once per call (:mod:`.terms`), the helpers generated code calls (:mod:`.kernel`,
:mod:`.gradient`) and the registry types (:mod:`.registry`). The user API is :mod:`metricc.api`.
"""
