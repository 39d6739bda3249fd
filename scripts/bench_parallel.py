"""Benchmark jaxlearn past one device: the same fits on 1, 2 and 4 devices, and on a GPU if there is one.

Measured, each as the median of ``--repeats`` timed runs (after one untimed warm-up run that compiles
the JAX programs), all in this process (float32):

1. CPU section, on ``n`` = 1, 2 and 4 forced host devices (the script sets
   ``XLA_FLAGS=--xla_force_host_platform_device_count=4`` before JAX starts, unless the flag is already
   set), one mesh ``parallel.mesh(devices=jax.devices("cpu")[:n])`` each:

   - ``linear.soft_svm(lam, steps, batch_size=64).fit`` on ``(X, y)`` split by rows
     (``parallel.shard_rows``; mini-batch Pegasos, every device drawing its share of each stratified
     batch from its own rows, ``lax.psum`` of the partial gradients) against ``SGDClassifier(loss=
     "hinge", alpha=lam)`` for as many example visits (``steps * 64 / m`` epochs, at least 1);
   - ``nn.train`` (an MLP ``d-64-2``, Adam, ``sampling="stratified"``) on the split rows, against
     ``MLPClassifier`` (Adam, same batch size, the same example visits);
   - ``neighbors.knn(5)`` fitted on split rows, ``predict`` of replicated queries (each device its own
     top 5, one merge), against ``KNeighborsClassifier(5, algorithm="brute", n_jobs=-1)``;
   - ``parallel.sweep`` of a Perceptron ``eta`` sweep (``core.run`` over a stream, one program, the
     sweep axis split over the devices) against a Python loop of ``Perceptron(eta0=eta)`` fits, one
     pass each in the stream's order;
   - ``trees.random_forest(trees, depth, mesh=m).fit`` (the trees split over the devices) against
     ``RandomForestClassifier(trees, max_depth=depth, n_jobs=-1)``.

   The ``1 dev`` column is the one-device program (a one-device mesh is not a split). The script checks
   that the results agree across device counts and prints the largest absolute difference from the
   one-device result: k-NN's labels, the sweep's weights and the forest's trees (features, thresholds,
   leaves, class counts) must be equal to the bit; the SVM and the MLP, whose devices' partial sums are
   added in another order, print their float32 difference and must agree within 1e-10 in a short
   float64 run (200 steps on 4,096 rows). A failed check aborts the script.

2. GPU section, only when ``jax.default_backend() == "gpu"`` (else one line says it was skipped;
   ``--gpu-on-cpu`` runs it on the CPU anyway, for a smoke test at a tiny ``--gpu-scale``): a
   10,000-learner Perceptron ``eta`` sweep, a 256-tree forest, k-NN with 1,000,000 x 64 training points
   and 100,000 queries, and 1,024 MLP seeds (``nn.mlp_classifier`` on digits) on the default device(s),
   each against the scikit-learn loop it replaces limited to 2 CPU cores (``n_jobs=2`` and
   ``threadpoolctl.threadpool_limits(2)``). The sizes are multiplied by ``--gpu-scale``. Where the
   scikit-learn loop would take minutes, it runs on a share of the work (``--sklearn-share``: some of
   the learners, seeds or queries) and its time is extrapolated linearly, marked ``(extrapolated)``.
   It needs jax's CUDA wheels: ``pip install "jax[cuda13]"`` (or ``"jax[cuda12]"``, to match the
   driver); on a machine without network, ``pip download`` them where there is one and install them
   with ``pip install --no-index --find-links <folder>``. Run it alone with ``--sections gpu``.

On a 2-core machine the forced host devices share the same two cores: expect overhead (the per-step
``psum`` and the merge), not speed-up; the CPU section measures that overhead.

Usage: ``python scripts/bench_parallel.py [--sections cpu gpu] [--repeats 5] [--gpu-scale 1]`` (the
default run: about 1.5 min on 2 cores); a smoke run of both sections (about 1 min): ``--m 4096
--steps 200 --queries 256 --sweep 8 --stream 512 --trees 8 --forest-m 1024 --repeats 1 --gpu-on-cpu
--gpu-scale 0.001 --gpu-mlp-steps 50``.
"""

