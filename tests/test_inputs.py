"""Nothing silent: the bad-input suite over every public entry point (README "Inputs and errors").

Two parts, both enumerated from the package so that a new entry point is covered the day it is added:

* **Learners**, from the conformance rows (``tests/test_conformance.py``, complete by its own test):
  every numeric factory argument has a declared range and each value outside it is refused; NaN/inf,
  wrong widths and wrong labels are refused by ``run``, an eager ``update``, ``predict``, ``fit`` and
  ``decision_function``; lists, integer and boolean inputs give the result of the same values as
  floats; one-row and one-class samples give finite params or a clear error.
* **Functions** (theory, metrics, datasets, losses, kernels, structured, ranking, core, ...), from the
  tables ``tests/inputs/table_*.py`` (row types in ``tests/inputs/rows.py``).

``test_every_public_entry_point_is_tried`` asks that every callable of every module's ``__all__`` is
tried by one of the two.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import math
import pkgutil

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlearn
from jaxlearn import core
from jaxlearn._checks import check_positive
from tests import inputs as tables
from tests.inputs.rows import assert_finite, assert_raised_by_jaxlearn, row_id
from tests.test_conformance import BATCH, ONLINE

MODULES = (
    "datasets",
    "experts",
    "kernels",
    "linear",
    "losses",
    "metrics",
    "multiclass",
    "neighbors",
    "nn",
    "online",
    "parallel",
    "ranking",
    "selection",
    "structured",
    "theory",
    "trees",
)
KEY = jax.random.PRNGKey(0)


def _table_rows():
    rows = []
    for info in pkgutil.iter_modules(tables.__path__):
        if info.name.startswith("table_"):
            rows += importlib.import_module(f"tests.inputs.{info.name}").ROWS
    return rows


TABLE_ROWS = _table_rows()


def _first_row_per_factory(rows):
    seen, first = set(), []
    for row in rows:
        if id(row.factory) not in seen:
            seen.add(id(row.factory))
            first.append(row)
    return first


FACTORY_ROWS = _first_row_per_factory(ONLINE + BATCH)


def _raises(error, names, call, what):
    """``call()`` raises ``error`` from jaxlearn's code with a message naming one of ``names``."""
    names = (names,) if isinstance(names, str) else names
    with pytest.raises(error) as caught:
        jax.block_until_ready(call())
    assert_raised_by_jaxlearn(caught, type("Row", (), {"what": what}))
    message = str(caught.value)
    assert any(f"`{n}`" in message for n in names), (
        f"{what}: message names none of {names}: {message!r}"
    )


# --- tables ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("row", TABLE_ROWS, ids=row_id)
def test_table_row(row):
    row.run()


# --- factory arguments -------------------------------------------------------------------------------


def _numeric_arguments(factory, learner) -> list:
    """The arguments of a factory that take numbers (from the row's values and the annotations)."""
    found = []
    values = core.hyperparameters(learner)
    for name, parameter in inspect.signature(factory).parameters.items():
        value, annotation = values.get(name), str(parameter.annotation)
        if callable(value) or isinstance(value, (bool, str)):
            continue
        if "str" in annotation:  # an option that also names its values (max_features="sqrt")
            continue
        numeric_value = isinstance(value, (int, float, np.number, np.ndarray, jax.Array))
        numeric_type = any(
            t in annotation for t in ("int", "float", "ArrayLike", "ScalarOrSchedule")
        )
        if numeric_value or (value is None and numeric_type):
            found.append(name)
    return found


@pytest.mark.parametrize("case", FACTORY_ROWS, ids=lambda c: c.name)
def test_every_numeric_argument_has_a_range(case):
    declared = getattr(case.factory, "ranges", None)
    assert declared is not None, f"{case.name}: not built with core.learner_factory(ranges=...)"
    missing = sorted(set(_numeric_arguments(case.factory, case.learner())) - set(declared))
    assert not missing, f"{case.name}: numeric arguments without a declared range: {missing}"


RANGE_ROWS = [
    (case, name, interval)
    for case in FACTORY_ROWS
    for name, interval in sorted(getattr(case.factory, "ranges", {}).items())
]


@pytest.mark.parametrize(
    "case, name, interval", RANGE_ROWS, ids=lambda v: getattr(v, "name", str(v))
)
def test_out_of_range_arguments_are_refused(case, name, interval):
    learner = case.learner()
    for value in interval.outside():
        build = functools.partial(core.replace, learner, **{name: value})
        _raises(ValueError, name, build, f"{case.name}({name}={value})")
    _raises(
        TypeError, name, lambda: core.replace(learner, **{name: "1"}), f"{case.name}({name}='1')"
    )
    if not interval.integer:
        _raises(
            TypeError,
            name,
            lambda: core.replace(learner, **{name: True}),
            f"{case.name}({name}=True)",
        )


# --- online learners ---------------------------------------------------------------------------------

VECTOR_ROWS = [c for c in ONLINE if c.stream()[0] is not None and c.stream()[0].ndim == 2]
LOSS_ROWS = [c for c in ONLINE if c.stream()[0] is None]


