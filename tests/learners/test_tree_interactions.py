"""Interaction constraints of the ``trees`` learner (``interactions=0+1/2+3+4``: LightGBM's interaction_constraints).

The property: every root-to-leaf path of every tree splits only on columns that lie together in one group (a
column in no group never splits, as in LightGBM).  A plain-Python walk of the fitted trees checks it (an oblivious
tree's paths pass through every level: its levels' features down to each level lie in one group).  Both growth
routes (the native growers and the multi-pass searches, ``TreeSearch`` batched or not and ``ObliviousSearch``)
grow the same trees bit for bit.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankcore
from rankcore.learners.trees import Trees
from rankcore.learners.trees._grow_oblivious import ObliviousGrower
from rankcore.learners.trees._interactions import InteractionGroups, column_groups, interaction_groups
from rankcore.persistence import load_model, save_model
from rankcore.registry import resolve
from rankcore.spec import SpecError
from _tree_references import route_statistics
from _tree_routes import assert_routes_agree, both_routes, search_state

# a fit whose interaction groups leave columns out warns once, naming them (tested in test_tree_interactions.py)
pytestmark = pytest.mark.filterwarnings("ignore:interactions=.*in no group:UserWarning")


def _data(seed, n=600, d=5, nan_fraction=0.1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 0] = np.round(X[:, 0], 1)                      # ties
    if nan_fraction:
        X[rng.random((n, d)) < nan_fraction] = np.nan
    z = np.nan_to_num(X)
    # interactions everywhere: an unconstrained tree mixes the columns on its paths
    y = (z[:, 0] * z[:, 1] + np.sin(2 * z[:, 2]) * z[:, 3] + z[:, 4] * z[:, 0] + 0.3 * rng.normal(size=n) > 0)
    return X, y.astype(int)


def _path_sets(ranker):
    """Each internal node's path features: the columns split on from the root down to and including it."""
    if ranker.kind == "oblivious_tree":         # every path passes through every level
        return [frozenset(int(j) for j in ranker.feature[:k + 1]) for k in range(ranker.depth)]
    out = []
    stack = [(0, frozenset())]
    while stack:
        node, path = stack.pop()
        if ranker.left[node] < 0:
            continue
        here = path | {int(ranker.feature[node])}
        out.append(here)
        stack.extend(((int(ranker.left[node]), here), (int(ranker.right[node]), here)))
    return out


def _violations(model, groups):
    """The path feature sets of the model's trees that lie in no group (the plain rule, in Python)."""
    sets = [set(g) for g in groups]
    return [p for r in model.rankers_ for p in _path_sets(r) if not any(p <= g for g in sets)]


def _split_columns(ranker) -> set:
    """The columns a tree splits on."""
    if ranker.kind == "oblivious_tree":
        return {int(j) for j in ranker.feature}
    return {int(j) for j in ranker.feature[ranker.left >= 0]}


def _spec(groups):
    return "/".join("+".join(str(j) for j in g) for g in groups)


@pytest.mark.parametrize("growth", ["leafwise", "depthwise", "oblivious"])
@pytest.mark.parametrize("weighted", [False, True])
def test_every_path_lies_within_a_group(growth, weighted):
    X, y = _data(1)
    w = np.random.default_rng(2).uniform(0.2, 3.0, X.shape[0]) if weighted else None
    groups = [[0, 1], [1, 2, 3]]                        # column 4 in no group; column 1 in two
    model = rankcore.boost(learner=f"trees:interactions={_spec(groups)},growth={growth},max_leaves=15",
                           n_iter=20, random_state=0).fit(X, y, sample_weight=w)
    assert model.rankers_ and not _violations(model, groups)
    assert all(r.kind == ("oblivious_tree" if growth == "oblivious" else "tree") for r in model.rankers_)
    used = set().union(*map(_split_columns, model.rankers_))
    assert 4 not in used and {0, 1, 2, 3} <= used
    # the unconstrained fit mixes columns of different groups on its paths: the constraint binds
    free = rankcore.boost(learner=f"trees:growth={growth},max_leaves=15", n_iter=20,
                          random_state=0).fit(X, y, sample_weight=w)
    assert _violations(free, groups)


