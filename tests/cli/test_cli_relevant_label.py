"""The relevant label the training file chose is the one of every other file of the command."""

import contextlib
import io

import pytest

from rankcore.cli import main
from rankcore.cli.datasets import DataError, load_data


def run_main(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path):
    (tmp_path / "bm.csv").write_text("a,b,label\n1,5,M\n2,6,M\n3,1,B\n4,2,B\n5,3,M\n6,4,B\n7,9,M\n8,0,B\n")
    (tmp_path / "only_m.csv").write_text("a,b,label\n1,5,M\n2,6,M\n7,9,M\n")
    (tmp_path / "only_b.csv").write_text("a,b,label\n3,1,B\n4,2,B\n")
    return tmp_path


def test_a_validation_file_of_the_relevant_label_alone_is_all_relevant(files):
    # a lone 'M' is the training file's relevant label, whatever its spelling
    status, _, err = run_main("fit", files / "bm.csv", "--validation", files / "only_m.csv", "--monitor", "prec@k:2",
                              "--n-iter", "5", "--out", files / "m.json")
    assert status == 0, err
    assert "validation prec@k:2 1.0000" in err
    status, _, err = run_main("fit", files / "bm.csv", "--validation", files / "only_b.csv", "--monitor", "prec@k:2",
                              "--n-iter", "5", "--out", files / "b.json")
    assert status == 0, err
    assert "validation prec@k:2 0.0000" in err


def test_compare_reads_its_test_file_with_the_training_files_label(files):
    status, out, err = run_main("compare", files / "bm.csv", "--test", files / "only_b.csv", "--metrics", "prec@k:2",
                                "--monitor", "prec@k:2", "--n-iter", "5", "--no-plots", "--table-format", "csv")
    assert status == 0, err
    assert out.splitlines()[2].startswith("push,test,0.0")


def test_a_file_of_one_text_label_asks_which_is_relevant(files):
    assert run_main("fit", files / "bm.csv", "--n-iter", "5", "--out", files / "m.json", "-q")[0] == 0
    status, _, err = run_main("evaluate", files / "m.json", files / "only_m.csv", "--metrics", "prec@k:2")
    assert status == 0 and "only_m.csv: ranking 'M' first, the label" in err     # the one the model records
    (files / "m_unrecorded.json").write_text(json_without_relevant_label(files / "m.json"))
    status, _, err = run_main("evaluate", files / "m_unrecorded.json", files / "only_m.csv", "--metrics", "prec@k:2")
    assert status == 2
    assert "every row has the label 'M', which may be the relevant label or the other one; say which is relevant " \
           "with --positive LABEL" in err
    status, out, err = run_main("evaluate", files / "m.json", files / "only_m.csv", "--metrics", "prec@k:2",
                                "--positive", "M")
    assert status == 0 and "1.0000" in out, err


def json_without_relevant_label(path):
    """A model file as an earlier rankcore, or Python's save_model, wrote it: no relevant label recorded."""
    from rankcore.persistence import load_model, model_text

    model = load_model(path)
    model.relevant_label_ = None
    return model_text(model)


@pytest.mark.parametrize("label, relevant", [("1", 1), ("0", 0), ("-1", 0), ("1.0", 1)])
def test_a_lone_label_that_says_which_it_is_needs_no_positive(tmp_path, label, relevant):
    (tmp_path / "d.csv").write_text(f"a,label\n1,{label}\n2,{label}\n")
    assert load_data(tmp_path / "d.csv").binary_target(require_both=False).tolist() == [relevant] * 2


def test_the_relevant_label_is_the_one_binary_target_makes_relevant(files):
    data = load_data(files / "bm.csv")
    assert data.relevant_label() == "M" and data.relevant_label("B") == "B"
    with pytest.raises(DataError, match="the relevant label 'X' does not occur"):
        load_data(files / "only_b.csv").binary_target("X", require_both=False)
    assert load_data(files / "only_b.csv").binary_target("M", require_both=False, may_be_absent=True).tolist() == [0, 0]


