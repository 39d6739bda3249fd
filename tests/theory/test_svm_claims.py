"""The SVM optimisation claims, each solved independently in float64 and compared: UML Claim 15.5 (the
slack form (15.4) and the hinge form (15.5) of Soft-SVM), weak duality (UML section 15.8 Exercise 4) and the
strong duality of the Hard-SVM dual (15.11), the representer theorem (UML Theorem 16.1, (16.3)-(16.4)) and
UML section 15.8 Exercise 3 (no single lambda makes Soft-SVM return Hard-SVM's halfspace on every sample).

The reference solvers are scipy's (SLSQP for the quadratic programs, HiGHS for the linear ones); an optimum
is certified by its optimality condition (a sub-gradient 0 in the sub-differential), not by the solver."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import optimize

from jaxlearn import kernels, linear

# --- reference solvers (float64 numpy) ----------------------------------------------------------------


def _slack_qp(X, y, lam, *, bias):
    """UML (15.4): min lam ||w||^2 + mean(xi) s.t. y_i(<w, x_i> + b) >= 1 - xi_i, xi >= 0, by SLSQP over
    z = (w, b, xi). Returns (w, b, xi, value)."""
    m, d = X.shape
    nb = int(bias)
    n = d + nb + m
    A = np.zeros((2 * m, n))
    A[:m, :d] = y[:, None] * X
    if bias:
        A[:m, d] = y
    A[:m, d + nb :] = np.eye(m)
    A[m:, d + nb :] = np.eye(m)
    lower = np.concatenate([np.ones(m), np.zeros(m)])

    def value(z):
        return lam * z[:d] @ z[:d] + z[d + nb :].mean()

    def grad(z):
        g = np.zeros(n)
        g[:d], g[d + nb :] = 2 * lam * z[:d], 1 / m
        return g

    z0 = np.concatenate([np.zeros(d + nb), np.ones(m)])  # w = 0, xi = 1: feasible
    constraint = {"type": "ineq", "fun": lambda z: A @ z - lower, "jac": lambda z: A}
    z = optimize.minimize(
        value,
        z0,
        jac=grad,
        constraints=[constraint],
        method="SLSQP",
        options=dict(ftol=1e-15, maxiter=2000),
    ).x
    return z[:d], (z[d] if bias else 0.0), z[d + nb :], value(z)


def _hinge_form(w, b, X, y, lam):
    """UML (15.5): lam ||w||^2 + L_S^hinge((w, b))."""
    return lam * w @ w + np.mean(np.maximum(0.0, 1 - y * (X @ w + b)))


def _zero_subgradient_residual(w, b, X, y, lam, *, bias, tol=1e-7):
    """The distance from 0 to the sub-differential of (15.5) at (w, b): with c_i = 1 where the margin is
    below 1, 0 above, c_i in [0, 1] free on the margin, min_c ||2 lam w - (1/m) sum_i c_i y_i x_i|| (and
    |sum_i c_i y_i|/m for the unregularised b), a bounded least-squares problem. 0 iff (w, b) minimises."""
    m = X.shape[0]
    margins = y * (X @ w + b)
    on = np.abs(margins - 1) <= tol
    below = (margins < 1) & ~on
    rows = [y[:, None] * X / m]
    target = [2 * lam * w]
    if bias:
        rows.append(y[:, None] / m)
        target.append(np.zeros(1))
    G = np.concatenate(rows, axis=1).T  # column i: the sub-gradient direction of example i
    fixed = G[:, below].sum(axis=1)
    rhs = np.concatenate(target) - fixed
    if not on.any():
        return float(np.linalg.norm(rhs))
    fit = optimize.lsq_linear(G[:, on], rhs, bounds=(0.0, 1.0), tol=1e-14, method="bvls")
    return float(np.linalg.norm(G[:, on] @ fit.x - rhs))


def _noisy_sample(seed, m, d, *, scale=1.0):
    rng = np.random.default_rng(seed)
    X = scale * rng.normal(size=(m, d))
    y = np.where(X @ rng.normal(size=d) + 0.3 + 0.7 * rng.normal(size=m) >= 0, 1.0, -1.0)
    return X, y


# --- UML Claim 15.5 -----------------------------------------------------------------------------------


@pytest.mark.parametrize("bias", [False, True], ids=["homogeneous", "with_bias"])
def test_slack_form_and_hinge_form_of_soft_svm_have_one_optimum_claim_15_5(bias):
    """UML Claim 15.5 (SPEC 9.4): (15.4) min lam||w||^2 + mean(xi) s.t. y_i(<w, x_i> + b) >= 1 - xi_i,
    xi >= 0 and (15.5) min lam||w||^2 + L_S^hinge((w, b)) have the same optimum, and the optimal slacks are
    the hinge losses. (15.4) is solved as a QP; its (w, b) is certified optimal for (15.5) by a zero
    sub-gradient (residual <= 1e-9); the two optimum values agree to 1e-10; the slacks equal the hinge to
    1e-9; 2,000 random perturbations never lower (15.5) (up to 1e-12). Three lambdas on noisy data."""
    X, y = _noisy_sample(0, 30, 3)
    rng = np.random.default_rng(1)
    for lam in (0.003, 0.03, 0.3):
        w, b, xi, value = _slack_qp(X, y, lam, bias=bias)
        hinge = np.maximum(0.0, 1 - y * (X @ w + b))
        np.testing.assert_allclose(xi, hinge, atol=1e-9)  # optimal xi_i = hinge
        assert _hinge_form(w, b, X, y, lam) == pytest.approx(value, abs=1e-10)
        assert _zero_subgradient_residual(w, b, X, y, lam, bias=bias) <= 1e-9
        assert 0 < (hinge > 0).sum() < len(y)  # lambda matters: some, not all, examples pay a hinge
        steps = rng.normal(size=(2000, X.shape[1] + 1)) * np.logspace(-6, 0, 2000)[:, None]
        W, B = w + steps[:, :-1], b + bias * steps[:, -1]
        values = lam * np.sum(W**2, axis=1) + np.maximum(0.0, 1 - y * (W @ X.T + B[:, None])).mean(
            axis=1
        )
        assert values.min() >= value - 1e-12


def test_soft_svm_sgd_approaches_the_exact_optimum_of_15_6(x64):
    """UML (15.6)/(15.12) and Claim 15.5: linear.soft_svm(2 lam) minimises lam||w||^2 + L_S^hinge(w) (its
    lam/2 convention). After 50,000 SGD steps (two lambdas in one vmapped fit) its objective is within 1% of
    the exact optimum of the slack QP (15.4) and never below it (the QP is the minimum; measured 0.06%); its
    w is within 8% of the QP's."""
    X, y = _noisy_sample(2, 30, 3)
    lams = (0.05, 0.5)
    key, Xj, yj = jax.random.PRNGKey(0), jnp.asarray(X), jnp.asarray(y)
    W = np.asarray(
        jax.vmap(lambda lam: linear.soft_svm(2 * lam, 50_000).fit(key, Xj, yj).w)(jnp.asarray(lams))
    )
    for lam, w in zip(lams, W):
        w_exact, _, _, value = _slack_qp(X, y, lam, bias=False)
        sgd_value = _hinge_form(w, 0.0, X, y, lam)
        assert value - 1e-12 <= sgd_value <= 1.01 * value
        assert np.linalg.norm(w - w_exact) <= 0.08 * np.linalg.norm(w_exact)  # measured 4%