def test_within_queries_with_colsample_monotone_and_a_categorical_column():
    X, y = _data(3, n=800)
    X[:, 2] = np.random.default_rng(0).integers(0, 5, X.shape[0])       # category codes
    qid = np.repeat(np.arange(40), 20)
    groups = [[0, 2], [1, 3, 4]]
    spec = f"trees:interactions={_spec(groups)},monotone=1/0/0/-1/0,categorical=2,colsample=0.6,max_leaves=12"
    model = rankcore.boost(learner=spec, objective="lambdarank", n_iter=15, random_state=0).fit(X, y, qid=qid)
    assert model.rankers_ and not _violations(model, groups)


def test_the_per_query_default_keeps_its_oblivious_trees_with_interactions(tmp_path):
    X, y = _data(4, n=600)
    qid = np.repeat(np.arange(30), 20)
    model = rankcore.boost(learner="trees:interactions=0+1/2+3", n_iter=5, random_state=0).fit(X, y, qid=qid)
    learner = resolve("learner", model.learner_spec_)
    assert (learner.growth, learner.max_depth, learner.interactions) == ("oblivious", 6, "0+1/2+3")
    assert model.rankers_ and all(r.kind == "oblivious_tree" for r in model.rankers_)
    assert not _violations(model, [[0, 1], [2, 3]])
    save_model(model, tmp_path / "model.json")
    loaded = load_model(tmp_path / "model.json")
    assert resolve("learner", loaded.learner_spec_).growth == "oblivious"
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    # monotone signs keep them oblivious too; categorical columns turn them depth-wise
    for spec, extra, growth in (("trees:interactions=0+1/2+3,monotone=1/0/0/0/0", {}, "oblivious"),
                                ("trees:interactions=0+1/2+3", {"categorical_features": [2]}, "depthwise")):
        Xc = X.copy()
        if extra:
            Xc[:, 2] = np.random.default_rng(0).integers(0, 4, X.shape[0])
        other = rankcore.boost(learner=spec, n_iter=3, random_state=0, **extra).fit(Xc, y, qid=qid)
        assert resolve("learner", other.learner_spec_).growth == growth
        assert not _violations(other, [[0, 1], [2, 3]])


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**31), st.lists(st.lists(st.integers(0, 5), min_size=1, max_size=4, unique=True),
                                       min_size=1, max_size=4),
       st.sampled_from(["leafwise", "depthwise", "oblivious"]), st.sampled_from([1.0, 0.7]),
       st.sampled_from([1.0, 0.5]))