from __future__ import annotations

import os
import sys

if "jax" not in sys.modules and "xla_force_host_platform_device_count" not in os.environ.get(
    "XLA_FLAGS", ""
):
    os.environ["XLA_FLAGS"] = (
        os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=4"
    ).strip()

import argparse  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import optax  # noqa: E402
from benchtools import record, timeit  # noqa: E402
from sklearn.datasets import make_classification  # noqa: E402
from sklearn.ensemble import RandomForestClassifier  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.linear_model import Perceptron, SGDClassifier  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier  # noqa: E402
from sklearn.neural_network import MLPClassifier  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from jaxlearn import core, datasets, linear, neighbors, nn, online, parallel, trees  # noqa: E402

KEY = jax.random.PRNGKey(0)
DEVICE_COUNTS = (1, 2, 4)
F64_TOLERANCE, CHECK_ROWS, CHECK_STEPS = 1e-10, 4_096, 200
LAM, BATCH, MLP_HIDDEN, MLP_LR, K = 1e-3, 64, 64, 1e-3, 5
# The trees on any mesh, equal to the bit (impurities can differ by an ulp: a vmap over fewer trees rounds
# their sums differently)
TREE_FIELDS = ("feature", "threshold", "is_leaf", "counts")
ADAM = optax.adam(MLP_LR)  # one object: part of nn.train's compiled program


def labelled(n, d, seed=0):
    """``n`` standardised points in ``d`` dimensions (``datasets.noisy_halfspace``, 5% flipped),
    labels in {-1, 1}, as NumPy float32."""
    X, y, _ = datasets.noisy_halfspace(jax.random.PRNGKey(seed), n, d, 0.05, dtype=jnp.float32)
    return np.asarray(datasets.standardize(X)), np.asarray(y)


def quiet(fn):
    """``fn`` with scikit-learn's convergence warnings off (a fixed number of epochs is the point)."""

    def run(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return fn(*args, **kwargs)

    return run


def max_difference(outputs):
    """The largest absolute difference of each output from the first (pytrees of arrays)."""
    first = jax.tree_util.tree_leaves(outputs[0])
    return max(
        float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64)), initial=0.0))
        for out in outputs[1:]
        for a, b in zip(jax.tree_util.tree_leaves(out), first)
    )


class Table:
    """A Markdown table: workload | one column per device setting | scikit-learn | ratio, and notes."""

    def __init__(self, columns):
        self.columns, self.rows, self.notes = columns, [], []

    def add(self, workload, seconds, sklearn_seconds, sklearn_note=""):
        """``ratio``: scikit-learn's seconds over the last column's (above 1: jaxlearn faster)."""
        cells = [f"{s:.3f}" for s in seconds]
        for column, value in zip(self.columns, seconds):
            record(workload, column, value, sklearn_seconds)
        ratio = f"{sklearn_seconds / seconds[-1]:.2f}x"
        self.rows.append((workload, *cells, f"{sklearn_seconds:.3f}{sklearn_note}", ratio))

    def print(self, header):
        print(f"\n{header}\n")
        print("| workload | " + " | ".join(self.columns) + " | scikit-learn | ratio |")
        print("|---|" + "---:|" * (len(self.columns) + 2))
        for row in self.rows:
            print("| " + " | ".join(row) + " |")
        print("\n" + "\n".join(self.notes))


# --- CPU section: 1, 2, 4 devices -------------------------------------------------------------------


def meshes():
    """Meshes over the first 1, 2 and 4 CPU devices."""
    return [parallel.mesh(devices=jax.devices("cpu")[:count]) for count in DEVICE_COUNTS]


