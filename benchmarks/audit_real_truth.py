"""Recompute the truth of the held-out score sets (benchmarks/corpus/audit_real/score_sets.yaml).

Not a test. The truth of a binary set there is mlscorecheck's own verdict on the same data
(``truth_by: mlscorecheck ...``): ``check_1_testset_no_kfold`` with the set's class totals and,
for each score, half a unit of its last printed digit. This script asks mlscorecheck again and
lists every set whose recorded truth differs, so the corpus can be checked without trusting
whoever wrote it. Pixel-count totals make it take minutes.

    python benchmarks/audit_real_truth.py [--limit N]
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

import yaml

CORPUS = Path(__file__).resolve().parent / "corpus" / "audit_real" / "score_sets.yaml"
# catalog id -> mlscorecheck's abbreviation (the binary reading: class 1 positive)
MLSCORECHECK = {"accuracy": "acc", "recall": "sens", "specificity": "spec", "precision": "ppv", "npv": "npv",
                "f1": "f1p", "g_measure": "fm", "balanced_accuracy": "bacc"}


def verdict(case: dict) -> str:
    from mlscorecheck.check.binary import check_1_testset_no_kfold

    negatives, positives = case["class_totals"]
    scores, eps = {}, {}
    for score in case["scores"]:
        text = score["printed"]
        scale = 0.01 if text.endswith("%") else 1.0
        digits = text.rstrip("%")
        decimals = len(digits.split(".")[1]) if "." in digits else 0
        key = MLSCORECHECK[score["metric"]]
        scores[key], eps[key] = float(digits) * scale, 0.5 * 10.0 ** -decimals * scale
    result = check_1_testset_no_kfold(testset={"p": positives, "n": negatives}, scores=scores, eps=eps)
    return "inconsistent" if result["inconsistency"] else "consistent"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, help="only the first N sets whose truth mlscorecheck established")
    args = parser.parse_args(argv)
    logging.disable(logging.CRITICAL)  # mlscorecheck logs every step at INFO
    cases = [c for c in yaml.safe_load(CORPUS.read_text(encoding="utf-8"))
             if str(c.get("truth_by", "")).startswith("mlscorecheck") and len(c["class_totals"]) == 2]
    differ = 0
    for case in cases[:args.limit] if args.limit else cases:
        found = verdict(case)
        if found != case["truth"]:
            differ += 1
            print(f"{case['id']}: recorded {case['truth']}, mlscorecheck says {found}", flush=True)
    print(f"{len(cases[:args.limit] if args.limit else cases)} sets checked, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
