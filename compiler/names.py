"""Python names that the front end must keep free and the back end binds: one neutral table.

Metric ids and parameter names become Python names in generated modules (functions, keyword
arguments), so :mod:`.language.lower` refuses those that would shadow what a generated module
binds or imports; :mod:`.emit.numpy_module` binds exactly these. Neither stage imports the
other, and the compiler does not import the runtime: a test checks ``RUNTIME_NAMES`` against
``metricc.runtime.kernel.__all__`` and ``metricc.runtime.registry.__all__``.
"""

from __future__ import annotations

import difflib
import keyword

__all__ = ["GENERATED_NAMES", "RUNTIME_NAMES", "TERM_SEPARATOR", "did_you_mean", "python_clash"]

# Names generated code binds itself.
GENERATED_NAMES = frozenset(
    {"np", "math", "counts", "matrix", "average", "weights", "pos_label", "zero_division", "value", "undefined",
     "true_positives", "false_positives", "false_negatives", "true_negatives", "tp", "fp", "fn", "tn",
     "M", "C", "t", "p", "n", "x", "ID", "AVERAGES", "DEFAULT_AVERAGE", "INFO",
     "y_true", "scores", "labels", "curves", "valid", "positives", "negatives", "S", "Y",
     "tp_prev", "fp_prev", "fn_prev", "tn_prev", "terms", "context",
     "xp", "FALLBACK"}  # xp, FALLBACK: generated/arrays modules
) | frozenset(keyword.kwlist) | frozenset(keyword.softkwlist)

# What generated modules may import from the runtime (kernel helpers and registry types).
RUNTIME_NAMES = frozenset(
    {"AVERAGES", "align", "arange", "average_class_metric", "average_class_values", "average_curve_metric", "check_counts",
     "check_matrix", "check_score_memory", "check_scores", "class_param", "counts_from_matrix", "curve_pick", "diagonal", "equal", "exact", "extended_log",
     "eye", "finish", "first_max_other", "group_sum", "log_ratio", "matrix_counts", "matrix_param", "matrix_terms", "metric_param", "nonzero", "np", "rank_pairs", "read_matrix", "real",
     "rescaled", "rescaled_counts", "rescaled_rows", "row_ranks", "scalar_param", "score_curves", "sum_last_axis", "transpose", "window_sum", "xlogy", "xlogy_ratio", "binomial_tail",
     "zero_division_value", "ParamInfo", "MetricInfo", "Catalog", "Band", "Scale"}
) | frozenset({"average_class_gradient", "cell_values", "combine_gradients",
                 "class_cell_values", "average_class_cells"})  # runtime/gradient.py

# The emitter joins averaging mode, metric and bindings of a term with this separator to name
# the term's Python variable (``macro__f_beta__beta_2``), so spec names must not contain it.
TERM_SEPARATOR = "__"


def python_clash(name: str) -> str | None:
    """Why ``name`` cannot be a generated Python name, or None."""
    if keyword.iskeyword(name):
        return "is a Python keyword"
    if name in GENERATED_NAMES or name in RUNTIME_NAMES:
        return "is a name the generated code uses itself"
    if TERM_SEPARATOR in name:
        return f"contains '{TERM_SEPARATOR}', which generated names of averaged terms use"
    return None


def did_you_mean(name: str, candidates) -> str:
    """``"; did you mean 'recall'?"`` for the closest of ``candidates``, or an empty string."""
    close = difflib.get_close_matches(name, sorted(candidates), n=1)
    return f"; did you mean '{close[0]}'?" if close else ""
