"""jaxlearn.io against hand-made hostile files: every one is an ``io.FileError`` naming the file, and
loading it writes nothing, deletes nothing, runs no factory with the file's sizes and allocates no
more than a small multiple of the file.

The files are built as an attacker would, with ``numpy.savez`` / ``zipfile`` and JSON written by
hand: hand-built learners through the generic ``NamedTuple`` node, functions of jaxlearn that write
or delete files placed as hyperparameters, factory sizes far beyond the data, compressed and
oversized members, malformed metadata, special files. Also: ``save``'s handling of symlinks,
read-only files and directories, and ``like=`` reaching into estimators.
"""

from __future__ import annotations

import json
import os
import pathlib
import struct
import threading
import tracemalloc
import zipfile

import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, experts, io, online

#: Allocation allowed while loading a hostile file (the files here are a few KB).
ALLOCATION_BOUND = 8 << 20


def _meta(tree, leaves=()):
    return {
        "format": "jaxlearn.io",
        "version": 1,
        "jaxlearn": "0",
        "tree": tree,
        "leaves": list(leaves),
    }


def _write(path, meta, compressed=False, **arrays):
    raw = meta if isinstance(meta, bytes) else json.dumps(meta).encode()
    (np.savez_compressed if compressed else np.savez)(
        path, __jaxlearn__=np.frombuffer(raw, np.uint8), **arrays
    )


def _fn(ref):
    return {"type": "function", "ref": ref}


def _partial(ref, *args):
    return {"type": "partial", "func": _fn(ref), "args": list(args), "keywords": {}}


def _str(value):
    return {"type": "str", "value": value}


def _int(value):
    return {"type": "int", "value": value}


def _learner(factory, kind="Learner", **args):
    return {"type": "learner", "kind": kind, "factory": factory, "args": args}


def _namedtuple(cls, **fields):
    return {
        "type": "namedtuple",
        "class": cls,
        "fields": list(fields),
        "items": list(fields.values()),
    }


def _array(i):
    return {"type": "array", "leaf": i}


H22 = {"dtype": "<i8", "shape": [22, 22], "kind": "numpy"}
SAVE = "jaxlearn.io._save:save"
PRUNE = "jaxlearn._compilation_cache:prune"
PERCEPTRON = "jaxlearn.online._perceptron:perceptron"


def _hand_built(kind, target):
    trap = _partial(SAVE, _str(target))
    fields = {
        "Learner": ("init", "update", "predict", "check", "run_block", "block_size"),
        "BatchLearner": ("fit", "predict", "decision_function", "check"),
        "Transform": ("init", "apply"),
    }[kind]
    module = "jaxlearn._pipeline" if kind == "Transform" else "jaxlearn._learner"
    return _namedtuple(f"{module}:{kind}", **{f: trap for f in fields})


