"""A CSV category column of numbers written otherwise at scoring (``2.0`` for ``2``) is read as the fit's categories."""

import re

import numpy as np
import pandas as pd
import pytest

from _cli_run import run_main


@pytest.fixture
def region_files(tmp_path):
    rng = np.random.default_rng(0)
    region, a = rng.choice([1, 2, 3, 4], 400), rng.normal(size=400)
    frame = pd.DataFrame({"a": a.round(3), "region": region, "label": ((region == 2) | (a > 1.2)).astype(int)})
    frame.to_csv(tmp_path / "train.csv", index=False)
    # pandas writes a column of integers with a missing value as floats: 2.0
    floats = frame.assign(region=frame["region"].astype(float).where(frame.index != 5))
    floats.to_csv(tmp_path / "floats.csv", index=False)
    frame.assign(region=frame["region"].astype(float).where(frame.index != 5).astype("Int64")).to_csv(
        tmp_path / "ints.csv", index=False)
    status, _, err = run_main("fit", tmp_path / "train.csv", "--learner", "trees", "--categorical", "region",
                              "--n-iter", "10", "--out", tmp_path / "m.json", "--progress", "none")
    assert status == 0, err
    return tmp_path


def test_score_reads_floats_written_for_the_fits_integer_categories(region_files):
    # "2.0" matched none of the fit's "2": every row scored as an unseen category, silently (auc 1.0 -> 0.68)
    scores = {}
    for name in ("ints", "floats"):
        out = region_files / f"{name}-scores.csv"
        status, _, err = run_main("score", region_files / "m.json", region_files / f"{name}.csv", "--out", out)
        assert status == 0, err
        scores[name] = pd.read_csv(out)["score"].to_numpy()
    np.testing.assert_array_equal(scores["floats"], scores["ints"])


def test_evaluate_and_validation_read_them_too(region_files):
    values = {}
    for name in ("ints", "floats"):
        status, out, err = run_main("evaluate", region_files / "m.json", region_files / f"{name}.csv",
                                    "--metrics", "auc")
        assert status == 0, err
        status, _, fit_err = run_main("fit", region_files / "train.csv", "--learner", "trees", "--categorical",
                                      "region", "--n-iter", "10", "--validation", region_files / f"{name}.csv",
                                      "--out", region_files / f"v-{name}.json", "--progress", "none")
        assert status == 0, fit_err
        values[name] = (out, re.search(r"validation auc [0-9.]+", fit_err).group(0))
    assert values["floats"] == values["ints"]
    assert "auc     1.0000" in values["ints"][0]


def test_text_that_is_a_fitted_category_or_not_a_number_is_kept(tmp_path):
    from rankcore.cli._columns import numbers_as_fitted

    class Data:
        feature_names = ["c"]
        X = np.array([[0.0], [1.0], [2.0], [3.0], [np.nan]])
        categories = {"c": np.array(["1.0", "2.0", "blue", "nan"], dtype=object)}

    numbers_as_fitted(Data, "c", np.array(["1", "1.0", "2", "blue"], dtype=object))
    assert Data.categories["c"].tolist() == ["1.0", "2", "blue", "nan"]
    np.testing.assert_array_equal(Data.X[:, 0], [0.0, 1.0, 2.0, 3.0, np.nan])


def test_text_with_a_leading_zero_is_not_a_number_of_the_fit():
    # a postcode "01" is not the category "1": identifiers keep their spelling
    from rankcore.cli._columns import numbers_as_fitted

    class Data:
        feature_names = ["c"]
        X = np.array([[0.0], [1.0], [2.0]])
        categories = {"c": np.array(["01", "02.0", "3.0"], dtype=object)}

    numbers_as_fitted(Data, "c", np.array(["1", "2", "3"], dtype=object))
    assert Data.categories["c"].tolist() == ["01", "02.0", "3"]


def test_only_a_decimal_written_otherwise_is_the_same_number_exactly():
    # float() read "9007199254740993" (an id beyond 2**53) as the fit's "9007199254740992", "1_000" as "1000" and
    # Arabic-Indic "١" as "1": unseen categories scored as another one's, silently
    from rankcore.cli._columns import numbers_as_fitted

    class Data:
        feature_names = ["c"]
        X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]])
        categories = {"c": np.array(["9007199254740993", "1_000", "\u0661", "1e3", "-0"], dtype=object)}

    numbers_as_fitted(Data, "c", np.array(["9007199254740992", "1000", "1", "0"], dtype=object))
    assert sorted(Data.categories["c"].tolist()) == sorted(["9007199254740993", "1_000", "\u0661", "1000", "0"])
    # "1e3" and "1000" now one category, "-0" and "0" one: each row still names its own category's text
    named = [Data.categories["c"][int(code)] for code in Data.X[:, 0]]
    assert named == ["9007199254740993", "1_000", "\u0661", "1000", "0"]


def test_an_exponent_beyond_decimals_range_is_text_not_a_crash():
    # Decimal("1e99999999999999999999") raised decimal.InvalidOperation out of the command (float() had read it
    # as inf, no number); it is an identifier's spelling, left as it is, on either side
    from rankcore.cli._columns import numbers_as_fitted

    class Data:
        feature_names = ["c"]
        X = np.array([[0.0], [1.0], [2.0], [3.0]])
        categories = {"c": np.array(["1e99999999999999999999", " 2 ", "+3", ".5"], dtype=object)}

    numbers_as_fitted(Data, "c", np.array(["2", "3.", "0.5", "1E99999999999999999999"], dtype=object))
    assert Data.categories["c"].tolist() == ["0.5", "1e99999999999999999999", "2", "3."]
    named = [Data.categories["c"][int(code)] for code in Data.X[:, 0]]
    assert named == ["1e99999999999999999999", "2", "3.", "0.5"]