def test_random_group_structures(seed, groups, growth, subsample, colsample):
    X, y = _data(seed, n=300, d=6, nan_fraction=0.2)
    spec = (f"trees:interactions={_spec(groups)},growth={growth},subsample={subsample},colsample={colsample},"
            f"min_samples_leaf=5,max_leaves=10")
    rng = np.random.default_rng(seed % 1000)
    qid = np.sort(rng.integers(0, 15, X.shape[0]))
    w = rng.uniform(0.5, 2.0, X.shape[0])
    for fit in ({"sample_weight": w}, {"qid": qid}):
        model = rankcore.boost(learner=spec, n_iter=6, random_state=seed % 1000, early_stopping=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")              # a fit may stop early (no split gains)
            model.fit(X, y, **fit)
        assert not _violations(model, groups)
        grouped = {j for g in groups for j in g}
        assert set().union(set(), *map(_split_columns, model.rankers_)) <= grouped


def test_one_group_per_column_grows_trees_of_one_column_each():
    X, y = _data(5)
    groups = [[j] for j in range(X.shape[1])]
    for growth in ("leafwise", "depthwise", "oblivious"):
        model = rankcore.boost(learner=f"trees:interactions={_spec(groups)},growth={growth}", n_iter=15,
                               random_state=0).fit(X, y)
        assert model.rankers_
        assert all(len(_split_columns(r)) == 1 for r in model.rankers_)


def _fields(ranker):
    """The arrays that make a tree."""
    if ranker.kind == "oblivious_tree":
        return ("feature", "threshold", "nan_left", "value", "gain")
    return ("feature", "threshold", "nan_left", "left", "right", "value")


@pytest.mark.parametrize("extra", ["", ",colsample=0.6", ",growth=depthwise,subsample=0.7", ",random_strength=1",
                                   ",growth=oblivious", ",growth=oblivious,colsample=0.6,random_strength=1"])
def test_one_group_of_every_column_fits_the_unconstrained_model(extra):
    X, y = _data(6)
    one = rankcore.boost(learner="trees:interactions=0+1+2+3+4" + extra, n_iter=12, random_state=0).fit(X, y)
    free = rankcore.boost(learner="trees" + (":" + extra[1:] if extra else ""), n_iter=12, random_state=0).fit(X, y)
    assert len(one.rankers_) == len(free.rankers_)
    for a, b in zip(one.rankers_, free.rankers_):
        for field in _fields(a):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    np.testing.assert_array_equal(one.alphas_, free.alphas_)
    np.testing.assert_array_equal(one.decision_function(X), free.decision_function(X))


def test_one_group_of_every_column_fits_the_unconstrained_per_query_default():
    # the per-query default (oblivious trees of depth 6, random_strength=1, subsample=0.8) bit for bit
    X, y = _data(7, n=800)
    qid = np.repeat(np.arange(40), 20)
    one = rankcore.boost(learner="trees:interactions=0+1+2+3+4", n_iter=10, random_state=0).fit(X, y, qid=qid)
    free = rankcore.boost(learner="trees", n_iter=10, random_state=0).fit(X, y, qid=qid)
    assert len(one.rankers_) == len(free.rankers_) > 0
    for a, b in zip(one.rankers_, free.rankers_):
        assert a.kind == b.kind == "oblivious_tree"
        for field in _fields(a):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    np.testing.assert_array_equal(one.alphas_, free.alphas_)


# ----------------------------------------------------------------------
# The native grower and the multi-pass protocol grow the same trees
# ----------------------------------------------------------------------
ROUTE_GRID = [
    "trees:interactions=0+1/2+3+4,subsample=1",
    "trees:interactions=0+1/1+2/3,max_leaves=63,min_samples_leaf=1,min_child_weight=0",
    "trees:interactions=0/1/2/3/4,l2=2,colsample=0.6",
    "trees:interactions=0+2+4/1+3,monotone=1/-1/0/1/0",
    "trees:interactions=0+1/2+3+4,growth=depthwise,max_leaves=12",
    "trees:interactions=1+2/0+3+4/0+1,growth=depthwise,max_depth=3,subsample=0.6",
    "trees:interactions=0+1/2+3+4,random_strength=1",
    "trees:interactions=0+1/2+3+4,growth=oblivious",
    "trees:interactions=0+1/1+2/3,growth=oblivious,max_depth=5,colsample=0.6,min_samples_leaf=1,min_child_weight=0",
    "trees:interactions=0/1/2/3/4,growth=oblivious,random_strength=1,subsample=0.7,l2=2",
    "trees:interactions=1+2/0+3+4/0+1,growth=oblivious,max_depth=4,min_samples_leaf=40",
]


@pytest.mark.parametrize("spec", ROUTE_GRID)
@pytest.mark.parametrize("curvature", ["ones", "weights", "hessian"])
def test_native_growth_equals_the_multi_pass_protocol_with_interactions(spec, curvature):
    X, _ = _data(3, n=500)
    pairs = assert_routes_agree(spec, X, *route_statistics(X.shape[0], 4, curvature))
    assert any(a is not None for a, _ in pairs)


@pytest.mark.parametrize("spec", [s for s in ROUTE_GRID if "growth" not in s and "random_strength" not in s])
def test_batched_search_equals_the_native_grower_with_interactions(spec):
    X, _ = _data(4, n=500)
    assert_routes_agree(spec, X, *route_statistics(X.shape[0], 3, "hessian"), batched=True)


@pytest.mark.parametrize("growth", ["leafwise", "oblivious"])
def test_the_native_grower_s_trees_do_not_depend_on_its_threads(growth):
    X, _ = _data(8, n=3000, d=12)
    gradients, curvatures = route_statistics(X.shape[0], 3, "hessian")
    learner = resolve("learner", "trees:interactions=0+1+2/3+4/5+6+7+8/1+9+10+11,max_leaves=31,min_samples_leaf=5,"
                      f"growth={growth}")
    states = []
    for n_threads in (1, 2):
        layout = learner.prepare(X, random_state=0)
        block = layout.encode(X)
        states.append([search_state(layout.search_in_memory([block], [g], [h], n_threads=n_threads))
                       for g, h in zip(gradients, curvatures)])
    assert states[0] == states[1] and all(s is not None for s in states[0])


def test_interactions_none_grows_the_unconstrained_trees():
    X, _ = _data(5, n=400)
    gradients, curvatures = route_statistics(X.shape[0], 3, "hessian")
    a = both_routes("trees:interactions=none", X, gradients, curvatures)
    b = both_routes("trees", X, gradients, curvatures)
    assert [search_state(x) for x, _ in a] == [search_state(x) for x, _ in b]
    assert resolve("learner", "trees").prepare(X).interactions is None


# ----------------------------------------------------------------------
# Bundles, sparse columns, the parameter, persistence, refusals
# ----------------------------------------------------------------------
def test_bundled_one_hot_columns_split_as_their_own_column():
    # a split on a bundled column sends rows by that column's value alone: its path feature is that column
    rng = np.random.default_rng(0)
    n = 3000
    X = np.zeros((n, 8))
    hot = rng.integers(0, 6, n)
    X[np.arange(n), hot] = 1.0                          # columns 0..5 one-hot: mutually exclusive, bundled
    X[:, 6:] = rng.normal(size=(n, 2))
    y = ((hot % 2 == 0) * X[:, 6] + (hot == 3) * X[:, 7] + 0.3 * rng.normal(size=n) > 0).astype(int)
    groups = [[0, 2, 6], [3, 7], [1, 4, 5]]
    layout = resolve("learner", f"trees:interactions={_spec(groups)}").prepare(X)
    assert layout.bundles and any(len(b) > 1 for b in layout.bundles)
    model = rankcore.boost(learner=f"trees:interactions={_spec(groups)},max_leaves=15,min_samples_leaf=5",
                           n_iter=20, random_state=0).fit(X, y)
    assert model.rankers_ and not _violations(model, groups)
    X_sparse = pytest.importorskip("scipy.sparse").csr_matrix(X)
    sparse = rankcore.boost(learner=f"trees:interactions={_spec(groups)},max_leaves=15,min_samples_leaf=5",
                            n_iter=20, random_state=0).fit(X_sparse, y)
    assert sparse.rankers_ and not _violations(sparse, groups)


def test_the_parameter_parses_and_round_trips():
    assert interaction_groups("0+1/2+3+4") == "0+1/2+3+4"
    assert interaction_groups(" 1+0 / 4+2+3 ") == "0+1/2+3+4"
    assert interaction_groups("") == interaction_groups("none") == ""
    assert interaction_groups([[1, 0], (2,), np.array([3, 4])]) == "0+1/2/3+4"
    assert interaction_groups("0+1/1+2") == "0+1/1+2"                 # a column in two groups: as LightGBM
    learner = resolve("learner", "trees:interactions=3+1/0")
    assert learner.interactions == "0/1+3"                             # the groups ascending
    assert resolve("learner", learner.spec).interactions == "0/1+3"
    assert Trees(interactions=[[0, 1], [2]]).interactions == "0+1/2"
    for bad in ("0+1//2", "0++1", "0+2.0", "-1+2", "0+1/", "1.5", "0+1+0", "/"):
        with pytest.raises(SpecError, match="interactions must be groups of columns of X such as 0\\+1/2\\+3\\+4"):
            resolve("learner", f"trees:interactions={bad}")
    with pytest.raises(SpecError, match="interactions.*a group is empty"):
        Trees(interactions=[[0, 1], []])
    with pytest.raises(SpecError, match="interactions.*0 is not a group of columns"):
        Trees(interactions=[0, 1])
    assert column_groups("0+1/4", 5) == [[0, 1], [4]]
    with pytest.raises(ValueError, match=r"interactions: column 5 is out of range: expected column indices of X "
                                         r"in 0\.\.4"):
        column_groups("0+5", 5)


@pytest.mark.parametrize("value, canonical", [
    ("2+3/0+1", "0+1/2+3"), ("0+1/2+3/0+1", "0+1/2+3"), ("0+1/2+3/1/3", "0+1/2+3"), ("3/1+3/0+1+2", "0+1+2/1+3"),
    ([[4], [4], [2, 4]], "2+4"), ("1/0", "0/1"), ("0+1/1+2", "0+1/1+2"),
])
def test_equivalent_group_lists_have_one_canonical_spec(value, canonical):
    # the same trees under one name: the AutoRanker's fit_identity then fits such candidates once
    assert interaction_groups(value) == canonical
    assert Trees(interactions=value).spec == Trees(interactions=canonical).spec


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 5), min_size=1, max_size=4, unique=True), min_size=1, max_size=6))
def test_the_canonical_groups_allow_the_paths_the_given_groups_allow(groups):
    """Leaving out repeated and contained groups allows the same column sets (plain rule: P within some group)."""
    kept = [set(map(int, g.split("+"))) for g in interaction_groups(groups).split("/")]
    given_sets = [set(g) for g in groups]
    assert all(any(g <= k for k in kept) for g in given_sets) and all(k in given_sets for k in kept)
    for bits in range(1, 64):
        path = {j for j in range(6) if bits >> j & 1}
        assert any(path <= g for g in given_sets) == any(path <= k for k in kept)


