"""Timing LightGBM's boosting rounds, the reference the tree and stump benchmarks compare with."""

from __future__ import annotations


def seconds_per_lightgbm_round(benchmark, lgb, X, y, params: dict, per_call: int) -> float:
    """Median seconds of one ``Booster.update()`` after two warm-up rounds (binning not timed).

    ``benchmark`` is pytest-benchmark's fixture; each of its 3 rounds runs
    ``per_call`` boosting rounds.
    """
    dataset = lgb.Dataset(X, label=y, params=params, free_raw_data=False).construct()
    booster = lgb.Booster(params=params, train_set=dataset)
    for _ in range(2):
        booster.update()

    def rounds():
        for _ in range(per_call):
            booster.update()

    benchmark.pedantic(rounds, rounds=3, iterations=1)
    return benchmark.stats.stats.median / per_call
