"""The leaderboard of a finished search: what became of every candidate, the choice first."""

from __future__ import annotations

import math

import numpy as np

from ._leaderboard import Leaderboard, LeaderboardRow

__all__ = ["build_leaderboard", "blend_name"]


def blend_name(members: list[str]) -> str:
    """``"blend(trees+kernel)"``."""
    return "blend(" + "+".join(members) + ")"


def _row(search, c: int, n_units: int, status: str, note: str = "") -> LeaderboardRow:
    out = search.outcome
    got = out.unit_scores.get(c, {})
    scores = [got.get(u, math.nan) for u in range(n_units)]
    values = np.array([v for v in scores if math.isfinite(v)])
    fit = out.fit_times.get(c, [])
    score_t = out.score_times.get(c, [])
    if c in out.warnings and status != "failed":
        note = (note + "; " if note else "") + out.warnings[c]
    return LeaderboardRow(
        name=search.specs[c], status=status,
        mean=float(values.mean()) if values.size else math.nan,
        sd=float(values.std(ddof=1)) if values.size > 1 else math.nan,
        fold_scores=scores, fit_time=float(np.mean(fit)) if fit else math.nan,
        score_time=float(np.mean(score_t)) if score_t else math.nan, note=note)


def build_leaderboard(search, selection, chosen: tuple[int, ...], skipped: dict[str, str], metric,
                      description: str, refit_failures: dict[int, str]) -> Leaderboard:
    """Rows for every candidate: the choice first, then the others by mean score, then the rest.

    ``chosen`` are the candidates actually refitted (one, or the blend's
    members); ``refit_failures`` the candidates whose final refit raised.
    """
    out = search.outcome
    n_units = len(search.units)
    sign = 1.0 if metric.greater_is_better else -1.0
    rows, tail = [], []
    for c, spec in enumerate(search.specs):
        if c in refit_failures:
            tail.append(_row(search, c, n_units, "failed", f"final refit: {refit_failures[c]}"))
        elif c in out.errors:
            tail.append(_row(search, c, n_units, "failed", out.errors[c]))
        elif c in out.not_run:
            tail.append(_row(search, c, n_units, "not run", "no time left in the budget"))
        elif c in out.halved_after:
            rows.append(_row(search, c, n_units, "halved",
                             f"dropped after {out.halved_after[c]} fold(s) by successive halving"))
        elif c in out.cut_by_budget:
            rows.append(_row(search, c, n_units, "halved",
                             f"dropped after {out.cut_by_budget[c]} fold(s): the time budget ran out before its "
                             "other folds"))
        elif len(chosen) == 1 and c == chosen[0]:
            rows.append(_row(search, c, n_units, "chosen", selection.reason if selection is not None else ""))
        else:
            note = "blend member" if c in chosen else ""
            if selection is not None and c in selection.advantages:
                gain, se = selection.advantages[c]
                note = (note + "; " if note else "") + f"vs the default {gain:+.4f} (se {se:.4f})"
            rows.append(_row(search, c, n_units, "evaluated", note))
    if selection is not None and selection.blend_nested is not None:
        members = [search.specs[c] for c in selection.blend_members]
        nested = sign * selection.blend_nested
        scores = [math.nan] * n_units
        for value, u in zip(nested, selection.units_used):
            scores[u] = float(value)
        is_chosen = len(chosen) > 1
        if selection.fixed:
            how = "its members' validation scores rank-averaged on each part"
        else:
            gain = float(np.mean(selection.blend_nested - selection.single_nested))
            how = f"nested estimate: members chosen without the part scored; {gain:+.4f} vs the nested single choice"
        rows.append(LeaderboardRow(
            name=blend_name(members), status="chosen" if is_chosen else "evaluated",
            mean=float(np.mean(nested)), sd=float(np.std(nested, ddof=1)) if nested.size > 1 else math.nan,
            fold_scores=scores,
            note=(selection.reason + "; " if is_chosen else "") + how))
    chosen_rows = [r for r in rows if r.status == "chosen"]
    ranked = sorted((r for r in rows if r.status == "evaluated"),
                    key=lambda r: -sign * r.mean if math.isfinite(r.mean) else math.inf)
    halved = sorted((r for r in rows if r.status == "halved"),
                    key=lambda r: (-r.n_folds, -sign * r.mean if math.isfinite(r.mean) else math.inf))
    skipped_rows = [LeaderboardRow(name=spec, status="skipped", note=reason) for spec, reason in skipped.items()]
    return Leaderboard(chosen_rows + ranked + halved + tail + skipped_rows, metric.spec, description)
