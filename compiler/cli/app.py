"""The ``metricc`` command: ``build``, ``check``, ``list``, ``explain``, ``eval``, ``audit`` and ``suggest``.

Errors are rendered once, here. Exit codes: 0 success; 1 problems in specs (or, with
``build --check``, a stale output folder); 2 bad usage or unusable input, printed as
``metricc: error: <argument>: <message>``; 3 a bug in metricc.

Importing this module imports neither sympy nor jinja2: ``build`` and ``check`` import the
compiler stages when they run, so ``eval``, ``list`` and ``explain`` need numpy only.

>>> main(["eval", "--matrix", "[[5, 1], [2, 4]]", "--metric", "accuracy", "--format", "json"])
{"accuracy": 0.75}
0
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import math
import os
import re
import shlex
import sys
import traceback
from pathlib import Path

from metricc.compiler.cli import audit, relevance, scores, suggest, sweep
from metricc.compiler.errors import InternalError, SpecError
from metricc.runtime.confusion import ORIENTATIONS
from metricc.runtime.errors import InputError, MetriccError
from metricc.runtime.kernel import AVERAGES

__all__ = ["main"]

# Runtime argument names -> the options that supply them (parameters map to --param NAME).
_OPTIONS = {
    "matrix": "--matrix", "scores": "--scores", "y_true": "--y-true", "y_pred": "--y-pred", "labels": "--labels",
    "pos_label": "--pos-label", "probabilistic": "--probabilistic", "average": "--average", "weights": "--weights",
    "zero_division": "--zero-division", "orientation": "--orientation",
    "metric": "--metric", "metrics": "--metric", "params": "--param", "input": "--metric",
    "multilabel": "--multilabel",
    **relevance.OPTIONS,
}
_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")  # canonical only: "007" stays a string label


# ---------------------------------------------------------------- entry point

class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors go through the same rendering as every other error."""

    def error(self, message: str):
        argument, sep, rest = message.partition(": ")
        if argument.startswith("argument ") and sep:
            raise InputError(argument.removeprefix("argument "), rest)
        raise InputError(self.prog.removeprefix("metricc").strip() or "metricc", message)


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); returns the exit code."""
    try:
        args = _parser().parse_args(argv)
        return args.run(args)
    except SystemExit as done:  # --help
        return done.code if isinstance(done.code, int) else 0
    except SpecError as error:
        print(error.render(), file=sys.stderr)
        return 1
    except InternalError as error:
        _report_bug(str(error))
        return 3
    except InputError as error:
        print(f"metricc: error: {error.argument}: {error.message}", file=sys.stderr)
        return 2
    except MetriccError as error:
        print(f"metricc: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `metricc list | head`: stop quietly, also at interpreter exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception:  # noqa: BLE001 - anything else is our bug: show it, ask for a report
        traceback.print_exc()
        _report_bug("unexpected exception (traceback above)")
        return 3


def _report_bug(message: str) -> None:
    print(f"metricc: internal error: {message}\nThis is a bug in metricc, not in your input; "
          "please report it with the command you ran.", file=sys.stderr)


def _parser() -> _Parser:
    parser = _Parser(prog="metricc", description="Compile YAML metric specs to numpy and LaTeX; evaluate metrics.")
    parser.set_defaults(run=lambda args: parser.print_help(sys.stderr) or 2)
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    build = commands.add_parser("build", help="compile the specs into the generated package")
    build.add_argument("--check", action="store_true", help="write nothing; exit 1 if the output is stale")
    build.add_argument("--specs", metavar="DIR", help="spec folder (default: ./specs, else the installed one)")
    build.add_argument("--out", metavar="DIR", help="output folder (default: ./generated, else the installed one)")
    build.set_defaults(run=_cmd_build)

    check = commands.add_parser("check", help="validate specs without writing anything")
    check.add_argument("specs", nargs="*", metavar="SPEC", help="spec files or folders (default: the catalog)")
    check.set_defaults(run=_cmd_check)

    listing = commands.add_parser("list", help="list the compiled metrics")
    listing.add_argument("--format", choices=("text", "json"), default="text")
    listing.set_defaults(run=_cmd_list)

    explain = commands.add_parser("explain", help="show a metric's formula, undefined cases and sources")
    explain.add_argument("id", metavar="ID", help="metric id or alias")
    explain.add_argument("--format", choices=("text", "latex"), default="text")
    explain.set_defaults(run=_cmd_explain)

    ev = commands.add_parser("eval", help="evaluate metrics on a confusion matrix or label files")
    ev.add_argument("--matrix", metavar="FILE_OR_JSON", help="confusion matrix: inline JSON, or a JSON/CSV file")
    ev.add_argument("--orientation", choices=ORIENTATIONS, help="which axis holds true classes (default true-rows)")
    ev.add_argument("--y-true", metavar="FILE", help="true labels: one per line, or one comma-separated line")
    ev.add_argument("--y-pred", metavar="FILE", help="predicted labels, like --y-true")
    ev.add_argument("--multilabel", action="store_true", help="label files hold 0/1 indicator rows")
    ev.add_argument("--labels", nargs="+", metavar="LABEL", help="class order (names matrix rows)")
    ev.add_argument("--metric", action="append", required=True, metavar="ID", help="metric id or alias (repeatable)")
    ev.add_argument("--average", choices=AVERAGES, help="averaging of class-level metrics (default: each metric's)")
    ev.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="parameter, value in JSON")
    ev.add_argument("--weights", metavar="JSON", help="class weights for --average weighted")
    ev.add_argument("--pos-label", metavar="LABEL", help="positive class for --average binary")
    ev.add_argument("--zero-division", default="nan", metavar="VALUE",
                    help="value of undefined cases (default nan), or 'skip': leave undefined classes out of means")
    ev.add_argument("--sweep", metavar="NAME=START:STOP:NUM", help="evaluate for every value of a parameter grid "
                    "(a class vector: every vector with entries from the values); also NAME=V1,V2,...")
    relevance.add_options(ev)
    ev.add_argument("--format", choices=("text", "json"), default="text")
    scores.add_arguments(ev)
    ev.set_defaults(run=_cmd_eval)

    audit.add_command(commands)
    suggest.add_command(commands)
    return parser


# ---------------------------------------------------------------- build and check

def _shown(path: Path) -> str:
    """A path as the user would type it: relative to the working directory when inside it."""
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(Path.cwd()).as_posix() or "."
    except ValueError:
        return str(absolute)


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise InternalError(f"package {name} is not installed; reinstall metricc")
    return Path(list(spec.submodule_search_locations)[0])


def _spec_dir(given: str | None) -> Path:
    if given is None:
        return Path("specs") if Path("specs").is_dir() else _package_dir("metricc.specs")
    if not Path(given).is_dir():
        raise InputError("--specs", f"not a folder: {given}")
    return Path(given)


def _out_dir(given: str | None) -> Path:
    if given is not None:
        return Path(given)
    return Path("generated") if Path("specs").is_dir() else _package_dir("metricc.generated")


def _compile_catalog(spec_dir: Path) -> dict[str, str]:
    """``build.compile_catalog`` run from the spec folder's parent.

    The compiler names each spec in the generated banners by the path it was given, so
    compiling ``specs`` from its parent gives the same bytes whatever the working
    directory. Diagnostics are mapped back to paths relative to the user's directory.
    """
    from metricc.compiler import build

    here, spec_dir = Path.cwd(), spec_dir.resolve()
    os.chdir(spec_dir.parent)
    try:
        return build.compile_catalog(Path(spec_dir.name))
    except SpecError as error:
        raise _relocated(error, spec_dir.parent, here) from None
    finally:
        os.chdir(here)


def _relocated(error: SpecError, base: Path, here: Path) -> SpecError:
    def move(d):
        file = os.path.relpath(base / d.location.file, here)
        return dataclasses.replace(d, location=dataclasses.replace(d.location, file=file))

    return type(error)([move(d) for d in error.diagnostics])


def _refuse_foreign(out_dir: Path) -> None:
    """``write_tree`` replaces the whole folder: never let it replace one we did not write."""
    if not out_dir.exists():
        return
    init = out_dir / "__init__.py"
    ours = init.is_file() and "Generated by metricc" in init.read_text("utf-8", errors="replace")
    if not out_dir.is_dir() or (any(out_dir.iterdir()) and not ours):
        raise InputError("--out", f"{_shown(out_dir)} exists and does not hold metricc output; "
                         "refusing to replace it (choose a new or empty folder)")


def _cmd_build(args) -> int:
    from metricc.compiler.emit import write

    spec_dir, out_dir = _spec_dir(args.specs), _out_dir(args.out)
    files = _compile_catalog(spec_dir)
    stale = write.stale_files(out_dir, files)
    out = _shown(out_dir)
    if args.check:
        if not out_dir.is_dir():
            print(f"metricc: {out} does not exist; run `metricc build` to create it", file=sys.stderr)
            return 1
        if not stale:
            print(f"ok: {out} is in sync with {_shown(spec_dir)} ({len(files)} files)")
            return 0
        command = "metricc build" + "".join(f" {flag} {shlex.quote(value)}"
                                            for flag, value in (("--specs", args.specs), ("--out", args.out)) if value)
        listing = "\n".join(f"  {out}/{name}" for name in stale)
        print(f"metricc: {out} is out of date with {_shown(spec_dir)} ({len(stale)} of {len(files)} files):\n"
              f"{listing}\nrun `{command}` to regenerate it", file=sys.stderr)
        return 1
    _refuse_foreign(out_dir)
    write.write_tree(out_dir, files)
    print(f"wrote {out}: {len(files)} files, {len(stale)} changed")
    return 0


def _check_catalog(directory: Path) -> list:
    """Diagnostics of load -> validate -> lower -> analyze over one spec folder ([] if fine)."""
    from metricc.compiler import build

    try:
        build.analyzed_metrics(directory)
    except SpecError as error:
        return list(error.diagnostics)
    return []


def _cmd_check(args) -> int:
    groups: dict[Path, set[Path] | None] = {}  # folder -> named specs (None: all of them)
    for given in args.specs or [str(_spec_dir(None))]:
        path = Path(given)
        if path.is_dir():
            groups[path] = None
        elif path.is_file() and path.suffix == ".yaml":
            named = groups.setdefault(path.parent, set())
            if named is not None:
                named.add(path.resolve())
        else:
            problem = "not a .yaml spec file" if path.is_file() else "no such file or folder"
            raise InputError("SPEC", f"{given}: {problem}")
    problems, count = [], 0
    for directory, named in groups.items():
        found = _check_catalog(directory)
        if named is None:
            count += len(list(directory.glob("*.yaml")))
            problems += found
            continue
        count += len(named)
        mine = [d for d in found if Path(d.location.file).resolve() in named]
        others = len(found) - len(mine)
        problems += mine
        if others and not mine:
            print(f"metricc: error: cannot check {', '.join(sorted(_shown(p) for p in named))}: "
                  f"{others} problem(s) in other specs of {_shown(directory)} stop the compiler first; "
                  f"run `metricc check {shlex.quote(_shown(directory))}`", file=sys.stderr)
            return 1
        if others:
            print(f"metricc: note: {others} more problem(s) in other specs of {_shown(directory)}", file=sys.stderr)
    if problems:
        print("\n".join(d.render() for d in problems), file=sys.stderr)
        return 1
    print(f"ok: {count} specs")
    return 0


# ---------------------------------------------------------------- list and explain

def _catalog():
    from metricc.generated import CATALOG

    return CATALOG


def _bound(value: float):
    """Range bounds as specs write them: a number, or "inf" / "-inf" (JSON has no infinity)."""
    return ("inf" if value > 0 else "-inf") if math.isinf(value) else value


def _info_json(info) -> dict:
    return {
        "id": info.id,
        "name": info.name,
        "aliases": list(info.aliases),
        "level": info.level,
        "averages": list(info.averages),
        "default_average": info.default_average,
        "params": [{"name": p.name, "kind": p.kind, "default": p.default, "domain": p.domain} for p in info.params],
        "range": [_bound(info.range[0]), _bound(info.range[1])],
        "higher_is_better": info.higher_is_better,
        "references": list(info.references),
    }


def _averages_text(info, sep: str = ", ") -> str:
    return sep.join(a + ("*" if a == info.default_average else "") for a in info.averages) or "-"


def _cmd_list(args) -> int:
    infos = _catalog().values()
    if args.format == "json":
        print(json.dumps([_info_json(info) for info in infos], indent=2))
        return 0
    rows = [(info.id, info.level, _averages_text(info, ","), info.name, "; ".join(info.references)) for info in infos]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in [("ID", "LEVEL", "AVERAGES (*default)", "NAME", "REFERENCES")] + rows:
        print("  ".join(f"{cell:<{width}}" for cell, width in zip(row, widths)) + "  " + row[4])
    return 0


def _cmd_explain(args) -> int:
    try:
        info = _catalog()[args.id]
    except InputError as error:
        raise InputError("ID", error.message) from None
    if args.format == "latex":
        path = _package_dir("metricc.generated") / "docs" / "metrics" / f"{info.id}.tex"
        try:
            print(path.read_text("utf-8"), end="")
        except OSError as error:
            raise InternalError(f"cannot read the LaTeX of {info.id} ({path}): {error.strerror}") from None
        return 0
    lo, hi = (f"{b:g}" for b in info.range)
    lines = [f"{info.id}: {info.name}"]
    if info.aliases:
        lines.append(f"  aliases: {', '.join(info.aliases)}")
    lines.append(f"  level: {info.level}")
    if info.averages:
        lines.append(f"  averages: {_averages_text(info)}  (* default)")
    lines += [f"  range: [{lo}, {hi}], {'higher' if info.higher_is_better else 'lower'} is better",
              "", info.description, "",
              f"formula:    {info.formula}", f"simplified: {info.simplified}"]
    if info.undefined:
        lines.append("undefined when (returns zero_division, default NaN):")
        lines += [f"  {case}" for case in info.undefined]
    if info.params:
        lines.append("params:")
        lines += [f"  {p.name}: {p.kind}, default {'computed from the counts' if p.default is None else p.default}"
                  + (f", {p.domain}" if p.domain else "") for p in info.params]
    if info.equivalences:
        lines.append("proved equivalences (where both sides are defined):")
        lines += [f"  {statement}" for statement in info.equivalences]
    lines.append("references:")
    lines += [f"  {reference}" for reference in info.references]
    print("\n".join(lines))
    return 0


# ---------------------------------------------------------------- eval

def _read(option: str, path: str) -> str:
    try:
        return Path(path).read_text("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(option, f"{path}: not UTF-8 text") from None
    except OSError as error:
        raise InputError(option, f"cannot read {path}: {error.strerror or error}") from None


def _json(option: str, text: str, where: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(option, f"{where}not valid JSON ({error})") from None


def _number(option: str, token: str, where: str):
    try:
        return int(token)
    except ValueError:
        try:
            return float(token)
        except ValueError:
            raise InputError(option, f"{where}{token!r} is not a number") from None


def _rows(option: str, text: str, path: str) -> list[list]:
    """CSV or whitespace-separated numbers, one row per line (blank and # lines skipped)."""
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip() and not line.lstrip().startswith("#"):
            tokens = [t for t in re.split(r"[\s,;]+", line.strip()) if t]
            rows.append([_number(option, t, f"{path}:{number}: ") for t in tokens])
            if len(rows[-1]) != len(rows[0]):
                raise InputError(option, f"{path}:{number}: {len(rows[-1])} values, expected {len(rows[0])} like line 1")
    if not rows:
        raise InputError(option, f"{path}: no numbers in the file")
    return rows


def _load_matrix(value: str):
    if value.lstrip().startswith("["):
        matrix = _json("--matrix", value, "")
    else:
        text = _read("--matrix", value)
        is_json = value.endswith(".json") or text.lstrip().startswith(("[", "{"))
        matrix = _json("--matrix", text, f"{value}: ") if is_json else _rows("--matrix", text, value)
    if not isinstance(matrix, list):
        raise InputError("--matrix", f"expected a JSON array of rows, got {type(matrix).__name__}")
    return matrix


def _load_labels(option: str, value: str) -> list[str]:
    """One label per line, or a single comma-separated line; or an inline JSON array."""
    if value.lstrip().startswith("["):
        labels = _json(option, value, "")
        if not isinstance(labels, list):
            raise InputError(option, "expected a JSON array of labels")
        return [str(label) for label in labels]
    lines = [line.strip() for line in _read(option, value).splitlines() if line.strip()]
    if len(lines) == 1:
        lines = [label.strip() for label in lines[0].split(",")]
    elif any("," in line for line in lines):
        raise InputError(option, f"{value}: give one label per line, or all labels on one comma-separated line")
    if not lines:
        raise InputError(option, f"{value}: no labels in the file")
    return lines


def _load_indicators(option: str, value: str) -> list[list]:
    if value.lstrip().startswith("["):
        return _json(option, value, "")
    return _rows(option, _read(option, value), value)


def _as_labels(*groups: list[str] | None) -> tuple[list[list | None], bool]:
    """Strings, unless every label of every group is an integer: then ints (and True)."""
    every = [label for group in groups if group for label in group]
    integers = all(isinstance(label, str) and _INTEGER.fullmatch(label) for label in every)
    return [None if group is None else [int(x) for x in group] if integers else list(group) for group in groups], integers


def _pos_label(text: str | None, integers: bool):
    """``--pos-label`` like the labels: an int when they are ints (or index a matrix)."""
    if text is not None and integers and _INTEGER.fullmatch(text):
        return int(text)
    return text


def _matrix_classes(matrix) -> int | None:
    import numpy as np

    try:
        shape = np.shape(matrix)
    except ValueError:  # ragged: the runtime explains
        return None
    return shape[-1] if len(shape) >= 2 else None


def _params(items: list[str]) -> dict:
    params = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise InputError("--param", f"expected NAME=VALUE (value in JSON, e.g. beta=2), got {item!r}")
        if name in params:
            raise InputError("--param", f"{name} given twice")
        params[name] = _json(f"--param {name}", text, f"{text!r} is ")
    return params


def _zero_division(text: str) -> float | str:
    if text.strip().lower() == "nan":
        return math.nan
    if text.strip().lower() == "skip":
        return "skip"
    try:
        return float(text)
    except ValueError:
        raise InputError("--zero-division", f"expected a number or nan, or skip, got {text!r}") from None


def _inputs(args) -> dict:
    """The data keyword arguments of ``evaluate`` from the input options."""
    if args.scores is not None:
        return scores.score_inputs(args)
    if args.probabilistic is not None:
        raise InputError("--probabilistic", "needs --scores (class probabilities) and --y-true")
    if (args.matrix is None) == (args.y_true is None and args.y_pred is None):
        raise InputError("--matrix", "give either --matrix, or --y-true with --y-pred")
    if args.matrix is not None:
        if args.multilabel:
            raise InputError("--multilabel", "applies to --y-true/--y-pred, not to --matrix")
        matrix = _load_matrix(args.matrix)
        (labels,), integers = _as_labels(args.labels)
        classes = _matrix_classes(matrix)
        if labels is not None and classes is not None and len(labels) != classes:
            raise InputError("--labels", f"expected one label per class of the matrix ({classes}), got {len(labels)}")
        return {"matrix": matrix, "orientation": args.orientation or "true-rows", "labels": labels,
                "pos_label": _pos_label(args.pos_label, integers)}
    if args.orientation is not None:
        raise InputError("--orientation", "applies to --matrix only")
    missing = "--y-pred" if args.y_pred is None else "--y-true" if args.y_true is None else None
    if missing:
        raise InputError(missing, "--y-true and --y-pred go together")
    if args.multilabel:
        if args.labels is not None:
            raise InputError("--labels", "not used with --multilabel; give --pos-label as a column index")
        return {"y_true": _load_indicators("--y-true", args.y_true), "multilabel": True,
                "y_pred": _load_indicators("--y-pred", args.y_pred), "pos_label": _pos_label(args.pos_label, True)}
    y_true, y_pred = _load_labels("--y-true", args.y_true), _load_labels("--y-pred", args.y_pred)
    (y_true, y_pred, labels), integers = _as_labels(y_true, y_pred, args.labels)
    return {"y_true": y_true, "y_pred": y_pred, "labels": labels, "pos_label": _pos_label(args.pos_label, integers)}


def _plain(value):
    """numpy arrays -> lists, numpy scalars -> Python numbers (NaN stays NaN)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def _cmd_eval(args) -> int:
    from metricc.runtime import evaluate

    params = _params(args.param)
    weights = None if args.weights is None else _json("--weights", args.weights, "")
    zero_division = _zero_division(args.zero_division)
    data = _inputs(args)
    if args.sweep is not None:
        relevance.refuse_with("--sweep", args)
        return sweep.run(args, data, params, weights, zero_division, _OPTIONS)
    try:
        values = evaluate(args.metric, average=args.average, params=params, weights=weights,
                          zero_division=zero_division, **data, **relevance.evaluate_kwargs(args))
        values = {name: _plain(value) for name, value in values.items()}
        if args.normalized:
            values = relevance.with_normalized(values)
    except InputError as error:
        option = f"--param {error.argument}" if error.argument in params else _OPTIONS.get(error.argument, error.argument)
        raise InputError(option, error.message) from None
    if args.format == "json":
        print(json.dumps(values))
    else:
        print("\n".join(f"{name}: {json.dumps(value)}" for name, value in values.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