def _integral(a) -> bool:
    a = np.asarray(a)
    return bool(np.all(a == np.round(a)))


def _as_integers(a):
    """``a``'s values as int32 (``a`` itself when integral, else ``round(3 a)``) and as floats."""
    a = np.asarray(a)
    unit = a.min() >= 0 and a.max() <= 1  # losses, advice, outcomes in [0, 1] stay in [0, 1]
    ints = (a if _integral(a) else np.round(a if unit else 3 * a)).astype(np.int32)
    return ints, ints.astype(np.float32)


@pytest.mark.parametrize("case", VECTOR_ROWS, ids=lambda c: c.name)
def test_online_refuses_bad_instances(case):
    xs, ys = case.stream(n=20)
    xs = xs.astype(jnp.float32)  # 0/1 advice comes as int32: NaN needs a float array
    learner = case.learner()
    state = case.init(learner, xs, ys)
    wide = jnp.concatenate([xs, jnp.ones_like(xs[:, :1])], axis=1)
    tries = {
        "run, NaN in xs": (("xs",), lambda: core.run(learner, state, xs.at[2, 0].set(jnp.nan), ys)),
        "run, inf in xs": (("xs",), lambda: core.run(learner, state, xs.at[2, 0].set(jnp.inf), ys)),
        "run, xs one feature too wide": (("xs", "x"), lambda: core.run(learner, state, wide, ys)),
        "update, NaN x": (("x",), lambda: learner.update(state, xs[0].at[0].set(jnp.nan), ys[0])),
        "update, x too wide": (("x",), lambda: learner.update(state, wide[0], ys[0])),
        "predict, NaN x": (("x",), lambda: learner.predict(state, xs[0].at[0].set(jnp.nan))),
        "predict, x too wide": (("x",), lambda: learner.predict(state, wide[0])),
        "predict, x too narrow": (("x",), lambda: learner.predict(state, xs[0, :-1])),
        "predict_batch, NaN": (
            ("X",),
            lambda: core.predict_batch(learner, state, xs.at[1, 0].set(jnp.nan)),
        ),
        "predict_batch, too wide": (("X", "x"), lambda: core.predict_batch(learner, state, wide)),
    }
    for what, (names, call) in tries.items():
        _raises(ValueError, names, call, f"{case.name}: {what}")


@pytest.mark.parametrize("case", ONLINE, ids=lambda c: c.name)
def test_eager_update_checks_what_run_checks(case):
    """A label ``run`` refuses is refused by an eager ``update`` too, naming ``y``."""
    xs, ys = case.stream(n=20)
    learner = case.learner()
    state = case.init(learner, xs, ys)
    if xs is None:  # Hedge's loss vectors: NaN and a wrong width
        _raises(
            ValueError,
            "ys",
            lambda: core.run(learner, state, None, ys.at[1, 0].set(jnp.nan)),
            "run NaN",
        )
        _raises(
            ValueError,
            "y",
            lambda: learner.update(state, None, ys[0].at[0].set(jnp.nan)),
            "update NaN",
        )
        _raises(
            ValueError,
            ("y", "ys"),
            lambda: learner.update(state, None, ys[0, :-1]),
            "update narrow",
        )
        return
    bad = ys.at[0].set(7)
    try:
        core.run(learner, state, xs, bad)
    except ValueError:
        _raises(
            ValueError,
            "y",
            lambda: learner.update(state, xs[0], bad[0]),
            f"{case.name}: update y=7",
        )
    else:
        pytest.skip(f"{case.name} takes any real label")


@pytest.mark.parametrize("case", ONLINE, ids=lambda c: c.name)
def test_online_containers_and_integer_dtypes(case):
    """Lists, and int/bool instances and labels, give the run of the same values as floats."""
    xs, ys = case.stream(n=30)
    learner = case.learner()
    y_int, y_float = _as_integers(ys)
    if xs is None:
        state = case.init(learner, None, y_float)
        want = core.run(learner, state, None, y_float)
        got = core.run(learner, state, None, y_int)
        _assert_same(got, want, case.name + " int losses")
        return
    x_int, x_float = _as_integers(xs) if xs.dtype != jnp.int32 else (np.asarray(xs), np.asarray(xs))
    ys_given = y_float if jnp.issubdtype(ys.dtype, jnp.floating) else y_int
    state = case.init(learner, x_float, ys_given)
    want = core.run(learner, state, x_float, ys_given)
    _assert_same(
        core.run(learner, state, x_float.tolist(), ys_given.tolist()), want, case.name + " lists"
    )
    _assert_same(core.run(learner, state, x_int, ys_given), want, case.name + " int xs")
    if set(np.unique(x_int).tolist()) <= {0, 1}:
        _assert_same(
            core.run(learner, state, x_int.astype(bool), ys_given), want, case.name + " bool xs"
        )
    if y_int.dtype != ys_given.dtype and set(np.unique(y_int).tolist()) <= {-1, 0, 1}:
        _assert_same(core.run(learner, state, x_float, y_int), want, case.name + " int ys")


