"""The conformance matrix (docs/design.md section 7) over every public learner, online and batch.

Every public factory of ``jaxlearn.online/experts/linear/multiclass/structured/ranking/trees/neighbors/nn``
has a row here (``test_every_public_learner_has_a_row`` enforces it); every row runs the same checks
(``tests/harness.py``) through the public API only. Guarantees and reference agreement live in the
per-learner test files. A row's ``make(h)`` builds the learner from one numeric hyperparameter; rows of
learners with none (``hparams == ()``) are not parametrized over the checks that sweep one (vmap over
a hyperparameter, vmap over stacked learners): their learners have no leaves.
"""

from __future__ import annotations

import functools
import importlib
import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.tree_util import Partial

from jaxlearn import (
    core,
    datasets,
    experts,
    kernels,
    linear,
    losses,
    multiclass,
    neighbors,
    nn,
    online,
    ranking,
    structured,
    trees,
)
from jaxlearn.core import BatchLearner, Learner
from tests import harness
from tests.harness import BatchCase, Case

# Generators are jitted: one compiled program per shape instead of a dispatch (and compile) per op.
data = functools.partial(jax.jit, static_argnums=(1, 2))


# --- online rows ---------------------------------------------------------------------------------------


def _halfspace(generator, d, parameter):
    """A jitted `(key, n, dtype) -> (X, y)` from `datasets.noisy_halfspace` (flip) or `separable` (margin)."""

    @data
    def sample(key, n, dtype):
        X, y, _ = generator(key, n, d, parameter, dtype=dtype)
        return X, y

    return sample


_noisy = _halfspace(datasets.noisy_halfspace, 6, 0.1)
_separable = _halfspace(datasets.separable, 6, 0.1)


@data
def _boolean(key, n, dtype):
    X, y, _ = datasets.disjunction(key, n, 12, 2)
    return X.astype(dtype), y


@data
def _negated_conjunction(key, n, dtype):
    X, y, _ = datasets.disjunction(key, n, 12, 2)  # not (x_a or x_b) = ~x_a ~x_b: a conjunction
    return X.astype(dtype), 1 - y


@data
def _realizable_advice(key, n, dtype):
    return datasets.expert_advice(key, n, 8)


@data
def _noisy_advice(key, n, dtype):
    return datasets.expert_advice(key, n, 8, jnp.linspace(0.1, 0.5, 8))


@data
def _loss_vectors(key, n, dtype):
    return None, jax.random.uniform(key, (n, 6), dtype)


@data
def _soft_advice(key, n, dtype):
    k_x, k_y = jax.random.split(key)
    return jax.random.uniform(k_x, (n, 5), dtype, 0.05, 0.95), jax.random.uniform(k_y, (n,), dtype)


# Thresholds on 6 points (7 hypotheses, Ldim 2): instances are point indices, labels in {0, 1}.
THRESHOLDS = (np.arange(6)[None, :] >= np.arange(7)[:, None]).astype(np.int32)


@data
def _threshold_stream(key, n, dtype):  # realizable: labelled by the threshold at 3
    xs = jax.random.randint(key, (n,), 0, THRESHOLDS.shape[1])
    return xs, jnp.asarray(THRESHOLDS)[3, xs]


@data
def _noisy_threshold_stream(key, n, dtype):
    k_x, k_flip = jax.random.split(key)
    xs = jax.random.randint(k_x, (n,), 0, THRESHOLDS.shape[1])
    flips = jax.random.bernoulli(k_flip, 0.2, (n,)).astype(jnp.int32)
    return xs, jnp.asarray(THRESHOLDS)[3, xs] ^ flips


def _inverse_sqrt(eta, t):  # a schedule whose rate is a leaf: Partial(_inverse_sqrt, eta)
    return eta / jnp.sqrt(t + 1)