# --- weak duality (UML 15.8 Exercise 4, SPEC 9.3, 20) -------------------------------------------------


def _mixed_value(A, player):
    """The value of the matrix game min_p max_q p^T A q by linprog: the row player (player='min') solves
    min t s.t. (p^T A)_j <= t, p in the simplex; the column player ('max') max s s.t. (A q)_i >= s."""
    n, k = A.shape
    if player == "min":  # variables (p, t)
        c = np.r_[np.zeros(n), 1.0]
        A_ub, b_ub = np.c_[A.T, -np.ones(k)], np.zeros(k)
        A_eq = np.r_[np.ones(n), 0.0][None]
        bounds = [(0, None)] * n + [(None, None)]
        res = optimize.linprog(
            c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[1.0], bounds=bounds, method="highs"
        )
        return res.x[-1], res.x[:n]
    c = np.r_[np.zeros(k), -1.0]  # variables (q, s)
    A_ub, b_ub = np.c_[-A, np.ones(n)], np.zeros(n)
    A_eq = np.r_[np.ones(k), 0.0][None]
    bounds = [(0, None)] * k + [(None, None)]
    res = optimize.linprog(
        c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[1.0], bounds=bounds, method="highs"
    )
    return res.x[-1], res.x[:k]


def test_min_max_is_at_least_max_min_and_mixed_strategies_close_the_gap_exercise_15_4():
    """UML section 15.8 Exercise 4 (SPEC 9.3, 20): min_x max_y f(x, y) >= max_y min_x f(x, y) for every f.
    On 2,000 random payoff matrices (pure strategies, vectorised) the inequality always holds and is strict
    on many (matching pennies among them); with mixed strategies (two separate LPs, one per player) the two
    sides are equal to 1e-9 (von Neumann), lie between the pure max-min and min-max, and the two optimal
    strategies form a saddle point."""
    A = jax.random.normal(jax.random.PRNGKey(3), (2000, 4, 5), jnp.float32)
    min_max = A.max(axis=2).min(axis=1)
    max_min = A.min(axis=1).max(axis=1)
    assert bool(jnp.all(min_max >= max_min))
    assert float(jnp.mean(min_max > max_min)) > 0.5  # the gap is strict on most of them
    pennies = jnp.array([[1.0, -1.0], [-1.0, 1.0]])
    assert float(pennies.max(axis=1).min()) == 1.0 and float(pennies.min(axis=0).max()) == -1.0
    for i in range(25):
        M = np.asarray(A[i], np.float64)
        upper, p = _mixed_value(M, "min")
        lower, q = _mixed_value(M, "max")
        assert upper == pytest.approx(lower, abs=1e-9)  # min max = max min over mixed strategies
        assert float(max_min[i]) - 1e-6 <= lower and upper <= float(min_max[i]) + 1e-6
        assert (p @ M).max() == pytest.approx(upper, abs=1e-9)  # p guarantees the value...
        assert (M @ q).min() == pytest.approx(lower, abs=1e-9)  # ...and so does q
    value, _ = _mixed_value(np.asarray(pennies, np.float64), "min")
    assert value == pytest.approx(0.0, abs=1e-12)  # pure gap 2, mixed value 0