def test_an_auto_ranker_fits_equivalent_group_lists_once():
    X, y = _data(4, n=300, nan_fraction=0.0)
    auto = rankcore.AutoRanker(candidates=["trees:interactions=0+1/2+3,n_iter=4",
                                           "trees:interactions=2+3/0+1/3,n_iter=4"], random_state=0).fit(X, y)
    rows = {row.name: row for row in auto.leaderboard_}
    assert rows["trees:n_iter=4,interactions=0+1/2+3"].status == "chosen"
    skipped = rows["trees:n_iter=4,interactions=2+3/0+1/3"]
    assert skipped.status == "skipped" and "fits the same model" in skipped.note


def test_the_docs_spell_no_constraints_as_a_spec_accepts_it():
    # a spec refuses an empty value ("trees:interactions=" is malformed): the docs say none, which it takes
    docs = {p.name: p.doc for p in Trees.parameters}
    for name in ("interactions", "monotone"):
        assert "none (the default): no constraints" in docs[name] and "empty" not in docs[name]
        assert getattr(resolve("learner", f"trees:{name}=none"), name) == ""
        with pytest.raises(SpecError, match="malformed keyword argument"):
            resolve("learner", f"trees:{name}=")


def test_the_csr_groups_are_each_feature_s_groups():
    groups = InteractionGroups([np.array([0, 2]), np.array([2, 3]), np.array([1])], 5)
    group_ptr, members, feature_ptr, owners = groups.csr()
    assert group_ptr.tolist() == [0, 2, 4, 5] and members.tolist() == [0, 2, 2, 3, 1]
    assert [owners[feature_ptr[j]:feature_ptr[j + 1]].tolist() for j in range(5)] == [[0], [2], [0, 1], [1], []]
    assert groups.after(groups.root, 2) == (0, 1) and groups.after((0, 1), 3) == (1,)
    mask = groups.mask((1,), np.array([1, 1, 0, 1, 1], dtype=np.uint8))
    assert mask.tolist() == [0, 0, 0, 1, 0]
    assert groups.grouped.tolist() == [True, True, True, True, False]