ONLINE = [
    Case(
        "perceptron", online.perceptron, lambda eta: online.perceptron(eta), (0.5, 1.0, 3.0), _noisy
    ),
    Case(
        "perceptron_normalized",
        online.perceptron,
        lambda eta: online.perceptron(eta, normalize=True),
        (0.5, 1.0, 3.0),
        _noisy,
    ),
    Case(
        "perceptron_schedule",
        online.perceptron,
        lambda eta: online.perceptron(Partial(_inverse_sqrt, eta)),
        (0.5, 1.0, 2.0),
        _noisy,
    ),
    Case(
        "margin_perceptron",
        online.margin_perceptron,
        online.margin_perceptron,
        (0.05, 0.1, 0.3),
        _separable,
    ),
    Case(
        "kernel_perceptron",
        online.kernel_perceptron,
        lambda sigma: online.kernel_perceptron(kernels.gaussian(sigma), budget=48),
        (0.2, 1.0, 5.0),
        _noisy,
    ),
    Case("winnow", online.winnow, lambda eta: online.winnow(eta), (1.5, 2.0, 4.0), _boolean),
    Case(
        "ogd_logistic",
        online.online_gradient_descent,
        lambda eta: online.online_gradient_descent(losses.logistic, eta),
        (0.1, 0.5, 1.0),
        _noisy,
    ),
    Case(
        "ogd_hinge_l2_ball",
        online.online_gradient_descent,
        lambda eta: online.online_gradient_descent(
            losses.hinge, eta, projection=online.l2_ball(2.0)
        ),
        (0.01, 0.1, 1.0),
        _noisy,
    ),
    Case(
        "ogd_squared_box_schedule",
        online.online_gradient_descent,
        lambda eta: online.online_gradient_descent(
            losses.squared, Partial(_inverse_sqrt, eta), projection=online.box(-0.5, 0.5)
        ),
        (0.01, 0.05, 0.1),
        _noisy,
    ),
    Case(
        "conjunction",
        online.conjunction,
        lambda _: online.conjunction(12),
        (),
        _negated_conjunction,
    ),
    Case(
        "decision_list", online.decision_list, lambda _: online.decision_list(12), (), _boolean
    ),  # a disjunction
    Case("consistent", experts.consistent, lambda _: experts.consistent(), (), _realizable_advice),
    Case("halving", experts.halving, lambda _: experts.halving(), (), _realizable_advice),
    Case(
        "weighted_majority",
        experts.weighted_majority,
        experts.weighted_majority,
        (0.2, 0.37, 0.8),
        _noisy_advice,
    ),
    Case(
        "randomized_weighted_majority",
        experts.randomized_weighted_majority,
        experts.randomized_weighted_majority,
        (0.1, 0.5, 2.0),
        _noisy_advice,
        key=0,
    ),
    Case(
        "hedge",
        experts.hedge,
        lambda eta: experts.hedge(eta),
        (0.1, 0.5, 2.0),
        _loss_vectors,
        block_rtol=1e-4,
    ),
    Case(
        "hedge_sample",
        experts.hedge,
        lambda eta: experts.hedge(eta, sample=True),
        (0.1, 0.5, 2.0),
        _loss_vectors,
        key=1,
        block_rtol=1e-4,
    ),
    Case(
        "weighted_average",
        experts.weighted_average,
        experts.weighted_average,
        (0.5, 1.0, 2.0),
        _soft_advice,
    ),
    Case(
        "weighted_average_square",
        experts.weighted_average,
        lambda eta: experts.weighted_average(eta, "square"),
        (0.25, 0.5, 1.0),
        _soft_advice,
    ),
    Case("soa", experts.soa, lambda _: experts.soa(THRESHOLDS), (), _threshold_stream),
    Case(
        "agnostic_experts",
        experts.agnostic_experts,
        lambda eta: experts.agnostic_experts(THRESHOLDS, 30, eta),
        (0.1, 0.5, 1.0),
        _noisy_threshold_stream,
        key=2,
    ),
]


# --- batch rows -----------------------------------------------------------------------------------------

K = 3  # classes of the multiclass rows
LABELS = tuple(range(K))
STEPS, SMALL = 100, 3  # SGD steps of a row; of its version interpreted op by op
SEQUENCES = (
    ("params_dtypes", "X holds sequences: dtypes in the learner's own test file"),
    ("bad_input", "X holds sequences: bad input in the learner's own test file"),
)
MULTICLASS_LABEL = (
    K,
    rf"expected `y` with labels in 0..{K - 1} \(num_classes={K}\), found \{{{K}\}}",
)


_noisy5 = _halfspace(datasets.noisy_halfspace, 5, 0.1)
_separable4 = _halfspace(datasets.separable, 4, 0.2)
_noisy2 = _halfspace(
    datasets.noisy_halfspace, 2, 0.1
)  # the inefficient Perceptron enumerates pairs