def _two_support_vectors(d, m):
    """A separable sample whose Hard-SVM solution is known: two points R(+-1, 0.3, 0, ...) with labels +-1
    force <w, e_0'> >= 1, hence w_0 = R e_0 (R a random rotation); the other m - 2 points have
    y <R e_0, x> >= 1.5 and random other coordinates. Returns (X, y, w_0)."""
    rng = np.random.default_rng(7)
    Z = rng.normal(size=(m, d))
    y = np.where(np.arange(m) % 2 == 0, 1.0, -1.0)
    Z[:, 0] = y * (1.5 + np.abs(Z[:, 0]))
    Z[:2] = 0.0
    Z[:2, 0], Z[:2, 1] = y[:2], 0.3
    R, _ = np.linalg.qr(rng.normal(size=(d, d)))
    return Z @ R.T, y, R[:, 0]


def _hard_svm_dual(alpha, X, y):
    """(15.11): sum_i alpha_i - 1/2 ||sum_i alpha_i y_i x_i||^2."""
    v = (alpha * y) @ X
    return alpha.sum() - 0.5 * v @ v


def test_hard_svm_dual_value_equals_the_primal_at_hard_svms_alpha_15_11(x64):
    """UML section 15.4 (15.8)-(15.11) (SPEC 9.3): weak duality, D(alpha) <= 1/2||w||^2 for every alpha >= 0
    and every w feasible for (15.3) (100,000 random pairs), and strong duality at linear.hard_svm's alpha:
    D(alpha) = 1/2||w_0||^2 to 1e-9 (relative), sum alpha = ||w_0||^2, and scipy's own maximisation of (15.11)
    (L-BFGS-B, alpha >= 0) finds no larger value. The multipliers are those of the 1/2||w||^2 problem (SPEC
    9.3 seed inconsistency). On a sample with two margin points in R^6 (w_0 known): alpha_i > 0 exactly on
    them, 0 elsewhere, and w_0 is in their span (UML Theorem 15.8; least-squares residual 1e-10)."""
    X, y, w_known = _two_support_vectors(6, 60)
    params = linear.hard_svm(tol=1e-12).fit(None, jnp.asarray(X), jnp.asarray(y))
    assert bool(params.converged)
    w, alpha = np.asarray(params.w), np.asarray(params.alpha)
    np.testing.assert_allclose(w, w_known, atol=1e-9)
    primal = 0.5 * w @ w
    assert _hard_svm_dual(alpha, X, y) == pytest.approx(primal, rel=1e-9)
    assert alpha.sum() == pytest.approx(w @ w, rel=1e-9)
    res = optimize.minimize(
        lambda a: -_hard_svm_dual(a, X, y),
        np.zeros(len(y)),
        jac=lambda a: -(1 - y * (X @ ((a * y) @ X))),
        method="L-BFGS-B",
        bounds=[(0, None)] * len(y),
        options=dict(ftol=1e-15, gtol=1e-12, maxiter=10_000),
    )
    assert -res.fun <= primal * (1 + 1e-9)
    assert -res.fun == pytest.approx(primal, rel=1e-6)
    # weak duality on random pairs: w near w_0 rescaled to be feasible (least margin 1), alpha >= 0 near alpha
    rng = np.random.default_rng(5)
    W = w + rng.normal(size=(100_000, 6)) * rng.uniform(0, 0.5 * np.linalg.norm(w), (100_000, 1))
    least = (y[:, None] * (X @ W.T)).min(axis=0)
    W = W[least > 0] / least[least > 0, None]
    A = np.maximum(
        alpha + rng.normal(size=(100_000, len(y))) * np.logspace(-6, 0, 100_000)[:, None], 0.0
    )
    duals = A.sum(axis=1) - 0.5 * np.sum(((A * y) @ X) ** 2, axis=1)
    assert len(W) > 10_000
    halves = 0.5 * np.sum(W**2, axis=1)
    assert duals.max() <= halves.min()  # every D(alpha) <= every 1/2||w||^2
    assert duals.max() <= primal + 1e-12 and primal <= halves.min() * (1 + 1e-12)
    assert duals.max() >= primal - 1e-4 and halves.min() <= primal + 1e-4  # both sides come close
    margins = y * (X @ w)
    assert np.all(alpha[margins > 1 + 1e-6] == 0)  # complementary slackness
    on = np.abs(margins - 1) <= 1e-6
    coef, *_ = np.linalg.lstsq(X[on].T, w, rcond=None)
    assert np.linalg.norm(X[on].T @ coef - w) <= 1e-10 * np.linalg.norm(w)
    assert on.sum() == 2 < X.shape[1]  # two margin points in R^6: the span claim is not trivial
    assert np.flatnonzero(alpha > 0).tolist() == np.flatnonzero(on).tolist()


