"""jaxlearn.io: bit-for-bit round trips of every family's state or params, of learners and estimators;
truncated, corrupted, foreign and hostile files refused with a ValueError naming the file.

States and params come from the conformance rows: ``jax.eval_shape`` of the row's ``init`` or ``fit``
gives the exact pytree (types, dtypes, shapes) without compiling anything, and random *bits* fill it
(NaN payloads, signed zeros and subnormals included), so equality of the bytes is the test.
"""

from __future__ import annotations

import functools
import json
import os
import zipfile
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxlearn import (
    core,
    experts,
    io,
    kernels,
    linear,
    losses,
    multiclass,
    nn,
    online,
    parallel,
    trees,
)
from jaxlearn._registry import entry as loadable_entry
from tests.test_conformance import BATCH, ONLINE

KEY = jax.random.PRNGKey(0)
#: Rows whose sample is costly to trace: their (X, y) shapes, as the row's data function gives them.
SAMPLE_SHAPES = {"structured_svm": ((12, 64, 4), jnp.float32, (12, 4), jnp.int32)}


def _random_bits(tree, seed=0):
    """Arrays of ``tree``'s structure, dtypes and shapes, filled with random bits (bools: 0/1)."""
    rng = np.random.default_rng(seed)

    def fill(s):
        if jnp.issubdtype(s.dtype, jax.dtypes.prng_key):
            return jax.random.wrap_key_data(rng.integers(0, 2**32, (*s.shape, 2), dtype=np.uint32))
        dtype = np.dtype(s.dtype)
        if dtype == np.bool_:
            return jnp.asarray(rng.random(s.shape) < 0.5)
        raw = rng.integers(0, 256, (*s.shape, dtype.itemsize), dtype=np.uint8)
        return jnp.asarray(raw.view(dtype).reshape(s.shape))

    return jax.tree_util.tree_map(fill, tree)


def _assert_identical(got, want):
    """Same tree definition (types, learners' factories and static arguments), same leaves' bytes."""
    got_leaves, got_def = jax.tree_util.tree_flatten(got)
    want_leaves, want_def = jax.tree_util.tree_flatten(want)
    assert got_def == want_def
    for u, v in zip(got_leaves, want_leaves):
        assert type(u) is type(v), (type(u), type(v))
        if isinstance(v, (jax.Array, np.ndarray, np.generic)):
            assert (u.dtype, u.shape) == (v.dtype, v.shape)
            if jnp.issubdtype(v.dtype, jax.dtypes.prng_key):
                assert jax.random.key_impl(u) == jax.random.key_impl(v)
                u, v = jax.random.key_data(u), jax.random.key_data(v)
            if v.dtype == object:  # bytes would be pointers
                assert [(type(a), a) for a in u.flat] == [(type(a), a) for a in v.flat]
            else:
                assert np.asarray(u).tobytes() == np.asarray(v).tobytes()
        else:
            assert repr(u) == repr(v)


def _round_trip(tmp_path, tree, **kwargs):
    path = tmp_path / "tree.npz"
    io.save(path, tree)
    return io.load(path, **kwargs)


def _sample(case, n=12):
    if case.name in SAMPLE_SHAPES:
        x_shape, x_dtype, y_shape, y_dtype = SAMPLE_SHAPES[case.name]
        return jax.ShapeDtypeStruct(x_shape, x_dtype), jax.ShapeDtypeStruct(y_shape, y_dtype)
    return jax.eval_shape(lambda key: case.data(key, n, jnp.float32), KEY)


@pytest.mark.parametrize("case", ONLINE, ids=[c.name for c in ONLINE])
def test_online_state_round_trips_bit_for_bit(case, tmp_path):
    xs, ys = _sample(case, 4)
    shapes = jax.eval_shape(lambda xs, ys: case.init(case.learner(), xs, ys), xs, ys)
    state = _random_bits(shapes)
    _assert_identical(_round_trip(tmp_path, state), state)


@pytest.mark.parametrize("case", BATCH, ids=[c.name for c in BATCH])
def test_batch_params_round_trip_bit_for_bit(case, tmp_path):
    X, y = _sample(case)
    params = _random_bits(jax.eval_shape(case.learner().fit, KEY, X, y))
    _assert_identical(_round_trip(tmp_path, params), params)
    _assert_identical(_round_trip(tmp_path, params, like=params), params)


