"""Spec strings and configurable components (rankcore.spec)."""

import copy
import pickle

import numpy as np
import pytest

import rankcore

from rankcore.spec import REQUIRED, Component, Parameter, SpecError, count_or_fraction, parse_spec


class Toy(Component):
    """A toy component for the tests."""

    family = "price"
    name = "toy"
    parameters = (
        Parameter("p", float, minimum=1),
        Parameter("mode", str, default="a", choices=("a", "b")),
        Parameter("n", int, default=3, minimum=0),
    )


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("exp", ("exp", [], {})),
        ("pow:16", ("pow", ["16"], {})),
        ("  pow : 16 ", ("pow", ["16"], {})),
        ("prec@k:10", ("prec@k", ["10"], {})),
        ("prec@k-avg:0.05", ("prec@k-avg", ["0.05"], {})),
        ("pauc:0.1,mcclish", ("pauc", ["0.1", "mcclish"], {})),
        ("tpauc:min_tpr=0.5,max_fpr=0.1", ("tpauc", [], {"min_tpr": "0.5", "max_fpr": "0.1"})),
        ("pnorm:8,theta=0.5", ("pnorm", ["8"], {"theta": "0.5"})),
    ],
)
def test_parse_spec_valid(spec, expected):
    assert parse_spec(spec) == expected


@pytest.mark.parametrize(
    "spec, match",
    [
        ("", "empty string"),
        ("   ", "empty string"),
        ("pow:", "nothing after"),
        ("pow:1,,2", "empty argument"),
        ("9pow", "not valid"),
        ("po w:1", "not valid"),
        ("pow:p=1,2", "after a keyword"),
        ("pow:p=1,p=2", "given twice"),
        ("pow:=3", "malformed keyword"),
    ],
)
def test_parse_spec_malformed(spec, match):
    with pytest.raises(SpecError, match=match):
        parse_spec(spec)


def test_a_list_written_with_commas_is_told_its_separator():
    with pytest.raises(SpecError, match=r"positional argument '0' after a keyword argument \(if monotone takes a list, "
                                        r"separate its items with '/': monotone=1/0/\.\.\.\)"):
        parse_spec("trees:monotone=1,0,-1")
    with pytest.raises(SpecError, match=r"after a keyword argument$"):
        parse_spec("pauc:fpr=0.1,mcclish")          # not numbers: no list hint


@pytest.mark.parametrize("spec", ["trees:interactions=0,1", "trees:interactions=0+1,2", "trees:interactions=0/1,2+3"])
def test_interaction_groups_written_with_commas_are_told_both_separators(spec):
    # not "interactions=0/1/...": that is two groups, whose columns never interact -- the opposite model
    with pytest.raises(SpecError, match=r"after a keyword argument \('\+' joins a group's columns, '/' separates the "
                                        r"groups: interactions=0\+1 \(one group\) or 0/1 \(two groups\)\)$"):
        parse_spec(spec)


def test_parse_spec_not_a_string():
    with pytest.raises(TypeError, match="expected a string"):
        parse_spec(16)


def test_component_from_spec_args_converts_and_checks():
    c = Toy.from_spec_args(["4"], {"mode": "b"})
    assert c.p == 4.0 and c.mode == "b" and c.n == 3
    assert c.params == {"p": 4.0, "mode": "b", "n": 3}


@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        (["x"], {}, r"p must be a number >= 1, got 'x'"),
        (["0.5"], {}, r"p must be a number >= 1, got '0.5'"),
        (["inf"], {}, "finite"),
        (["2", "c"], {}, r"mode must be a string one of 'a', 'b', got 'c'"),
        (["2", "a", "1.5"], {}, "n must be an integer"),
        (["2", "a", "-1"], {}, "n must be an integer >= 0"),
        (["2", "a", "1", "9"], {}, "too many arguments"),
        ([], {}, "missing parameter p"),
        (["2"], {"q": "1"}, "unknown parameter"),
        (["2"], {"p": "3"}, "given twice"),
    ],
)
def test_component_bad_arguments(args, kwargs, match):
    with pytest.raises(SpecError, match=match):
        Toy.from_spec_args(args, kwargs)