def test_compare_save_models_records_the_relevant_label(files):
    status, _, err = run_main("compare", files / "bm.csv", "--positive", "B", "--n-iter", "3", "--no-plots",
                              "--metrics", "auc", "--test-size", "0.5",
                              "--save-models", files / "saved", "-q")
    assert status == 0, err
    from rankcore.persistence import load_model

    assert load_model(files / "saved" / "push.json").relevant_label_ == "B"
    status, _, err = run_main("fit", files / "bm.csv", "--n-iter", "3", "--init-model", files / "saved" / "push.json",
                              "--out", files / "c.json", "-q")
    assert status == 2 and "give --positive B" in err


def _fit_b(files):
    status, _, err = run_main("fit", files / "bm.csv", "--positive", "B", "--n-iter", "5", "--out", files / "b.json",
                              "-q")
    assert status == 0, err


def test_evaluate_ranks_first_the_label_the_model_records(files):
    _fit_b(files)
    status, out, err = run_main("evaluate", files / "b.json", files / "bm.csv", "--metrics", "auc")
    _, out_b, _ = run_main("evaluate", files / "b.json", files / "bm.csv", "--metrics", "auc", "--positive", "B")
    assert status == 0, err
    assert out == out_b and "ranking 'B' first, the label" in err and "was fitted to rank first" in err


def test_evaluate_warns_of_a_positive_against_the_recorded_label(files):
    _fit_b(files)
    status, _, err = run_main("evaluate", files / "b.json", files / "bm.csv", "--metrics", "auc", "--positive", "M")
    assert status == 0
    assert "rankcore: warning: " in err
    assert "b.json ranks the label 'B' first; --positive M evaluates the opposite ranking" in err


def test_a_positive_the_file_lacks_is_the_error_alone_and_more_labels_are_not_opposite(files, tmp_path):
    _fit_b(files)
    status, _, err = run_main("evaluate", files / "b.json", files / "bm.csv", "--metrics", "auc", "--positive", "X")
    assert status == 2 and "warning" not in err and "the relevant label 'X' does not occur" in err
    rows = (files / "bm.csv").read_text().splitlines()
    (tmp_path / "three.csv").write_text("\n".join(rows + [rows[-1].rsplit(",", 1)[0] + ",Q"]) + "\n")
    status, _, err = run_main("evaluate", files / "b.json", tmp_path / "three.csv", "--metrics", "auc",
                              "--positive", "M")
    assert status == 0, err
    assert "ranks the label 'B' first; --positive M evaluates with M first instead" in err


def test_evaluate_warns_when_the_file_lacks_the_recorded_label(files):
    (files / "yn.csv").write_text("a,b,label\n1,5,y\n2,6,n\n3,1,y\n4,2,n\n")
    _fit_b(files)
    status, _, err = run_main("evaluate", files / "b.json", files / "yn.csv", "--metrics", "auc")
    assert status == 0
    assert "ranks the label 'B' first, which" in err and "yn.csv does not hold (labels 'n', 'y')" in err


def test_a_positive_among_labels_the_model_never_saw_is_no_opposite(files):
    # a model of B/M scored on y/n: --positive y is the user's mapping, and no label of the file is B's opposite
    (files / "yn.csv").write_text("a,b,label\n1,5,y\n2,6,n\n3,1,y\n4,2,n\n")
    _fit_b(files)
    status, _, err = run_main("evaluate", files / "b.json", files / "yn.csv", "--metrics", "auc", "--positive", "y")
    assert status == 0, err
    assert "warning" not in err and "opposite" not in err


def test_evaluate_of_zero_one_labels_fitted_to_rank_zero_first(tmp_path):
    (tmp_path / "z.csv").write_text("a,label\n1,0\n2,0\n3,1\n4,1\n5,0\n6,1\n")
    assert run_main("fit", tmp_path / "z.csv", "--positive", "0", "--n-iter", "3", "--out", tmp_path / "z.json",
                    "-q")[0] == 0
    status, out, err = run_main("evaluate", tmp_path / "z.json", tmp_path / "z.csv", "--metrics", "auc")
    assert status == 0 and "ranking 0 first" in err
    assert out == run_main("evaluate", tmp_path / "z.json", tmp_path / "z.csv", "--metrics", "auc",
                           "--positive", "0")[1]


