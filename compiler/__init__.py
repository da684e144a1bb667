"""The metricc compiler: YAML specs in, numpy modules and LaTeX documentation out.

The pipeline, one module per stage: :mod:`load` -> :mod:`validate` -> :mod:`lower`
(symbolic IR) -> :mod:`analyze` (simplification, undefined cases, equivalences) ->
:mod:`emit_numpy` / :mod:`emit_latex` -> :mod:`write`.
"""
