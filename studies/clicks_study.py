"""Ranking from logged clicks: rankcore with and without display positions against LightGBM's and XGBoost's.

``python studies/clicks_study.py`` simulates click logs and compares, on the true grades of new queries,

* rankcore's default within queries (``rankcore.boost(learner="trees")``) fitted on the clicks alone and with
  ``position=`` (the learned position effects), and the same for ``objective="lambdarank"``;
* rankcore's click model, ``position_bias="em"`` (θ_p · σ(f(x)) fitted by regression EM);
* LightGBM's lambdarank (``LGBMRanker()``'s defaults through ``lightgbm.train``) without and with its
  ``Dataset(position=...)``;
* ``XGBRanker()`` without and with ``lambdarank_unbiased=True`` (its rows sorted by position within each query,
  the order XGBoost reads the positions from).

The logs.  Each query holds 20 to 40 documents with grades 0-4 from a nonlinear function of five of 20 features
(:func:`graded_documents`).  A logging ranker shows the first ``--shown`` of them (default 10) in its order: by the
grades plus noise (``relevance``: the shown order already follows relevance), or mostly by a feature that says
nothing of the grades (``feature``: the shown order is the logger's own bias).  A document at place p (0 first) is
examined with probability 1 / (p + 1)^η and, if examined, clicked with probability 0.1 + 0.9 (2^g − 1) / 15.  Only
shown documents are logged.  The test queries are new, every document of each with its true grade: NDCG@1, @5 and
@10 (gain 2^g − 1, queries without a relevant document left out), and the fit's CPU seconds.

Options: ``--seeds``, ``--queries`` (training queries per log), ``--eta`` (examination exponents), ``--loggers``;
``--candidates`` fits rankcore's variants with positions instead of the peers (the push without the default's
QueryRMSE term, and ``position_l2`` of 0, 0.3 and 3 beside the default's 1); ``--candidates em`` the click model's
(``position_bias="em"``) variants: 1, 3, 6, 10 (the default) and 20 rounds, rounds stopped when θ moves less than
0.002, and the default objective refitted once on the final posteriors of the default.
Needs LightGBM; XGBoost is optional.  The data are simulated: nothing is read from disk.
"""

from __future__ import annotations

import argparse
import importlib.util
import time

import numpy as np

import rankcore
from rankcore.metrics import evaluate

METRICS = ("ndcg@k:1", "ndcg@k:5", "ndcg@k:10")


