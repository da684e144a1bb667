"""The array target of score and curve metrics (compiler/emit/array_scores.py): every metric of
the catalog has a namespace form, and a kernel calling a runtime helper that has none gets a
module that says so and computes on host copies (never silently)."""

from __future__ import annotations

from metricc.compiler.emit import array_scores
from metricc.compiler.emit.array_printer import ArrayPrinter


def test_every_score_and_curve_metric_has_a_namespace_form(compiled_metrics):
    scored = [m for m in compiled_metrics.values() if getattr(m.level, "value", m.level) in ("score", "curve")]
    assert len(scored) >= 30
    assert {m.id: array_scores.score_fallback(m) for m in scored} == {m.id: None for m in scored}


def test_a_helper_without_a_namespace_form_falls_back_with_its_reason(compiled_metrics, monkeypatch):
    monkeypatch.setattr(ArrayPrinter, "runtime", ArrayPrinter.runtime - {"window_sum"})
    text = array_scores.emit_score_module(compiled_metrics["ndcg"])
    assert "needs window_sum, which has no namespace form" in text
    assert "scores_on_host(numpy_function" in text
    compile(text, "ndcg.py", "exec")
