"""``python -m jaxlearn demo``: one table of learners, their mistakes against the theorems' bounds,
their accuracy and throughput (the rows live in :mod:`._online_rows` and :mod:`._batch_rows`)."""

from __future__ import annotations

import time

import jax

from jaxlearn._demo._batch_rows import linear_rows, multiclass_rows, nn_rows, tree_rows
from jaxlearn._demo._online_rows import expert_rows, online_rows


def demo() -> None:
    """Print the table of learners, mistakes, bounds, accuracy and throughput."""
    start = time.perf_counter()
    header = ("learner", "data", "mistakes", "bound", "accuracy", "examples/s")
    rows = [
        (
            name,
            data,
            str(m),
            bound,
            acc if isinstance(acc, str) else f"{float(acc):.3f}",
            speed if isinstance(speed, str) else f"{speed:,.0f}",
        )
        for rows in (
            online_rows(jax.random.PRNGKey(0)),
            expert_rows(jax.random.PRNGKey(1)),
            linear_rows(jax.random.PRNGKey(2)),
            multiclass_rows(jax.random.PRNGKey(3)),
            nn_rows(jax.random.PRNGKey(4)),
            tree_rows(jax.random.PRNGKey(5)),
        )
        for name, data, m, bound, acc, speed in rows
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |"  # noqa: E731
    print(f"jaxlearn demo on {jax.devices()[0].platform.upper()} (jax {jax.__version__})\n")
    print(line(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print(line(row))
    print(
        "\nmistakes: rounds with y <w, x> <= 0 (the prequential record); accuracy: the final state "
        "on the same data (on held-out data where the data says test); examples/s: one compiled run "
        "(SGD steps/s for the batch learners, "
        "training examples/s for trees, queries/s for k-NN)."
        f"\nDone in {time.perf_counter() - start:.1f} s."
    )