def _hostile_trees(target, victim):
    """``(id, metadata, arrays)`` of hostile files; ``target`` must not be written, ``victim``'s
    directory not pruned."""
    trap, prune = _partial(SAVE, _str(target)), _partial(PRUNE, _str(victim), _int(0))
    cases = {
        # functions that write or delete files, where a learner or a hyperparameter stands
        "hand_built_learner": _hand_built("Learner", target),
        "hand_built_batch_learner": _hand_built("BatchLearner", target),
        "hand_built_transform": _hand_built("Transform", target),
        "pipeline_trapped_transform": _learner(
            "jaxlearn._pipeline:_pipeline",
            transforms={"type": "tuple", "items": [_hand_built("Transform", target)]},
            learner=_learner(PERCEPTRON, eta={"type": "float", "value": "0x1p+0"}),
        ),
        "eta_writes_a_file": _learner(PERCEPTRON, eta=trap),
        "eta_prunes_a_directory": _learner(PERCEPTRON, eta=prune),
        "eta_a_registered_loss": _learner(PERCEPTRON, eta=_fn("jaxlearn.losses:hinge")),
        "kernel_writes_a_file": _learner(
            "jaxlearn.linear._kernel_svm:kernel_svm",
            kernel=trap,
            lam={"type": "float", "value": "0x1p-3"},
        ),
        "kernel_a_learner": _learner(
            "jaxlearn.online._kernel_perceptron:kernel_perceptron",
            kernel=_learner(PERCEPTRON),
            budget=_int(4),
        ),
        "binary_a_function": _learner(
            "jaxlearn.multiclass._reductions:one_vs_all",
            binary=_fn("jaxlearn.losses:hinge"),
            num_classes=_int(3),
        ),
        "private_helper": _partial("jaxlearn.kernels:_pair"),
        "unregistered_namedtuple": _namedtuple("jaxlearn._checks:Interval", lo=_int(0)),
        "state_holding_a_function": _namedtuple(
            "jaxlearn.online._perceptron:PerceptronState",
            w=_fn("jaxlearn.losses:hinge"),
            b=_int(0),
            step=_int(0),
        ),
        "partial_keyword_trap": {
            "type": "partial",
            "func": _fn("jaxlearn.kernels:_gaussian"),
            "args": [],
            "keywords": {"sigma": trap},
        },
        "closure_from_a_non_maker": {"type": "closure", "maker": SAVE, "name": "save", "args": {}},
        "factory_a_function": _learner("jaxlearn.losses:hinge"),
        "learner_unknown_argument": _learner(PERCEPTRON, path=_str(target)),
        "estimator_trapped_param": {
            "type": "estimator",
            "class": "Perceptron",
            "params": {"eta0": trap},
            "fitted": {},
        },
        "estimator_state_not_a_state": {
            "type": "estimator",
            "class": "Perceptron",
            "params": {},
            "fitted": {"state_": _str("not a state")},
        },
        "estimator_fitted_function": {
            "type": "estimator",
            "class": "Perceptron",
            "params": {},
            "fitted": {"coef_": trap},
        },
        "estimator_unknown_param": {
            "type": "estimator",
            "class": "Perceptron",
            "params": {"path": _str(target)},
            "fitted": {},
        },
        # sizes far beyond the data
        "soa_version_spaces": _learner(
            "jaxlearn.experts._soa:soa", H=_array(0), max_version_spaces=_int(2**62)
        ),
        "agnostic_experts": _learner(
            "jaxlearn.experts._agnostic:agnostic_experts",
            H=_array(0),
            horizon=_int(10**7),
            max_experts=_int(2**62),
        ),
        "decision_list": _learner(
            "jaxlearn.online._decision_list:decision_list", n=_int(3 * 10**8)
        ),
        "conjunction": _learner("jaxlearn.online._conjunction:conjunction", n=_int(2**40)),
        "object_array_overflow": {
            "type": "object_array",
            "shape": [2**32, 2**32, 2**32],
            "items": [],
        },
        # malformed metadata
        "namedtuple_extra_item": {
            "type": "namedtuple",
            "class": "jaxlearn.online._perceptron:PerceptronState",
            "fields": ["w", "b", "step"],
            "items": [_int(0)] * 4,
        },
        "float_overflow": {"type": "float", "value": "0x1p99999"},
        "float_not_hex": {"type": "float", "value": 1.5},
        "dict_duplicate_keys": {
            "type": "dict",
            "keys": [_int(1), _int(1)],
            "values": [_int(1), _int(2)],
        },
        "learner_args_a_list": {
            "type": "learner",
            "kind": "Learner",
            "factory": PERCEPTRON,
            "args": [],
        },
        "learner_wrong_kind": _learner(PERCEPTRON, kind="BatchLearner"),
    }
    h = np.eye(22, dtype=np.int64)
    arrays = {"soa_version_spaces": [h], "agnostic_experts": [h]}
    for name, tree in cases.items():
        leaves = [H22] if name in arrays else []
        yield (
            name,
            _meta(tree, leaves),
            {f"leaf_{i}": a for i, a in enumerate(arrays.get(name, []))},
        )


