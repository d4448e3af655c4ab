"""The leaderboard of a search: one row per candidate, as text, records, pandas, or scikit-learn's ``cv_results_``."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Iterator

import numpy as np

__all__ = ["LeaderboardRow", "Leaderboard", "STATUSES"]

#: What became of a candidate.
STATUSES = ("chosen", "evaluated", "halved", "skipped", "failed", "not run")


@dataclass
class LeaderboardRow:
    """One candidate's outcome.

    Attributes
    ----------
    name : str
        The candidate's spec, or ``"blend(a+b)"`` for the rank-average blend.
    status : str
        ``"chosen"``; ``"evaluated"`` (every fold of the plan, not chosen);
        ``"halved"`` (dropped by successive halving after ``n_folds`` folds);
        ``"skipped"`` (does not apply to the data: see ``note``); ``"failed"``
        (raised: the error is in ``note``); ``"not run"`` (no time left).
    mean, sd : float
        Mean and standard deviation of the fold scores (NaN without any).
        For the blend, the scores of the nested estimate (see ``note``).
    fold_scores : list of float
        The score on each validation part -- each fold of a K-fold plan, each
        stratified part of a hold-out --, NaN where not evaluated.
    fit_time, score_time : float
        Mean seconds per fold to fit and to score the validation part.
    note : str
    """

    name: str
    status: str
    mean: float = math.nan
    sd: float = math.nan
    fold_scores: list[float] = field(default_factory=list)
    fit_time: float = math.nan
    score_time: float = math.nan
    note: str = ""

    @property
    def n_folds(self) -> int:
        """Validation parts with a score (the ``parts`` column)."""
        return int(np.count_nonzero(np.isfinite(self.fold_scores)))


class Leaderboard:
    """The candidates of a search, the chosen one first, then by mean score.

    Iterable over :class:`LeaderboardRow`; ``str()`` gives a text table,
    :meth:`to_frame` a pandas DataFrame, :meth:`records` plain dicts.
    """

    def __init__(self, rows: list[LeaderboardRow], metric: str, description: str = ""):
        self.rows = list(rows)
        self.metric = metric
        self.description = description

    def __iter__(self) -> Iterator[LeaderboardRow]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, item):
        if isinstance(item, str):
            for row in self.rows:
                if row.name == item:
                    return row
            raise KeyError(f"no candidate named {item!r} in the leaderboard")
        return self.rows[item]

    def records(self) -> list[dict[str, Any]]:
        """One plain dict per row (JSON-ready values)."""
        return [dict(asdict(row), n_folds=row.n_folds) for row in self.rows]

    def to_frame(self):
        """The leaderboard as a pandas DataFrame (one row per candidate; needs pandas)."""
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("Leaderboard.to_frame needs pandas (pip install pandas); "
                              "records() gives the same rows as dicts") from exc
        columns = ["name", "status", "mean", "sd", "n_folds", "fit_time", "score_time", "note", "fold_scores"]
        return pd.DataFrame([{c: r[c] for c in columns} for r in self.records()], columns=columns)

    def table_rows(self) -> list[list[Any]]:
        """Rows for a printed table: candidate, status, mean ± sd, parts scored, fit seconds per fold, note."""
        out = []
        for row in self.rows:
            score = "-" if not math.isfinite(row.mean) else (
                f"{row.mean:.4f}" + (f" ± {row.sd:.4f}" if math.isfinite(row.sd) else ""))
            fit = "-" if not math.isfinite(row.fit_time) else f"{row.fit_time:.3f}"
            out.append([row.name, row.status, score, str(row.n_folds), fit, row.note])
        return out

    def __str__(self) -> str:
        header = ["candidate", "status", f"{self.metric} (mean ± sd)", "parts", "fit s/fold", "note"]
        body = [[str(v) for v in r] for r in self.table_rows()]
        widths = [max(len(header[i]), *(len(r[i]) for r in body)) if body else len(header[i])
                  for i in range(len(header))]
        lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()]
        lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in body]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<Leaderboard of {len(self.rows)} candidates on {self.metric}; {self.description}>"

    def cv_results(self) -> dict[str, Any]:
        """scikit-learn's ``cv_results_`` layout, one entry per row.

        ``params`` holds ``{"candidate": name}``; ``split<i>_test_score`` the
        fold scores of the splits run (NaN where a candidate was not evaluated);
        ``rank_test_score`` ranks the chosen candidate 1, then the others
        in leaderboard order (rows without a score last, tied);
        ``n_folds`` and ``status`` are AutoRanker's additions.
        """
        n_rows = len(self.rows)
        n_splits = max((len(r.fold_scores) for r in self.rows), default=0)
        scores = np.full((n_rows, n_splits), np.nan)
        for i, row in enumerate(self.rows):
            scores[i, : len(row.fold_scores)] = row.fold_scores
        # the plan's splits that no candidate ran (repeats a time budget would have drawn) are no splits
        ran = np.flatnonzero(np.isfinite(scores).any(axis=0))
        n_splits = int(ran[-1]) + 1 if ran.size else 0
        scores = scores[:, :n_splits]
        names = np.ma.MaskedArray(np.array([r.name for r in self.rows], dtype=object), mask=False)
        means = np.array([r.mean for r in self.rows], dtype=np.float64)
        scored = np.isfinite(means)
        ranks = np.where(scored, np.cumsum(scored), int(scored.sum()) + 1).astype(np.int32)
        results: dict[str, Any] = {
            "params": [{"candidate": r.name} for r in self.rows],
            "param_candidate": names,
        }
        for j in range(n_splits):
            results[f"split{j}_test_score"] = scores[:, j]
        results.update({
            "mean_test_score": means,
            "std_test_score": np.array([r.sd for r in self.rows], dtype=np.float64),
            "rank_test_score": ranks,
            "mean_fit_time": np.array([r.fit_time for r in self.rows], dtype=np.float64),
            "std_fit_time": np.full(n_rows, np.nan),
            "mean_score_time": np.array([r.score_time for r in self.rows], dtype=np.float64),
            "std_score_time": np.full(n_rows, np.nan),
            "n_folds": np.array([r.n_folds for r in self.rows], dtype=np.int64),
            "status": np.array([r.status for r in self.rows], dtype=object),
        })
        return results
