"""Bad input to every metric entry point gets a clear ValueError/TypeError.

Each case checks the exception type and that the message names the argument
and the rule, for the public functions, for ``rankcore.evaluate`` and for
the registered metric objects.
"""

from __future__ import annotations

import fractions

import numpy as np
import pytest
import scipy.sparse as sp

import rankcore
from rankcore import metrics as rm
from rankcore.registry import UnknownComponentError
from rankcore.spec import SpecError

Y = np.array([0, 1, 0, 1, 1, 0])
S = np.array([0.1, 0.4, 0.35, 0.8, 0.2, 0.5])

# every public function, called with its required parameters
FUNCTIONS = {
    "auc": lambda y, s: rm.auc(y, s),
    "pauc": lambda y, s: rm.pauc(y, s, 0.2),
    "tpauc": lambda y, s: rm.tpauc(y, s, 0.5, 0.5),
    "ks": lambda y, s: rm.ks(y, s),
    "prec_at_k": lambda y, s: rm.prec_at_k(y, s, 1),
    "rmax": lambda y, s: rm.rmax(y, s),
    "max_height": lambda y, s: rm.max_height(y, s),
    "height": lambda y, s: rm.height(y, s),
    "pnorm_risk": lambda y, s: rm.pnorm_risk(y, s, 2),
    "misrank": lambda y, s: rm.misrank(y, s),
    "roc_curve": lambda y, s: rm.roc_curve(y, s),
    "evaluate": lambda y, s: rankcore.evaluate(y, s, ["auc", "prec@k:1", "misrank"]),
}
BIPARTITE = [name for name in FUNCTIONS if name != "misrank"]

BAD_INPUT = [
    # (id, y, scores, exception, words the message must contain)
    ("scores-2d", Y, S.reshape(-1, 1), ValueError, ["scores", "1-D"]),
    ("scores-3d", Y, np.zeros((6, 1, 1)), ValueError, ["scores", "1-D"]),
    ("y-2d", Y.reshape(1, -1), S, ValueError, ["y", "1-D"]),
    ("length-mismatch", Y, S[:-1], ValueError, ["y has 6", "scores has 5"]),
    ("scores-nan", Y, np.r_[S[:-1], np.nan], ValueError, ["scores", "NaN"]),
    ("scores-inf", Y, np.r_[np.inf, S[1:]], ValueError, ["scores", "infinite"]),
    ("scores-neg-inf", Y, np.r_[-np.inf, S[1:]], ValueError, ["scores", "infinite"]),
    ("y-nan", np.r_[Y[:-1], np.nan], S, ValueError, ["y", "NaN"]),
    ("empty", [], [], ValueError, ["empty"]),
    ("scores-strings", Y, ["a", "b", "c", "d", "e", "f"], TypeError, ["scores", "numbers"]),
    ("scores-string", Y, "abcdef", TypeError, ["scores", "string"]),
    ("scores-object", Y, np.array(["a", 1, 2, 3, 4, 5], dtype=object), TypeError, ["scores", "non-numeric"]),
    ("scores-complex", Y, S + 1j, TypeError, ["scores", "complex"]),
    ("scores-sparse", Y, sp.csr_matrix(S), TypeError, ["scores", "sparse"]),
    ("y-strings", np.array(["a", "b", "a", "b", "a", "b"]), S, TypeError, ["y", "numbers"]),
]


@pytest.mark.parametrize("func", FUNCTIONS, ids=str)
@pytest.mark.parametrize("case, y, s, exc, words", BAD_INPUT, ids=[c[0] for c in BAD_INPUT])
def test_metric_rejects_bad_input(func, case, y, s, exc, words):
    with pytest.raises(exc) as info:
        FUNCTIONS[func](y, s)
    for word in words:
        assert word in str(info.value), f"{func}/{case}: {word!r} not in {str(info.value)!r}"


@pytest.mark.parametrize("func", BIPARTITE, ids=str)
@pytest.mark.parametrize("labels", [[0, 2, 0, 1, 1, 0], [-1, 1, -1, 1, 1, -1], [0, 0.5, 0, 1, 1, 0]],
                         ids=["2", "minus-1", "half"])
def test_bipartite_metric_rejects_labels_outside_0_1(func, labels):
    with pytest.raises(ValueError, match=r"y: expected binary labels in \{0, 1\}"):
        FUNCTIONS[func](labels, S)