def test_spec_round_trip_and_equality():
    for spec in ["toy:4", "toy:4,b", "toy:4,a,7", "toy:2.5"]:
        c = Toy.from_spec_args(*parse_spec(spec)[1:])
        again = Toy.from_spec_args(*parse_spec(c.spec)[1:])
        assert again == c and hash(again) == hash(c)
    assert Toy(p=4).spec == "toy:4"
    assert Toy(p=4, n=7).spec == "toy:4,a,7"  # a default is shown when a later value needs it
    assert Toy(p=4) != Toy(p=5)
    assert repr(Toy(p=4)) == "<unregistered price toy:4 (Toy)>"   # no registry entry names Toy: not Python


def test_spec_after_an_empty_default_names_the_later_parameters():
    """An empty value cannot be written positionally ("a,,b"): later non-defaults follow by name."""
    import rankcore

    for spec in ["trees:random_strength=1", "trees:max_leaves=7,cat_smooth=5,random_strength=0.5",
                 "trees:categorical=0;3,random_strength=1"]:
        learner = rankcore.resolve("learner", spec)
        assert ",," not in learner.spec
        assert rankcore.resolve("learner", learner.spec) == learner
    assert rankcore.resolve("learner", "trees:random_strength=2").spec.endswith(",true,random_strength=2")


def test_component_copies_and_pickles_by_parameters():
    c = Toy(p=2, mode="b")
    assert copy.deepcopy(c) == c
    assert pickle.loads(pickle.dumps(c)) == c


def test_bool_parameter_forms():
    class Flag(Component):
        family = "metric"
        name = "flag"
        parameters = (Parameter("on", bool, default=False),)

    assert Flag.from_spec_args(["true"], {}).on is True
    assert Flag.from_spec_args(["0"], {}).on is False
    with pytest.raises(SpecError, match="on must be true or false"):
        Flag.from_spec_args(["maybe"], {})


@pytest.mark.parametrize("value, expected", [("10", 10), (10, 10), ("10.0", 10), ("0.05", 0.05), (0.5, 0.5)])
def test_count_or_fraction_valid(value, expected):
    out = count_or_fraction(value)
    assert out == expected and type(out) is type(expected)


@pytest.mark.parametrize("value", ["0", "-1", "1.5", "nan", True])
def test_count_or_fraction_invalid(value):
    with pytest.raises(ValueError):
        count_or_fraction(value)


class _Texted(rankcore.Price):
    """g = r, with a text and a required second parameter (for the messages below)."""

    name = "test-texted"
    parameters = (Parameter("label", str, default="x"), Parameter("b", float, default=REQUIRED, minimum=0.0))

    def value(self, r):
        return np.asarray(r, dtype=np.float64)

    def derivative(self, r):
        return np.ones_like(np.asarray(r, dtype=np.float64))


@pytest.mark.parametrize("label", ["a,b", "k=v", " padded ", ""])
def test_a_text_value_no_spec_can_hold_is_refused(label):
    # its spec resolved to another component ('a,b' two arguments, '' the default): saving it changed it
    with pytest.raises(SpecError, match="label=.* cannot be written in a spec string"):
        _Texted(label=label, b=1.0)
    assert _Texted(label="a:b c", b=1.0).spec == "test-texted:a:b c,1"


def test_a_missing_required_parameter_after_the_first_is_asked_by_name():
    with pytest.raises(SpecError, match=r"missing parameter b .*; write it as 'test-texted:b=<b>'"):
        _Texted()


def test_a_long_value_with_spaces_is_not_echoed_whole():
    with pytest.raises(SpecError) as info:
        _Texted.from_spec_args([], {"label": "y", "b": " ".join(["a"] * 50001)})
    assert len(str(info.value)) < 500


def _every_example_spec():
    """(family, spec) for every example spec of every registered component but the estimators (whose specs hold
    other specs, checked through their own families)."""
    from rankcore.registry import FAMILIES, registry

    out = []
    for family in FAMILIES:
        if family == "estimator":
            continue
        for name in registry().names(family):
            for spec in registry().get(family, name).example_specs():
                out.append(pytest.param(family, spec, id=f"{family}-{spec}"))
    return out


@pytest.mark.parametrize("family, spec", _every_example_spec())
def test_the_named_spec_resolves_to_an_equal_component(family, spec):
    """``named_spec`` (for messages) writes every parameter off its default by name: it reads back as the same
    component, and names exactly those parameters."""
    from rankcore.registry import registry

    component = registry().resolve(family, spec)
    named = component.named_spec
    assert registry().resolve(family, named) == component, (spec, named)
    written = {item.split("=", 1)[0] for item in named.partition(":")[2].split(",") if "=" in item}
    differ = {p.name for p in component.parameters if component.params[p.name] != p.default}
    assert differ <= written, (spec, named)