def test_keys_extended_dtypes_and_containers_round_trip(tmp_path):
    shapes = jax.eval_shape(
        lambda: experts.hedge(0.5, sample=True).init(jnp.zeros(3), jax.random.key(1))
    )
    hedge = _random_bits(shapes)  # a typed key (key<fry>) inside
    assert jnp.issubdtype(hedge.key.dtype, jax.dtypes.prng_key)
    mlp = jax.eval_shape(lambda: nn.mlp_init(KEY, [3, 4, 2]))
    X, y = jax.ShapeDtypeStruct((10, 3), jnp.float32), jax.ShapeDtypeStruct((10,), jnp.int32)

    def train(params, X, y):
        optimizer = optax.sgd(0.1)
        return nn.train(
            KEY, params, X, y, loss="cross_entropy", optimizer=optimizer, steps=4, batch_size=2
        )

    _, history = jax.eval_shape(train, mlp, X, y)
    specials = np.array([np.nan, -0.0, np.inf, -np.inf, 1e-45], np.float32)
    specials[0:1].view(np.uint32)[0] |= 0x1234  # a NaN payload
    tree = {
        "hedge": hedge,
        "history": _random_bits(history),
        "layers": _random_bits(mlp),  # a list of (W, b)
        "bfloat16": jnp.asarray([1.5, -2.0, 3.0e38], jnp.bfloat16),
        "numpy": specials,
        "scalar": np.int16(-7),
        "python": (None, True, 3, 0.1, "text", [2**60, -0.0]),
        "strings": np.array(["yes", "no"]),
        "objects": np.array(["a", 1, 2.5], dtype=object),
    }
    got = _round_trip(tmp_path, tree)
    _assert_identical(got, tree)
    assert type(got["history"]) is nn.TrainHistory and type(got["layers"]) is list
    assert got["objects"].dtype == object and got["objects"].tolist() == ["a", 1, 2.5]


LEARNERS = {
    "perceptron": lambda: online.perceptron(0.5),
    "soft_svm": lambda: linear.soft_svm(0.1, 100),
    "kernel_svm_gaussian": lambda: linear.kernel_svm(kernels.gaussian(1.0), 0.1, 100),
    "kernel_ridge_polynomial": lambda: linear.kernel_ridge(kernels.polynomial(3), 0.1),
    "kernel_perceptron_substring": lambda: online.kernel_perceptron(kernels.substring(), budget=4),
    "ogd_l2_ball": lambda: online.online_gradient_descent(
        losses.hinge, 0.1, projection=online.l2_ball(2.0)
    ),
    "one_vs_all": lambda: multiclass.one_vs_all(linear.soft_svm(0.1, 100, fit_intercept=True), 3),
    "multiclass_svm_delta": lambda: multiclass.multiclass_svm(
        0.1, 10, 3, delta=2 * (1 - jnp.eye(3))
    ),
    "soa": lambda: experts.soa(jnp.array([[0, 1], [1, 1]])),
    "pipeline": lambda: core.pipeline(online.standardize(), online.perceptron(fit_intercept=True)),
}


@pytest.mark.parametrize("name", LEARNERS)
def test_learners_round_trip(name, tmp_path):
    learner = LEARNERS[name]()
    got = _round_trip(tmp_path, learner)
    _assert_identical(
        got, learner
    )  # the tree definition holds the factory and its static arguments
    assert type(got) is type(learner) and repr(got) == repr(learner)


def test_every_conformance_learner_round_trips(tmp_path):
    for case in ONLINE + BATCH:
        learner = case.learner()
        _assert_identical(_round_trip(tmp_path, learner, like=learner), learner)
        try:
            _assert_identical(io.load(tmp_path / "tree.npz"), learner)
        except io.FileError as e:  # a schedule defined in the test module: only `like=` restores it
            assert "(at tree.eta)" in str(e) and "pass `like=`" in str(e), case.name


def test_a_rebuilt_learner_computes_as_the_original(tmp_path):
    learner = online.perceptron(0.5, fit_intercept=True)
    X = jnp.asarray([[1.0, -2.0], [0.5, 1.0], [-1.0, 0.5]])
    y = jnp.asarray([1.0, -1.0, 1.0])
    state, trace = core.run(learner, learner.init(X[0]), X, y)
    saved = _round_trip(tmp_path, {"learner": learner, "state": state})
    again, trace_again = core.run(saved["learner"], saved["learner"].init(X[0]), X, y)
    _assert_identical((again, trace_again), (state, trace))
    want = core.predict_batch(learner, state, X)
    np.testing.assert_array_equal(core.predict_batch(saved["learner"], saved["state"], X), want)


class _Custom(NamedTuple):
    w: jax.Array
    step: int


def _local_loss(w, x, y):
    return losses.hinge(w, x, y)


