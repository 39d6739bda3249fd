"""Hard-SVM with an unregularised bias, ``hard_svm(fit_intercept=True)``: UML (15.2), Claim 15.1,
Lemma 15.2, the dual of section 15.4 with sum alpha_i y_i = 0, and UML 15.8 Exercise 1 (SPEC 9.1-9.3)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import linear

OFFSET = np.array([3.0, -2.0, 1.0])  # the sample lies away from the origin: the bias matters


def _sample(seed, m=40, d=3, gap=0.15):
    """Separable by the affine ``<w*, x> + b* = 0`` with ``|<w*, x> + b*| >= gap`` (unit w*), centred
    at ``OFFSET``."""
    rng = np.random.default_rng(seed)
    w_star = rng.normal(size=d)
    w_star /= np.linalg.norm(w_star)
    X = rng.normal(size=(20 * m, d)) + OFFSET[:d]
    score = X @ w_star - OFFSET[:d] @ w_star + 0.3
    keep = np.abs(score) >= gap
    return X[keep][:m], np.sign(score[keep][:m])


def _fit(X, y, **kwargs):
    return linear.hard_svm(fit_intercept=True, **kwargs).fit(None, X, y)


def _kkt_reference(X, y, support):
    """The (w, b, alpha) solving the KKT equalities on ``support``: y_i(<w, x_i> + b) = 1 there,
    w = sum alpha_i y_i x_i, sum alpha_i y_i = 0 (a float64 linear solve)."""
    S = np.flatnonzero(support)
    n = len(S)
    A = np.zeros((n + 1, n + 1))
    A[:n, :n] = np.outer(y[S], y[S]) * (X[S] @ X[S].T)
    A[:n, n] = y[S]
    A[n, :n] = y[S]
    solution = np.linalg.lstsq(A, np.append(np.ones(n), 0.0), rcond=None)[0]
    alpha = np.zeros(len(y))
    alpha[S] = solution[:n]
    return (alpha * y) @ X, solution[n], alpha


def _best_margin_per_direction(U, X, y):
    """For each unit row u of ``U`` the best bias and margin: with p = min_{y=+1} <u, x> and
    n = max_{y=-1} <u, x>, b = -(p + n)/2 and margin (p - n)/2 (max over b of min_i y_i(<u, x_i> + b))."""
    scores = X @ U.T
    p = np.where(y[:, None] > 0, scores, np.inf).min(axis=0)
    n = np.where(y[:, None] < 0, scores, -np.inf).max(axis=0)
    return -(p + n) / 2, (p - n) / 2


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bias_solution_satisfies_the_kkt_conditions_of_15_2(x64, seed):
    """UML (15.2), section 15.4: the fit is the KKT point of the bias problem to 1e-9 (float64); the
    reference, a linear solve on the support set, certifies itself (alpha > 0 on it, every constraint
    feasible: KKT is sufficient for this convex program)."""
    X, y = _sample(seed)
    params = _fit(X, y, tol=1e-10)
    assert bool(params.converged) and bool(params.separable)
    w, b, alpha = np.asarray(params.w), float(params.b), np.asarray(params.alpha)
    w_ref, b_ref, alpha_ref = _kkt_reference(X, y, np.asarray(params.support))
    assert alpha_ref[np.asarray(params.support)].min() > 0  # the reference is the optimum ...
    assert (y * (X @ w_ref + b_ref)).min() >= 1 - 1e-12  # ... and feasible
    np.testing.assert_allclose(w, w_ref, rtol=0, atol=1e-9)
    np.testing.assert_allclose(b, b_ref, rtol=0, atol=1e-9)
    np.testing.assert_allclose(alpha, alpha_ref, rtol=0, atol=1e-8)
    # the dual identities with the bias: w = sum alpha_i y_i x_i, sum alpha_i y_i = 0, sum alpha = ||w||^2
    np.testing.assert_allclose(w, (alpha * y) @ X, rtol=0, atol=1e-12)
    assert abs(alpha @ y) <= 1e-12 * alpha.sum()
    np.testing.assert_allclose(alpha.sum(), w @ w, rtol=1e-9)
    assert np.isclose(float(params.margin), 1 / np.linalg.norm(w), rtol=1e-12)


def test_bias_agrees_with_sklearn_svc(x64):
    """SVC(kernel="linear") with C = 1e10 is (15.2) up to libsvm's own tolerance: w and b agree to a
    relative 1e-5 (libsvm stops about 4e-6 away from the KKT point the test above certifies) and the
    support vectors are the same (UML (15.2); scikit-learn as the reference)."""
    from sklearn.svm import SVC

    for seed in (3, 9):
        X, y = _sample(seed)
        params = _fit(X, y, tol=1e-10)
        svc = SVC(kernel="linear", C=1e10, tol=1e-12).fit(X, y)
        scale = np.abs(svc.coef_[0]).max()
        np.testing.assert_allclose(params.w, svc.coef_[0], rtol=0, atol=1e-5 * scale)
        np.testing.assert_allclose(float(params.b), svc.intercept_[0], rtol=1e-5, atol=1e-5 * scale)
        np.testing.assert_array_equal(np.flatnonzero(params.support), np.sort(svc.support_))
        alpha = np.asarray(params.alpha)[svc.support_]
        np.testing.assert_allclose(alpha, np.abs(svc.dual_coef_[0]), rtol=1e-4, atol=1e-6)


def test_margin_is_the_largest_over_every_direction_and_bias_and_the_abs_form_agrees(x64):
    """Lemma 15.2 with a bias: (w_0, b_0)/||w_0|| maximises min_i y_i(<w, x_i> + b) over unit w and all b
    (never beaten by 20,000 random directions, each with its best bias), with value 1/||w_0||; UML 15.8
    Exercise 1: the |.| form (15.1 with the separation constraint) has the same maximiser and value,
    and without the constraint it is unbounded (a far hyperplane), so the constraint is needed."""
    X, y = _sample(4)
    params = _fit(X, y, tol=1e-10)
    w, b = np.asarray(params.w), float(params.b)
    gamma = float(params.margin)
    unit, bias = w / np.linalg.norm(w), b / np.linalg.norm(w)
    best_b, best = _best_margin_per_direction(unit[None], X, y)
    np.testing.assert_allclose(
        best[0], gamma, rtol=1e-9
    )  # our bias is the best one for our direction
    np.testing.assert_allclose(best_b[0], bias, rtol=1e-9, atol=1e-9)
    U = np.random.default_rng(0).normal(size=(20_000, X.shape[1]))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    biases, margins = _best_margin_per_direction(U, X, y)
    assert margins.max() <= gamma + 1e-12
    assert margins.max() >= 0.9 * gamma  # the search gets close: the comparison has teeth
    # the two forms on the candidates (ours last)
    U, biases = np.vstack([U, unit]), np.append(biases, bias)
    affine = X @ U.T + biases
    separates = (y[:, None] * affine > 0).all(axis=0)
    signed = (y[:, None] * affine).min(axis=0)
    absolute = np.where(separates, np.abs(affine).min(axis=0), -np.inf)
    np.testing.assert_array_equal(absolute[separates], signed[separates])
    assert np.argmax(signed) == np.argmax(absolute) == len(U) - 1
    far = np.abs(X @ unit + bias + 100.0).min()  # the hyperplane shifted past the sample
    assert far > gamma and not (y * (X @ unit + bias + 100.0) > 0).all()


def test_claim_15_1_distance_to_the_hyperplane_is_the_absolute_score(x64):
    """Claim 15.1: for unit w the distance from x to {v: <w, v> + b = 0} is |<w, x> + b|, attained at
    x - (<w, x> + b) w. Measured by a least-squares projection onto the plane (an orthonormal basis of
    w's complement) and by 2,000 random points of the plane that never come closer; the smallest
    distance over the sample is the margin 1/||w_0|| (support vectors at exactly that distance)."""
    X, y = _sample(5)
    params = _fit(X, y, tol=1e-10)
    w = np.asarray(params.w)
    unit, bias = w / np.linalg.norm(w), float(params.b) / np.linalg.norm(w)
    basis = np.linalg.svd(unit[None])[2][1:].T  # (d, d-1): orthonormal, orthogonal to unit
    origin = -bias * unit  # a point of the plane
    coefficients = np.linalg.lstsq(basis, (X - origin).T, rcond=None)[0]
    projections = origin + (basis @ coefficients).T
    distances = np.linalg.norm(X - projections, axis=1)
    np.testing.assert_allclose(distances, np.abs(X @ unit + bias), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(projections, X - np.outer(X @ unit + bias, unit), atol=1e-12)
    plane = (
        origin + np.random.default_rng(1).normal(scale=3.0, size=(2000, basis.shape[1])) @ basis.T
    )
    np.testing.assert_allclose(plane @ unit + bias, 0.0, atol=1e-12)
    random_distances = np.linalg.norm(X[:, None, :] - plane[None], axis=2).min(axis=1)
    assert (random_distances >= distances - 1e-12).all()
    np.testing.assert_allclose(distances.min(), float(params.margin), rtol=1e-9)
    np.testing.assert_allclose(
        distances[np.asarray(params.support)], float(params.margin), rtol=1e-9
    )


def test_bias_is_not_a_regularised_constant_feature(x64):
    """SPEC 9.2: a constant feature puts b in the norm, (15.3) on (x, 1), another halfspace. Away from
    the origin its margin (as an affine separator of x, b excluded from the norm) is strictly smaller
    than the (15.2) margin, and homogeneous Hard-SVM on x alone is much smaller still."""
    X, y = _sample(6)
    gamma = float(_fit(X, y).margin)
    augmented = linear.hard_svm().fit(None, np.hstack([X, np.ones((len(y), 1))]), y)
    w_c, b_c = np.asarray(augmented.w[:-1]), float(augmented.w[-1])
    constant_margin = (y * (X @ w_c + b_c)).min() / np.linalg.norm(w_c)
    assert 0 < constant_margin < 0.99 * gamma
    homogeneous = linear.hard_svm().fit(None, X, y)
    assert not bool(homogeneous.separable) or float(homogeneous.margin) < constant_margin


def test_translation_moves_only_the_bias_and_float32_agrees():
    """(15.2) is translation invariant: X + c gives the same w and b - <w, c>; the float32 fit (the
    default dtype) has the float64 margin to 1e-4 and predicts the same labels."""
    X, y = _sample(7)
    with jax.enable_x64(True):
        exact = _fit(X, y, tol=1e-10)
        shifted = _fit(X + np.array([10.0, -5.0, 2.0]), y, tol=1e-10)
        np.testing.assert_allclose(shifted.w, exact.w, rtol=1e-8, atol=1e-9)
        shift = float(exact.w @ np.array([10.0, -5.0, 2.0]))
        np.testing.assert_allclose(float(shifted.b), float(exact.b) - shift, rtol=1e-8, atol=1e-8)
    params = _fit(X.astype(np.float32), y.astype(np.float32))
    assert params.w.dtype == jnp.float32 and bool(params.converged)
    np.testing.assert_allclose(float(params.margin), float(exact.margin), rtol=1e-4)
    learner = linear.hard_svm(fit_intercept=True)
    np.testing.assert_array_equal(learner.predict(params, X.astype(np.float32)), y)


def test_bias_fit_under_vmap_equals_separate_fits():
    """One program for several samples: vmap of the bias fit equals separate fits (float32)."""
    samples = [_sample(seed) for seed in (10, 11, 12)]
    Xs = jnp.asarray(np.stack([X for X, _ in samples]), jnp.float32)
    ys = jnp.asarray(np.stack([y for _, y in samples]), jnp.float32)
    learner = linear.hard_svm(fit_intercept=True)
    batch = jax.vmap(learner.fit, (None, 0, 0))(None, Xs, ys)
    for i in range(3):
        one = learner.fit(None, Xs[i], ys[i])
        np.testing.assert_allclose(batch.w[i], one.w, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(batch.b[i], one.b, rtol=1e-5, atol=1e-5)
        assert bool(batch.converged[i]) and bool(one.converged)


def test_non_separable_samples_are_reported():
    """A sample no affine halfspace separates (labels of a separable one flipped) is flagged
    (separable False, finite w, b) well before max_steps, and check_separable raises on it and
    passes on a separable fit."""
    X, y = _sample(8)
    y = y.copy()
    y[:6] *= -1
    params = _fit(X.astype(np.float32), y.astype(np.float32))
    assert not bool(params.separable) and not bool(params.converged) and float(params.margin) == 0.0
    assert int(params.num_steps) < 10_000
    assert np.isfinite(np.asarray(params.w)).all() and np.isfinite(float(params.b))
    with pytest.raises(ValueError, match="not linearly separable"):
        linear.check_separable(params)
    linear.check_separable(
        _fit(X.astype(np.float32), -np.sign(X @ np.ones(3) - 2.0).astype(np.float32))
    )


@pytest.mark.parametrize("fit_intercept", [False, True], ids=["homogeneous", "bias"])
def test_examples_of_weight_zero_take_no_part(x64, fit_intercept):
    """``fit(..., sample_weight)``: examples of weight 0 (here far on the wrong side, so they would
    change the solution) leave the fit of the others' sample, to the solver's tolerance in float64
    (sums over more rows round differently); the positive weights are alike."""
    X, y = _sample(0)
    X = X if fit_intercept else X - OFFSET  # the homogeneous problem: separable through the origin
    learner = linear.hard_svm(fit_intercept=fit_intercept, tol=1e-10)
    alone = learner.fit(None, X, y)
    outliers = np.tile(X[:2], (3, 1)) * 4 + 1
    X_all = np.concatenate([X[:10], outliers, X[10:]])
    y_all = np.concatenate([y[:10], -np.tile(y[:2], 3), y[10:]])
    weights = np.concatenate([np.full(10, 2.0), np.zeros(6), np.full(len(y) - 10, 0.5)])
    mixed = learner.fit(None, X_all, y_all, weights)
    assert bool(alone.converged) and bool(mixed.converged) and bool(mixed.separable)
    np.testing.assert_allclose(mixed.w, alone.w, rtol=0, atol=1e-8)
    np.testing.assert_allclose(mixed.b, alone.b, rtol=0, atol=1e-8)
    kept = np.r_[np.arange(10), np.arange(16, len(y_all))]
    np.testing.assert_allclose(np.asarray(mixed.alpha)[kept], alone.alpha, rtol=0, atol=1e-7)
    np.testing.assert_array_equal(np.asarray(mixed.alpha)[10:16], 0)
    np.testing.assert_allclose(mixed.margin, alone.margin, rtol=1e-9)
    with pytest.raises(ValueError, match="sample_weight"):
        learner.check(X, y, np.ones(len(y) + 1))