def test_evaluate_of_three_labels_fitted_to_rank_the_greatest_first(tmp_path):
    # the recorded label is the file's greatest of three: it is the relevant one, not a refusal of a third value
    (tmp_path / "m.csv").write_text("a,label\n1,1\n2,2\n3,3\n4,1\n5,2\n6,3\n7,3\n8,1\n")
    assert run_main("fit", tmp_path / "m.csv", "--positive", "3", "--n-iter", "3", "--out", tmp_path / "m.json",
                    "-q")[0] == 0
    status, out, err = run_main("evaluate", tmp_path / "m.json", tmp_path / "m.csv", "--metrics", "auc")
    assert status == 0, err
    assert out == run_main("evaluate", tmp_path / "m.json", tmp_path / "m.csv", "--metrics", "auc",
                           "--positive", "3")[1]


@pytest.mark.parametrize("kind", ["push", "exactboost", "kernel", "perceptron@k", "sgd@k"])
def test_every_model_kind_s_file_records_the_relevant_label_for_evaluate(files, kind):
    from _cli_run import run_main as run_cli

    from rankcore.persistence import load_model

    status, _, err = run_cli("fit", files / "bm.csv", "--model", kind, "--positive", "B", "--out",
                             files / f"{kind}.json", "-q")
    assert status == 0, err
    assert load_model(files / f"{kind}.json").relevant_label_ == "B"
    status, out, err = run_cli("evaluate", files / f"{kind}.json", files / "bm.csv", "--metrics", "auc")
    assert status == 0 and "ranking 'B' first, the label" in err, err
    assert out == run_cli("evaluate", files / f"{kind}.json", files / "bm.csv", "--metrics", "auc",
                          "--positive", "B")[1]


def test_compare_save_models_records_the_relevant_label_of_every_kind(files):
    from _cli_run import run_main as run_cli

    from rankcore.persistence import load_model

    status, _, err = run_cli("compare", files / "bm.csv", "--model", "push", "--model", "exactboost", "--model",
                             "kernel", "--model", "sgd@k", "--positive", "B", "--n-iter", "3", "--no-plots",
                             "--metrics", "auc", "--test-size", "0.5", "--save-models", files / "kinds", "-q")
    assert status == 0, err
    saved = sorted((files / "kinds").glob("*.json"))
    assert len(saved) == 4
    for path in saved:
        assert load_model(path).relevant_label_ == "B", path.name


def test_auto_s_file_records_the_relevant_label(files):
    from _cli_run import run_main as run_cli

    from rankcore.persistence import load_model

    status, _, err = run_cli("auto", files / "bm.csv", "--positive", "B", "--candidates", "trees:n_iter=3",
                             "--out", files / "auto.json", "-q")
    assert status == 0, err
    assert load_model(files / "auto.json").relevant_label_ == "B"
    status, out, err = run_cli("evaluate", files / "auto.json", files / "bm.csv", "--metrics", "auc")
    assert status == 0 and "ranking 'B' first" in err
    assert out == run_cli("evaluate", files / "auto.json", files / "bm.csv", "--metrics", "auc", "--positive",
                          "B")[1]


def test_a_file_without_the_record_loads_and_a_malformed_one_is_refused(files):
    import json

    from rankcore.persistence import ModelFormatError, _checksum, load_model, model_from_dict, model_text

    from _cli_run import run_main as run_cli

    assert run_cli("fit", files / "bm.csv", "--model", "exactboost", "--positive", "B", "--out",
                   files / "e.json", "-q")[0] == 0
    model = load_model(files / "e.json")
    model.relevant_label_ = None                  # as written before every kind recorded it
    (files / "old.json").write_text(model_text(model))
    assert "relevant_label" not in json.loads((files / "old.json").read_text())["state"]
    assert getattr(load_model(files / "old.json"), "relevant_label_", None) is None
    document = json.loads(model_text(load_model(files / "e.json")))
    document["state"]["relevant_label"] = ["B"]
    document["sha256"] = _checksum({k: v for k, v in document.items() if k != "sha256"})
    with pytest.raises(ModelFormatError, match="relevant_label must be one label"):
        model_from_dict(document)