def _assert_same(got, want, what):
    """Equal to the float run, and no NaN (an infinite loss is a value: the entropic loss of a 0/1
    prediction that misses the outcome)."""
    for leaf in jax.tree_util.tree_leaves(got):
        assert not np.isnan(np.asarray(leaf, float)).any(), f"{what}: NaN in the result"
    for a, b in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        a, b = np.asarray(a, float), np.asarray(b, float)
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=what)


# --- batch learners -----------------------------------------------------------------------------------

PLAIN_BATCH = [c for c in BATCH if "bad_input" not in dict(c.skips)]


def _fitted(case, n=None):
    X, y = case.sample(n=n)
    learner = case.learner()
    return learner, learner.fit(KEY, X, y), X, y


@pytest.mark.parametrize("case", PLAIN_BATCH, ids=lambda c: c.name)
def test_batch_predict_refuses_bad_instances(case):
    learner, params, X, _ = _fitted(case)
    wide = jnp.concatenate([X, jnp.ones_like(X[:, :1])], axis=1)
    functions = {"predict": learner.predict, "decision_function": learner.decision_function}
    for name, function in functions.items():
        if function is None:
            continue
        bad = {
            "NaN": X.at[1, 0].set(jnp.nan),
            "one feature too wide": wide,
            "too narrow": X[:, :-1],
            "one 1-D row": X[0],
        }
        for what, X_bad in bad.items():
            _raises(
                ValueError,
                "X",
                functools.partial(function, params, X_bad),
                f"{case.name}.{name} {what}",
            )


@pytest.mark.parametrize("case", PLAIN_BATCH, ids=lambda c: c.name)
def test_batch_empty_single_row_and_one_class(case):
    learner = case.learner()
    X, y = case.sample()
    _raises(
        ValueError, ("X", "y"), lambda: learner.fit(KEY, X[:0], y[:0]), f"{case.name}: empty sample"
    )
    for what, (X1, y1) in {
        "one row": (X[:1], y[:1]),
        "one class": (X, jnp.full_like(y, y[0])),
    }.items():
        try:
            params = learner.fit(KEY, X1, y1)
        except ValueError as error:  # a clear refusal is fine: it must name the labels
            assert "`y`" in str(error) or "`X`" in str(error), f"{case.name} {what}: {error}"
            continue
        assert_finite(params, f"{case.name}: {what}")
        assert_finite(learner.predict(params, X1), f"{case.name}: {what}, predict")


@pytest.mark.parametrize("case", PLAIN_BATCH, ids=lambda c: c.name)
def test_batch_containers_and_integer_dtypes(case):
    """Lists and integer features give the fit and predictions of the same values as floats."""
    learner = case.learner()
    X, y = case.sample()
    x_int, x_float = _as_integers(X)
    y_given = np.asarray(y)
    want = learner.fit(KEY, x_float, y_given)
    want_labels = learner.predict(want, x_float)
    got = learner.fit(KEY, x_float.tolist(), y_given.tolist())
    _assert_same(got, want, case.name + " lists")
    _assert_same(learner.predict(got, x_float.tolist()), want_labels, case.name + " predict lists")
    got = learner.fit(KEY, x_int, y_given)
    _assert_same(got, want, case.name + " int X")
    _assert_same(learner.predict(got, x_int), want_labels, case.name + " predict int X")


# --- completeness --------------------------------------------------------------------------------


def public_entry_points() -> dict:
    """``{"module.name": callable}`` for every callable (not a class) in a module's ``__all__``."""
    found = {}
    for module_name in MODULES:
        module = importlib.import_module(f"jaxlearn.{module_name}")
        names = getattr(module, "__all__", None)
        assert names is not None, f"jaxlearn.{module_name} has no __all__"
        for name in names:
            value = getattr(module, name)
            if callable(value) and not inspect.isclass(value):
                found[f"{module_name}.{name}"] = value
    for name in ("run", "predict_batch", "hyperparameters", "replace"):
        found[f"core.{name}"] = getattr(core, name)
    return found


def test_every_public_entry_point_is_tried():
    tried = {id(row.entry) for row in TABLE_ROWS} | {id(case.factory) for case in ONLINE + BATCH}
    missing = sorted(
        name for name, value in public_entry_points().items() if id(value) not in tried
    )
    assert not missing, f"public entry points no row tries: {missing}"
    assert len(public_entry_points()) > 100


def test_the_suite_checker_can_fail():
    """The raise-site check refuses an error raised inside JAX, and a message that names nothing."""
    with pytest.raises(AssertionError, match="not by jaxlearn"):
        _raises(TypeError, "x", lambda: jnp.dot(jnp.ones(3), jnp.ones(4)), "jnp.dot")
    with pytest.raises(AssertionError, match="names none of"):
        _raises(ValueError, "eta", lambda: check_positive("lam", -1.0), "wrong name")
    assert math.isnan(core.Interval(0.0).outside()[0])
    assert jaxlearn.__version__
