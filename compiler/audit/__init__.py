"""Auditing published work against the catalog: recomputing printed numbers (claims files)."""


def __getattr__(name):
    """``metricc.compiler.audit.identify`` and its result types, imported when first used."""
    if name in ("identify", "Identification", "Match", "Nearest"):
        from metricc.compiler.audit import identify as module

        return module.identify if name == "identify" else getattr(module, name)
    raise AttributeError(name)