def test_a_refit_in_python_forgets_the_recorded_label(files):
    from rankcore.persistence import load_model

    from _cli_run import run_main as run_cli

    assert run_cli("fit", files / "bm.csv", "--model", "exactboost", "--positive", "B", "--out",
                   files / "c.json", "-q")[0] == 0
    model = load_model(files / "c.json")
    model.fit([[1.0, 2.0], [2.0, 1.0], [0.0, 3.0], [1.0, 1.0]], [0, 1, 1, 0])
    assert getattr(model, "relevant_label_", None) is None


@pytest.mark.parametrize("kind", ["push", "trees", "exactboost"])
def test_evaluate_refuses_a_file_whose_classes_are_coded_otherwise(tmp_path, kind):
    # a model fitted on 0/1 evaluated on a file of 1/2 ranked its recorded label, 1, first: the inverse ranking,
    # with only a note (the model file held the relevant label alone)
    rows = [(i % 7 - 3, (i * 5) % 11, int(i % 7 > 3)) for i in range(40)]
    (tmp_path / "plain.csv").write_text("a,b,label\n" + "".join(f"{a},{b},{y}\n" for a, b, y in rows))
    (tmp_path / "coded.csv").write_text("a,b,label\n" + "".join(f"{a},{b},{y + 1}\n" for a, b, y in rows))
    more = [] if kind == "push" else (["--learner", "trees"] if kind == "trees" else ["--model", "exactboost"])
    status, _, err = run_main("fit", tmp_path / "plain.csv", *more, "--n-iter", "3", "--out", tmp_path / "m.json",
                              "-q")
    assert status == 0, err
    import rankcore

    model = rankcore.load_model(tmp_path / "m.json")
    assert (float(model.relevant_label_), float(model.other_label_)) == (1.0, 0.0)
    status, _, err = run_main("evaluate", tmp_path / "m.json", tmp_path / "coded.csv")
    assert status == 2 and "coded.csv: the label 2 never occurs in the data" in err and "--positive LABEL" in err
    status, out, err = run_main("evaluate", tmp_path / "m.json", tmp_path / "coded.csv", "--positive", "2")
    assert status == 0, err
    status, plain, err = run_main("evaluate", tmp_path / "m.json", tmp_path / "plain.csv")
    assert status == 0 and plain == out, err                    # the same ranking judged with --positive 2


def test_a_model_file_with_a_damaged_other_label_is_refused(tmp_path):
    import rankcore
    from _model_files import tampered
    from rankcore.persistence import ModelFormatError, model_from_dict

    (tmp_path / "bm.csv").write_text("a,b,label\n1,5,M\n2,6,M\n3,1,B\n4,2,B\n5,3,M\n6,4,B\n7,9,M\n8,0,B\n")
    assert run_main("fit", tmp_path / "bm.csv", "--n-iter", "3", "--out", tmp_path / "m.json", "-q")[0] == 0
    model = rankcore.load_model(tmp_path / "m.json")
    assert (model.relevant_label_, model.other_label_) == ("M", "B")
    assert model_from_dict(tampered(model, lambda state: None)).other_label_ == "B"
    with pytest.raises(ModelFormatError, match="other_label must be one label"):
        model_from_dict(tampered(model, lambda state: state.update(other_label=[1])))