# --- the representer theorem (UML Theorem 16.1, (16.3)-(16.4)) ---------------------------------------


def _kernel_qp(G, y, lam):
    """UML (16.4): min_alpha lam alpha^T G alpha + (1/m) sum max{0, 1 - y_i (G alpha)_i}, as a QP in
    (alpha, xi) by SLSQP. Returns (alpha, value)."""
    m = len(y)
    A = np.zeros((2 * m, 2 * m))
    A[:m, :m] = y[:, None] * G
    A[:m, m:] = np.eye(m)
    A[m:, m:] = np.eye(m)
    lower = np.concatenate([np.ones(m), np.zeros(m)])

    def value(z):
        return lam * z[:m] @ G @ z[:m] + z[m:].mean()

    def grad(z):
        return np.concatenate([2 * lam * G @ z[:m], np.full(m, 1 / m)])

    z0 = np.concatenate([np.zeros(m), np.ones(m)])
    constraint = {"type": "ineq", "fun": lambda z: A @ z - lower, "jac": lambda z: A}
    z = optimize.minimize(
        value,
        z0,
        jac=grad,
        constraints=[constraint],
        method="SLSQP",
        options=dict(ftol=1e-15, maxiter=2000),
    ).x
    return z[:m], value(z)


def test_kernel_soft_svm_and_the_primal_in_feature_space_agree_representer_theorem_16_1(x64):
    """UML Theorem 16.1, (16.3)-(16.4) (SPEC 9.6): with the degree-2 polynomial kernel and its explicit map
    psi (kernels.polynomial_features, 9 coordinates for x in R^2), the kernel Soft-SVM (16.4) over alpha and
    the primal Soft-SVM over w in feature space have the same optimum value (1e-9), Phi^T alpha is the
    primal optimum (1e-7) with the same predictions on fresh points (1e-7), the primal optimum has no
    component orthogonal to span{psi(x_i)} (1e-9; measured 1e-15 for all three), and projecting any of
    1,000 random w onto that span keeps the hinge losses and lowers (never raises) the objective."""
    rng = np.random.default_rng(6)
    X = rng.uniform(-1, 1, size=(24, 2))
    y = np.where(X[:, 0] ** 2 + 0.5 * X[:, 1] - 0.3 + 0.2 * rng.normal(size=24) >= 0, 1.0, -1.0)
    lam = 0.02
    Phi = np.asarray(jax.vmap(lambda x: kernels.polynomial_features(x, 2))(jnp.asarray(X)))
    G = np.asarray(kernels.gram(kernels.polynomial(2), jnp.asarray(X)))
    np.testing.assert_allclose(G, Phi @ Phi.T, atol=1e-12)
    assert np.linalg.matrix_rank(Phi) < Phi.shape[1]  # span{psi(x_i)} is a proper subspace of R^9

    w, _, _, primal = _slack_qp(Phi, y, lam, bias=False)
    assert _zero_subgradient_residual(w, 0.0, Phi, y, lam, bias=False) <= 1e-9
    alpha, dual = _kernel_qp(G, y, lam)
    assert dual == pytest.approx(primal, abs=1e-9)  # (16.3)/(16.4) = the primal optimum
    np.testing.assert_allclose(Phi.T @ alpha, w, atol=1e-7)  # w = sum_j alpha_j psi(x_j)
    fresh = rng.uniform(-1, 1, size=(200, 2))
    K = np.asarray(kernels.gram(kernels.polynomial(2), jnp.asarray(fresh), jnp.asarray(X)))
    Phi_fresh = np.asarray(
        jax.vmap(lambda x: kernels.polynomial_features(x, 2))(jnp.asarray(fresh))
    )
    np.testing.assert_allclose(
        K @ alpha, Phi_fresh @ w, atol=1e-7
    )  # prediction by the kernel alone

    basis, *_ = np.linalg.svd(Phi.T, full_matrices=False)
    basis = basis[:, : np.linalg.matrix_rank(Phi)]  # orthonormal basis of span{psi(x_i)}
    assert np.linalg.norm(w - basis @ (basis.T @ w)) <= 1e-9
    W = 2 * rng.normal(size=(1000, Phi.shape[1]))
    P = W @ basis @ basis.T  # the projections
    np.testing.assert_allclose(W @ Phi.T, P @ Phi.T, atol=1e-10)  # <w, psi(x_i)> unchanged
    before, after = (
        lam * np.sum(V**2, axis=1) + np.maximum(0, 1 - y * (V @ Phi.T)).mean(axis=1) for V in (W, P)
    )
    assert np.all(after <= before + 1e-12) and np.all(after >= primal - 1e-12)
    assert np.mean(after < before - 1e-6) > 0.99  # strictly lower when w leaves the span


