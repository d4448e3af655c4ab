"""The check every test of a refusal with fields starts from: the call raises the class, a ``ValueError`` whose text
ends with its ``detail``; optionally of the expected ``parameter``, and kept whole through a pickle and a deep copy
(class, text and every field of ``fields``)."""

from __future__ import annotations

import copy
import pickle

import pytest

from rankcore.validation import ArgumentRefusal


def refused(call, cls=ArgumentRefusal, *, parameter=None, round_trip: bool = False):
    """The refusal ``call()`` raises, checked as the module says; ``parameter`` None: not checked."""
    with pytest.raises(cls) as caught:
        call()
    exc = caught.value
    assert isinstance(exc, ValueError) and str(exc).endswith(exc.detail)
    if parameter is not None:
        assert exc.parameter == parameter
    if round_trip:
        for back in (pickle.loads(pickle.dumps(exc)), copy.deepcopy(exc)):
            assert type(back) is type(exc) and str(back) == str(exc)
            assert {k: getattr(back, k) for k in exc.fields} == {k: getattr(exc, k) for k in exc.fields}
    return exc