def test_save_and_load_keep_the_constraints(tmp_path):
    X, y = _data(6, n=400)
    model = rankcore.boost(learner="trees:interactions=0+1/2+3", n_iter=8, random_state=0).fit(X, y)
    path = tmp_path / "model.json"
    save_model(model, path)
    loaded = load_model(path)
    assert "interactions=0+1/2+3" in loaded.get_params()["learner"]
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    refit = rankcore.boost(**{k: v for k, v in loaded.get_params().items()}).fit(X, y)
    np.testing.assert_array_equal(refit.decision_function(X), model.decision_function(X))
    # groups given out of order, repeated or contained: the fitted spec is canonical, the given text kept
    model = rankcore.boost(learner="trees:interactions=2+3/0+1/1/2+3", n_iter=8, random_state=0).fit(X, y)
    assert model.learner_spec_.endswith("interactions=0+1/2+3")
    save_model(model, path)
    loaded = load_model(path)
    assert loaded.learner_spec_ == model.learner_spec_
    assert loaded.get_params()["learner"] == "trees:interactions=2+3/0+1/1/2+3"
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))


def test_refusals():
    X, y = _data(7, n=300)
    with pytest.raises(ValueError, match=r"interactions: column 7 is out of range.*0\.\.4"):
        rankcore.boost(learner="trees:interactions=0+7", n_iter=2).fit(X, y)
    # oblivious trees take the groups and monotone signs, but still refuse categorical columns
    assert resolve("learner", "trees:interactions=1+0,growth=oblivious").interactions == "0+1"
    assert resolve("learner", "trees:interactions=0+1,monotone=1/0,growth=oblivious").monotone == "1/0"
    with pytest.raises(ValueError, match=r"oblivious.*categorical"):
        resolve("learner", "trees:interactions=0+1,categorical=1,growth=oblivious")
    with pytest.raises(TypeError, match=r"interaction_constraints.*trees:interactions=0\+1/2\+3\+4"):
        rankcore.boost(interaction_constraints=[[0, 1], [2, 3]])


