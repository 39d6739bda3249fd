"""``python -m jaxlearn demo``: two tables of learners (online, batch), each measured quantity in its own
column next to the theorem's bound, and one figure of measured against bound over the rounds.

The rows live in :mod:`._online_rows` and :mod:`._batch_rows`, the figure in :mod:`._figure`.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Optional

import jax

from jaxlearn._demo._batch_rows import linear_rows, multiclass_rows, nn_rows, tree_rows
from jaxlearn._demo._figure import write_figure
from jaxlearn._demo._online_rows import expert_rows, online_rows

#: The online table: prequential counts (each round predicted before its label is seen).
ONLINE_COLUMNS = (
    "learner",
    "data",
    "mistakes",
    "updates",
    "regret",
    "bound",
    "comparator",
    "train acc",
    "throughput",
)
#: The batch table: accuracy on the fitted sample and on a held-out split, the learner's own quantity.
BATCH_COLUMNS = (
    "learner",
    "data",
    "train acc",
    "test acc",
    "updates",
    "objective",
    "margin",
    "bound",
    "other",
    "throughput",
)

ONLINE_NOTE = """\
mistakes: rounds with y <w, x> <= 0 (or a wrong 0/1 prediction), counted before each update;
updates: rounds that changed the weights (the margin perceptron also updates on correct rounds of
small margin); regret: the learner's cumulative loss minus the comparator's, in the learner's loss
(it can be negative: the comparator is one fixed predictor, the learner moves);
bound: the theorem's bound on the quantity it names;
train acc: the final state's accuracy on the stream's own examples;
throughput: rounds per second of one compiled run, after compilation."""

BATCH_NOTE = """\
train acc: on the sample fitted (for the structured SVM, letters); test acc: on the held-out 30%;
objective: lam/2 |w|^2 + mean loss of the returned w; margin: 1/|w| of the hard-SVM on the sample;
updates: weight updates until a pass without mistakes; bound: the theorem's bound on the quantity
it names; throughput: one compiled fit (or k-NN prediction) after compilation, in the unit shown:
SGD steps, training examples (sample size over fit time; the multiclass perceptron counts every
epoch's examples, the MLP 32 per Adam step) or k-NN queries, per second."""


def format_table(columns, rows) -> str:
    """A Markdown table of ``rows`` (dicts over ``columns``; a missing entry is blank)."""
    cells = [[str(row.get(c, "")) for c in columns] for row in rows]
    widths = [max(len(r[i]) for r in [list(columns), *cells]) for i in range(len(columns))]
    line = lambda r: "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |"  # noqa: E731
    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(columns), rule, *map(line, cells)])


def demo(figure: Optional[str] = "jaxlearn_demo.png") -> None:
    """Print the two tables; write the figure to ``figure`` (``None``: no figure)."""
    start = time.perf_counter()
    curves = {"mistakes": [], "ogd": None, "experts": []}
    print(f"jaxlearn demo on {jax.devices()[0].platform.upper()} (jax {jax.__version__})\n")
    # most batch rows in a second thread, so that the compilations of the two threads overlap
    with ThreadPoolExecutor(1) as pool:
        batch = pool.submit(
            lambda: [
                *linear_rows(jax.random.PRNGKey(2)),
                *multiclass_rows(jax.random.PRNGKey(3)),
                *nn_rows(jax.random.PRNGKey(4)),
            ]
        )
        online = [
            *online_rows(jax.random.PRNGKey(0), curves),
            *expert_rows(jax.random.PRNGKey(1), curves),
        ]
        print("## Online learners and experts (prequential)\n")
        print(format_table(ONLINE_COLUMNS, online))
        print("\n" + ONLINE_NOTE + "\n")
        trees = list(tree_rows(jax.random.PRNGKey(5)))
        batch = [*batch.result(), *trees]
    print("## Batch learners\n")
    print(format_table(BATCH_COLUMNS, batch))
    print("\n" + BATCH_NOTE + "\n")
    if figure is not None:
        print(write_figure(curves, figure))
    print(f"Done in {time.perf_counter() - start:.1f} s.")
