"""Every JSON the command line writes takes a name's bytes that were not UTF-8 (read as lone surrogates) as
``\\xff``, keys and values alike, and NaN as null: a strict JSON reader takes it whole."""

import io
import json
import types

import numpy as np

NAME = "a\udcffb"           # a name whose byte 0xff was not UTF-8, as Python reads it from a file name


def _strict(text):
    """The text parsed by a strict reader: encodable as UTF-8, no surrogate escape, no NaN."""
    text.encode("utf-8")
    assert "\\udc" not in text
    return json.loads(text, parse_constant=lambda word: (_ for _ in ()).throw(ValueError(word)))


def test_a_table_writes_a_column_name_that_is_not_utf8_as_its_bytes():
    """Before: only the values were converted; a column name kept its lone surrogate."""
    from rankcore.cli._common import Table

    assert _strict(Table([NAME, "v"], [[NAME, float("nan")]]).render("json")) == [{"a\\xffb": "a\\xffb", "v": None}]


def test_explain_records_and_summary_write_names_as_their_bytes():
    """Before: explain's own JSON conversion turned NaN into null only; a feature's name kept its surrogate."""
    from rankcore.cli._explanations import Explanations, ranked_rows, write, write_summary

    data = types.SimpleNamespace(X=np.array([[1.0, 2.0], [3.0, 4.0]]), init_score=None, qid=None, qid_name=None,
                                 kept={}, categories={})
    explained = Explanations(data=data, scores=np.array([0.5, 0.25]), id_column=None, names=[NAME, "c"],
                             contributions=lambda rows: np.tile([0.25, float("nan"), 0.5], (len(rows), 1)))
    rows, ranks = ranked_rows(explained.scores, None, None)
    handle = io.StringIO()
    write(explained, rows, ranks, "json", 2, handle)
    records = _strict(handle.getvalue())
    assert records[0]["contribution:a\\xffb"] == 0.25
    assert None in records[0].values()
    handle = io.StringIO()
    write_summary(explained, rows, "json", handle)
    assert {r["feature"] for r in _strict(handle.getvalue())} == {"a\\xffb", "c"}


def test_interaction_records_write_names_as_their_bytes():
    """Before: the interaction streams were written with no conversion at all."""
    from rankcore.cli._interaction_output import write_interaction_summary, write_interactions_per_row

    phi = np.array([[0.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 0.0]])

    def interactions(rows):
        return np.tile(phi, (len(rows), 1, 1))

    rows = np.arange(2)
    handle = io.StringIO()
    write_interaction_summary(interactions, [NAME, "c"], rows, "json", None, handle)
    assert _strict(handle.getvalue())[0]["feature_i"] == "a\\xffb"
    handle = io.StringIO()
    write_interactions_per_row(interactions, [NAME, "c"], rows, ([NAME], lambda row: [row]), "json", handle)
    records = _strict(handle.getvalue())
    assert records[0]["a\\xffb"] == 0 and records[0]["feature_i"] == "a\\xffb"


def test_plugins_json_writes_a_problem_message_as_its_bytes(monkeypatch, capsys):
    """Before: a plugin problem quoting a path that is not UTF-8 was printed with its lone surrogate."""
    from rankcore import registry as registry_module
    from rankcore.cli import plugins

    real = registry_module.registry()
    problem = types.SimpleNamespace(distribution="dist", plugin=NAME, message=f"cannot read /tmp/{NAME}")
    fake = types.SimpleNamespace(all_entries=real.all_entries, problems=[problem])
    monkeypatch.setattr(registry_module, "registry", lambda: fake)
    plugins._list(types.SimpleNamespace(family=None, json=True))
    found = _strict(capsys.readouterr().out)
    assert found["problems"] == [{"distribution": "dist", "plugin": "a\\xffb", "message": "cannot read /tmp/a\\xffb"}]
