"""One of the two processes of ``test_processes.py``: ``python -m tests.parallel._worker ID PORT OUT``.

Started twice (process ids 0 and 1) with two CPU devices each, it joins the other process at
``127.0.0.1:PORT`` (``jax.distributed.initialize``), splits the shared sample over the four devices of
the global mesh with ``parallel.shard_rows``, fits ``linear.soft_svm`` data-parallel and queries a
row-split ``neighbors.knn``, and writes what this process reads of the (replicated) results to ``OUT``
(``.npz``). When the installed jaxlib cannot run CPU collectives across processes it prints
``UNSUPPORTED: <the error>`` and exits with :data:`UNSUPPORTED`; any other error is raised.
"""

import sys

import numpy as np

#: The exit status of a worker whose jaxlib cannot run CPU collectives across processes.
UNSUPPORTED = 3
#: Errors that mean "no CPU collectives across processes" (jaxlib without gloo, or collectives off).
UNSUPPORTED_MESSAGES = (
    "Multiprocess computations aren't implemented on the CPU backend",
    "make_gloo_tcp_collectives",
    "jax_cpu_collectives_implementation",
)
SVM = dict(lam=0.1, steps=200, batch_size=8, seed=1)
K, NUM_CLASSES = 5, 3


def sample(dtype):
    """The sample every process builds alike: ``X`` (64, 3), ``y`` in {-1, +1}, ``labels`` in {0, 1, 2},
    queries ``Q`` (10, 3)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(64, 3)).astype(dtype)
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1.0, -1.0).astype(dtype)
    labels = rng.integers(0, NUM_CLASSES, 64).astype(np.int32)
    return X, y, labels, rng.normal(size=(10, 3)).astype(dtype)


def grid(mesh=None):
    """A grid search of ``soft_svm``'s ``lam`` (6 points, 2 folds), its grid split over ``mesh``."""
    import jax

    from jaxlearn import linear, selection

    X, y, _, _ = sample(np.float32)
    lams = np.logspace(-3, 1, 6).astype(np.float32)
    return selection.grid_search(
        lambda lam: linear.soft_svm(lam, 50),
        {"lam": lams},
        X,
        y,
        key=jax.random.PRNGKey(2),
        folds=2,
        refit=False,
        mesh=mesh,
    )


def join(process_id, port):
    """``jax.distributed.initialize`` and one all-reduce over both processes' devices, or exit with
    :data:`UNSUPPORTED` when the installed jaxlib cannot run it."""
    import jax
    import jax.numpy as jnp
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    try:
        jax.distributed.initialize(f"127.0.0.1:{port}", num_processes=2, process_id=process_id)
        from jaxlearn import (
            parallel,
        )  # after initialize: jaxlearn must not start JAX's backend first

        mesh = parallel.mesh()
        ones = jax.make_array_from_callback(
            (8,), NamedSharding(mesh, P("data")), lambda i: np.ones(8)[i]
        )
        total = jax.jit(jnp.sum, out_shardings=NamedSharding(mesh, P()))(ones)
        assert float(total.addressable_data(0)) == 8.0, total
    except Exception as error:
        if not any(text in str(error) for text in UNSUPPORTED_MESSAGES):
            raise
        print(f"UNSUPPORTED: {type(error).__name__}: {error}", flush=True)
        sys.exit(UNSUPPORTED)


def main(process_id, port, out):
    join(process_id, port)
    import jax

    jax.config.update("jax_numpy_dtype_promotion", "strict")  # as tests/conftest.py
    from jaxlearn import linear, parallel
    from jaxlearn import neighbors as nb

    def local(array):  # this process's copy of a replicated global array
        assert array.sharding.is_fully_replicated and not array.is_fully_addressable, array.sharding
        return np.asarray(array.addressable_data(0))

    results = {}
    for dtype in (np.float32, np.float64):
        with jax.enable_x64(dtype == np.float64):
            X, y, _, _ = sample(dtype)
            rule = linear.soft_svm(SVM["lam"], SVM["steps"], batch_size=SVM["batch_size"])
            params = rule.fit(jax.random.PRNGKey(SVM["seed"]), *parallel.shard_rows((X, y)))
            results[f"svm_w_{np.dtype(dtype).name}"] = local(params.w)
            results[f"svm_b_{np.dtype(dtype).name}"] = local(params.b)
    X, _, labels, Q = sample(np.float32)
    rule = nb.knn(K, num_classes=NUM_CLASSES)
    params = rule.fit(None, *parallel.shard_rows((X, labels)))
    results["knn_idx"], results["knn_dist"] = map(local, nb.neighbors(params, Q, K))
    results["knn_predict"] = local(rule.predict(params, Q))
    results["grid_scores"] = np.asarray(
        grid(parallel.mesh()).scores
    )  # grid points split over the processes
    np.savez(out, **results)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