def on_meshes(table, name, make, sklearn, repeats, check64=None):
    """Time ``make(mesh)()`` on 1, 2 and 4 devices (``make`` places the data, untimed; the call it
    returns is the timed work) and ``sklearn()``; check that the devices agree.

    Without ``check64`` the timed outputs must be equal to the bit. With it (a fit whose partial sums
    are added over the devices, which rounds differently in float32) ``check64(mesh)``, a short float64
    run, must agree within ``F64_TOLERANCE``; the float32 difference is printed too.
    """
    seconds, outputs, start = [], [], time.perf_counter()
    for mesh in meshes():
        t, out = timeit(make(mesh), repeats)
        seconds.append(t)
        outputs.append(out)
    sk = timeit(sklearn, repeats, False)[0]
    table.add(name, seconds, sk)
    diff = max_difference(outputs)
    if check64 is None:
        ok, detail = (
            diff == 0,
            f"equal to the bit on 1, 2 and 4 devices (max abs difference {diff:.1e})",
        )
    else:
        with jax.enable_x64(True):
            diff64 = max_difference([check64(mesh) for mesh in meshes()])
        ok = diff64 <= F64_TOLERANCE
        detail = (
            f"a float64 run on 2 and 4 devices within {F64_TOLERANCE:g} of 1 device (max abs difference "
            f"{diff64:.1e}); the timed float32 fits differ by up to {diff:.1e} (rounding)"
        )
    table.notes.append(f"- [{'ok' if ok else 'FAILED'}] {name}: {detail}")
    print(
        f"  {name}: {seconds}, scikit-learn {sk:.3f} ({time.perf_counter() - start:.0f} s)",
        file=sys.stderr,
    )
    if not ok:
        raise AssertionError(f"{name}: {detail}")


