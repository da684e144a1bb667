"""The back end: IR -> numpy modules, the registry and the LaTeX catalog (Jinja2 templates)."""
