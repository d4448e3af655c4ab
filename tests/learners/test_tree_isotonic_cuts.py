"""The projection's Cython kernels (``_isotonic_cuts.pyx``: components, recursive partitioning by Dinic minimum
cuts) against the plain Python recursion they replace (Edmonds-Karp on dicts, ``isotonic_leaves_by_cuts`` in
``_tree_references.py``) and the brute-force enumeration, on random orders with ties, cycles, shared leaves and
weights over fifteen orders of magnitude."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankcore.learners.trees._isotonic_cuts import components, partition_blocks
from rankcore.learners.trees._oblivious_monotone import isotonic_leaves, order_edges
from _tree_references import _components, isotonic_by_enumeration, isotonic_leaves_by_cuts
from test_tree_oblivious_monotone import _random_cells


def _first_cell_leaves(cell_node):
    """Each cell's leaf, the leaves numbered in the order of their first cell (as ``monotone_cells``)."""
    _, first, inverse = np.unique(cell_node, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.shape[0])
    return rank[inverse.reshape(-1)], order.shape[0]


def _sums(rng, n):
    G = np.round(rng.normal(size=n) * rng.choice([1.0, 100.0]), int(rng.integers(0, 3)))     # ties
    if rng.random() < 0.3:
        return G, rng.choice([1e-9, 0.5, 1.0, 3.0, 1e6], size=n)
    return G, rng.uniform(0.1, 2.0, size=n)


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 8))
def test_the_cuts_equal_the_python_recursion_on_oblivious_orders(seed, depth):
    """Trees whose nodes stay unsplit (shared leaves: a general preorder), every sign, up to 256 cells."""
    rng = np.random.default_rng(seed)
    leaf, n = _first_cell_leaves(_random_cells(rng, depth)[0])
    G, w = _sums(rng, n)
    lo, hi = order_edges(leaf, rng.integers(-1, 2, size=depth))
    value = isotonic_leaves(G, w, lo, hi)
    expect = isotonic_leaves_by_cuts(G, w, lo, hi)
    np.testing.assert_allclose(value, expect, rtol=1e-12, atol=1e-12 * (np.abs(G / w).max() + 1.0))
    assert np.all(value[lo] <= value[hi])


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 7), st.integers(0, 12))
def test_the_cuts_on_any_preorder_match_enumeration_and_the_python_recursion(seed, n, n_pairs):
    """Random pairs: cycles (their leaves pooled), isolated leaves, ties, tiny and huge weights."""
    rng = np.random.default_rng(seed)
    pairs = sorted({(int(a), int(b)) for a, b in rng.integers(0, n, size=(n_pairs, 2)) if a != b})
    G, w = _sums(rng, n)
    lo = np.array([a for a, _ in pairs], dtype=np.intp)
    hi = np.array([b for _, b in pairs], dtype=np.intp)
    value = isotonic_leaves(G, w, lo, hi)
    scale = np.abs(G / w).max() + 1.0
    np.testing.assert_allclose(value, isotonic_leaves_by_cuts(G, w, lo, hi), rtol=1e-12, atol=1e-12 * scale)
    if w.min() > 1e-3:          # the enumeration's own feasibility tolerance is 1e-12 of the scale
        np.testing.assert_allclose(value, isotonic_by_enumeration(G, w, pairs), rtol=1e-9, atol=1e-9 * scale)
    assert all(value[a] <= value[b] for a, b in pairs)


@pytest.mark.parametrize("depth", [6, 9])
def test_a_full_tree_with_every_level_constrained_equals_the_python_recursion_bit_for_bit(depth):
    """The worst case of the projection (the whole lattice one component), at a size the Python recursion
    takes well under a second: the same blocks, so the same values."""
    rng = np.random.default_rng(depth)
    G, w = rng.normal(size=1 << depth), rng.uniform(0.5, 2.0, size=1 << depth)
    lo, hi = order_edges(np.arange(1 << depth), np.where(rng.random(depth) < 0.5, 1, -1))
    np.testing.assert_array_equal(isotonic_leaves(G, w, lo, hi), isotonic_leaves_by_cuts(G, w, lo, hi))


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 30), st.integers(0, 40))
def test_components_equal_the_python_union_find(seed, n, n_pairs):
    rng = np.random.default_rng(seed)
    lo, hi = rng.integers(0, n, size=(2, n_pairs)).astype(np.intp)
    np.testing.assert_array_equal(components(n, lo, hi), _components(n, lo, hi))


def test_partition_blocks_solves_only_its_blocks_and_ignores_pairs_across_them():
    G = np.array([-2.0, 1.0, 3.0, -3.0, 5.0])        # block {0, 1} violated, {2, 3} not
    w = np.ones(5)
    lo, hi = np.array([0, 2, 1, 3], dtype=np.intp), np.array([1, 3, 4, 4], dtype=np.intp)
    value = np.full(5, 7.0)
    members, starts = np.array([0, 1, 2, 3], dtype=np.intp), np.array([0, 2, 4], dtype=np.intp)
    partition_blocks(G, w, members, starts, lo, hi, value)
    np.testing.assert_array_equal(value, [0.5, 0.5, -3.0, 3.0, 7.0])     # leaf 4: not a member, untouched
    partition_blocks(G, w, np.empty(0, dtype=np.intp), np.array([0], dtype=np.intp), lo, hi, value)
    with pytest.raises(ValueError, match="one entry per leaf"):
        partition_blocks(G, w[:4], members, starts, lo, hi, value)


def test_isotonic_leaves_without_a_violated_pair_keeps_the_newton_values():
    G, w = np.array([1.0, -1.0, -2.0]), np.array([1.0, 2.0, 3.0])
    lo, hi = np.array([0, 1], dtype=np.intp), np.array([1, 2], dtype=np.intp)
    np.testing.assert_array_equal(isotonic_leaves(G, w, lo, hi), -G / w)
    np.testing.assert_array_equal(isotonic_leaves(G, w, lo[:0], hi[:0]), -G / w)
