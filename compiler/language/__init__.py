"""The spec language: YAML text -> located plain data -> validated spec -> symbolic IR.

:mod:`load` (YAML with positions) -> :mod:`validate` (JSON Schema and cross-key rules) ->
:mod:`parse` (formula text -> sympy, per level) -> :mod:`lower` (:class:`ir.Metric` values).
"""
