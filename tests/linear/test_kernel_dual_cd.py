"""linear.kernel_svm_dual_cd: the exact kernel Soft-SVM by libsvm's SMO over the Gram matrix.

In float64 against scikit-learn's SVC (libsvm: the same algorithm, objective and intercept) with
tight tolerances on both sides: decision values, dual coefficients and intercept on linear,
Gaussian and polynomial kernels, with sample weights; a padded sample (zero-weight rows) equals the
unpadded fit bit for bit; vmap over C equals the separate fits bit for bit; a weight 0 equals the
row removed; the certificates (violation, gap, converged, n_iter); bad inputs.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris, make_moons
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from jaxlearn import kernels
from jaxlearn.linear import KernelSVMDualCDParams, kernel_svm_dual_cd
from jaxlearn.linear._kernel_dual_cd import gram_matrix


def _breast_cancer(m=200):
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X)[:m], (2.0 * y - 1)[:m]


def _moons(m=150):
    X, y = make_moons(m, noise=0.3, random_state=0)
    return X, 2.0 * y - 1


def _iris_versicolor():
    X, y = load_iris(return_X_y=True)
    return StandardScaler().fit_transform(X), np.where(y == 1, 1.0, -1.0)  # not linearly separable


# (ours, scikit-learn's) for one kernel: gamma = 1 / (2 sigma) for the Gaussian; poly (x.z + 1)^2
KERNELS = {
    "linear": (kernels.linear(), dict(kernel="linear")),
    "rbf": (kernels.gaussian(1.0 / (2 * 0.1)), dict(kernel="rbf", gamma=0.1)),
    "poly": (kernels.polynomial(2), dict(kernel="poly", degree=2, gamma=1.0, coef0=1.0)),
}
DATA = {"breast_cancer": _breast_cancer, "moons": _moons, "iris": _iris_versicolor}


def _dense_dual_coef(svc, m):
    coef = np.zeros(m)
    coef[svc.support_] = svc.dual_coef_[0]
    return coef


@pytest.mark.parametrize("data", sorted(DATA))
@pytest.mark.parametrize("kernel", sorted(KERNELS))
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_matches_libsvm_in_float64(data, kernel, C, x64):
    X, y = DATA[data]()
    ours, theirs = KERNELS[kernel]
    learner = kernel_svm_dual_cd(ours, C, tol=1e-9)
    params = learner.fit(None, X, y)
    assert isinstance(params, KernelSVMDualCDParams) and params.dual_coef.dtype == jnp.float64
    assert bool(params.converged) and float(params.violation) <= 1e-9
    svc = SVC(C=C, tol=1e-9, **theirs).fit(X, y)
    want = svc.decision_function(X)
    got = np.asarray(learner.decision_function(params, X))
    scale = max(1.0, np.max(np.abs(want)))
    assert np.max(np.abs(got - want)) <= 1e-5 * scale, np.max(np.abs(got - want))
    coef = _dense_dual_coef(svc, len(y))
    # the dual optimum need not be unique (a Gaussian Gram matrix of 2-d points is nearly singular)
    assert np.max(np.abs(np.asarray(params.dual_coef) - coef)) <= 1e-4 * C
    assert abs(float(params.b) - svc.intercept_[0]) <= 1e-5 * scale
    # the same support (up to coefficients at the solver's resolution)
    support = np.flatnonzero(np.abs(np.asarray(params.dual_coef)) > 1e-6 * C)
    assert set(support) <= set(svc.support_)
    # the dual objective at the optimum: a duality gap of zero up to rounding
    assert -1e-9 <= float(params.gap) <= 1e-6 * C * len(y)


def test_default_tolerance_agrees_with_scikit_learns_default(x64):
    X, y = _breast_cancer()
    learner = kernel_svm_dual_cd(kernels.gaussian(1.0 / (2 * 0.05)), 1.0)  # tol=1e-3, as SVC's
    params = learner.fit(None, X, y)
    svc = SVC(gamma=0.05).fit(X, y)
    got, want = np.asarray(learner.decision_function(params, X)), svc.decision_function(X)
    assert np.max(np.abs(got - want)) <= 1e-2
    np.testing.assert_array_equal(got > 0, want > 0)
    steps, libsvm_steps = int(params.n_iter), int(svc.n_iter_[0])
    assert abs(steps - libsvm_steps) <= 0.2 * libsvm_steps  # close to libsvm's own count


def test_sample_weight_matches_libsvm(x64):
    X, y = _moons()
    weight = np.random.default_rng(0).uniform(0.2, 3.0, size=len(y))
    learner = kernel_svm_dual_cd(kernels.gaussian(1.0), 2.0, tol=1e-9)
    params = learner.fit(None, X, y, weight)
    svc = SVC(C=2.0, gamma=0.5, tol=1e-9).fit(X, y, sample_weight=weight)
    got, want = np.asarray(learner.decision_function(params, X)), svc.decision_function(X)
    assert np.max(np.abs(got - want)) <= 1e-5
    coef = _dense_dual_coef(svc, len(y))
    np.testing.assert_allclose(np.asarray(params.dual_coef), coef, atol=1e-5)
    assert np.all(np.abs(np.asarray(params.dual_coef)) <= 2.0 * weight + 1e-12)  # the box C s_i


@pytest.mark.parametrize("kernel", sorted(KERNELS))
@pytest.mark.parametrize("pad", [1, 37, 136])
def test_padded_sample_equals_the_unpadded_fit_bit_for_bit(kernel, pad, dtype):
    # zero-weight rows of any values and labels appended, as a bucketed fit pads a sample: the
    # working sets never pick them, the Gram entries of the real rows do not move
    X, y = _breast_cancer(120)
    X, y = X.astype(dtype), y.astype(dtype)
    learner = kernel_svm_dual_cd(KERNELS[kernel][0], 1.0)
    params = learner.fit(None, X, y)
    rng = np.random.default_rng(pad)
    Xp = np.concatenate([X, rng.normal(size=(pad, X.shape[1])).astype(dtype)])
    yp = np.concatenate([y, rng.choice([-1.0, 1.0], size=pad).astype(dtype)])
    wp = np.concatenate([np.ones(len(y)), np.zeros(pad)]).astype(dtype)
    padded = learner.fit(None, Xp, yp, wp)
    np.testing.assert_array_equal(np.asarray(padded.dual_coef)[: len(y)], params.dual_coef)
    assert np.all(np.asarray(padded.dual_coef)[len(y) :] == 0)
    for name in ("b", "violation", "converged", "n_iter"):
        np.testing.assert_array_equal(getattr(padded, name), getattr(params, name), err_msg=name)
    # the decision values (a kernel expansion over the padded support): equal up to rounding
    got, want = learner.decision_function(padded, X), learner.decision_function(params, X)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-4 if dtype == jnp.float32 else 1e-10)


def test_zero_weight_equals_the_row_removed(x64):
    X, y = _moons()
    weight = np.ones(len(y))
    weight[::4] = 0.0
    learner = kernel_svm_dual_cd(kernels.polynomial(3), 0.5, tol=1e-6)
    weighted = learner.fit(None, X, y, weight)
    removed = learner.fit(None, X[weight > 0], y[weight > 0])
    # the same steps; the Gram entries may round differently with a row's place in its tile
    assert int(weighted.n_iter) == int(removed.n_iter)
    kept = np.asarray(weighted.dual_coef)[weight > 0]
    np.testing.assert_allclose(kept, removed.dual_coef, atol=1e-9)
    assert np.all(np.asarray(weighted.dual_coef)[weight == 0] == 0)
    np.testing.assert_allclose(weighted.b, removed.b, atol=1e-9)
    # a label 0 leaves the example out too, as the reductions pass them under jit (concrete {0, 1}
    # labels are refused: a user's {0, 1} labels would be a one-class problem)
    labelled_out = jax.jit(learner.fit)(None, X, np.where(weight > 0, y, 0.0))
    np.testing.assert_array_equal(labelled_out.dual_coef, weighted.dual_coef)


def test_vmap_over_C_equals_separate_fits(dtype):
    # Every member solved to the same tolerance as its own fit. Not bitwise: a batched Gram row may
    # round 1 ulp apart from the single fit's (XLA may order a reduction differently under vmap, as
    # jax 0.12 does with the optimisations off), which changes a working set and the path, so the
    # two solutions agree to the solver's tolerance, as fractions of the box [0, C].
    X, y = _moons(100)
    X, y = X.astype(dtype), y.astype(dtype)
    kernel = kernels.gaussian(0.5)
    Cs = jnp.asarray([0.1, 1.0, 3.0, 30.0], dtype)
    fit = jax.jit(jax.vmap(lambda C: kernel_svm_dual_cd(kernel, C, tol=1e-5).fit(None, X, y)))
    swept = fit(Cs)
    for k in range(4):
        alone = kernel_svm_dual_cd(kernel, Cs[k], tol=1e-5).fit(None, X, y)
        assert bool(swept.converged[k]) and bool(alone.converged)
        assert float(swept.violation[k]) <= 1e-5 and float(alone.violation) <= 1e-5
        box = float(Cs[k])
        np.testing.assert_allclose(swept.dual_coef[k] / box, alone.dual_coef / box, atol=1e-4)
        np.testing.assert_allclose(swept.b[k], alone.b, atol=1e-4)
        np.testing.assert_allclose(swept.gap[k], alone.gap, atol=1e-3 * max(box, 1.0))
    assert len(set(np.asarray(swept.n_iter).tolist())) > 1  # the members stopped at different steps


def test_max_iter_and_tol_are_traced_and_bound_the_loop(x64):
    X, y = _breast_cancer()
    kernel = kernels.gaussian(10.0)
    learner = kernel_svm_dual_cd(kernel, 10.0, tol=1e-8, max_iter=5)
    params = learner.fit(None, X, y)
    assert int(params.n_iter) == 5 and not bool(params.converged) and float(params.violation) > 1e-8
    fit = jax.jit(
        lambda tol, steps: kernel_svm_dual_cd(kernel, 10.0, tol=tol, max_iter=steps).fit(None, X, y)
    )
    first = fit(1e-3, 10**6)
    assert bool(first.converged) and float(first.violation) <= 1e-3
    before = fit._cache_size()
    tighter = fit(1e-8, 10**6)
    assert fit._cache_size() == before  # new numbers compile nothing
    assert int(tighter.n_iter) > int(first.n_iter) and float(tighter.violation) <= 1e-8


def test_predict_is_the_sign_of_the_decision_function():
    X, y = _moons()
    learner = kernel_svm_dual_cd(kernels.gaussian(0.5), 1.0)
    params = learner.fit(None, X, y)
    score = np.asarray(learner.decision_function(params, X))
    labels = np.asarray(learner.predict(params, X))
    np.testing.assert_array_equal(labels, np.where(score > 0, 1.0, -1.0))
    assert np.mean(labels == y) > 0.85


def test_bad_inputs_name_the_argument():
    X, y = _moons(20)
    kernel = kernels.gaussian(1.0)
    for name, value in (("C", 0.0), ("C", -1.0), ("tol", 0.0), ("max_iter", 0)):
        with pytest.raises(ValueError, match=f"`{name}`"):
            kernel_svm_dual_cd(kernel, **{"C": 1.0, name: value})
    with pytest.raises(TypeError, match="`max_iter`"):
        kernel_svm_dual_cd(kernel, 1.0, max_iter=2.5)
    learner = kernel_svm_dual_cd(kernel, 1.0)
    with pytest.raises(ValueError, match="`y`"):
        learner.check(X, (y + 1) / 2 + 1)  # labels {1, 2}
    with pytest.raises(ValueError, match=r"expected `y` in \{-1, 1\}"):
        learner.fit(None, X, (y + 1) / 2)  # {0, 1}
    with pytest.raises(ValueError, match="`sample_weight`"):
        learner.check(X, y, -np.ones(len(y)))
    with pytest.raises(ValueError, match="`sample_weight`"):
        learner.check(X, y, np.ones(len(y) - 1))
    with pytest.raises(ValueError, match="`sample_weight`"):
        learner.check(X, y, np.zeros(len(y)))
    with pytest.raises(ValueError, match="`X`"):
        learner.check(X[:, :, None], y)
    with pytest.raises(ValueError, match="`kernel`"):
        kernel_svm_dual_cd(lambda x, z: x * z, 1.0).check(X, y)


def test_precomputed_kernel_is_the_same_fit(x64):
    X, y = _moons(80)
    kernel = kernels.gaussian(0.5)
    direct = kernel_svm_dual_cd(kernel, 2.0)
    params = direct.fit(None, X, y)
    precomputed = kernel_svm_dual_cd(None, 2.0)  # X is the Gram matrix, as kernel="precomputed"
    K = gram_matrix(kernel, jnp.asarray(X))
    given = precomputed.fit(None, K, y)
    np.testing.assert_array_equal(given.dual_coef, params.dual_coef)
    assert float(given.b) == float(params.b) and given.support.shape == (80, 0)
    Z = np.random.default_rng(0).normal(size=(7, 2))
    K_test = kernels.gram(kernel, Z, X)  # (n, m): the points against the training examples
    want = direct.decision_function(params, Z)
    np.testing.assert_allclose(precomputed.decision_function(given, K_test), want, atol=1e-12)
    svc = SVC(kernel="precomputed", C=2.0, tol=1e-9).fit(np.asarray(K), y)
    got = kernel_svm_dual_cd(None, 2.0, tol=1e-9).fit(None, K, y)
    np.testing.assert_allclose(got.b, svc.intercept_[0], atol=1e-6)
    with pytest.raises(ValueError, match="`X`"):
        precomputed.fit(None, K[:, :-1], y)
    with pytest.raises(ValueError, match="`X`"):
        precomputed.decision_function(given, K_test[:, :-1])