def test_evaluate_names_the_metric_that_needs_binary_labels():
    with pytest.raises(ValueError, match=r"needed by the bipartite metric\(s\) 'auc'"):
        rankcore.evaluate([0, 2, 1], [0.1, 0.2, 0.3], ["misrank", "auc"])
    # graded labels are fine for misrank alone
    assert rankcore.evaluate([0, 2, 1], [0.1, 0.3, 0.2], ["misrank"])["misrank"] == 0.0


ONE_CLASS = ["auc", "pauc", "tpauc", "ks", "rmax", "max_height", "height", "pnorm_risk", "roc_curve"]
SPEC_OF = {"auc": "auc", "pauc": "pauc:0.2", "tpauc": "tpauc:0.5,0.5", "ks": "ks", "rmax": "rmax",
           "max_height": "max_height", "height": "height", "pnorm_risk": "pnorm:2", "roc_curve": "roc"}


@pytest.mark.parametrize("label", [0, 1])
@pytest.mark.parametrize("func", ONE_CLASS, ids=str)
def test_one_class_raises_naming_the_metric(func, label):
    y = np.full(6, label)
    with pytest.raises(ValueError, match=f"metric '{SPEC_OF[func]}' needs both classes") as info:
        FUNCTIONS[func](y, S)
    assert ("only negatives" if label == 0 else "only positives") in str(info.value)
    with pytest.raises(ValueError, match=f"metric '{SPEC_OF[func]}' needs both classes"):
        rankcore.evaluate(y, S, ["prec@k:2", SPEC_OF[func]])


def test_misrank_without_pairs_raises():
    with pytest.raises(ValueError, match="needs at least two different label values"):
        rm.misrank([2.0, 2.0, 2.0], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="needs at least two different label values"):
        rm.misrank([1.0], [0.5])


@pytest.mark.parametrize("k, exc, match", [
    (7, ValueError, r"k: expected a count in \[1, 6\]"),
    (100, ValueError, r"k: expected a count in \[1, 6\]"),
    (0, SpecError, "k must be"),
    (-1, SpecError, "k must be"),
    (1.5, SpecError, "whole count"),
    (np.nan, SpecError, "k must be"),
    (np.inf, SpecError, "k must be"),
    (None, SpecError, "k must be"),
    ("ten", SpecError, "k must be"),
    (True, SpecError, "boolean"),
])
def test_prec_at_k_rejects_k_out_of_range(k, exc, match):
    with pytest.raises(exc, match=match):
        rm.prec_at_k(Y, S, k)


def test_prec_at_k_k_out_of_range_through_evaluate():
    with pytest.raises(ValueError, match=r"metric 'prec@k:7': k: expected a count in \[1, 6\]"):
        rankcore.evaluate(Y, S, ["auc", "prec@k:7"])


@pytest.mark.parametrize("call, match", [
    (lambda: rm.pauc(Y, S, 0), "max_fpr must be"),
    (lambda: rm.pauc(Y, S, 1.5), "max_fpr must be"),
    (lambda: rm.pauc(Y, S, 0.5, scale="standardized"), "scale must be"),
    (lambda: rm.tpauc(Y, S, 1.0, 0.5), "min_tpr must be"),
    (lambda: rm.tpauc(Y, S, -0.1, 0.5), "min_tpr must be"),
    (lambda: rm.tpauc(Y, S, 0.5, 0.0), "max_fpr must be"),
    (lambda: rm.tpauc(Y, S, 0.5, 0.5, scale="mcclish"), "scale must be"),
    # the area a normalized value divides by underflows (0 / 0 would be NaN)
    (lambda: rm.tpauc(Y, S, 0.5, 5e-324, scale="normalized"), r"\* max_fpr = 0 is too small an area to normalize"),
    (lambda: rm.tpauc(Y, S, 0.999999999999, 1e-300, scale="normalized"), "too small an area to normalize by"),
    (lambda: rm.pnorm_risk(Y, S, 0.5), "p must be"),
    (lambda: rm.pnorm_risk(Y, S, np.inf), "p must be"),
    (lambda: rm.pnorm_risk(Y, S, 2, theta=np.nan), "theta must be"),
    (lambda: rm.roc_curve(Y, S, max_fp=-1), "max_fp must be"),
    (lambda: rm.roc_curve(Y, S, max_fp=1.5), "max_fp must be"),
], ids=lambda x: x if isinstance(x, str) else "")
def test_parameter_out_of_range(call, match):
    with pytest.raises(SpecError, match=match):
        call()