# --- UML section 15.8 Exercise 3 ----------------------------------------------------------------------


def test_no_lambda_makes_soft_svm_return_the_hard_svm_halfspace_on_every_sample_exercise_15_3(x64):
    """UML section 15.8 Exercise 3 (SPEC 21): the claim "some lam > 0 makes Soft-SVM and Hard-SVM return
    the same w on every separable sample" is false. For each lam in {1e-1, 1e-3, 1e-5}, a separable sample
    shrunk by a factor s has Hard-SVM direction w_0/||w_0|| independent of s, while the exact Soft-SVM
    (15.6) with that lam returns a different direction (angle > 0.25 rad) once s is small; with s = 1 and a
    small enough lam the two coincide (1e-6): the threshold depends on the sample, not on lam alone."""
    X = np.array([[1.0, 2.0], [2.0, 0.5], [-1.0, -1.5], [-2.0, 0.2], [0.4, 0.1]])
    y = np.array([1.0, 1.0, -1.0, -1.0, 1.0])
    hard = np.asarray(linear.hard_svm(tol=1e-12).fit(None, X, y).w)
    direction = hard / np.linalg.norm(hard)

    def soft_direction(lam, s):
        w, *_ = _slack_qp(s * X, y, lam, bias=False)
        return w / np.linalg.norm(w)

    np.testing.assert_allclose(soft_direction(1e-5, 1.0), direction, atol=1e-6)
    for lam in (1e-1, 1e-3, 1e-5):
        shrunk = np.asarray(linear.hard_svm(tol=1e-12).fit(None, 1e-3 * X, y).w)
        np.testing.assert_allclose(shrunk / np.linalg.norm(shrunk), direction, atol=1e-8)
        angle = np.arccos(np.clip(soft_direction(lam, 1e-3) @ direction, -1, 1))
        assert angle > 0.25  # measured 0.30 rad