def graded_documents(n_queries: int, rng: np.random.Generator, *, min_size: int = 20, max_size: int = 40,
                     n_features: int = 20):
    """(X, grades, qid): queries of ``min_size``..``max_size`` documents, grades 0-4 from features 0-4."""
    sizes = rng.integers(min_size, max_size + 1, n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    X = rng.normal(size=(qid.size, n_features))
    latent = X[:, 0] + 0.7 * X[:, 1] - 0.5 * X[:, 2] * X[:, 3] + 0.4 * np.abs(X[:, 4]) + rng.normal(scale=0.5,
                                                                                                     size=qid.size)
    grades = np.clip(np.round(latent), 0, 4).astype(np.float64)
    return X, grades, qid


def logged_clicks(X, grades, qid, rng: np.random.Generator, *, logger: str, eta: float, shown: int):
    """(rows logged, their positions, their clicks): each query's first ``shown`` documents in the logger's order."""
    noise = rng.normal(size=qid.size)
    if logger == "relevance":
        score = grades + noise
    elif logger == "feature":
        score = 0.3 * grades + 3.0 * X[:, 5] + noise
    else:
        raise ValueError(f"--loggers: 'relevance' or 'feature', got {logger!r}")
    rows, places = [], []
    for q in np.unique(qid):
        members = np.flatnonzero(qid == q)
        order = members[np.argsort(-score[members], kind="stable")][:shown]
        rows.append(order)
        places.append(np.arange(order.size))
    rows, position = np.concatenate(rows), np.concatenate(places)
    examined = rng.random(rows.size) < 1.0 / (position + 1.0) ** eta
    attractive = rng.random(rows.size) < 0.1 + 0.9 * (2.0 ** grades[rows] - 1.0) / 15.0
    return rows, position, (examined & attractive).astype(np.float64)


def _cpu(fit):
    start = time.process_time()
    model = fit()
    return model, time.process_time() - start


def _models(threads: int, candidates: bool = False):
    """name -> fit(X, clicks, qid, position) returning a scorer of new rows (``candidates``: rankcore's variants
    with positions only: the push without the default's QueryRMSE term, and ``position_l2`` of 0, 0.3 and 3)."""
    import lightgbm

    def rankcore_fit(objective=None, positions=False, **params):
        def fit(X, y, qid, position):
            model = rankcore.boost(learner="trees", objective=objective, random_state=0, n_jobs=threads, **params)
            model.fit(X, y, qid=qid, position=position if positions else None)
            return model.decision_function
        return fit

    def lightgbm_fit(positions):
        def fit(X, y, qid, position):
            sizes = np.bincount(qid)[np.unique(qid)]
            data = lightgbm.Dataset(X, y, group=sizes, position=position if positions else None)
            booster = lightgbm.train({"objective": "lambdarank", "verbose": -1, "seed": 0, "num_threads": threads},
                                     data, num_boost_round=100)
            return booster.predict
        return fit

    def em_fit(spec="em", refit=False):
        """The click model (``position_bias=spec``); ``refit``: the default objective refitted once on its final
        posterior relevance as grades, in place of the cross-entropy trees of its last round."""
        def fit(X, y, qid, position):
            model = rankcore.boost(learner="trees", position_bias=spec, random_state=0, n_jobs=threads)
            model.fit(X, y, qid=qid, position=position)
            fit.theta = (model.position_ids_, model.position_propensities_, model.position_em_rounds_)
            if not refit:
                return model.decision_function
            theta = model.position_propensities_[np.searchsorted(model.position_ids_, position)]
            gamma = np.clip(1.0 / (1.0 + np.exp(-model.decision_function(X))), 1e-9, 1 - 1e-9)
            relevant = np.where(y > 0, 1.0, (1.0 - theta) * gamma / (1.0 - theta * gamma))
            final = rankcore.boost(learner="trees", random_state=0, n_jobs=threads).fit(X, relevant, qid=qid)
            return final.decision_function
        return fit

    if candidates == "em":
        return {
            "rankcore default, position": rankcore_fit(positions=True),
            **{f"EM, position_bias='em:rounds={r}'": em_fit(f"em:rounds={r}") for r in (1, 3, 6, 10, 20)},
            "EM, position_bias='em:tol=0.002'": em_fit("em:tol=0.002"),
            "EM (10 rounds), then the default objective on its posteriors": em_fit("em", refit=True),
        }
    if candidates:
        return {
            "rankcore default": rankcore_fit(),
            "rankcore default, position": rankcore_fit(positions=True),
            "push alone (query_rmse=0), position": rankcore_fit("push:exp,identity,gain_weighted=true",
                                                                positions=True),
            **{f"default, position, position_l2={lam:g}": rankcore_fit(positions=True, position_l2=lam)
               for lam in (0.0, 0.3, 3.0)},
        }
    models = {
        "rankcore default": rankcore_fit(),
        "rankcore default, position": rankcore_fit(positions=True),
        "rankcore lambdarank": rankcore_fit("lambdarank"),
        "rankcore lambdarank, position": rankcore_fit("lambdarank", positions=True),
        "rankcore click model (position_bias='em'), position": em_fit(),
        "LightGBM lambdarank": lightgbm_fit(False),
        "LightGBM lambdarank, position": lightgbm_fit(True),
    }
    if importlib.util.find_spec("xgboost") is not None:
        import xgboost

        def xgboost_fit(unbiased):
            def fit(X, y, qid, position):
                order = np.lexsort((position, qid))          # XGBoost reads the positions from the row order
                ranker = xgboost.XGBRanker(lambdarank_unbiased=unbiased, random_state=0, n_jobs=threads)
                ranker.fit(X[order], y[order], qid=qid[order])
                return ranker.predict
            return fit

        models["XGBRanker()"] = xgboost_fit(False)
        models["XGBRanker(lambdarank_unbiased=True)"] = xgboost_fit(True)
    return models


def run(seeds, n_queries: int, etas, loggers, shown: int, threads: int, candidates: bool = False) -> dict:
    """{(logger, eta): {model: list of (ndcg@1, ndcg@5, ndcg@10, cpu seconds) per seed}}."""
    models = _models(threads, candidates)
    results: dict = {}
    for logger in loggers:
        for eta in etas:
            cell = results.setdefault((logger, eta), {name: [] for name in models})
            for seed in seeds:
                rng = np.random.default_rng(seed)
                X, grades, qid = graded_documents(n_queries, rng)
                rows, position, clicks = logged_clicks(X, grades, qid, rng, logger=logger, eta=eta, shown=shown)
                X_test, grades_test, qid_test = graded_documents(n_queries // 2, rng)
                for name, fit in models.items():
                    scorer, cpu = _cpu(lambda: fit(X[rows], clicks, qid[rows], position))
                    values = evaluate(grades_test, scorer(X_test), metrics=list(METRICS), qid=qid_test)
                    cell[name].append([values[m] for m in METRICS] + [cpu])
                    if getattr(fit, "theta", None) is not None:      # the click model's θ against the truth
                        ids, theta, rounds = fit.theta
                        errors = np.abs(theta - 1.0 / (ids + 1.0) ** eta)
                        THETA.setdefault((logger, eta, name), []).append((errors.mean(), errors.max(), rounds))
                print(f"{logger}, eta {eta}, seed {seed}: {clicks.mean():.3f} clicks a row", flush=True)
    return results


#: (logger, eta, model) -> per seed (mean |θ̂ − θ|, max |θ̂ − θ| over the places, EM rounds run).
THETA: dict = {}


def print_theta() -> None:
    if not THETA:
        return
    print("\n#### The click model's propensities against the truth 1/(p + 1)^η\n")
    print("| logger | η | model | mean abs. error of θ | largest | EM rounds run |")
    print("|---|---|---|---|---|---|")
    for (logger, eta, name), rows in THETA.items():
        mean = np.mean(np.asarray(rows, dtype=float), axis=0)
        print(f"| {logger} | {eta:g} | {name} | {mean[0]:.3f} | {mean[1]:.3f} | {mean[2]:.1f} |")


def print_tables(results: dict) -> None:
    for (logger, eta), cell in results.items():
        print(f"\n#### logger: {logger}, examination 1/(p + 1)^{eta:g}\n")
        print("| model | NDCG@1 | NDCG@5 | NDCG@10 | NDCG@10 − without positions | fit CPU s |")
        print("|---|---|---|---|---|---|")
        means = {name: np.mean(np.asarray(rows), axis=0) for name, rows in cell.items()}
        for name, mean in means.items():
            base = name.replace(", position", "").replace("(lambdarank_unbiased=True)", "()")
            base = "rankcore default" if "position_bias" in base or base.startswith("EM,") else base
            base = base if base in means else "rankcore default"
            delta = "" if base == name or base not in means else f"{mean[2] - means[base][2]:+.4f}"
            print(f"| {name} | {mean[0]:.4f} | {mean[1]:.4f} | {mean[2]:.4f} | {delta} | {mean[3]:.2f} |")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--eta", type=float, nargs="+", default=[1.0, 2.0])
    parser.add_argument("--loggers", nargs="+", default=["feature", "relevance"])
    parser.add_argument("--shown", type=int, default=10)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--candidates", nargs="?", const=True, default=False, choices=[True, "em"],
                        help="rankcore's variants with positions instead of the peers (the push alone, position_l2); "
                             "--candidates em: the click model's rounds and final model")
    args = parser.parse_args(argv)
    if importlib.util.find_spec("lightgbm") is None:
        raise SystemExit("clicks_study.py needs LightGBM (pip install lightgbm)")
    print_tables(run(args.seeds, args.queries, args.eta, args.loggers, args.shown, args.threads, args.candidates))
    print_theta()


if __name__ == "__main__":
    main()
