"""Shared argument checks of the bounds: each range declared once, by argument name."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxlearn import core
from jaxlearn._checks import check_finite, check_ndim, check_sample, is_concrete
from jaxlearn._shared import float_dtype

#: The range of each argument of the bounds, by name (a function passes its own where a theorem differs).
_RANGES = {
    **dict.fromkeys(
        "radius margin U R eta threshold rho lam B gamma w_norm epsilon".split(), core.POSITIVE
    ),
    **dict.fromkeys("T n k L m d n_nodes num_edges".split(), core.POSITIVE_INT),
    **dict.fromkeys("total_deviation grad_sq_norms c".split(), core.NON_NEGATIVE),
    **dict.fromkeys("stability erm_error".split(), core.NON_NEGATIVE),  # SS10 L7(a) Theorem 7
    **dict.fromkeys("best_mistakes ldim".split(), core.NON_NEGATIVE_INT),
    **dict.fromkeys("beta delta".split(), core.OPEN_UNIT),
    "train_error": core.UNIT,
    **dict.fromkeys(
        "holdout_error margin_error".split(), core.UNIT
    ),  # compression bounds (SS10 L3(c))
    "bayes_error": core.Interval(0.0, 0.5, True, True),  # L_D(h*) = E[min(eta, 1 - eta)] <= 1/2
}


def _check(ranges=None, **named) -> list:
    """``named`` as broadcastable float arrays, refusing a concrete value outside its range (``ranges``
    or :data:`_RANGES`; a count may be an integral float: ``1e6``, ``[10.0, 100.0]``)."""
    out = []
    for name, value in named.items():
        interval = ranges[name] if ranges and name in ranges else _RANGES[name]
        value = np.asarray(value) if isinstance(value, (list, tuple)) else value
        if value is None or callable(value):
            raise TypeError(f"expected `{name}` {interval}, got {value!r}")
        interval._replace(integer=False).check(name, value)
        if interval.integer and is_concrete(value) and not interval.contains(value).all():
            raise ValueError(f"expected `{name}` {interval}, got {value!r}")
        out.append(jnp.asarray(value, dtype=jnp.result_type(float)))
    try:
        np.broadcast_shapes(*(jnp.shape(v) for v in out))
    except ValueError:
        names = ", ".join(f"`{name}`" for name in named)
        raise ValueError(
            f"expected {names} of broadcastable shapes, got {[v.shape for v in out]}"
        ) from None
    return out


def _require(ok, message: str) -> None:
    """Raise ``ValueError(message)`` when a concrete condition between arguments fails."""
    if is_concrete(ok) and not np.all(np.asarray(ok)):
        raise ValueError(message)


def _points(X, *, unit: bool = False):
    """``X`` of shape (m, d), m >= 1, finite (rows nonzero when ``unit``: they get scaled to length 1)."""
    X = np.asarray(X) if isinstance(X, list) else X
    check_ndim("X", X, 2, "(m, d)")
    if jnp.shape(X)[0] == 0:
        raise ValueError("expected `X` of shape (m, d) with m >= 1, got (0, d)")
    check_finite("X", X)
    if unit and is_concrete(X) and not np.asarray(X).any(axis=-1).all():
        raise ValueError(
            "expected `X` with nonzero rows (each is scaled to unit length), found a zero row"
        )
    return X


def _halfspace(w, X, y, *, unit: bool):
    """``w`` (d,), nonzero and finite, and a sample ``X`` (m, d), ``y`` in {-1, +1}, in X's float dtype."""
    X, y, w = _points(X, unit=unit), *(np.asarray(v) if isinstance(v, list) else v for v in (y, w))
    check_sample(X, y)
    d = jnp.shape(X)[1]
    if jnp.shape(w) != (d,):
        raise ValueError(f"expected `w` of shape ({d},) (the width of `X`), got {jnp.shape(w)}")
    check_finite("w", w)
    if is_concrete(w) and not np.asarray(w).any():
        raise ValueError("expected `w` nonzero (the halfspace is w / ||w||), got the zero vector")
    return (jnp.asarray(v, float_dtype(X)) for v in (w, X, y))
