"""metricc identify on text it cannot read: the error names the column of the user's own text
and quotes that text, never the internal LaTeX rewrite; deep nesting is refused by depth."""

import re

import pytest

from metricc.audit.formula_source import MAX_NESTING
from metricc.audit.identify import identify
from metricc.cli.app import main
from metricc.core.errors import InputError

# (text, notation, expected message after "FORMULA: ")
MALFORMED = [
    ("TP^999", "text", "column 3: exponent '999' too large: at most 16, no towers"),
    ("TP**999", "text", "column 3: exponent '999' too large: at most 16, no towers"),
    ("TP^{999}", "latex", "column 3: exponent '999' too large: at most 16, no towers"),
    ("TP/(TP+FP", "text", "column 4: '(' is never closed"),
    ("sqrt(TP", "text", "column 5: '(' is never closed"),
    ("2*TP/(2*TP+FP+FN))", "text", "column 18: ')' closes no '('"),
    (r"\frac{TP}{TP+FP", "latex", "column 10: '{' is never closed"),
    ("TP ++ FP", "latex", "column 4: '+' is followed by '+': an operand is missing"),
    ("sqrt(TP) * / FP", "text", "column 10: '*' is followed by '/': an operand is missing"),
    ("TP/(TP+FP) -", "text", "column 12: '-' has nothing after it: an operand is missing"),
    (r"\frac{TP}{TP+FP} \cdot", "latex", r"column 18: '\cdot' has nothing after it: an operand is missing"),
    ("(TP + FP]", "text", "column 9: ']' closes the '(' of column 1"),
    ("TP**FP**2", "text", "column 3: a power tower (x^a^b): write the exponent in one group"),
    ("TP + foo", "text", "column 6: unknown symbol 'foo'"),
    ("sqrt(TP) + \\frac{1}{2}", "text", "column 12: a LaTeX command in --notation text"),
]


@pytest.mark.parametrize("text, notation, expected", MALFORMED, ids=range(len(MALFORMED)))
def test_errors_name_the_users_column_and_text(text, notation, expected):
    with pytest.raises(InputError) as error:
        identify(text, notation=notation)
    message = error.value.message
    assert message.startswith(expected), message
    assert not re.search(r"[A-Za-z]_\{\d\}", message), message  # no placeholder of the internal LaTeX
    column = int(re.match(r"column (\d+)", message).group(1))
    assert 1 <= column <= len(text)


def test_a_parser_complaint_quotes_the_formula_as_typed():
    with pytest.raises(InputError) as error:
        identify(r"\frac{TP}{}")
    assert error.value.message.startswith(r"column 9: cannot read '\frac{TP}{}' here, near '\frac{TP}{}'")


DEEP = [  # (text, notation, column of the first bracket too many)
    ("(" * 900 + "TP" + ")" * 900, "latex", MAX_NESTING + 1),
    ("(" * 900 + "TP" + ")" * 900, "text", MAX_NESTING + 1),
    ("{" * 900 + "TP" + "}" * 900, "latex", MAX_NESTING + 1),
    (r"\left(" * 45 + "TP" + r"\right)" * 45, "latex", 6 * MAX_NESTING + 6),
    (r"\frac{1}{" * 45 + "TP" + "}" * 45, "latex", 9 * MAX_NESTING + 6),  # the {1} of the 41st
    ("sqrt(" * 60 + "TP" + ")" * 60, "text", 5 * MAX_NESTING + 5),
]


@pytest.mark.parametrize("text, notation, column", DEEP, ids=range(len(DEEP)))
def test_deep_nesting_is_refused_with_its_position(text, notation, column):
    with pytest.raises(InputError) as error:
        identify(text, notation=notation)
    assert error.value.message == f"column {column}: nested too deeply (at most {MAX_NESTING} levels of brackets)"


def test_nesting_up_to_the_limit_is_read():
    depth = MAX_NESTING - 2
    result = identify("(" * depth + r"\frac{TP}{TP + FP}" + ")" * depth)
    assert ("precision", "binary", "all") in {(m.metric, m.average, m.holds) for m in result.matches}


def test_cli_exit_code_2_and_a_message_without_traceback(capsys):
    assert main(["identify", "--notation", "text", "TP^999"]) == 2
    err = capsys.readouterr().err
    assert "column 3: exponent '999' too large" in err and "Traceback" not in err
    assert main(["identify", "(" * 900 + "TP" + ")" * 900]) == 2
    err = capsys.readouterr().err
    assert "nested too deeply" in err and "Traceback" not in err and "RecursionError" not in err


def test_the_function_names_its_parameters_and_the_command_its_options(capsys):
    with pytest.raises(InputError) as error:
        identify("TP", setting="ternary")
    assert error.value.argument == "setting"
    with pytest.raises(InputError) as error:
        identify("x", symbols_map={"x": "preference_driven"})
    assert error.value.argument == "symbols_map"
    assert main(["identify", "x", "--symbol", "x=preference_driven"]) == 2
    assert "error: --symbol: 'preference_driven': preference_driven needs a class vector" in capsys.readouterr().err


def test_too_many_sums_are_refused_before_any_parsing():
    """Nested sums cost the parser seconds each: a bound far above any printed metric's count."""
    from metricc.audit.formula_source import MAX_SUMS

    with pytest.raises(InputError, match=f"at most {MAX_SUMS}"):
        identify("\\sum_{j}" * (MAX_SUMS + 1) + "TP")