@pytest.mark.parametrize(
    "make, message",
    [
        (
            lambda: online.online_gradient_descent(lambda w, x, y: 0.0, 0.1),
            "tree.loss.*cannot be described",
        ),
        (lambda: linear.sgd(losses.hinge, steps=5, optimizer=optax.adam(0.1)), "tree.optimizer"),
        (
            lambda: core.Learner(lambda x, key=None: x, lambda s, x, y: (s, None), lambda s, x: x),
            "by hand",
        ),
        (lambda: {"f": functools.partial(losses.hinge)}, "cannot be described"),
        (lambda: {"tracer": jax.jit(lambda x: x).lower}, "cannot be described"),
        (lambda: {"set": {1, 2}}, "type set"),
        (lambda: trees.random_forest(2, 1, mesh=parallel.mesh()), "tree.mesh: a jax.sharding.Mesh"),
    ],
    ids=[
        "lambda_loss",
        "optax_optimizer",
        "hand_built",
        "functools_partial",
        "method",
        "set",
        "mesh",
    ],
)
def test_what_cannot_be_described_is_refused_and_nothing_written(make, message, tmp_path):
    with pytest.raises(ValueError, match=message):
        io.save(tmp_path / "x.npz", make())
    assert os.listdir(tmp_path) == []


def test_own_types_load_only_through_like(tmp_path):
    tree = _Custom(jnp.arange(3.0), 4)
    io.save(tmp_path / "own.npz", tree)
    with pytest.raises(
        ValueError, match="own.npz.*refuses to load the NamedTuple class.*_Custom.*like="
    ):
        io.load(tmp_path / "own.npz")
    _assert_identical(io.load(tmp_path / "own.npz", like=_Custom(jnp.zeros(3), 0)), tree)
    learner = online.online_gradient_descent(_local_loss, 0.1)
    with pytest.raises(
        ValueError, match="refuses to load the function 'tests.test_io:_local_loss'"
    ):
        _round_trip(tmp_path, learner)
    _assert_identical(_round_trip(tmp_path, learner, like=learner), learner)


@pytest.mark.parametrize(
    "like, found",
    [
        (lambda s: s._replace(w=jnp.zeros(4)), "shape"),
        (lambda s: s._replace(w=s.w.astype(jnp.int32)), "dtype"),
        (lambda s: online.OGDState(s.w, s.b, s.step, jnp.asarray(False)), "OGDState"),
        (lambda s: tuple(s), "tuple"),
        (lambda s: [s], "list"),
        (lambda s: online.perceptron(), "learner"),
    ],
    ids=["shape", "dtype", "namedtuple", "container", "nesting", "learner"],
)
def test_like_mismatch_is_a_value_error(like, found, tmp_path):
    state = online.perceptron().init(jnp.zeros(3))
    io.save(tmp_path / "s.npz", state)
    with pytest.raises(ValueError, match=f"s.npz: the saved tree does not match `like`.*{found}"):
        io.load(tmp_path / "s.npz", like=like(state))
    learner = online.perceptron(0.5)
    io.save(tmp_path / "l.npz", learner)
    with pytest.raises(ValueError, match="l.npz: the saved tree does not match `like`.*winnow"):
        io.load(tmp_path / "l.npz", like=online.winnow())


def _write(path, meta, **arrays):
    """An archive with the given metadata (a JSON-able value, or raw bytes) and arrays."""
    raw = meta if isinstance(meta, bytes) else json.dumps(meta).encode()
    np.savez(path, __jaxlearn__=np.frombuffer(raw, np.uint8), **arrays)


def _meta(tree, leaves=()):
    return {
        "format": "jaxlearn.io",
        "version": 1,
        "jaxlearn": "0",
        "tree": tree,
        "leaves": list(leaves),
    }


