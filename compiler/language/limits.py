"""The sizes a spec must stay within, in one place; each is checked before the step it protects.

Spec text is untrusted. Without these bounds a hostile file reaches steps whose cost grows
much faster than its size: PyYAML composes nested collections recursively (RecursionError
around 1,000 levels), Python refuses to convert integers of over 4,300 digits, ``float()``
overflows on a 400-digit range bound, and ``ast.parse`` of a 100,000-character formula
exhausts memory. Every limit is far above what a real metric needs (the largest shipped spec
is under 2 KB, its longest formula under 200 characters, its deepest nesting 4 levels).
docs/spec-language.md ("Limits and reserved names") and docs/guide/performance.md ("Limits") list
them.
"""

from __future__ import annotations

__all__ = [
    "over_limit",
    "MAX_SPEC_BYTES",
    "MAX_NESTING",
    "MAX_FORMULA_CHARS",
    "MAX_NUMBER_DIGITS",
    "MAX_EXPONENT",
    "MAX_NUMBER_BITS",
]

# Size of one spec file, checked before it is decoded or parsed.
MAX_SPEC_BYTES = 100_000
# Depth of nested mappings and lists (the top-level mapping is depth 1), checked while
# composing, before PyYAML's recursion can overflow.
MAX_NESTING = 50
# Characters of one formula (formula, let definition, parameter default or domain,
# conditioning scale), checked before ``ast.parse``.
MAX_FORMULA_CHARS = 5_000
# Digits of one number, in a YAML value or in a formula, checked before conversion.
MAX_NUMBER_DIGITS = 30
# Absolute value of a numeric exponent in a formula: simplifying ``(TP + FP)**32`` takes minutes.
MAX_EXPONENT = 16
# Numbers and constant parts of formulas stay within float range (2**1024), with a margin.
MAX_NUMBER_BITS = 1030


def over_limit(problem: str, count: int, unit: str, limit: int, where: str) -> str:
    """The message of an exceeded limit, naming the limit.

    >>> over_limit("formula too long", 5001, "characters", MAX_FORMULA_CHARS, "in a formula")
    'formula too long: 5,001 characters, more than the 5,000 allowed in a formula'
    """
    return f"{problem}: {count:,} {unit}, more than the {limit:,} allowed {where}"
