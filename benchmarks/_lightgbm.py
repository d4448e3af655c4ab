"""Timing LightGBM's boosting rounds, the reference the tree and stump benchmarks compare with."""

from __future__ import annotations


def seconds_per_lightgbm_round(benchmark, lgb, X, y, params: dict, per_call: int, *, rounds: int = 3,
                               statistic: str = "median") -> float:
    """Seconds of one ``Booster.update()`` after two warm-up rounds (binning not timed).

    ``benchmark`` is pytest-benchmark's fixture; each of its ``rounds``
    rounds runs ``per_call`` boosting rounds, and ``statistic`` ("median" or
    "min") of the rounds, divided by ``per_call``, is returned -- the caller
    times its own side the same way.
    """
    dataset = lgb.Dataset(X, label=y, params=params, free_raw_data=False).construct()
    booster = lgb.Booster(params=params, train_set=dataset)
    for _ in range(2):
        booster.update()

    def boost():
        for _ in range(per_call):
            booster.update()

    benchmark.pedantic(boost, rounds=rounds, iterations=1)
    return getattr(benchmark.stats.stats, statistic) / per_call
