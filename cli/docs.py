"""``metricc docs``: the catalog as a static website (``--html OUT/``) or a PDF (``--pdf``).

The site is written from the compiled IR like ``generated/``, plus what only running code can
tell: a worked example per metric computed by the generated functions, and the audit results
of ``audits/``. Running code is why the site is not part of ``metricc build``: the build
writes the generated code, so its output cannot depend on that code, and docs refuse a
``generated/`` that is stale against the specs rather than show numbers of other formulas.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from metricc.cli.paths import shown, spec_dir as _spec_dir
from metricc.compiler.packages import package_dir
from metricc.compiler.errors import SpecError
from metricc.core.errors import InputError
from metricc.runtime import averaging

__all__ = ["add_command", "worked_example"]

_LABELS = ["a", "b", "c"]
_MATRIX = [[9, 1, 0], [3, 6, 1], [1, 2, 7]]  # Wenzel, Figure 6 (rows: true classes)
_Y_TRUE = ["a", "a", "b", "b", "c", "c", "a", "b"]
_SCORES = [[0.7, 0.2, 0.1], [0.4, 0.4, 0.2], [0.2, 0.5, 0.3], [0.1, 0.8, 0.1],
           [0.2, 0.2, 0.6], [0.3, 0.3, 0.4], [0.5, 0.1, 0.4], [0.3, 0.3, 0.4]]
_MULTILABEL_TRUE = [[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 1]]
_MULTILABEL_PRED = [[1, 0, 0], [0, 1, 0], [1, 1, 1], [0, 1, 1]]
_PDFLATEX_MISSING = ("pdflatex not found: install a TeX distribution (Debian: apt-get install texlive-latex-base "
                     "texlive-latex-recommended texlive-latex-extra lmodern), or compile generated/docs/metrics.tex elsewhere")


def add_command(commands) -> None:
    """Add ``docs`` to ``commands`` (an argparse sub-parser group)."""
    docs = commands.add_parser("docs", help="write the catalog as a static website or compile it to PDF")
    docs.add_argument("--html", metavar="OUT", help="write the website into folder OUT (replaced as a whole)")
    docs.add_argument("--pdf", metavar="OUT", nargs="?", const="metrics.pdf",
                      help="compile the LaTeX catalog with pdflatex into OUT (default metrics.pdf)")
    docs.add_argument("--specs", metavar="DIR", help="spec folder (default: ./specs, else the installed one)")
    docs.add_argument("--audits", metavar="DIR", help="audit files for the site (default: ./audits when present)")
    docs.add_argument("--quiet", action="store_true", help="no progress bar (it is shown only on a terminal)")
    docs.set_defaults(run=_cmd_docs)


def _value(value) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{label}: {_value(v)}" for label, v in value.items())
    try:
        items = list(value)
    except TypeError:
        return f"{float(value):.6g}"
    return "[" + ", ".join(f"{float(v):.6g}" for v in items) + "]"


def _datasets(info) -> list[tuple[dict, str, str]]:
    """(evaluate keywords, description, call) to try in order: the first that gives a value is shown."""
    matrix = ({"matrix": _MATRIX, "labels": _LABELS},
              f"The confusion matrix of Wenzel, Figure 6, rows = true classes {_LABELS}: {_MATRIX}.",
              "matrix=matrix, labels=labels")
    scores = ({"y_true": _Y_TRUE, "scores": _SCORES, "labels": _LABELS},
              f"Labels y_true = {_Y_TRUE} and scores (one row per sample, columns {_LABELS}) = {_SCORES}.",
              "y_true=y_true, scores=scores, labels=labels")
    multilabel = ({"y_true": _MULTILABEL_TRUE, "y_pred": _MULTILABEL_PRED, "multilabel": True},
                  f"Multi-label indicator rows y_true = {_MULTILABEL_TRUE}, y_pred = {_MULTILABEL_PRED}.",
                  "y_true=y_true, y_pred=y_pred, multilabel=True")
    return [scores] if info.needs_scores else [matrix, multilabel]


def worked_example(info) -> dict:
    """The example data evaluated by the generated function of ``info`` (a catalog entry):
    every averaging mode that applies to three classes without a positive label."""
    from metricc.api import evaluate

    for data, text, arguments in _datasets(info):
        rows, calls = [], []
        for mode in [m for m in info.averages if not averaging.positive_class(m)] or [None]:
            try:
                value = evaluate(info.id, average=mode, **data)[info.id]
            except InputError:
                continue  # this mode needs other data (samples: multi-label rows)
            rows.append((f"average={mode}" if mode else info.id, _value(value)))
            calls.append(f"mc.evaluate({info.id!r}, {arguments}" + (f", average={mode!r})" if mode else ")"))
        if rows:
            return {"input": text, "call": "import metricc as mc\n" + "\n".join(calls), "rows": rows}
    return {}


def _audit_rows(directory: Path | None, known: set[str]) -> list[dict]:
    from metricc.audit import claims

    if directory is None:
        return []
    rows = []
    for path in sorted(directory.glob("*.yaml")):
        for result in claims.audit_file(path):
            rows.append({"file": path.name, "line": result.line, "source": result.source, "where": result.where,
                         "metric": result.metric, "metric_link": result.metric if result.metric in known else "",
                         "printed": result.printed, "recomputed": claims.format_value(result.recomputed),
                         "status": result.status, "erratum": result.erratum or ""})
    return rows


def _compiled(spec_dir: Path, cache):
    """The IR and errata of ``spec_dir``, compiled from its parent (names as in banners), with
    the build cache ``metricc build`` fills: after a build, nothing is analyzed again."""
    from metricc.compiler import build

    here, spec_dir = Path.cwd(), spec_dir.resolve()
    os.chdir(spec_dir.parent)
    try:
        done = build.run(build.Build(Path(spec_dir.name), cache), until="prove")
        return dict(done.metrics), list(done.errata)
    finally:
        os.chdir(here)


def _require_fresh(metrics, errata, cache) -> None:
    """The worked examples run ``metricc.generated``: it must be the build of these specs."""
    from metricc.compiler import emit
    from metricc.compiler.emit import write

    generated = package_dir("metricc.generated")
    stale = [name for name in write.stale_files(generated, emit.emit_catalog(metrics, errata, cache)) if name.endswith(".py")]
    if stale:
        raise InputError("--html", f"{shown(generated)} is out of date with the specs ({len(stale)} files, e.g. "
                         f"{stale[0]}); run `metricc build` first: the worked examples run the generated code")


def _write_site(out: Path, files: dict[str, str]) -> None:
    from metricc.compiler.emit import write

    if out.exists():
        index = out / "index.html"
        ours = index.is_file() and "Generated by metricc" in index.read_text("utf-8", errors="replace")
        if not out.is_dir() or (any(out.iterdir()) and not ours):
            raise InputError("--html", f"{shown(out)} exists and does not hold a metricc site; "
                             "refusing to replace it (choose a new or empty folder)")
    write.recover(out)
    write.write_tree(out, files)


_PASSES = 4  # pdflatex runs until the contents and labels stop moving (3 passes from scratch)


def _compile_pdf(files: dict[str, str], out: Path, bar=None) -> None:
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        raise InputError("--pdf", _PDFLATEX_MISSING)
    with tempfile.TemporaryDirectory(prefix="metricc-pdf-") as scratch:
        for name, text in files.items():
            if name.startswith("docs/"):
                path = Path(scratch, name.removeprefix("docs/"))
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
        for number in range(1, _PASSES + 1):
            if bar is not None:
                bar.update(0 if number == 1 else 1, f"pdflatex pass {number}")
            done = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", "metrics.tex"],
                                  cwd=scratch, capture_output=True, text=True, errors="replace")
            if done.returncode != 0:
                errors = [line for line in done.stdout.splitlines() if line.startswith("!")]
                raise InputError("--pdf", "pdflatex failed: " + ("; ".join(errors[:3]) or "see its log") +
                                 " (a TeX package may be missing: texlive-latex-extra, lmodern)")
            if "Rerun to get" not in Path(scratch, "metrics.log").read_text("utf-8", errors="replace"):
                break
        if bar is not None:
            bar.update(_PASSES - number + 1, "pdf written")  # the passes not needed count as done
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(scratch, "metrics.pdf"), out)


def _cmd_docs(args) -> int:
    if args.html is None and args.pdf is None:
        raise InputError("docs", "say what to write: --html OUT/ and/or --pdf [OUT]")
    if args.pdf is not None and shutil.which("pdflatex") is None:
        raise InputError("--pdf", _PDFLATEX_MISSING)
    from metricc.compiler.emit import latex, targets
    from metricc.compiler.emit.target import SITE, Catalog, emit_files
    from metricc.api.progress import progress
    from metricc.cli.build import cache_dir
    from metricc.compiler.analysis.cache import Cache
    from metricc.compiler.analysis.record import Record

    written = []
    # Minutes of work (compiling the catalog, pdflatex passes, a worked example per metric): a
    # bar on stderr when it is a terminal, its total known once the specs are compiled.
    with progress(None, "docs", enabled=not getattr(args, "quiet", False), tick=0.5) as bar:
        bar.update(0, "compiling the specs")
        spec_dir = _spec_dir(args.specs)
        record = Record(spec_dir, package_dir("metricc.generated"), check=True)  # read, never written
        cache = Cache(cache_dir(spec_dir), record)
        try:
            metrics, errata = _compiled(spec_dir, cache)
        except SpecError as error:
            bar.close()
            print(error.render(), file=sys.stderr)
            return 1
        bar.total = 1 + (_PASSES if args.pdf is not None else 0) + (len(metrics) + 1 if args.html is not None else 0)
        bar.update(1, "compiled")
        if args.pdf is not None:
            _compile_pdf(emit_files(Catalog(metrics, errata), (latex.TARGET,), cache), Path(args.pdf), bar)
            written.append(f"wrote {shown(Path(args.pdf))}")
        if args.html is not None:
            _require_fresh(metrics, errata, cache)
            from metricc.generated import CATALOG

            audits = Path(args.audits) if args.audits else (Path("audits") if Path("audits").is_dir() else None)
            if audits is not None and not audits.is_dir():
                raise InputError("--audits", f"not a folder: {args.audits}")
            examples = {}
            for metric_id in metrics:
                bar.update(0, f"worked example: {metric_id}")
                examples[metric_id] = worked_example(CATALOG[metric_id])
                bar.update(1)
            bar.update(0, "writing the site")
            files = emit_files(Catalog(metrics, errata, examples, _audit_rows(audits, set(metrics))), targets.of(SITE))
            _write_site(Path(args.html), files)
            bar.update(1, "done")
            written.append(f"wrote {shown(Path(args.html))}: {len(files)} files")
        cache.save()
    print("\n".join(written))
    return 0
