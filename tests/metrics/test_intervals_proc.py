"""Intervals and paired tests against pROC (R), the reference nobody here wrote.

The committed table ``tests/proc_reference.json`` (pROC's outputs on seeded
inputs, see ``tests/_proc_reference.py``) is checked on every run; the tests
marked ``live`` run pROC itself through ``Rscript`` and skip cleanly without
it (pROC's own example data, aSAH, and a fresh random case).

Tolerances: DeLong intervals and ``roc.test`` 1e-8; the partial AUC, raw and
McClish-corrected, 1e-10; bootstrap endpoints within Monte-Carlo error (two
independent bootstraps: pROC's endpoint must lie inside our replicates'
order statistics at ranks B·p ± 4·√2·√(B·p(1 − p)), a band about 4
standard errors of the difference of two bootstrap quantiles wide).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from rankcore.metrics import compare, confidence_interval, pauc
from _proc_reference import BOOT_N, TABLE, cases, checksum, rscript_with_proc, run_proc

REFERENCE = json.loads(TABLE.read_text())
CASES = cases()


def _within_mc_error(ours, theirs: float, p: float) -> bool:
    """pROC's bootstrap quantile ``theirs`` lies inside our replicates' band of Monte-Carlo error."""
    values = np.sort(ours.replicates[~np.isnan(ours.replicates)])
    b = values.shape[0]
    spread = 4 * math.sqrt(2) * math.sqrt(b * p * (1 - p))
    low = values[max(0, int(math.floor(b * p - spread)))]
    high = values[min(b - 1, int(math.ceil(b * p + spread)))]
    return low <= theirs <= high


def _check_case(y, s1, s2, ref: dict, *, boot_n: int):
    for level in (0.95, 0.9):
        ci = confidence_interval(y, s1, "auc", level=level)
        assert ci.method == "delong"
        assert ci.estimate == pytest.approx(ref["auc1"], abs=1e-12)
        assert ci.lower == pytest.approx(ref[f"delong_ci{level:g}_lower"], abs=1e-8)
        assert ci.upper == pytest.approx(ref[f"delong_ci{level:g}_upper"], abs=1e-8)
    assert ci.standard_error ** 2 == pytest.approx(ref["delong_var1"], rel=1e-8, abs=1e-15)

    test = compare(y, s1, s2, "auc")
    assert test.estimates == pytest.approx((ref["auc1"], ref["auc2"]), abs=1e-12)
    assert test.difference / test.standard_error == pytest.approx(ref["test_z"], abs=1e-8)
    assert test.p_value == pytest.approx(ref["test_p"], abs=1e-8)
    assert test.lower == pytest.approx(ref["test_lower"], abs=1e-8)
    assert test.upper == pytest.approx(ref["test_upper"], abs=1e-8)

    for a in (0.1, 0.2):
        assert pauc(y, s1, a) == pytest.approx(ref[f"pauc{a:g}"], abs=1e-10)
        assert pauc(y, s1, a, scale="mcclish") == pytest.approx(ref[f"pauc{a:g}_mcclish"], abs=1e-10)

    boots = {
        "boot_auc": confidence_interval(y, s1, "auc", method="bootstrap", n_boot=boot_n, random_state=0,
                                        return_replicates=True),
        "boot_pauc0.2": confidence_interval(y, s1, "pauc:0.2", n_boot=boot_n, random_state=1,
                                            return_replicates=True),
        "boot_pauc0.2_mcclish": confidence_interval(y, s1, "pauc:0.2,mcclish", n_boot=boot_n, random_state=2,
                                                    return_replicates=True),
    }
    for key, ours in boots.items():
        assert ours.n_dropped == 0
        assert _within_mc_error(ours, ref[f"{key}_lower"], 0.025), (key, ours, ref[f"{key}_lower"])
        assert _within_mc_error(ours, ref[f"{key}_upper"], 0.975), (key, ours, ref[f"{key}_upper"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_intervals_agree_with_committed_proc_table(name):
    y, s1, s2 = CASES[name]
    ref = REFERENCE["cases"][name]
    assert checksum(y, s1, s2) == pytest.approx(ref["checksum"], rel=1e-12), "the inputs changed: rerun the script"
    _check_case(y, s1, s2, ref, boot_n=REFERENCE["boot_n"])


def test_proc_table_covers_every_case():
    assert set(REFERENCE["cases"]) == set(CASES)
    assert REFERENCE["boot_n"] == BOOT_N


# --------------------------------------------------------------------------
# pROC itself (skipped without Rscript + pROC)
# --------------------------------------------------------------------------

live = pytest.mark.skipif(rscript_with_proc() is None, reason="Rscript with the pROC package is not installed")


@live
@pytest.mark.slow
def test_intervals_agree_with_proc_on_fresh_random_ties():
    rs = np.random.RandomState(11)
    y = (rs.rand(400) < 0.4).astype(np.int8)
    s1 = rs.randint(0, 30, 400) + 6.0 * y
    s2 = np.round(rs.normal(size=400) + 0.5 * y, 1)
    ref = run_proc({"fresh": (y, s1, s2)}, boot_n=2000)["fresh"]
    _check_case(y, s1, s2, ref, boot_n=2000)


_ASAH = r"""
suppressMessages(library(pROC))
data(aSAH)
y <- as.integer(aSAH$outcome == "Poor")
for (i in seq_along(y)) cat(y[i], sprintf("%.17g", aSAH$s100b[i]), aSAH$wfns[i], sprintf("%.17g", aSAH$ndka[i]), "\n")
"""


@live
@pytest.mark.slow
def test_intervals_agree_with_proc_on_its_own_example_data(tmp_path):
    """pROC's aSAH: outcome (Poor = relevant) ranked by s100b against wfns (ordinal, many ties) and ndka."""
    import subprocess

    script = tmp_path / "asah.R"
    script.write_text(_ASAH)
    done = subprocess.run([rscript_with_proc(), str(script)], capture_output=True, text=True, check=True)
    rows = np.array([[float(v) for v in line.split()] for line in done.stdout.splitlines()])
    y, s100b, wfns, ndka = rows[:, 0].astype(np.int8), rows[:, 1], rows[:, 2], rows[:, 3]
    assert y.shape[0] == 113
    for name, (a, b) in {"s100b-wfns": (s100b, wfns), "wfns-ndka": (wfns, ndka)}.items():
        ref = run_proc({name: (y, a, b)}, boot_n=2000)[name]
        _check_case(y, a, b, ref, boot_n=2000)
