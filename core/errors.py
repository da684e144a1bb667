"""Errors raised by the runtime when the data handed to a metric is unusable.

The runtime never imports the compiler, so the root of the project's exception tree lives
here and the compiler's spec errors derive from it.
"""

from __future__ import annotations

__all__ = ["MetriccError", "InputError"]


class MetriccError(Exception):
    """Root of every error metricc raises on purpose."""


class InputError(MetriccError, ValueError):
    """Data or arguments given to the runtime cannot be evaluated.

    The message names the offending argument and says how to fix it, e.g.
    ``y_pred: expected 5 labels like y_true, got 4``.
    """

    def __init__(self, argument: str, message: str) -> None:
        self.argument = argument
        self.message = message
        super().__init__(f"{argument}: {message}")
