"""Assertions shared by the tree tests."""

import chex


def assert_same_tree(got, want):
    """The same tree: structure and counts exactly; impurities and importances (computed from the
    counts in differently fused programs) to rounding."""
    exact = ("feature", "threshold", "is_leaf", "counts")
    chex.assert_trees_all_equal(
        tuple(getattr(got, f) for f in exact), tuple(getattr(want, f) for f in exact)
    )
    chex.assert_trees_all_close(
        (got.impurity, got.feature_importances),
        (want.impurity, want.feature_importances),
        rtol=1e-6,
        atol=1e-7,
    )
