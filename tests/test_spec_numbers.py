"""Numbers in spec strings: ASCII digits, a sign, a point, an exponent -- one rule (rankcore.spec.read_float /
read_int) for every component's parameters, the click model's options and the command line's numbers."""

import sys
import unicodedata

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankcore
from rankcore.metrics._gains import GAIN
from rankcore.push._click_model import POSITION_BIAS
from rankcore.spec import Component, Parameter, SpecError, number_like, read_float, read_int

_SETTINGS = settings(deadline=None, derandomize=True, database=None, max_examples=150,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


class _Num(Component):
    """A component with a float and an int parameter, for the generated texts below."""

    family = "price"
    name = "test-num"
    parameters = (Parameter("x", float, default=1.0), Parameter("n", int, default=1))


#: Every character Python reads as a decimal digit (``float()``, ``int()``) that is not ASCII: one per script.
_FOREIGN_DIGITS = {d: [chr(c) for c in range(0x80, sys.maxunicode + 1)
                       if unicodedata.decimal(chr(c), None) == d and chr(c).isdecimal()] for d in range(10)}

_ASCII_DECIMAL = st.from_regex(r"[+-]?(?:[0-9]{1,20}\.?[0-9]{0,20}|\.[0-9]{1,20})(?:[eE][+-]?[0-9]{1,3})?",
                               fullmatch=True)


@_SETTINGS
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_an_ascii_float_reads_back_exactly(value):
    for text in (repr(value), f"{value:.17e}", f"{value:.17g}"):
        assert read_float(text) == value and read_float(f" {text}\t") == value
    assert _Num.from_spec_args([repr(value)], {}).x == value


@_SETTINGS
@given(_ASCII_DECIMAL)
def test_an_ascii_decimal_reads_as_float_reads_it_unless_it_overflows_or_underflows(text):
    expected = float(text)
    nonzero_digits = any(c in "123456789" for c in text.lower().partition("e")[0])
    if np.isinf(expected):
        with pytest.raises(ValueError, match="overflows"):
            read_float(text)
    elif expected == 0 and nonzero_digits:
        with pytest.raises(ValueError, match="underflows to 0"):
            read_float(text)
    else:
        assert read_float(text) == expected and number_like(text)


@_SETTINGS
@given(st.integers(min_value=-10**200, max_value=10**200))
def test_an_ascii_integer_reads_exactly_at_any_size(value):
    assert read_int(str(value)) == value and read_int(f"+{abs(value)}") == abs(value)
    assert _Num.from_spec_args([], {"n": str(value)}).n == value


@_SETTINGS
@given(st.integers(0, 10**12), st.data())
def test_digits_of_other_scripts_are_refused_naming_the_parameter(value, data):
    ascii_text = str(value)
    where = data.draw(st.integers(0, len(ascii_text) - 1))
    digit = int(ascii_text[where])
    foreign = data.draw(st.sampled_from(_FOREIGN_DIGITS[digit]))
    text = ascii_text[:where] + foreign + ascii_text[where + 1:]
    assert float(text) == value                          # what float() reads, and a spec does not
    for key in ("x", "n"):
        with pytest.raises(SpecError, match=rf"{key} must be .*\(digits must be ASCII 0-9\)"):
            _Num.from_spec_args([], {key: text})


@_SETTINGS
@given(st.integers(10, 10**12), st.data())
def test_underscores_are_refused_naming_the_parameter(value, data):
    ascii_text = str(value)
    where = data.draw(st.integers(1, len(ascii_text) - 1))
    text = ascii_text[:where] + "_" + ascii_text[where:]
    assert int(text) == value                             # what int() reads, and a spec does not
    for key in ("x", "n"):
        with pytest.raises(SpecError, match=rf"{key} must be .*'_' does not separate digits"):
            _Num.from_spec_args([], {key: text})


@pytest.mark.parametrize("text, reason", [
    ("inf", "not a finite number"), ("-Infinity", "not a finite number"), ("nan", "not a finite number"),
    ("1e400", "overflows"), ("-1e309", "overflows"), ("9" * 400, "overflows"), ("1e-400", "underflows to 0"),
    ("-2e-324", "underflows to 0"), ("1 0", "no spaces inside a number"), ("0x10", "not a number"),
    ("1e", "not a number"), ("", "not a number"), ("1.5.", "not a number"), ("\uff11\uff10", "ASCII 0-9"),
])
def test_texts_refused_and_why(text, reason):
    with pytest.raises(ValueError, match=reason):
        read_float(text)


def test_zero_spellings_and_subnormals_are_numbers():
    for text in ("0", "-0", "0e-400", "0.000e999", ".0", "0."):
        assert read_float(text) == 0.0
    assert read_float("5e-324") == 5e-324 and read_float("1e-320") == 1e-320
    assert read_float("1.7976931348623157e308") == np.finfo(np.float64).max
    assert read_float("inf", special=True) == np.inf and np.isnan(read_float("NaN", special=True))


def test_integers_take_whole_numbers_written_as_decimals():
    assert read_int("10.0") == 10 and read_int("1e3") == 1000 and read_int(" -7 ") == -7
    for text, reason in (("1.5", "not a whole number"), ("1e400", "overflows"), ("9" * 5000, "5000 digits")):
        with pytest.raises(ValueError, match=reason):
            read_int(text)


def test_spaces_around_separators_are_dropped_inside_a_number_refused():
    # the grammar drops spaces around ':', ',' and '=' (tests/test_spec.py pins "  pow : 16 ")
    assert rankcore.resolve("learner", "trees: max_depth = 3 , learning_rate = 0.5") == \
        rankcore.resolve("learner", "trees:max_depth=3,learning_rate=0.5")
    with pytest.raises(SpecError, match=r"max_depth must be .*no spaces inside a number"):
        rankcore.resolve("learner", "trees:max_depth=1 0")


def _number_parameters():
    """(family, spec prefix, parameter) for every registered component's float and int parameter, built with the
    others at their defaults."""
    registry = rankcore.get_registry()
    out = []
    for entry in registry.all_entries():
        if entry.family == "estimator" or entry.name in {e for e in registry.aliases.get(entry.family, {})}:
            continue
        params = entry.cls.parameters
        for param in params:
            others_required = any(p.default is rankcore.spec.REQUIRED for p in params if p is not param)
            if param.kind in (float, int) and not others_required:
                out.append((entry.family, entry.name, param.name))
    return out


_NUMBER_PARAMETERS = _number_parameters()


def test_the_registry_has_number_parameters_to_check():
    families = {family for family, _, _ in _NUMBER_PARAMETERS}
    assert {"price", "learner", "objective", "metric", "kernel", "filter"} <= families, families
    assert len(_NUMBER_PARAMETERS) > 40


@pytest.mark.parametrize("family, name, key", _NUMBER_PARAMETERS)
@pytest.mark.parametrize("text, reason", [("1_0", "'_' does not separate digits"), ("\u0661\u0660", "ASCII 0-9"),
                                          ("\uff11", "ASCII 0-9"), ("1e400", "overflows")])
def test_every_number_parameter_refuses_what_float_would_read(family, name, key, text, reason):
    with pytest.raises(SpecError, match=rf"{key} must be .*{reason}"):
        rankcore.resolve(family, f"{name}:{key}={text}")


@pytest.mark.parametrize("family, spec, key", [
    ("metric", "ndcg@k:{}", "k"), ("metric", "map@k:{}", "k"),
    ("metric", "roc:max_fp={}", "max_fp"), ("objective", "prec@k-avg:{}", "k"), ("kernel", "rbf:{}", "gamma"),
    ("learner", "trees:categorical=0;{}", "categorical"), ("metric", "ndcg@k:5,gain=0/1/{}", "gain"),
    ("objective", "lambdarank:gain=0/{}", "gain"),
])
@pytest.mark.parametrize("text, reason", [("1_0", "'_' does not separate digits"), ("\u0661\u0660", "ASCII 0-9")])
def test_the_number_kinds_refuse_what_float_would_read(family, spec, key, text, reason):
    with pytest.raises(SpecError, match=rf"{key} must be .*{reason}"):
        rankcore.resolve(family, spec.format(text))
    assert rankcore.resolve(family, spec.format("10"))      # and read ASCII digits as before


def test_the_at_k_shorthand_leaves_k_to_its_parser():
    with pytest.raises(SpecError, match=r"k must be .*'_' does not separate digits"):
        rankcore.resolve("metric", "prec@1_0")
    with pytest.raises(SpecError, match=r"the name 'prec@\u0661\u0660' is not valid"):     # a name is ASCII
        rankcore.resolve("metric", "prec@\u0661\u0660")
    assert rankcore.resolve("metric", "prec@10") == rankcore.resolve("metric", "prec@k:10")


def test_float_kinds_refuse_overflow_and_underflow_by_name():
    for spec, key in (("pow:{}", "p"), ("rbf:{}", "gamma"), ("ndcg@k:5,gain=0/{}", "gain"),
                      ("trees:learning_rate={}", "learning_rate"), ("prec@k:{}", "k")):
        for text, reason in (("1e400", "overflows"), ("1e-400", "underflows to 0")):
            family = {"pow": "price", "rbf": "kernel", "trees": "learner"}.get(spec.split(":")[0], "metric")
            with pytest.raises(SpecError, match=rf"{key} must be .*{reason}"):
                rankcore.resolve(family, spec.format(text))
    assert GAIN("0/1e-320/3") == "0/1e-320/3"                # a subnormal is a number, not an underflow


@pytest.mark.parametrize("text, reason", [
    ("em:tol=1e400", "tol must be a finite number >= 0, got '1e400' (overflows"),
    ("em:posterior_tol=1e-400", "posterior_tol must be a finite number >= 0, got '1e-400' (underflows to 0"),
    ("em:tol=1_0", "'_' does not separate digits"), ("em:tol=\u0661", "ASCII 0-9"),
    ("em:rounds=1_0", "rounds must be an integer from 1 to 1000"),
])
def test_the_click_model_options_follow_the_same_rule(text, reason):
    with pytest.raises(ValueError, match=reason.replace("(", r"\(")):
        POSITION_BIAS(text)
    assert POSITION_BIAS("em:rounds=1e1,tol=0e-400").rounds == 10     # the spec's integers, as any spec's