def _malformed_archives(path):
    """Files whose archive, not their tree, is hostile."""
    one = _meta(_array(0), [{"dtype": "<f4", "shape": [2], "kind": "jax"}])
    yield (
        "compressed_member",
        lambda: _write(path, one, compressed=True, leaf_0=np.zeros(2, np.float32)),
    )
    big = _meta(_array(0), [{"dtype": "<f4", "shape": [10**9], "kind": "jax"}])
    yield "header_claims_1e9_floats", lambda: _write_npy_lie(path, big)
    yield (
        "bad_dtype",
        lambda: _write(
            path,
            _meta(_array(0), [{"dtype": "<f3", "shape": [2], "kind": "jax"}]),
            leaf_0=np.zeros(2, np.float32),
        ),
    )
    yield (
        "leaf_not_npy",
        lambda: _write_raw(path, json.dumps(one).encode(), {"leaf_0.npy": b"not npy data" * 4}),
    )
    yield "declared_sizes_beyond_the_file", lambda: _write_oversized(path, one)
    yield (
        "duplicate_member",
        lambda: _write_raw(
            path,
            json.dumps(one).encode(),
            {"leaf_0.npy": _npy(np.zeros(2, np.float32))},
            duplicate=True,
        ),
    )
    deep = '{"type": "list", "items": [' * 100_000 + "]}" * 100_000
    yield (
        "deep_nesting",
        lambda: _write(path, f'{{"format": "jaxlearn.io", "version": 1, "tree": {deep}}}'.encode()),
    )
    yield (
        "inflating_member",
        lambda: _write_raw(
            path,
            json.dumps(one).encode(),
            {"leaf_0.npy": _npy(np.zeros(2, np.float32)) + bytes(1 << 20)},
            compression=zipfile.ZIP_DEFLATED,
        ),
    )


def _npy(array) -> bytes:
    import io as stdio

    buffer = stdio.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def _write_raw(path, meta: bytes, members: dict, duplicate=False, compression=zipfile.ZIP_STORED):
    import warnings

    with zipfile.ZipFile(path, "w", compression) as archive:
        archive.writestr("__jaxlearn__.npy", _npy(np.frombuffer(meta, np.uint8)))
        for name, data in members.items():
            archive.writestr(name, data)
            if duplicate:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    archive.writestr(name, data)


def _write_npy_lie(path, meta):
    header = _npy(np.zeros(0, np.float32)).replace(b"(0,)", b"(1000000000,)")
    _write_raw(path, json.dumps(meta).encode(), {"leaf_0.npy": header})


def _write_oversized(path, meta):
    _write(path, meta, leaf_0=np.zeros(2, np.float32))
    data = bytearray(path.read_bytes())
    central = data.rfind(b"PK\x01\x02")  # the last member's central-directory entry
    struct.pack_into("<I", data, central + 24, 2**31)  # its uncompressed size
    path.write_bytes(bytes(data))


def _snapshot(directory: pathlib.Path) -> dict:
    return {p.name: p.read_bytes() for p in directory.iterdir()}


