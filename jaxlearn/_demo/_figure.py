"""The demo's figure: what the online learners measured, round by round, against their bounds."""

from __future__ import annotations

import numpy as np


def write_figure(curves: dict, path: str) -> str:
    """Draw ``curves`` (filled by the online rows) to ``path``; returns the line the demo prints.

    Three panels: cumulative mistakes of the mistake-bounded learners with their bounds (log axes),
    online gradient descent's hinge regret against its worst-case bound for the step size used, and the
    expected regret of randomized weighted majority and Hedge against :math:`\\ln(n)/\\eta + \\eta t/2`.
    Uses matplotlib's object API (no pyplot: the caller's backend is left alone).
    """
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return "(no figure: matplotlib is not installed; pip install 'jaxlearn[plot]')"
    fig = Figure(figsize=(15, 4.4), dpi=90, layout="constrained")
    mistakes, ogd, experts = fig.subplots(1, 3)

    for i, (label, cumulative, bound) in enumerate(curves["mistakes"]):
        t = np.arange(1, len(cumulative) + 1)
        mistakes.plot(t, cumulative, color=f"C{i}", lw=2, label=label)
        mistakes.plot(t, np.broadcast_to(bound, t.shape), color=f"C{i}", ls="--", lw=1)
    mistakes.set(xscale="log", yscale="log", xlabel="round t", ylabel="cumulative mistakes")
    mistakes.set_title("mistakes (solid) against the mistake bound (dashed)")
    mistakes.legend(fontsize=7, loc="upper left")

    if curves["ogd"] is not None:
        label, regret, bound = curves["ogd"]
        t = np.arange(1, len(regret) + 1)
        ogd.plot(t, regret, color="C3", lw=2, label=label)
        ogd.plot(
            t, bound, "k--", lw=1, label=r"$U^2/(2\eta) + \eta R^2 t/2$ ($= UR\sqrt{T}$ at $T$)"
        )
        ogd.axhline(0, color="0.6", lw=0.8)
        ogd.set(xlabel="round t", ylabel="cumulative hinge regret")
        ogd.set_title("online gradient descent: regret against its bound")
        ogd.legend(fontsize=7, loc="upper left")

    for i, (label, regret, bound) in enumerate(curves["experts"]):
        t = np.arange(1, len(regret) + 1)
        experts.plot(t, regret, color=f"C{i}", lw=2, label=f"{label}: regret vs the best expert")
        experts.plot(t, bound, color=f"C{i}", ls="--", lw=1, label=r"$\ln(n)/\eta + \eta t/2$")
    experts.set(xlabel="round t", ylabel="regret")
    experts.set_title("exponential weights: regret against its bound")
    experts.legend(fontsize=7, loc="upper left")

    fig.suptitle("jaxlearn demo: measured (solid) against the theorems' bounds (dashed)")
    fig.savefig(path)
    return f"Figure (measured against bound, online learners): {path}"
