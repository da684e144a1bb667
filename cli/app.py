"""The edge of the ``metricc`` command: the parser, which each command module extends
(``add_command``), and the rendering of every error, once, here.

Exit codes: 0 success; 1 problems in specs (or, with ``build --check``, a stale output
folder); 2 bad usage or unusable input, printed as ``metricc: error: <argument>: <message>``;
3 a bug in metricc.

Importing this module imports neither sympy nor jinja2: ``build`` and ``check`` import the
compiler stages when they run, so ``eval``, ``list`` and ``explain`` need numpy only.

>>> main(["list", "--format", "jsn"])
2
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback

from metricc.cli import audit, build, catalog, consistent, docs, evaluate, identify, plot, report, review, suggest
from metricc.compiler.errors import InternalError, SpecError
from metricc.core.errors import InputError, MetriccError

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors go through the same rendering as every other error."""

    def error(self, message: str):
        argument, sep, rest = message.partition(": ")
        if argument.startswith("argument ") and sep:
            raise InputError(argument.removeprefix("argument "), rest)
        if argument == "unrecognized arguments" and sep:  # said once, by the option at fault
            words = [word if len(word) <= 40 else word[:37] + "..." for word in rest.split()]
            shown = " ".join(words[:4]) + (" ..." if len(words) > 4 else "")
            raise InputError(words[0], f"not an option of this command (unrecognized: {shown}); "
                                       "see metricc COMMAND --help")
        command = self.prog.removeprefix("metricc").strip()
        raise InputError(command, message) if command else InputError("", message)


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
        where = f"{error.argument}: " if error.argument else ""  # usage errors of metricc itself name no argument
        print(f"metricc: error: {where}{error.message}", file=sys.stderr)
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
    """``metricc`` with every command; a command without sub-command prints the help (exit 2)."""
    parser = _Parser(prog="metricc", description="Compile YAML metric specs to numpy and LaTeX; evaluate metrics.")
    parser.set_defaults(run=lambda args: parser.print_help(sys.stderr) or 2)
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    build.add_command(commands)
    catalog.add_command(commands)
    evaluate.add_command(commands)
    report.add_command(commands)
    audit.add_command(commands)
    docs.add_command(commands)
    consistent.add_command(commands)
    identify.add_command(commands)
    review.add_command(commands)
    suggest.add_command(commands)
    plot.add_command(commands)
    return parser


if __name__ == "__main__":
    sys.exit(main())