REGISTERED = "auc, height, ks, max_height, misrank, pauc, pnorm, prec@k, rmax, roc, tpauc"


@pytest.mark.parametrize("spec, exc, match", [
    ("foo", UnknownComponentError, "unknown metric 'foo'; registered metrics: "),
    ("precision@k:10", UnknownComponentError, "registered metrics: "),
    ("", SpecError, "registered metrics: "),
    ("auc:", SpecError, "nothing after ':'.*registered metrics: "),
    ("prec@k:10,,", SpecError, "empty argument.*registered metrics: "),
    ("9lives", SpecError, "not valid.*registered metrics: "),
    ("prec@k:k=1,2", SpecError, "positional argument.*registered metrics: "),
    ("auc:3", SpecError, "too many arguments"),
    ("pnorm", SpecError, "missing parameter p"),
    ("pauc:max_fpr=0.1,alpha=2", SpecError, "unknown parameter"),
    ("prec@k:x", SpecError, "k must be"),
])
def test_malformed_metric_specs(spec, exc, match):
    with pytest.raises(exc, match=match) as info:
        rankcore.evaluate(Y, S, [spec])
    if "registered metrics" in match:
        for name in REGISTERED.split(", "):
            assert name in str(info.value)


@pytest.mark.parametrize("metrics, exc, match", [
    ([], ValueError, "at least one metric"),
    (3, TypeError, "metrics: expected a spec string"),
    ([3], TypeError, "expected a spec string"),
    ([rankcore.resolve("metric", "auc"), None], TypeError, "expected a spec string"),
])
def test_evaluate_rejects_bad_metric_lists(metrics, exc, match):
    with pytest.raises(exc, match=match):
        rankcore.evaluate(Y, S, metrics)


def test_sorted_kernel_evaluate_validates():
    kernel = rankcore.resolve("metric", "auc").sorted_kernel()
    with pytest.raises(ValueError, match="ascending"):
        kernel.evaluate([0.3, 0.1], [0.2])
    with pytest.raises(ValueError, match="finite"):
        kernel.evaluate([0.1, np.nan], [0.2])
    with pytest.raises(ValueError, match="1-D"):
        kernel.evaluate([[0.1]], [0.2])
    with pytest.raises(ValueError, match="needs both classes"):
        kernel.evaluate([], [0.2])
    with pytest.raises(ValueError, match="at least one score"):
        kernel.evaluate([], [])
    # prec@k is defined with one class
    assert rankcore.resolve("metric", "prec@k:1").sorted_kernel().evaluate([], [0.2]) == 0.0


def test_metric_object_call_validates_like_the_functions():
    metric = rankcore.resolve("metric", "pauc:0.3,mcclish")
    with pytest.raises(ValueError, match="scores: expected finite numbers"):
        metric(Y, np.r_[S[:-1], np.nan])
    with pytest.raises(ValueError, match="needs both classes"):
        metric.loss(np.ones(6), S)


@pytest.mark.parametrize("call, name", [
    (lambda: rm.auc([10**400, 0.5], [0, 1]), "y"),
    (lambda: rm.auc([0, 1], [fractions.Fraction(10**400, 3), 1]), "scores"),
], ids=["int-labels", "fraction"])
def test_numbers_beyond_float64_mixed_with_floats_are_a_value_error_naming_the_argument(call, name):
    # NumPy's cast of such a number raises OverflowError, which names no argument
    with pytest.raises(ValueError, match=f"^{name}: expected numbers within the float64 range"):
        call()


def test_integer_scores_beyond_float64_beside_floats_are_ranked_exactly():
    assert rm.auc([0, 1], [10**400, 0.5]) == 0.0
    compared = rm.compare([0, 1, 0, 1], [1, 2, 3, 4], [10**400, 2, 3, 0.5], "auc")
    assert compared.estimates[1] == rm.auc([0, 1, 0, 1], [4, 2, 3, 0.5])


def test_metrics_given_as_bytes_say_so():
    with pytest.raises(TypeError, match=r"^metrics: expected a spec string .* got bytes b'auc' \(decode it"):
        rankcore.evaluate(Y, S, b"auc")