LEAF = {"dtype": "<f4", "shape": [2], "kind": "jax"}
ONE_LEAF = _meta({"type": "array", "leaf": 0}, [LEAF])


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda p: p.write_bytes(b""), "not a jaxlearn file"),
        (lambda p: p.write_text("w,b\n1,2\n"), "not a jaxlearn file"),
        (lambda p: np.save(p.open("wb"), np.ones(3)), "not a jaxlearn file"),
        (lambda p: np.savez(p, w=np.ones(3)), r"not a jaxlearn file \(an .npz archive without"),
        (lambda p: _write(p, b"{not json"), "corrupted metadata.*JSON"),
        (lambda p: _write(p, b"\xff\xfe"), "corrupted metadata.*UTF-8"),
        (lambda p: _write(p, {"format": "other"}), "not a jaxlearn file"),
        (lambda p: _write(p, {**_meta({"type": "none"}), "version": 2}), "format version 2"),
        (lambda p: _write(p, _meta({"type": "mystery"})), "unknown node"),
        (
            lambda p: _write(p, _meta({"type": "check_like"})),
            "unknown node",
        ),  # not a reader's method
        (lambda p: _write(p, ONE_LEAF), "arrays do not match"),
        (
            lambda p: _write(
                p, {**ONE_LEAF, "tree": {"type": "array", "leaf": 3}}, leaf_0=np.ones(2)
            ),
            "leaf",
        ),
        (lambda p: _write(p, ONE_LEAF, leaf_0=np.ones(3, np.int8)), "metadata says"),
        (
            lambda p: _write(
                p, {**ONE_LEAF, "leaves": [{**LEAF, "dtype": "O"}]}, leaf_0=np.ones(2)
            ),
            "dtype",
        ),
        (lambda p: _write(p, _meta({"type": "float", "value": 1.5})), "hex"),
    ],
    ids=[
        "empty",
        "text",
        "npy",
        "foreign_npz",
        "bad_json",
        "bad_utf8",
        "other_format",
        "newer_version",
        "unknown_node",
        "method_name",
        "missing_array",
        "leaf_out_of_range",
        "wrong_array",
        "object_dtype",
        "bad_float",
    ],
)
def test_bad_files_are_value_errors_naming_the_file(build, message, tmp_path):
    path = tmp_path / "bad.npz"
    build(path)
    with pytest.raises(ValueError, match=f"bad.npz: .*{message}"):
        io.load(path)


