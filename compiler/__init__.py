"""The metricc compiler: YAML specs in, numpy modules and LaTeX documentation out.

The tree is the pipeline (see ``docs/architecture.md``): :mod:`.language` (load -> validate
-> parse -> lower to the symbolic IR) -> :mod:`.analysis` (simplification, undefined cases,
equivalences) -> :mod:`.emit` (numpy modules, registry, LaTeX, writing). :mod:`.build` runs
the stages in order; :mod:`.cli` is the command line and :mod:`.audit` checks published
numbers against the catalog.
"""
