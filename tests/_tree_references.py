"""Plain reference rules shared by the trees' tests (bundling, split choice), written without the kernels."""


def greedy_bundles(rows, n_edges, max_codes, groups=None, *, open_new=True):
    """Features by decreasing non-default row count, each into the first group it fits, as sets.

    A feature fits a group when the group's codes plus its n_edges + 2 stay
    within ``max_codes`` and it shares no non-default row with the group.
    ``groups`` continues earlier groups (dicts of members, codes, rows);
    without ``open_new`` a feature that fits nowhere stays out.  Returns the
    groups, groups of one included.
    """
    groups = [] if groups is None else groups
    for j in sorted(rows, key=lambda j: (-len(rows[j]), j)):
        for g in groups:
            if g["codes"] + n_edges[j] + 2 <= max_codes and not (set(rows[j]) & g["rows"]):
                g["members"].append(j)
                g["codes"] += n_edges[j] + 2
                g["rows"] |= set(rows[j])
                break
        else:
            if open_new:
                groups.append({"members": [j], "codes": 1 + n_edges[j] + 2, "rows": set(rows[j])})
    return groups


def first_within_tolerance(cands, scale, tolerance):
    """The split search's choice among candidates (gain first): the first within ``tolerance`` × scale of the
    best gain, scale being the larger of ``scale`` (the parent terms) and the best; None without a gain."""
    if not cands:
        return None
    best = max(c[0] for c in cands)
    scale = max(scale, best)
    if not best > tolerance * scale:
        return None
    return next(c for c in cands if c[0] >= best - tolerance * scale)
