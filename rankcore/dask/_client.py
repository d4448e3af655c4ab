"""The ``client`` parameter every Dask estimator shares: kept by ``clone``, left behind by pickle."""

from __future__ import annotations

__all__ = ["ClientParameter"]


class ClientParameter:
    """Mixin of the Dask estimators (listed before the in-memory estimator they extend)."""

    def __sklearn_clone__(self):
        # scikit-learn's clone deep-copies every parameter; a Client cannot be copied, so it is shared
        from sklearn.base import clone

        params = self.get_params(deep=False)
        client = params.pop("client")
        return type(self)(client=client, **{key: clone(value, safe=False) for key, value in params.items()})

    def __getstate__(self):
        # a Client cannot be pickled: the estimator travels without it (as in lightgbm's Dask estimators)
        state = dict(super().__getstate__())
        state["client"] = None
        return state