@data
def _ring(key, n, dtype):  # +1 inside a ball: a kernel problem
    X = jax.random.normal(key, (n, 3), dtype)
    return X, jnp.where(jnp.sum(X**2, axis=1) < 2.5, 1, -1).astype(dtype)


@data
def _regression(key, n, dtype):
    X = jax.random.normal(key, (n, 3), dtype)
    return X, (X[:, 0] - 2 * X[:, 1] * X[:, 2]).astype(dtype)


@functools.partial(jax.jit, static_argnums=(1, 2), static_argnames=("spread",))
def _blobs(key, n, dtype, spread=0.6):
    """``n`` points around ``K`` centres in 3-D plus a constant feature (labels int32 in 0..K-1)."""
    k_c, k_y, k_x = jax.random.split(key, 3)
    centres = 2.0 * jax.random.normal(k_c, (K, 3), dtype)
    y = jax.random.randint(k_y, (n,), 0, K).astype(jnp.int32)
    X = centres[y] + spread * jax.random.normal(k_x, (n, 3), dtype)
    return jnp.concatenate([X, jnp.ones((n, 1), dtype)], axis=1), y


@data
def _easy_blobs(key, n, dtype):
    """Three well separated Gaussian blobs in 4-D, labels 0..2 (the MLP's sample)."""
    key_y, key_x = jax.random.split(key)
    y = jax.random.randint(key_y, (n,), 0, K)
    centres = 4.0 * jnp.eye(K, 4, dtype=dtype)
    return centres[y] + jax.random.normal(key_x, (n, 4), dtype), y