def _load_refused(path, **kwargs):
    io.registered()  # imports the families and jaxlearn.sklearn first: modules are not the file's cost
    pytest.importorskip("jaxlearn.sklearn")
    tracemalloc.start()
    try:
        with pytest.raises(io.FileError) as caught:
            io.load(path, **kwargs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(caught.value).startswith(f"{path}: "), caught.value
    assert peak < ALLOCATION_BOUND + 64 * os.path.getsize(path), peak
    return str(caught.value)


HOSTILE = [name for name, _, _ in _hostile_trees("t", "v")]


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_trees_are_file_errors_and_touch_nothing(name, tmp_path):
    victim, evil = tmp_path / "victim", tmp_path / "evil"
    victim.mkdir(), evil.mkdir()
    (victim / "keep.txt").write_text("precious")
    target = victim / "overwritten.npz"
    meta, arrays = next((m, a) for n, m, a in _hostile_trees(str(target), str(victim)) if n == name)
    _write(evil / "model.npz", meta, **arrays)
    before = _snapshot(victim)
    _load_refused(evil / "model.npz")
    assert _snapshot(victim) == before and not target.exists()


@pytest.mark.parametrize("name", [name for name, _ in _malformed_archives(None)])
def test_hostile_archives_are_file_errors_within_a_bounded_allocation(name, tmp_path):
    path = tmp_path / "model.npz"
    dict(_malformed_archives(path))[name]()
    _load_refused(path)


def test_a_trapped_estimator_is_refused_even_under_like(tmp_path):
    estimators = pytest.importorskip("jaxlearn.sklearn")
    for name, meta, arrays in _hostile_trees(str(tmp_path / "x"), str(tmp_path)):
        if name.startswith("estimator_"):
            _write(tmp_path / "est.npz", meta, **arrays)
            _load_refused(tmp_path / "est.npz", like=estimators.Perceptron())
    assert not (tmp_path / "x").exists()


def test_like_checks_an_estimators_fitted_attributes(tmp_path):
    estimators = pytest.importorskip("jaxlearn.sklearn")
    X = np.random.RandomState(0).randn(20, 3).astype(np.float32)
    fitted = estimators.Perceptron(max_iter=2).fit(X, X[:, 0] > 0)
    io.save(tmp_path / "p.npz", fitted)
    other = estimators.Perceptron(max_iter=2).fit(X[:, :2], X[:, 0] > 0)  # params of another width
    message = _load_refused(tmp_path / "p.npz", like=other)
    assert "does not match `like`" in message and "params_" in message
    got = io.load(tmp_path / "p.npz", like=fitted)
    np.testing.assert_array_equal(got.predict(X), fitted.predict(X))


def _special_files(tmp_path):
    fifo = tmp_path / "fifo.npz"
    os.mkfifo(fifo)
    link = tmp_path / "link.npz"
    link.symlink_to(fifo)
    return {
        "fifo": fifo,
        "symlink_to_fifo": link,
        "directory": tmp_path,
        "device": pathlib.Path("/dev/zero"),
    }


@pytest.mark.parametrize("kind", ["fifo", "symlink_to_fifo", "directory", "device", "missing"])
def test_special_files_are_refused_without_blocking(kind, tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    path = _special_files(tmp_path).get(kind, tmp_path / "missing.npz")
    outcome = []

    def load():
        try:
            io.load(path)
        except Exception as e:  # noqa: BLE001 - recorded and checked below
            outcome.append(e)

    thread = threading.Thread(target=load, daemon=True)
    thread.start()
    thread.join(10)
    if thread.is_alive():  # unblock the reader so the test process can finish
        with open(path, "wb"):
            pass
        pytest.fail(f"io.load blocked on a {kind}")
    assert len(outcome) == 1 and isinstance(outcome[0], io.FileError), outcome
    assert str(outcome[0]).startswith(f"{path}: ")


def test_caps_lift_only_through_like(tmp_path):
    H = np.eye(3, dtype=np.int64)
    learner = experts.soa(H, max_version_spaces=2**18)
    io.save(tmp_path / "soa.npz", learner)
    message = _load_refused(tmp_path / "soa.npz")
    assert "`max_version_spaces`" in message and "like=" in message
    assert repr(io.load(tmp_path / "soa.npz", like=learner)) == repr(learner)
    small = experts.soa(H)
    _load_refused(tmp_path / "soa.npz", like=small)  # a smaller `like` does not vouch for the file
    assert repr(io.load(tmp_path / "soa.npz", like=learner)) == repr(learner)


def test_registry_holds_what_a_learner_may_hold_and_nothing_else():
    registry = io.registered()
    assert registry[PERCEPTRON] == "factory"
    assert registry["jaxlearn.online._perceptron:PerceptronState"] == "namedtuple"
    assert registry["jaxlearn.kernels:_gaussian"] == "function"
    assert registry["jaxlearn.kernels:_polynomial"] == "maker"
    assert registry["jaxlearn.losses:hinge"] == "function"
    for name in (
        "jaxlearn._learner:Learner",
        "jaxlearn._learner:BatchLearner",
        "jaxlearn._pipeline:Transform",
        SAVE,
        PRUNE,
        "jaxlearn._checks:Interval",
        "jaxlearn.kernels:_pair",
        "jaxlearn.io._load:load",
    ):
        assert name not in registry, name
    with pytest.raises(TypeError, match="not a NamedTuple class"):
        core.loadable(dict)


def test_save_follows_symlinks_and_refuses_read_only_files_and_directories(tmp_path):
    state = online.perceptron().init(jnp.zeros(3))
    real, link = tmp_path / "real.npz", tmp_path / "link.npz"
    io.save(real, {"old": 1})
    link.symlink_to(real)
    io.save(link, state)  # as open(link, "wb"): the target is replaced, the link stays a link
    assert link.is_symlink() and type(io.load(real)).__name__ == "PerceptronState"
    read_only = tmp_path / "read_only.npz"
    io.save(read_only, {"old": 1})
    read_only.chmod(0o444)
    with pytest.raises(PermissionError, match="read-only"):
        io.save(read_only, state)
    assert io.load(read_only) == {"old": 1}
    for path in (str(tmp_path / "model.npz") + os.sep, tmp_path):
        with pytest.raises(ValueError, match="`path`"):
            io.save(path, state)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.npz", "read_only.npz", "real.npz"]
