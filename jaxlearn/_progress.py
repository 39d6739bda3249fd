"""A ``lax.scan`` with an optional progress bar drawn from inside the compiled loop (re-exported by
:mod:`jaxlearn.core`; the bar is jax-tqdm's ``scan_tqdm``, the ``progress`` extra)."""

from __future__ import annotations

from typing import Any, Callable

import jax
import jax.numpy as jnp


def scan(
    step: Callable,
    init: Any,
    xs: Any,
    *,
    progress: bool = False,
    desc: str = "jaxlearn",
    unroll: int = 1,
) -> tuple[Any, Any]:
    """``jax.lax.scan(step, init, xs)``; with ``progress`` (static) a tqdm bar advances per iteration.

    The result is the same with and without the bar (the bar only adds host callbacks). ``xs`` must
    have a leading axis (its length is the bar's total).

    Examples:
      >>> import jax.numpy as jnp
      >>> from jaxlearn._progress import scan
      >>> scan(lambda c, x: (c + x, c), 0.0, jnp.arange(3.0))[0].item()
      3.0
    """
    if not progress:
        return jax.lax.scan(step, init, xs, unroll=unroll)
    n = jax.tree_util.tree_leaves(xs)[0].shape[0]
    return jax.lax.scan(_with_bar(step, n, desc), init, (jnp.arange(n), xs), unroll=unroll)


def _with_bar(step: Callable, n: int, desc: str) -> Callable:
    """``step`` for ``lax.scan`` over ``(arange(n), xs)``, advancing a tqdm bar of ``n`` iterations."""
    try:
        from jax_tqdm import scan_tqdm
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            "`progress=True` needs jax-tqdm: pip install 'jaxlearn[progress]'"
        ) from err
    bar = scan_tqdm(n, desc=f"{desc}: {n:,} steps")
    return bar(lambda carry, ixs: step(carry, ixs[1]))