@data
def _classes(key, n, dtype):
    X = jax.random.normal(key, (n, 3), dtype)
    return X, (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(jnp.int32)


@data
def _targets(key, n, dtype):
    X = jax.random.normal(key, (n, 3), dtype)
    return X, jnp.sin(X[:, 0]) + X[:, 1]


@data
def _words(key, n, dtype):
    return datasets.ocr_words(key, n, 4, num_letters=4, noise=0.3, dtype=dtype)


@data
def _graded(key, n, dtype):
    X, Y, _ = datasets.ranking_queries(key, n, 5, 4, dtype=dtype)
    return X, Y


@data
def _bipartite(key, n, dtype):
    X, Y, _ = datasets.ranking_queries(key, n, 5, 4, levels=2, dtype=dtype)
    return X, 2 * Y - 1


def _sgd_row(name, factory, build, hparams, sample, **kwargs):
    """``build(h, steps)``: the row fits ``STEPS`` steps, its interpreted check ``SMALL``."""
    return BatchCase(
        name,
        factory,
        lambda h: build(h, STEPS),
        hparams,
        sample,
        small=lambda h: build(h, SMALL),
        **kwargs,
    )


BALL = online.l2_ball(3.0)
POLY = kernels.polynomial(2)
LAMS = (0.01, 0.1, 1.0)

BATCH = [
    _sgd_row(
        "sgd_hinge",
        linear.sgd,
        lambda lam, T: linear.sgd(losses.hinge, steps=T, lam=lam),
        LAMS,
        _noisy5,
    ),
    _sgd_row(
        "sgd_logistic_l2_ball",
        linear.sgd,
        lambda eta, T: linear.sgd(losses.logistic, steps=T, eta=eta, projection=BALL),
        (0.05, 0.5, 5.0),
        _noisy5,
    ),
    _sgd_row("soft_svm", linear.soft_svm, lambda lam, T: linear.soft_svm(lam, T), LAMS, _noisy5),
    _sgd_row(  # T: the most epochs (each a pass over the 40 examples); the tol rule stops it earlier
        "epoch_sgd_hinge",
        linear.epoch_sgd,
        lambda alpha, T: linear.epoch_sgd("hinge", alpha=alpha, max_iter=max(1, T // 10)),
        (1e-4, 1e-2, 1.0),
        _noisy5,
    ),
    BatchCase(  # float32 stops at tol=1e-3 well before the bound on the iterations
        "logistic_regression",
        linear.logistic_regression,
        lambda C: linear.logistic_regression(C, tol=1e-3, max_iter=STEPS),
        (1.0, 0.1, 10.0),
        _noisy5,
        small=lambda C: linear.logistic_regression(C, max_iter=2),
        params_type=linear.LogisticRegressionParams,
        rtol=1e-4,
        atol=1e-5,
        min_accuracy=0.7,
    ),
    BatchCase(  # steps: the most epochs of the exact dual solver
        "svm_dual_cd",
        linear.svm_dual_cd,
        lambda C: linear.svm_dual_cd(C, max_iter=STEPS, fit_intercept=True),
        (1.0, 0.1, 10.0),
        _noisy5,
        small=lambda C: linear.svm_dual_cd(C, max_iter=SMALL, fit_intercept=True),
        rtol=1e-3,  # float32: a batched reduction may round differently; equal to the solver's tol
        atol=1e-4,
        params_type=linear.SVMDualCDParams,
        min_accuracy=0.7,
    ),
    BatchCase(  # steps: the most L-BFGS iterations
        "svm_primal_lbfgs",
        linear.svm_primal_lbfgs,
        lambda C: linear.svm_primal_lbfgs(C, max_iter=STEPS, fit_intercept=True),
        (1.0, 0.1, 10.0),
        _noisy5,
        small=lambda C: linear.svm_primal_lbfgs(C, max_iter=SMALL, fit_intercept=True),
        rtol=1e-4,
        atol=1e-5,
        # in float32 the last iterations run at the objective's rounding: a batched product rounded
        # apart takes one more step or one fewer to the tolerance, with the gradient there
        path_dependent=("n_iter", "grad_norm"),
        params_type=linear.SVMPrimalParams,
        min_accuracy=0.7,
    ),
    BatchCase(  # steps: the most Newton iterations
        "svm_primal_newton",
        linear.svm_primal_newton,
        lambda C: linear.svm_primal_newton(C, max_iter=STEPS, fit_intercept=True),
        (1.0, 0.1, 10.0),
        _noisy5,
        small=lambda C: linear.svm_primal_newton(C, max_iter=SMALL, fit_intercept=True),
        rtol=1e-4,
        atol=1e-5,
        params_type=linear.SVMPrimalParams,
        min_accuracy=0.7,
    ),
    _sgd_row(  # steps: the most sweeps (the 3-sweep version stops before converging: still equal)
        "hard_svm",
        linear.hard_svm,
        lambda tol, T: linear.hard_svm(max_steps=T, tol=tol),
        (1e-2, 1e-3, 1e-5),
        _separable4,
        rtol=1e-4,
    ),
    _sgd_row(
        "kernel_svm_sigma",
        linear.kernel_svm,
        lambda sigma, T: linear.kernel_svm(kernels.gaussian(sigma), 0.05, T),
        (0.3, 1.0, 3.0),
        _ring,
    ),
    BatchCase(
        "ridge", linear.ridge, linear.ridge, (1e-3, 0.1, 10.0), _regression, labels=None, rtol=2e-5
    ),
    BatchCase(  # rank(G) <= 10 < m: small lam makes the float32 solve ill-conditioned (cond ~ 1 / lam)
        "kernel_ridge",
        linear.kernel_ridge,
        lambda lam: linear.kernel_ridge(POLY, lam),
        (0.05, 0.5, 10.0),
        _regression,
        labels=None,
        rtol=2e-5,
    ),
    BatchCase(  # solved to tol 1e-5: a Gram entry 1 ulp apart (a batched reduction may round
        # differently) changes a working set, so separate runs agree to the solver's tol, not bitwise
        "kernel_svm_dual_cd",
        linear.kernel_svm_dual_cd,
        lambda C: linear.kernel_svm_dual_cd(kernels.gaussian(1.0), C, tol=1e-5),
        (1.0, 0.1, 10.0),
        _ring,
        small=lambda C: linear.kernel_svm_dual_cd(kernels.gaussian(1.0), C, max_iter=SMALL),
        rtol=1e-3,
        atol=1e-4,
        path_dependent=("n_iter",),
        params_type=linear.KernelSVMDualCDParams,
        min_accuracy=0.7,
    ),
    BatchCase(
        "kernel_centroid",
        linear.kernel_centroid,
        lambda sigma: linear.kernel_centroid(kernels.gaussian(sigma)),
        (0.1, 1.0, 10.0),
        _ring,
    ),
    BatchCase(
        "batch_perceptron",
        linear.batch_perceptron,
        lambda _: linear.batch_perceptron(50),
        (),
        _separable4,
        small=lambda _: linear.batch_perceptron(2),
    ),
    BatchCase(
        "augmented_perceptron",
        linear.augmented_perceptron,
        lambda a: linear.augmented_perceptron(a, 20),
        (0.3, 0.6, 0.9),
        _noisy5,
        small=lambda a: linear.augmented_perceptron(a, 2),
    ),
    BatchCase(  # exponential in d: 16 examples in R^2, 136 candidate directions
        "inefficient_perceptron",
        linear.inefficient_perceptron,
        lambda gamma: linear.inefficient_perceptron(gamma, 50),
        (0.1, 0.05, 0.3),
        _noisy2,
        small=lambda gamma: linear.inefficient_perceptron(gamma, 2),
        n=16,
    ),
    BatchCase(  # a Gaussian Gram matrix is positive definite: the ring is separable, 3-15 passes
        "kernel_batch_perceptron",
        linear.kernel_batch_perceptron,
        lambda sigma: linear.kernel_batch_perceptron(kernels.gaussian(sigma), 50),
        (0.5, 1.0, 3.0),
        _ring,
        small=lambda sigma: linear.kernel_batch_perceptron(kernels.gaussian(sigma), 2),
    ),
    _sgd_row(
        "one_vs_all",
        multiclass.one_vs_all,
        lambda lam, T: multiclass.one_vs_all(linear.soft_svm(lam, T, fit_intercept=True), K),
        LAMS,
        _blobs,
        labels=LABELS,
        min_accuracy=0.6,
        bad_label=MULTICLASS_LABEL,
    ),
    _sgd_row(
        "all_pairs",
        multiclass.all_pairs,
        lambda lam, T: multiclass.all_pairs(linear.soft_svm(lam, T), K),
        LAMS,
        _blobs,
        labels=LABELS,
        min_accuracy=0.6,
        bad_label=MULTICLASS_LABEL,
    ),
    _sgd_row(
        "multiclass_svm",
        multiclass.multiclass_svm,
        lambda lam, T: multiclass.multiclass_svm(lam, T, K),
        LAMS,
        _blobs,
        labels=LABELS,
        params_type=multiclass.MulticlassSVMParams,
        min_accuracy=0.6,
        bad_label=MULTICLASS_LABEL,
    ),
    BatchCase(
        "multiclass_svm_dual_cd",
        multiclass.multiclass_svm_dual_cd,
        lambda C: multiclass.multiclass_svm_dual_cd(C, K, max_iter=STEPS, fit_intercept=True),
        (1.0, 0.1, 10.0),
        _blobs,
        small=lambda C: multiclass.multiclass_svm_dual_cd(C, K, max_iter=SMALL, fit_intercept=True),
        labels=LABELS,
        rtol=1e-3,  # float32: a batched reduction may round differently; equal to the solver's tol
        atol=1e-4,
        params_type=multiclass.MulticlassSVMDualCDParams,
        min_accuracy=0.6,
        bad_label=MULTICLASS_LABEL,
    ),
    BatchCase(
        "multinomial_logistic_regression",
        multiclass.multinomial_logistic_regression,
        lambda C: multiclass.multinomial_logistic_regression(C, K, tol=1e-3, max_iter=STEPS),
        (1.0, 0.1, 10.0),
        _blobs,
        small=lambda C: multiclass.multinomial_logistic_regression(C, K, max_iter=2),
        labels=LABELS,
        params_type=multiclass.MultinomialLogisticParams,
        # solved to tol=1e-3 in float32: a vmapped fit's reductions may sum in another order
        # (seen on AVX2 CPUs: 2e-4 relative), which moves the iterate within that tolerance
        rtol=1e-3,
        atol=1e-4,
        min_accuracy=0.6,
        bad_label=MULTICLASS_LABEL,
    ),
    _sgd_row(
        "multiclass_sgd",
        multiclass.multiclass_sgd,
        lambda eta, T: multiclass.multiclass_sgd(eta, T, K),
        (0.01, 0.1, 1.0),
        _blobs,
        labels=LABELS,
        params_type=multiclass.MulticlassSGDParams,
        min_accuracy=0.6,
        bad_label=MULTICLASS_LABEL,
    ),
    _sgd_row(
        "multiclass_perceptron",
        multiclass.multiclass_perceptron,
        lambda _, T: multiclass.multiclass_perceptron(K, max_epochs=T),
        (),
        functools.partial(_blobs, spread=0.3),
        labels=LABELS,
        params_type=multiclass.MulticlassPerceptronParams,
        min_accuracy=0.6,
        bad_label=MULTICLASS_LABEL,
    ),
    _sgd_row(
        "structured_svm",
        structured.structured_svm,
        lambda lam, T: structured.structured_svm(lam, T, 4),
        LAMS,
        _words,
        n=16,
        labels=None,
        skips=SEQUENCES,
    ),
    _sgd_row(
        "ranking_svm",
        ranking.ranking_svm,
        lambda lam, T: ranking.ranking_svm(lam, T, loss="ndcg"),
        LAMS,
        _graded,
        n=12,
        labels=None,
        skips=SEQUENCES,
    ),
    _sgd_row(
        "bipartite_svm",
        ranking.bipartite_svm,
        lambda lam, T: ranking.bipartite_svm("f1", lam, T),
        LAMS,
        _bipartite,
        n=12,
        labels=None,
        skips=SEQUENCES,
    ),
    BatchCase(
        "decision_tree",
        trees.decision_tree,
        lambda _: trees.decision_tree(3, num_classes=2),
        (),
        _classes,
        labels=(0, 1),
        params_type=trees.DecisionTreeParams,
    ),
    BatchCase(  # the forest is jax.vmap of the tree's growth, interpreted op by op in the row above
        "random_forest",
        trees.random_forest,
        lambda _: trees.random_forest(3, 2, num_classes=2),
        (),
        _classes,
        labels=(0, 1),
        params_type=trees.RandomForestParams,
        skips=(
            ("interpret", "vmap of the decision_tree row's growth; op by op it costs a minute"),
        ),
    ),
    BatchCase(
        "knn",
        neighbors.knn,
        lambda _: neighbors.knn(3, query_chunk=16, num_classes=2),
        (),
        _classes,
        labels=(0, 1),
    ),
    BatchCase(
        "knn_regressor",
        neighbors.knn_regressor,
        lambda _: neighbors.knn_regressor(3, query_chunk=16),
        (),
        _targets,
        labels=None,
    ),
    BatchCase(
        "mlp_classifier",
        nn.mlp_classifier,
        lambda lr: nn.mlp_classifier(
            8, steps=60, num_classes=K, eta=lr, batch_size=8, eval_every=20
        ),
        (3e-2, 1e-2, 3e-3),
        _easy_blobs,
        small=lambda lr: nn.mlp_classifier(
            8, steps=3, num_classes=K, eta=lr, batch_size=8, eval_every=3
        ),
        labels=LABELS,
        rtol=1e-4,
        atol=1e-5,
        params_type=nn.MLPParams,
        min_accuracy=0.8,  # the blobs are easy
        bad_label=MULTICLASS_LABEL,
    ),
]

# --- the parametrizations -------------------------------------------------------------------------------


def _over(rows):
    return pytest.mark.parametrize("case", rows, ids=[row.name for row in rows])


online_rows = _over(ONLINE)
online_swept = _over(
    [row for row in ONLINE if row.hparams]
)  # the others have no numeric hyperparameter
online_blocked = _over([row for row in ONLINE if row.learner().run_block is not None])
batch_rows = _over(BATCH)
batch_swept = _over([row for row in BATCH if row.hparams])


# --- the matrix: online ---------------------------------------------------------------------------------


@online_rows
def test_run_equals_python_loop(case):
    harness.check_run_equals_python_loop(case)


@online_swept
def test_vmap_over_hyperparameter_equals_loop(case):
    harness.check_vmap_over_hyperparameter(case)


@online_rows
def test_new_learners_compile_nothing_in_run(case):
    harness.check_no_recompilation(case)


@online_rows
def test_learner_as_jit_argument(case):
    harness.check_learner_as_jit_argument(case)


@online_swept
def test_vmap_over_stacked_learners_equals_building_inside_vmap(case):
    harness.check_vmap_over_stacked_learners(case)


@online_rows
def test_init_takes_a_key_positionally(case):
    harness.check_init_with_positional_key(case)


@online_rows
def test_state_structure_and_dtype_stable(case, dtype):
    harness.check_state_stable(case, dtype)


@online_rows
def test_chunked_stream_equals_one_call(case):
    harness.check_chunked_stream(case)


@online_blocked
def test_run_block_equals_scan(case):
    harness.check_run_block_equals_scan(case)


@_over([row for row in ONLINE if row.data is not _loss_vectors])  # Hedge's rounds have no instance
def test_predict_batch_matches_predict(case):
    xs, ys = case.stream()
    learner = case.learner()
    state, _ = core.run(learner, case.init(learner, xs, ys), xs, ys)
    batch = jax.jit(core.predict_batch)(learner, state, xs)  # the learner is a pytree argument
    predict = jax.jit(learner.predict)
    one = jnp.stack([predict(state, x) for x in xs[:5]])
    np.testing.assert_allclose(batch[:5], one, rtol=1e-5)
    assert batch.shape[0] == xs.shape[0]


# --- the matrix: batch ----------------------------------------------------------------------------------


@batch_rows
def test_fit_under_jit_equals_no_jit(case):
    harness.check_fit_jit_equals_no_jit(case)


@pytest.mark.slow
@batch_rows
def test_fit_interpreted_under_disable_jit_equals_compiled(case):
    harness.check_fit_interpreted_equals_compiled(case)


@batch_swept
def test_fit_vmap_over_hyperparameter_equals_loop(case):
    harness.check_batch_vmap_over_hyperparameter(case)


@batch_rows
def test_fit_vmap_over_keys_equals_loop(case):
    harness.check_vmap_over_keys(case)


@batch_rows
def test_new_fits_compile_nothing(case):
    harness.check_batch_no_recompilation(case)


@batch_rows
def test_batch_learner_as_jit_argument(case):
    harness.check_batch_learner_as_jit_argument(case)


@batch_swept
def test_fit_vmap_over_stacked_learners_equals_building_inside_vmap(case):
    harness.check_batch_vmap_over_stacked_learners(case)


@batch_rows
def test_params_dtypes(case, dtype):
    harness.check_params_dtypes(case, dtype)


@batch_rows
def test_rejects_bad_input(case):
    harness.check_rejects_bad_input(case)


# --- the rows are complete ------------------------------------------------------------------------------

FAMILIES = (
    "online",
    "experts",
    "linear",
    "multiclass",
    "structured",
    "ranking",
    "trees",
    "neighbors",
    "nn",
)


def _returns_a_learner(function) -> bool:
    try:
        annotation = inspect.signature(function).return_annotation
    except (TypeError, ValueError):
        return False
    return annotation in (Learner, BatchLearner, "Learner", "BatchLearner")


def public_factories() -> dict:
    """``{"family.name": factory}`` for every public factory of a learner: the callables in a family's
    ``__all__`` (its public functions when it has none) decorated by ``core.learner_factory`` or
    returning a ``Learner``/``BatchLearner``."""
    found = {}
    for family in FAMILIES:
        module = importlib.import_module(f"jaxlearn.{family}")
        names = getattr(module, "__all__", None)
        if names is None:
            names = [
                n
                for n, v in vars(module).items()
                if not n.startswith("_")
                and inspect.isfunction(v)
                and v.__module__ == module.__name__
            ]
        for name in names:
            value = getattr(module, name)
            if inspect.isclass(value) or not callable(value):
                continue
            if inspect.signature(value).return_annotation in ("Transform", core.Transform):
                continue  # a preprocessing step (online.standardize): tested with core.pipeline
            if hasattr(value, "traced_hyperparameters") or _returns_a_learner(value):
                found[f"{family}.{name}"] = value
    return found


def test_every_public_learner_has_a_row():
    factories = public_factories()
    covered = {id(row.factory) for row in ONLINE + BATCH}
    missing = sorted(name for name, factory in factories.items() if id(factory) not in covered)
    assert not missing, f"public learners without a conformance row: {missing}"
    known = {id(factory) for factory in factories.values()}
    stale = sorted(row.name for row in ONLINE + BATCH if id(row.factory) not in known)
    assert not stale, f"rows naming no public factory: {stale}"
    assert len(factories) >= 36, sorted(factories)  # the collection itself found the learners


def test_rows_build_learners_of_the_right_kind():
    for row in ONLINE:
        assert isinstance(row.learner(), Learner), row.name
    for row in BATCH:
        assert isinstance(row.learner(), BatchLearner), row.name


def test_learners_without_a_numeric_hyperparameter_have_no_leaves():
    # why those rows skip the sweeps: their learners have nothing to vmap over
    for row in ONLINE + BATCH:
        if not row.hparams:
            assert jax.tree_util.tree_leaves(row.learner()) == [], row.name