def test_a_continuation_on_a_file_of_three_labels_keeps_no_other_label_of_its_init_model(tmp_path):
    # the init model's other label (0, of a 0/1 file) was carried over: `evaluate` then refused the continuation's
    # own training file, whose third label the fit had
    import rankcore

    rows = [(i % 7 - 3, (i * 5) % 11, int(i % 7 > 3)) for i in range(40)]
    (tmp_path / "two.csv").write_text("a,b,label\n" + "".join(f"{a},{b},{y}\n" for a, b, y in rows))
    (tmp_path / "three.csv").write_text("a,b,label\n" + "".join(f"{a},{b},{2 if i % 5 == 0 and not y else y}\n"
                                                                for i, (a, b, y) in enumerate(rows)))
    assert run_main("fit", tmp_path / "two.csv", "--n-iter", "3", "--out", tmp_path / "m.json", "-q")[0] == 0
    status, _, err = run_main("fit", tmp_path / "three.csv", "--positive", "1", "--init-model", tmp_path / "m.json",
                              "--n-iter", "2", "--out", tmp_path / "c.json", "-q")
    assert status == 0, err
    model = rankcore.load_model(tmp_path / "c.json")
    assert float(model.relevant_label_) == 1.0 and getattr(model, "other_label_", None) is None
    status, out, err = run_main("evaluate", tmp_path / "c.json", tmp_path / "three.csv", "--metrics", "auc")
    assert status == 0 and "never occurs" not in err, err
    assert out == run_main("evaluate", tmp_path / "c.json", tmp_path / "three.csv", "--metrics", "auc",
                           "--positive", "1")[1]
    # on a file of two labels the continuation records the other one, as a fresh fit does
    status, _, err = run_main("fit", tmp_path / "two.csv", "--init-model", tmp_path / "m.json", "--n-iter", "2",
                              "--out", tmp_path / "d.json", "-q")
    assert status == 0, err
    assert float(rankcore.load_model(tmp_path / "d.json").other_label_) == 0.0


@pytest.mark.parametrize("argv", [("fit", "--model", "kernel"), ("fit", "--model", "exactboost", "--n-iter", "3"),
                                  ("auto", "--candidates", "linear", "--time", "30")])
def test_score_in_python_refuses_the_file_labels_of_every_kind_fitted_with_positive_zero(tmp_path, argv):
    # before: KernelRanker, ExactBoost and AutoRanker read the file's 0/1 as their codes, the ranking upside down
    import numpy as np

    import rankcore

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 2))
    y = (X[:, 0] + 0.5 * rng.normal(size=120) > 0).astype(int)
    (tmp_path / "d.csv").write_text("a,b,label\n" + "".join(f"{a:.4f},{b:.4f},{t}\n" for (a, b), t in zip(X, y)))
    command, *options = argv
    status, _, err = run_main(command, tmp_path / "d.csv", *options, "--positive", "0", "-o", tmp_path / "m.json",
                              "-q" if command == "fit" else "--progress=none")
    assert status == 0, err
    model = rankcore.load_model(tmp_path / "m.json")
    with pytest.raises(ValueError, match=rf"^y: {type(model).__name__} was fitted by the command line on a data "
                                         r"file's labels coded 1 for 0\.0 \(relevant_label_"):
        model.score(X, y)
    # the codes, once the model is told they are: the file's 0 ranked first
    del model.relevant_label_, model.other_label_
    assert model.score(X, 1 - y) > 0


def test_evaluate_names_the_relevant_label_unless_it_is_plain(files):
    """docs/cli.md: a line names the label ranked first when the labels are not 0/1 (the greater one too), or when
    the model ranks first a label other than the greater; never with --positive, nor for 0/1 fitted with 1 first."""
    assert run_main("fit", files / "bm.csv", "--n-iter", "3", "--out", files / "m.json", "-q")[0] == 0
    status, _, err = run_main("evaluate", files / "m.json", files / "bm.csv", "--metrics", "auc")
    assert status == 0 and "bm.csv: ranking 'M' first (the greater of the labels 'B' and 'M')" in err
    assert run_main("evaluate", files / "m.json", files / "bm.csv", "--metrics", "auc", "--positive", "M")[2] == ""
    (files / "01.csv").write_text((files / "bm.csv").read_text().replace(",M", ",1").replace(",B", ",0"))
    assert run_main("fit", files / "01.csv", "--n-iter", "3", "--out", files / "one.json", "-q")[0] == 0
    assert run_main("evaluate", files / "one.json", files / "01.csv", "--metrics", "auc")[2] == ""
    assert run_main("fit", files / "01.csv", "--n-iter", "3", "--positive", "0", "--out", files / "zero.json",
                    "-q")[0] == 0
    status, _, err = run_main("evaluate", files / "zero.json", files / "01.csv", "--metrics", "auc")
    assert status == 0 and "01.csv: ranking 0 first, the label" in err