def cpu_section(args):
    table = Table([f"{count} dev" for count in DEVICE_COUNTS])
    m, d, steps, repeats = args.m, args.d, args.steps, args.repeats
    X, y = labelled(m, d)
    y01 = ((y + 1) // 2).astype(np.int32)
    epochs = max(1, round(steps * BATCH / m))  # scikit-learn's passes for as many example visits

    def split(fit, X, labels, mesh):
        """The timed call ``fit(X, labels)``, on ``X`` and ``labels`` split by rows over ``mesh``."""
        Xs, ys = jax.block_until_ready(parallel.shard_rows((X, labels), mesh))
        return lambda: fit(Xs, ys)

    def float64(make_fit, labels):
        """``check64``: the fit ``make_fit()`` (made in float64 mode) on the first rows in float64."""
        return lambda mesh: split(
            make_fit(), X[:CHECK_ROWS].astype(np.float64), labels[:CHECK_ROWS], mesh
        )()

    # soft-SVM: mini-batch Pegasos, each device drawing its share of the batch from its rows
    def svm(steps):
        return lambda Xs, ys: linear.soft_svm(LAM, steps, batch_size=BATCH).fit(KEY, Xs, ys).w

    sgd = quiet(
        lambda: SGDClassifier(
            loss="hinge", alpha=LAM, fit_intercept=False, max_iter=epochs, tol=None, random_state=0
        ).fit(X, y)
    )
    on_meshes(
        table,
        f"soft_svm, {m:,} x {d}, {steps:,} steps of {BATCH}",
        lambda mesh: split(svm(steps), X, y, mesh),
        sgd,
        repeats,
        float64(lambda: svm(CHECK_STEPS), y.astype(np.float64)),
    )

    # nn.train: the same, with the devices' gradients of an MLP

    def mlp(steps, dtype=jnp.float32):
        params = nn.mlp_init(jax.random.PRNGKey(1), [d, MLP_HIDDEN, 2], dtype=dtype)
        return lambda Xs, ys: nn.train(
            KEY,
            params,
            Xs,
            ys,
            loss="cross_entropy",
            optimizer=ADAM,
            steps=steps,
            batch_size=BATCH,
            eval_every=steps // 4,
            activation=jax.nn.relu,
            sampling="stratified",
        )[0]

    sk_mlp = quiet(
        lambda: MLPClassifier(
            (MLP_HIDDEN,),
            batch_size=BATCH,
            learning_rate_init=MLP_LR,
            max_iter=epochs,
            tol=0.0,
            n_iter_no_change=epochs + 1,
            random_state=0,
        ).fit(X, y01)
    )
    on_meshes(
        table,
        f"nn.train {d}-{MLP_HIDDEN}-2 (Adam), {steps:,} steps of {BATCH}",
        lambda mesh: split(mlp(steps), X, y01, mesh),
        sk_mlp,
        repeats,
        float64(lambda: mlp(CHECK_STEPS, jnp.float64), y01),
    )

    # k-NN: each device its own top k of its rows, one merge
    Q = labelled(args.queries, d, seed=1)[0]
    rule = neighbors.knn(K)

    def knn(mesh):
        params = rule.fit(KEY, *parallel.shard_rows((X, y01), mesh))
        return lambda: rule.predict(params, Q)

    knc = KNeighborsClassifier(K, algorithm="brute", n_jobs=-1).fit(X, y01)
    on_meshes(
        table,
        f"knn({K}).predict, {m:,} x {d} training, {args.queries:,} queries",
        knn,
        lambda: knc.predict(Q),
        repeats,
    )

    # a Perceptron eta sweep: one program, the etas split over the devices
    V, stream = args.sweep, args.stream
    Xp, yp = X[:stream], y[:stream]
    etas = jnp.linspace(0.1, 2.0, V, dtype=jnp.float32)
    eta_list = np.asarray(etas).tolist()  # for scikit-learn: Python floats

    def perceptron(eta):  # one function object: the sweep's program is compiled once per mesh
        learner = online.perceptron(eta, fit_intercept=True)
        state, trace = core.run(learner, learner.init(Xp[0]), Xp, yp)
        return state.w, trace.loss.sum()

    def sk_perceptrons():
        return [
            Perceptron(eta0=eta, max_iter=1, tol=None, shuffle=False).fit(Xp, yp)
            for eta in eta_list
        ]

    on_meshes(
        table,
        f"sweep of {V} Perceptron eta, {stream:,} x {d} stream",
        lambda mesh: lambda: parallel.sweep(perceptron, etas, mesh),
        quiet(sk_perceptrons),
        repeats,
    )

    # a random forest, the trees split over the devices
    n_trees, depth, Xf, yf = args.trees, args.depth, X[: args.forest_m], y01[: args.forest_m]

    def forest(mesh):
        learner = trees.random_forest(n_trees, depth, mesh=mesh)
        return lambda: [getattr(learner.fit(KEY, Xf, yf).trees, name) for name in TREE_FIELDS]

    rfc = RandomForestClassifier(n_trees, max_depth=depth, n_jobs=-1, random_state=0)
    on_meshes(
        table,
        f"random_forest({n_trees}, {depth}).fit, {len(Xf):,} x {d}",
        forest,
        lambda: rfc.fit(Xf, yf),
        repeats,
    )

    table.notes.append(
        "- ratio: scikit-learn seconds / 4-device seconds (above 1: jaxlearn on 4 devices is faster)"
    )
    table.print(
        f"### 1, 2, 4 devices on {jax.devices('cpu')[0].platform.upper()} ({os.cpu_count()} cores), "
        f"median of {repeats}, seconds"
    )


# --- GPU section: the scikit-learn loops a GPU replaces -------------------------------------------------


def scaled(count, scale, least=2):
    """``count * scale``, rounded, at least ``least``."""
    return max(least, round(count * scale))


def sklearn_share(fn, count, share, least=2):
    """The seconds of ``fn(units)`` (one run, after an untimed ``fn(1)``) on ``units`` of the ``count``
    units of work (learners, trees, queries, seeds), scaled up linearly to ``count``; the extrapolation
    note; the output."""
    units = min(count, max(least, round(share * count)))
    fn(1)
    seconds, out = timeit(lambda: fn(units), 1, False)
    note = "" if units == count else f" (extrapolated from {units:,} of {count:,})"
    return seconds * count / units, note, out


def gpu_section(args):
    backend = jax.default_backend()
    if backend != "gpu" and not args.gpu_on_cpu:
        print(
            f"\n### GPU section skipped: jax.default_backend() is {backend!r}, not 'gpu' (with an NVIDIA "
            'GPU, install jax\'s CUDA wheels, `pip install "jax[cuda13]"`, for this section; `--gpu-on-cpu` '
            "runs it here)"
        )
        return
    scale, share, repeats = args.gpu_scale, args.sklearn_share, args.repeats
    table = Table([backend.upper()])
    mesh = parallel.mesh()  # every device of the default backend: one GPU, or several

    def row(name, jax_seconds, sk):
        seconds, note, _ = sk
        table.add(name, [jax_seconds], seconds, note)
        print(f"  {name}: {jax_seconds:.3f} s, scikit-learn {seconds:.3f} s{note}", file=sys.stderr)

    with threadpool_limits(2):  # scikit-learn on 2 CPU cores, as on the laptop it replaces
        # 1. Perceptron eta sweep: one program against a Python loop of fits
        V, stream = scaled(10_000, scale), scaled(10_000, scale, 16)
        X, y = labelled(stream, 64, seed=2)
        etas = jnp.linspace(0.1, 2.0, V, dtype=jnp.float32)

        def perceptron(eta):
            learner = online.perceptron(eta, fit_intercept=True)
            return core.run(learner, learner.init(X[0]), X, y)[0].w

        t, _ = timeit(lambda: parallel.sweep(perceptron, etas, mesh), repeats)
        fits = quiet(
            lambda units: [
                Perceptron(eta0=eta, max_iter=1, tol=None, shuffle=False).fit(X, y)
                for eta in np.asarray(etas)[:units].tolist()
            ]
        )
        row(
            f"sweep of {V:,} Perceptron eta, {stream:,} x 64 stream",
            t,
            sklearn_share(fits, V, share),
        )

        # 2. A forest of 256 trees
        n_trees, n = scaled(256, scale), scaled(100_000, scale, 64)
        X, y, X_test, y_test = classification(n, 32)
        forest = trees.random_forest(n_trees, args.gpu_depth, mesh=mesh)
        t, params = timeit(lambda: forest.fit(KEY, X, y), repeats)
        accuracy = float((np.asarray(forest.predict(params, X_test)) == y_test).mean())

        def sk_forest(units):
            return RandomForestClassifier(
                units, max_depth=args.gpu_depth, n_jobs=2, random_state=0
            ).fit(X, y)

        sk = sklearn_share(sk_forest, n_trees, share)
        row(f"random_forest({n_trees}, {args.gpu_depth}).fit, {n:,} x 32", t, sk)
        table.notes.append(
            f"- forest: test accuracy {accuracy:.2%}, scikit-learn's ({sk[2].n_estimators} trees) "
            f"{sk[2].score(X_test, y_test):.2%}"
        )

        # 3. k-NN: 1,000,000 x 64 training points, 100,000 queries
        m, n_query = scaled(1_000_000, scale, 64), scaled(100_000, scale, 16)
        X, y = labelled(m, 64, seed=3)
        Q = labelled(n_query, 64, seed=4)[0]
        rule = neighbors.knn(K, query_chunk=args.gpu_query_chunk)
        params = rule.fit(KEY, *parallel.shard_rows((X, (y > 0).astype(np.int32)), mesh))
        t, predicted = timeit(lambda: rule.predict(params, Q), repeats)
        knc = KNeighborsClassifier(K, algorithm="brute", n_jobs=2).fit(X, (y > 0).astype(np.int32))
        sk = sklearn_share(lambda units: knc.predict(Q[:units]), n_query, share, least=16)
        row(f"knn({K}).predict, {m:,} x 64 training, {n_query:,} queries", t, sk)
        agree = float((np.asarray(predicted)[: len(sk[2])] == sk[2]).mean())
        table.notes.append(
            f"- k-NN: the predictions agree with scikit-learn's on {agree:.2%} of its "
            f"{len(sk[2]):,} queries (float32 distances: near-ties may break apart)"
        )

        # 4. MLP seeds
        seeds = scaled(1_024, scale)
        X, y, X_test, y_test = digits()
        steps = args.gpu_mlp_steps
        mlp = nn.mlp_classifier(MLP_HIDDEN, steps=steps, num_classes=10, batch_size=32)
        keys = jax.random.split(KEY, seeds)

        def fit(key):  # one function object: the sweep's program is compiled once
            return mlp.fit(key, X, y)

        t, fitted = timeit(lambda: parallel.sweep(fit, keys, mesh), repeats)
        scores = jax.vmap(lambda p: jnp.mean(mlp.predict(p, X_test) == y_test))(fitted)
        epochs = max(1, round(steps * 32 / (0.9 * len(X))))

        def sk_seeds(units):
            return [
                MLPClassifier(
                    (MLP_HIDDEN,),
                    batch_size=32,
                    max_iter=epochs,
                    tol=0.0,
                    n_iter_no_change=epochs + 1,
                    random_state=seed,
                )
                .fit(X, y)
                .score(X_test, y_test)
                for seed in range(units)
            ]

        sk = sklearn_share(quiet(sk_seeds), seeds, share)
        row(
            f"{seeds:,} seeds of mlp_classifier({MLP_HIDDEN}), {steps:,} steps of 32, digits", t, sk
        )
        table.notes.append(
            f"- MLP seeds: mean test accuracy {float(scores.mean()):.2%}, scikit-learn's "
            f"({len(sk[2])} seeds, {epochs} epochs) {np.mean(sk[2]):.2%}"
        )
    table.notes.append(
        f"- scikit-learn: one run, on 2 CPU cores (n_jobs=2, threadpoolctl); ratio: scikit-learn "
        f"seconds / {backend.upper()} seconds"
    )
    devices = f"{len(jax.devices())} x {jax.devices()[0].device_kind}"
    table.print(
        f"### GPU workloads on {devices}, --gpu-scale {scale:g}, median of {repeats}, seconds"
    )


def classification(n, d):
    """``n`` training and ``n`` test points of ``make_classification`` (10 informative features)."""
    X, y = make_classification(2 * n, d, n_informative=10, random_state=0)
    X, y = X.astype(np.float32), y.astype(np.int32)
    return X[:n], y[:n], X[n:], y[n:]


def digits():
    """Digits (pixels / 16), 70% to train, 30% to test, stratified."""
    X, y = datasets.load_digits()
    X_train, X_test, y_train, y_test = train_test_split(
        X / 16, y, test_size=0.3, random_state=0, stratify=y
    )
    return X_train, y_train, X_test, y_test


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--m", type=int, default=65_536, help="training rows (SVM, MLP, k-NN)")
    parser.add_argument("--d", type=int, default=64, help="dimension")
    parser.add_argument("--steps", type=int, default=2_000, help="SVM and MLP steps")
    parser.add_argument("--queries", type=int, default=2_048, help="k-NN queries")
    parser.add_argument("--sweep", type=int, default=64, help="Perceptron eta values")
    parser.add_argument("--stream", type=int, default=8_192, help="Perceptron stream length")
    parser.add_argument("--trees", type=int, default=32, help="forest trees")
    parser.add_argument("--depth", type=int, default=6, help="forest depth")
    parser.add_argument("--forest-m", type=int, default=8_192, help="forest training rows")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs (median reported)")
    parser.add_argument("--sections", nargs="+", choices=("cpu", "gpu"), default=("cpu", "gpu"))
    parser.add_argument("--gpu-scale", type=float, default=1.0, help="GPU section sizes x this")
    parser.add_argument(
        "--gpu-on-cpu", action="store_true", help="run the GPU section without a GPU"
    )
    parser.add_argument(
        "--sklearn-share", type=float, default=0.05, help="GPU section: scikit-learn's share"
    )
    parser.add_argument("--gpu-depth", type=int, default=8, help="GPU section: forest depth")
    parser.add_argument(
        "--gpu-query-chunk", type=int, default=1_024, help="GPU section: k-NN query chunk"
    )
    parser.add_argument(
        "--gpu-mlp-steps", type=int, default=500, help="GPU section: steps of each MLP fit"
    )
    args = parser.parse_args()
    if "cpu" in args.sections:
        cpu_section(args)
    if "gpu" in args.sections:
        gpu_section(args)


if __name__ == "__main__":
    main()