def test_a_layout_whose_groups_hold_no_stored_column_says_why_no_tree_grows():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    X[:, 2] = 0.0
    X[:5, 2] = 1.0                                      # nonzero on 5 rows: fewer than min_samples_leaf, not stored
    y = (X[:, 0] > 0).astype(int)
    with pytest.warns(UserWarning, match="interaction groups"):
        model = rankcore.boost(learner="trees:interactions=2", n_iter=3, random_state=0).fit(X, y)
    assert not model.rankers_
    X[:5, 2] = 0.0                                      # constant: oblivious trees keep rare columns, not these
    with pytest.warns(UserWarning, match="interaction groups"):
        model = rankcore.boost(learner="trees:interactions=2,growth=oblivious", n_iter=3, random_state=0).fit(X, y)
    assert not model.rankers_


@pytest.mark.parametrize("growth", ["leafwise", "depthwise"])
def test_groups_of_constant_columns_name_interactions_when_no_tree_grows(growth):
    # a constant nonzero column is stored (no bin edge): the groups, not bin_subsample or colsample, are to blame
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    X[:, 2] = 7.0
    y = (X[:, 0] > 0).astype(int)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = rankcore.boost(learner=f"trees:interactions=2,growth={growth}", n_iter=3, random_state=0).fit(X, y)
    assert not model.rankers_ and model.stop_reason_ == "no_split"
    text = " ".join(str(w.message) for w in caught)
    assert "interaction groups (interactions)" in text and "name other columns" in text
    assert "colsample" not in text


def test_the_oblivious_grower_refuses_malformed_groups():
    X, _ = _data(9, n=200, nan_fraction=0.0)
    layout = resolve("learner", "trees:growth=oblivious").prepare(X)
    grower = ObliviousGrower(layout.slots, 3, 1.0, 0.0, 0.0, 1e-12)
    group_ptr, members, feature_ptr, owners = InteractionGroups([np.array([0, 1])], 5).csr()
    grower.set_interactions((group_ptr, members, feature_ptr, owners))
    grower.set_interactions(None)
    with pytest.raises(ValueError, match="set_interactions: expected the compressed groups of 5 features"):
        grower.set_interactions((group_ptr, members, feature_ptr[:-1], owners))
    with pytest.raises(ValueError, match="set_interactions: expected the compressed groups of 5 features"):
        grower.set_interactions((group_ptr, members + 7, feature_ptr, owners))


def test_an_auto_ranker_of_constrained_trees_keeps_the_groups():
    # the trees candidate passes its groups to the learner; a fold bag sums models whose paths all lie in a group
    X, y = _data(4, n=400, nan_fraction=0.0)
    auto = rankcore.AutoRanker(candidates=["trees:interactions=0+1/2+3,n_iter=10"], random_state=0).fit(X, y)
    assert auto.leaderboard_["trees:n_iter=10,interactions=0+1/2+3"].status == "chosen"
    model = auto.best_estimator_
    models = getattr(model, "estimators", None) or [model]
    for m in models:
        assert m.rankers_ and not _violations(m, [[0, 1], [2, 3]])


def test_columns_in_no_group_are_named_once_per_fit():
    pd = pytest.importorskip("pandas")
    X, y = _data(5)[:2]
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d", "e"])
    for data, named in ((X, "the feature columns 3, 4 in no group"),
                        (frame, "the feature columns d (column 3), e (column 4) in no group")):
        for stopping in (False, True, "auto"):         # a hold-out fits the learner again: still one warning
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                rankcore.boost(learner="trees:interactions=0+1/2", n_iter=4, random_state=0,
                               early_stopping=stopping).fit(data, y)
            said = [w for w in caught if "in no group" in str(w.message)]
            assert len(said) == 1 and named in str(said[0].message), [str(w.message) for w in caught]
            assert said[0].category is UserWarning and said[0].filename == __file__
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rankcore.boost(learner="trees:interactions=0+1/2+3+4", n_iter=2, random_state=0).fit(X, y)
    assert not [w for w in caught if "in no group" in str(w.message)]
