"""Bridges from metricc to optional libraries, one module per library, each imported only when
used (``metricc.bridges.dask``: ``pip install "metricc[dask]"``; ``metricc.bridges.sklearn``:
``pip install "metricc[sklearn]"``; ``metricc.bridges.plot``: ``pip install "metricc[plot]"``).
Importing this package imports none of them."""