def test_truncated_and_corrupted_archives(tmp_path):
    path = tmp_path / "full.npz"
    io.save(path, linear.SoftSVMParams(jnp.arange(64.0), jnp.asarray(1.0)))
    data = path.read_bytes()
    for cut in (len(data) // 2, len(data) - 5, 40):
        (tmp_path / "cut.npz").write_bytes(data[:cut])
        with pytest.raises(ValueError, match="cut.npz: (truncated or corrupted|not a jaxlearn)"):
            io.load(tmp_path / "cut.npz")
    with zipfile.ZipFile(path) as archive:
        offset = archive.getinfo("leaf_0.npy").header_offset + 200
    flipped = bytearray(data)
    flipped[offset] ^= 0xFF  # one byte of the array's data: the CRC check fails
    (tmp_path / "flip.npz").write_bytes(bytes(flipped))
    with pytest.raises(ValueError, match="flip.npz: truncated or corrupted"):
        io.load(tmp_path / "flip.npz")


@pytest.mark.parametrize(
    "node",
    [
        {"type": "namedtuple", "class": "os:system", "fields": [], "items": []},
        {
            "type": "learner",
            "kind": "Learner",
            "factory": "os:system",
            "args": {"command": {"type": "none"}},
        },
        {"type": "function", "ref": "builtins:eval"},
        {"type": "function", "ref": "jaxlearn.io._save:os.system"},  # through a module's import
        {"type": "function", "ref": "jaxlearn.kernels:jnp.exp"},
        {"type": "function", "ref": "jaxlearn.__main__:main"},
        {"type": "closure", "maker": "subprocess:run", "args": {}},
        {"type": "closure", "maker": "jaxlearn.experts._soa:_table", "name": "_table", "args": {}},
        {
            "type": "partial",
            "func": {"type": "function", "ref": "os:system"},
            "args": [],
            "keywords": {},
        },
        {"type": "learner", "kind": "Learner", "factory": "jaxlearn.losses:hinge", "args": {}},
        {"type": "estimator", "class": "os", "params": {}, "fitted": {}},
    ],
    ids=[
        "namedtuple",
        "factory",
        "eval",
        "module_chain",
        "reexport",
        "dunder_module",
        "closure",
        "not_a_maker",
        "partial",
        "not_a_factory",
        "estimator",
    ],
)
def test_names_outside_jaxlearn_are_refused_and_nothing_runs(node, tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(os, "system", lambda *a: calls.append(a))
    _write(tmp_path / "evil.npz", _meta(node))
    with pytest.raises(ValueError, match="evil.npz: "):
        io.load(tmp_path / "evil.npz")
    assert calls == []


def test_float64_needs_x64_to_load_as_a_jax_array(tmp_path):
    with jax.enable_x64(True):
        tree = (jnp.arange(3.0), np.arange(3.0))
        _assert_identical(_round_trip(tmp_path, tree), tree)
    assert (
        _round_trip(tmp_path, np.arange(3.0)).dtype == np.float64
    )  # NumPy arrays keep their dtype
    io.save(tmp_path / "x64.npz", tree)
    with pytest.raises(
        ValueError, match="x64.npz: an array of float64 becomes float32 here; enable jax_enable_x64"
    ):
        io.load(tmp_path / "x64.npz")


def test_writes_are_atomic(tmp_path, monkeypatch):
    path = tmp_path / "model.npz"
    io.save(path, {"w": jnp.ones(3)})
    before = path.read_bytes()

    def fail(fd):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(OSError, match="disk full"):
        io.save(path, {"w": jnp.zeros(3)})
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["model.npz"]
    monkeypatch.undo()
    io.save(str(path), {"w": jnp.zeros(3)})  # a str path too; replaces the file
    np.testing.assert_array_equal(io.load(path)["w"], jnp.zeros(3))
    assert os.listdir(tmp_path) == ["model.npz"]
    with pytest.raises(TypeError, match="`path`"):
        io.save(3, {})


def test_estimators_round_trip(tmp_path):
    estimators = pytest.importorskip("jaxlearn.sklearn")
    rng = np.random.RandomState(0)
    X = rng.randn(30, 3).astype(np.float32)
    labels = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")
    classes = np.digitize(X[:, 0], [-0.5, 0.5])
    cases = [(estimators.Perceptron(max_iter=2), labels)]
    if hasattr(estimators, "OneVsRestClassifier") and hasattr(estimators, "LinearSVC"):
        cases.append((estimators.OneVsRestClassifier(estimators.LinearSVC(C=0.5)), classes))
    for estimator, y in cases:
        estimator.fit(X, y)
        got = _round_trip(tmp_path, estimator)
        assert type(got) is type(estimator) and repr(got) == repr(estimator)
        fitted = sorted(k for k in vars(estimator) if k.endswith("_") and not k.startswith("_"))
        assert sorted(k for k in vars(got) if k.endswith("_")) == fitted
        np.testing.assert_array_equal(got.predict(X), estimator.predict(X))
        np.testing.assert_array_equal(got.classes_, estimator.classes_)


def _factories_of(learner, found):
    kinds = tuple(io._common.LEARNERS.values())
    call = io._common.factory_call(learner) if isinstance(learner, kinds) else None
    if call is not None:
        found.add(f"{call[0].__module__}:{call[0].__qualname__}")
        for value in jax.tree_util.tree_leaves(call[1], is_leaf=lambda v: isinstance(v, kinds)):
            _factories_of(value, found)
    return found


def test_every_registered_factory_and_namedtuple_round_trips(tmp_path):
    """The round trips above cover every factory of the registry; every registered NamedTuple class
    round-trips by name (each field a distinct array)."""
    covered = set()
    for learner in [case.learner() for case in ONLINE + BATCH] + [
        make() for make in LEARNERS.values()
    ]:
        _factories_of(learner, covered)
    registry = io.registered()
    assert {name for name, kind in registry.items() if kind == "factory"} <= covered
    for name, kind in registry.items():
        if kind == "namedtuple":
            cls = loadable_entry(name)[1]
            value = cls(*(jnp.arange(i + 1.0) for i in range(len(cls._fields))))
            _assert_identical(_round_trip(tmp_path, value), value)


def test_every_estimator_round_trips(tmp_path):
    estimators = pytest.importorskip("jaxlearn.sklearn")
    rng = np.random.RandomState(0)
    X = rng.randn(24, 3).astype(np.float32)
    labels, target = np.where(X[:, 0] > 0, 1, 0), X[:, 1]
    # a search saves its best_estimator_; cross_validate and cross_val_score are functions
    for name in set(estimators.__all__) - {"GridSearchCV", "cross_validate", "cross_val_score"}:
        cls = getattr(estimators, name)
        meta = name.startswith("OneVs")
        estimator = cls(estimators.LinearSVC(max_iter=2)) if meta else cls()
        if "max_iter" in estimator.get_params(deep=False) and not meta:
            estimator.set_params(max_iter=2)
        y = (
            np.digitize(X[:, 0], [-0.5, 0.5])
            if meta
            else target
            if name.endswith("Regressor") or name in ("Ridge", "KernelRidge")
            else labels
        )
        estimator.fit(X, y)
        for like in (None, estimator):
            got = _round_trip(tmp_path, estimator, like=like)
            assert type(got) is cls and repr(got) == repr(estimator), name
            np.testing.assert_array_equal(got.predict(X), estimator.predict(X), err_msg=name)
