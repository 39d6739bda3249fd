"""Benchmark the NDCG ranking SVM's SGD step: the assignment solver in the XLA program against SciPy.

``ranking.ranking_svm(lam, T, loss="ndcg")`` solves one assignment problem (UML (17.9)) per SGD step.
It now runs :func:`jaxlearn.ranking._assignment.linear_sum_assignment` (SciPy's shortest augmenting
path algorithm in ``lax`` loops) inside the compiled fit; the reference is the previous implementation,
``scipy.optimize.linear_sum_assignment`` reached through ``jax.pure_callback`` (one host round trip per
step), kept as the private fit kind ``"ndcg_scipy"``. Measured, all in this process, each the median
of ``--repeats`` timed fits after one untimed (compiling) fit, as microseconds per SGD step:

1. One fit, ``T = --steps`` steps, on ``--m`` queries of ``r`` items (``--rs``) in ``d = --d``
   dimensions (``datasets.ranking_queries``, graded relevance 0..3), for each ``r``. The Kendall-tau
   fit of the same size is printed beside them: the cost of a step without an assignment problem.
2. A sweep of ``--lams`` values of ``lam`` as one ``jax.vmap``-ed fit (both solvers vmapped; SciPy's
   callback then receives the whole batch of matrices once per step), at ``r = --sweep-r``.

Before timing, the script checks that the new fit's program contains no host callback (the jaxpr of
the fit has no ``pure_callback``/``io_callback``) and that, in float64, the two fits are the same
weights bit for bit (every step's assignment agrees: the solver makes SciPy's choice among ties). The
timed fits run in float32, where the solver's float32 dual arithmetic may settle an exact tie (the
first step, at ``w = 0``, ties every pair of equally relevant items) differently from SciPy's float64:
both are optimal assignments, so the float32 weights may differ.

Target (issue 16): no host round trip per step; the time per step against the SciPy callback's.

Usage: ``python scripts/bench_ranking.py [--rs 5 10 20 50] [--m 200] [--d 10] [--steps 1000]
[--lams 16] [--sweep-r 10] [--repeats 5]``; a smoke run: ``--rs 5 10 --steps 200 --repeats 1``.
"""

from __future__ import annotations

import argparse
import functools

import jax
import jax.numpy as jnp
import numpy as np
from benchtools import record, timeit

from jaxlearn import datasets
from jaxlearn._regularized import sample_indices
from jaxlearn.ranking import _svm

REFERENCE = "SciPy host callback"
LAM = 0.01
KEY = jax.random.PRNGKey(0)


def fit_w(kind, idx, X, Y, lam):
    """The weights of the ranking SVM fit (``_svm._fit``, the library's jitted fit) with solver ``kind``."""
    return _svm._fit(idx, X, Y, lam, jnp.ones([], X.dtype), kind=kind, k=None).w


def callbacks_in(kind, idx, X, Y):
    text = str(jax.make_jaxpr(lambda X: fit_w(kind, idx, X, Y, LAM))(X))
    return [name for name in ("pure_callback", "io_callback", "callback") if name in text]


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rs", type=int, nargs="+", default=[5, 10, 20, 50])
    parser.add_argument("--m", type=int, default=200)
    parser.add_argument("--d", type=int, default=10)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--lams", type=int, default=16)
    parser.add_argument("--sweep-r", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    T = args.steps
    print(
        f"backend: {jax.default_backend()} ({jax.devices()[0].device_kind}), jax {jax.__version__}"
    )
    print(
        f"ranking_svm(lam={LAM}, T={T}, loss='ndcg'), m={args.m} queries, d={args.d}, float32; "
        f"median of {args.repeats}; microseconds per SGD step\n"
    )

    with jax.enable_x64(True):  # exactness first: float64 fits, both solvers, bit for bit
        for r in args.rs:
            X, Y, _ = datasets.ranking_queries(KEY, 20, r, args.d, levels=4, dtype=jnp.float64)
            idx = sample_indices(jax.random.PRNGKey(1), min(T, 200), 20)
            w, w_ref = (fit_w(kind, idx, X, Y, LAM) for kind in ("ndcg", "ndcg_scipy"))
            if not np.array_equal(np.asarray(w), np.asarray(w_ref)):
                raise SystemExit(f"r={r}: the float64 fit differs from the SciPy path's")
    print(
        f"float64 fits (m=20, T={min(T, 200)}) equal the SciPy path's bit for bit at r = {args.rs}\n"
    )

    header = f"{'workload':<28}{'in-program':>12}{REFERENCE:>22}{'speed-up':>10}{'kendall':>10}"
    print(header)
    print("-" * len(header))
    for r in args.rs:
        X, Y, _ = datasets.ranking_queries(KEY, args.m, r, args.d, levels=4)
        idx = sample_indices(jax.random.PRNGKey(1), T, args.m)
        found = callbacks_in("ndcg", idx, X, Y)
        if found:
            raise SystemExit(f"the NDCG fit still calls the host: {found}")
        if not callbacks_in("ndcg_scipy", idx, X, Y):
            raise SystemExit("the reference fit has no host callback: it is not the SciPy path")
        times = {}
        for kind in ("ndcg", "ndcg_scipy", "kendall"):
            fit = functools.partial(fit_w, kind, idx, X, Y, LAM)
            times[kind] = timeit(fit, args.repeats)[0] / T
        ours, ref, kendall = (times[k] for k in ("ndcg", "ndcg_scipy", "kendall"))
        workload = f"r={r}, m={args.m}, d={args.d}, T={T}"
        print(
            f"{'one fit, r=' + str(r):<28}{ours * 1e6:>12.1f}{ref * 1e6:>22.1f}{ref / ours:>9.2f}x"
            f"{kendall * 1e6:>10.1f}"
        )
        record(f"ndcg ranking_svm step, r={r}", workload, ours, ref, reference_name=REFERENCE)

    r = args.sweep_r
    X, Y, _ = datasets.ranking_queries(KEY, args.m, r, args.d, levels=4)
    idx = sample_indices(jax.random.PRNGKey(1), T, args.m)
    lams = jnp.logspace(-4, -1, args.lams, dtype=X.dtype)
    sweeps = {}
    for kind in ("ndcg", "ndcg_scipy"):
        sweep = jax.jit(jax.vmap(functools.partial(fit_w, kind, idx, X, Y)))
        sweeps[kind] = timeit(functools.partial(sweep, lams), args.repeats)[0] / T
    ours, ref = sweeps["ndcg"], sweeps["ndcg_scipy"]
    label = f"vmap over {args.lams} lams, r={r}"
    print(f"{label:<28}{ours * 1e6:>12.1f}{ref * 1e6:>22.1f}{ref / ours:>9.2f}x")
    record(
        f"ndcg ranking_svm step, vmap over {args.lams} lams",
        f"r={r}, m={args.m}, d={args.d}, T={T}",
        ours,
        ref,
        reference_name=REFERENCE,
    )
    print(
        "\n(kendall: the same fit with the Kendall-tau surrogate, a step with no assignment problem."
        "\n Timings on a shared machine are noisy: compare the rows of one run.)"
    )


if __name__ == "__main__":
    main()
