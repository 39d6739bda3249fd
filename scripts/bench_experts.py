"""Benchmark jaxlearn's Hedge against a NumPy loop and river (CPU, float32).

Measured, each as the median of ``--repeats`` timed runs after one warm-up (compile) run, all in
this process, with XLA's default threading:

1. Single stream: Hedge (HA-1, COMP0078) with ``--n`` experts over ``--T`` rounds, losses uniform in
   [0, 1] (generated once, float32), at the tuned rate :math:`\\eta = \\sqrt{2 \\ln(n)/T}`.
   Implementations: ``jaxlearn.core.run`` as a user calls it (its default path: Hedge's exact block
   rule, a stream of up to ``learner.block_size`` (2^18) rounds as one block, allocations from
   cumulative losses in chunks of rounds played side by side), the same under
   ``jax.jit`` (which skips ``run``'s host-side checks of the 4 x T x n bytes of losses), other block
   sizes (16: the default before the chunks), the round-by-round ``lax.scan`` (``block_size=0``),
   ``run`` without ``trace_fn`` (the trace
   then stores the T x n allocations ``Info.prediction``), the natural NumPy implementation
   (vectorised over experts, a Python loop over rounds, the whole stream) and river's
   ``ensemble.EWARegressor`` (exponentially weighted average; its experts are river regressors that
   predict their loss, so with the absolute loss and outcome 0 its weights are exactly Hedge's), which
   costs a Python call per expert per round and is timed on a prefix. Every jaxlearn row except the
   "no trace_fn" one passes ``trace_fn=lambda info: info.loss``, so the trace is the (T,) loss
   sequence.
   The ceiling row is not Hedge: one fused XLA pass computing ``sum_i exp(-eta l_ti) l_ti`` over the
   whole T x n matrix (one exponential, one product and one sum per entry, the matrix read once).
   Any Hedge implementation evaluates those T n exponentials, so its rounds/s bounds Hedge on this
   machine; each Hedge row is also given as a percentage of it. The "limit" rows measure why a Hedge
   falls short of it: the same fusion in stream order (a ``lax.scan`` over blocks of ``CEILING_ROWS``,
   ``LONG_ROWS`` and ``SPLIT_ROWS`` rounds, the loop an in-order Hedge runs; and with the experts split
   between the two cores, each half in stream order in its own program and thread), and the two things
   Hedge adds to it,
   each alone: the partial sums of the losses inside blocks of ``LONG_ROWS`` rounds (Hedge's own
   ``earlier_rounds``, no exponential) and two sums per exponential (``sum_i e_ti`` and
   ``sum_i e_ti l_ti`` of ``e = exp(-eta l)``, in blocks of ``LONG_ROWS`` rounds: the normaliser and
   the loss of each round); and one read of the losses without any exponential (the chunk totals the
   default Hedge reads before its chunks start).
2. Sweep: 64 learning rates ``eta* x logspace(-2, 1, 64)`` on the same stream, as one
   ``jax.jit(jax.vmap(...))`` program over ``core.run`` (default path: under a ``vmap`` over rates on one
   stream, blocks of 16 rounds with the rate axis inside each round) and by ``parallel.sweep`` (one slice
   of the rates per core, in threads), against 64 sequential NumPy runs and one NumPy loop vectorised over
   the rates (a (64, n) weight matrix per round); both NumPy versions are timed on a prefix of the stream
   and extrapolated. Throughput is learner-rounds/s = 64 T / time. The sweep's ceiling is the same fused
   exponential and reduction over 64 x T x n: the one-stream ceiling at each of the 64 rates back to back,
   or all 64 rates over blocks of ``CEILING_ROWS`` rounds (one pass over the losses; 64 x T x n at once
   does not fit in memory), the latter as one program or as ``parallel.sweep`` runs Hedge (one slice of the
   rates per core, each in its own thread: faster than the one program on 2 cores), whichever is fastest
   (the faster, the stricter).
   (Above 10 eta*, NumPy's float32 weights of bad experts become subnormal and NumPy slows down;
   jaxlearn's log-space weights never do, so the range stops there to keep NumPy's time fair.)

Before timing, the script checks that the implementations compute the same thing: jaxlearn's final
allocation equals the NumPy loop's (float32, same data; both are also compared with a float64 NumPy
run) and the cumulative losses sum_t v_t . l_t agree; river's weights equal NumPy's on river's
prefix; the vmapped sweep equals NumPy at four rates on the whole stream and at all 64 on the prefix.
A failed check aborts the script.

Targets (issue 16): Hedge at least ``CEILING_SHARE`` (80%) of the ceiling's rounds/s, one stream (the
default ``run``) and the sweep, reported as multiples of the NumPy loop (``benchtools.record`` rows,
``target`` = 0.8 x the ceiling's multiple of the NumPy loop measured in the same process).

Usage: ``python scripts/bench_experts.py [--T 100000] [--n 1000] [--repeats 5]``.
"""

from __future__ import annotations

import argparse
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from benchtools import median_seconds, record
from river import base, ensemble, optim

from jaxlearn import core, experts, parallel
from jaxlearn._threads import cpu_parts, run_in_threads
from jaxlearn.experts._hedge_blocks import (
    earlier_rounds,
)  # Hedge's partial sums, timed alone in a limit row

N_LEARNERS = 64
BLOCK_SIZES = (
    16,
    128,
    4096,
)  # besides the default, experts.hedge(eta).block_size (16: the old default)
RIVER_PREFIX = 300
NUMPY_SWEEP_PREFIX = 5_000
CEILING_SHARE = 0.8
CEILING_ROWS = 16  # rounds per block of the sweep's ceiling
LONG_ROWS = 128  # rounds per block of the limit rows (blocks this long split over the CPU's cores)
SPLIT_ROWS = (
    1024  # rounds per block of the limit rows with the experts split over the cores (the fastest)
)
# Final allocations are compared elementwise, relative to the largest weight; float32 rounding
# accumulates over 10^5 rounds to a few 1e-5 (printed with the checks).
WEIGHT_RTOL = 1e-3
LOSS_RTOL = 1e-5


def loss_only(info):
    """``trace_fn`` keeping v_t . l_t only (Info.prediction, the allocation, is n floats a round)."""
    return info.loss


def numpy_hedge(losses, eta):
    """Hedge as one would write it in NumPy: multiplicative weights, renormalised every round."""
    n = losses.shape[1]
    eta = losses.dtype.type(eta)
    w = np.full(n, 1 / n, losses.dtype)
    total = 0.0
    for loss in losses:
        total += float(w @ loss)
        w *= np.exp(-eta * loss)
        w /= w.sum()
    return w, total


def numpy_hedge_sweep(losses, etas):
    """Hedge for K rates at once: a (K, n) weight matrix per round, a Python loop over rounds."""
    n = losses.shape[1]
    etas = np.asarray(etas, losses.dtype)[:, None]
    w = np.full((etas.shape[0], n), 1 / n, losses.dtype)
    total = np.zeros(etas.shape[0])
    for loss in losses:
        total += w @ loss
        w *= np.exp(-etas * loss)
        w /= w.sum(axis=1, keepdims=True)
    return w, total


class LossColumn(base.Regressor):
    """A river "expert" that predicts feature ``i`` of ``x``: its own loss this round."""

    def __init__(self, i):
        self.i = i

    def learn_one(self, x, y):
        pass

    def predict_one(self, x):
        return x[self.i]


def river_hedge(rows, n, eta):
    """river's EWARegressor over ``n`` loss columns: absolute loss against outcome 0 is the loss."""
    model = ensemble.EWARegressor(
        [LossColumn(i) for i in range(n)], loss=optim.losses.Absolute(), learning_rate=eta
    )
    for x in rows:
        model.learn_one(x, 0.0)
    return np.asarray(model.weights)


def max_rel_diff(a, b):
    """max_i |a_i - b_i| / max_i |b_i|."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.abs(a - b).max() / np.abs(b).max())


class Report:
    def __init__(self):
        self.rows, self.checks, self.notes, self.targets = [], [], [], []

    def check(self, what, ok, detail=""):
        self.checks.append(
            f"- [{'ok' if ok else 'DIFFERS'}] {what}" + (f" ({detail})" if detail else "")
        )
        if not ok:
            self.print("### Aborted: a check failed")
            raise AssertionError(f"{what}: {detail}")

    def add(self, task, impl, seconds, work, base_rate=None, ceiling_rate=None):
        rate = work / seconds
        ratio = rate / base_rate if base_rate else 1.0
        share = f"{100 * rate / ceiling_rate:.0f}%" if ceiling_rate else ""
        self.rows.append((task, impl, seconds, rate, ratio, share))
        return rate

    def target(self, task, impl, rate, base_rate, ceiling_rate, workload):
        """The issue's target: at least CEILING_SHARE of the ceiling, as a multiple of the NumPy loop."""
        ratio, goal = rate / base_rate, CEILING_SHARE * ceiling_rate / base_rate
        met = "met" if ratio >= goal else "NOT met"
        self.targets.append(
            f"- {task}, {impl}: {ratio:.2f}x the NumPy loop = {100 * rate / ceiling_rate:.0f}% of the "
            "ceiling; "
            f"target >= {100 * CEILING_SHARE:.0f}% of the ceiling = {goal:.2f}x: **{met}**"
        )
        unit = "learner-rounds/s" if "sweep" in task else "rounds/s"
        record(
            f"{task}: {impl}",
            workload,
            rate,
            base_rate,
            unit=unit,
            reference_name="NumPy loop",
            target=goal,
        )

    def print(self, header):
        print(header + "\n")
        print(
            "| task | implementation | median time (s) | rounds/s (sweep: learner-rounds/s) | vs NumPy loop "
            "| of the ceiling |"
        )
        print("|---|---|---:|---:|---:|---:|")
        for task, impl, seconds, rate, ratio, share in self.rows:
            print(f"| {task} | {impl} | {seconds:.4f} | {rate:,.0f} | {ratio:.2f}x | {share} |")
        for title, lines in (
            ("Checks", self.checks),
            ("Notes", self.notes),
            ("Targets", self.targets),
        ):
            if lines:
                print(f"\n**{title}**\n\n" + "\n".join(lines))


def ceiling_fn(ls, eta):
    """Not Hedge: sum_i exp(-eta l_ti) l_ti for every row, one fused XLA pass over the T x n matrix."""
    return jnp.sum(jnp.exp(-eta * ls) * ls, axis=1)


def row_blocks(ls, rows):
    """The T x n losses as blocks of ``rows`` rounds, the last padded with zero rows (which add 0)."""
    T, n = ls.shape
    return jnp.pad(ls, ((0, -T % rows), (0, 0))).reshape(-1, rows, n)


def in_blocks(ls, rows, fn):
    """``fn`` of each block of ``rows`` rounds in stream order (a ``lax.scan`` over the full blocks, then
    the tail; slices of the losses, never a padded copy), the (T,) per-round results joined."""
    T = ls.shape[0]
    full, rest = divmod(T, rows)
    step = lambda c, i: (c, fn(jax.lax.dynamic_slice_in_dim(ls, i * rows, rows)))  # noqa: E731
    parts = [jax.lax.scan(step, 0, jnp.arange(full))[1].reshape(-1)] if full else []
    return jnp.concatenate(parts + ([fn(ls[T - rest :])] if rest else []))


def in_order_ceiling_fn(ls, eta, rows=CEILING_ROWS):
    """Not Hedge: ``ceiling_fn`` in stream order, ``rows`` rounds per step of a ``lax.scan`` (the loop
    any in-order Hedge runs)."""
    return in_blocks(ls, rows, lambda b: ceiling_fn(b, eta))


def partial_sums_fn(ls, rows=LONG_ROWS):
    """Not Hedge: the part it adds before any exponential, ``sum_{s < t} l_s`` inside each block of ``rows``
    rounds (``earlier_rounds``, as Hedge's ``run_block`` computes it), summed per round to keep the
    output small."""
    return in_blocks(ls, rows, lambda b: jnp.sum(earlier_rounds(b), axis=-1))


def two_sums_fn(ls, eta, rows=LONG_ROWS):
    """Not Hedge: one exponential per entry with both sums Hedge needs of it per round, the normaliser
    ``sum_i e_ti`` and the loss ``sum_i e_ti l_ti`` (``e = exp(-eta l)``), in blocks of ``rows`` rounds."""

    def block(b):
        e = jnp.exp(-eta * b)
        return jnp.sum(e * b, axis=-1) / jnp.sum(e, axis=-1)

    return in_blocks(ls, rows, block)


def half_of_the_experts_fn(ls, eta, half, rows):
    """Not Hedge: ``ceiling_fn`` in stream order (blocks of ``rows`` rounds) over one half of the experts
    (``half`` 0 or 1): the loop an in-order Hedge runs on each core when the experts are split between
    two cores, each half in its own program and thread (XLA runs a program's loops on one core)."""
    width = ls.shape[1] // 2
    return in_blocks(ls, rows, lambda b: ceiling_fn(b[:, half * width : (half + 1) * width], eta))


def read_once_fn(ls, chunks=100):
    """Not Hedge: the column sums of ``chunks`` chunks of rounds (one read of the losses, no exp): the
    first pass of a Hedge parallel over time, whose chunks need the cumulative losses before them."""
    T, n = ls.shape
    return jnp.pad(ls, ((0, -T % chunks), (0, 0))).reshape(chunks, -1, n).sum(axis=1)


def sweep_ceiling_fn(ls, etas, rows=CEILING_ROWS):
    """The ceiling for K rates: ``ceiling_fn`` at every rate, ``rows`` rounds at a time (one pass over the
    losses; a K x rows x n block of exponentials at once, as the vmapped Hedge computes them; the whole
    K x T x n at once would not fit in memory)."""
    T = ls.shape[0]
    blocks = row_blocks(ls, rows)
    per_block = jax.lax.map(
        lambda b: jnp.sum(jnp.exp(-etas[:, None, None] * b) * b, axis=-1), blocks
    )
    return per_block.transpose(1, 0, 2).reshape(etas.shape[0], -1)[:, :T]


def single_stream(report, losses, repeats):
    T, n = losses.shape
    task = "Hedge, one stream"
    workload = f"n={n} experts, T={T} rounds, float32"
    eta = math.sqrt(2 * math.log(n) / T)
    learner = experts.hedge(
        eta
    )  # built once: run() is jitted with the learner as a pytree argument
    state0 = learner.init(jnp.zeros(n, losses.dtype))
    losses_np = np.asarray(losses)

    def jaxlearn_run(trace_fn=loss_only, **kwargs):
        return lambda: core.run(learner, state0, None, losses, trace_fn=trace_fn, **kwargs)

    jitted = jax.jit(lambda ls: core.run(learner, state0, None, ls, trace_fn=loss_only))
    ceiling = jax.jit(ceiling_fn)
    in_order, read_once = jax.jit(in_order_ceiling_fn, static_argnums=2), jax.jit(read_once_fn)
    partial_sums, two_sums = jax.jit(partial_sums_fn), jax.jit(two_sums_fn)

    # --- checks, before any timing (these calls are also the warm-ups) ---
    outputs = {"run": jax.block_until_ready(jaxlearn_run()())}
    outputs["jit(run)"] = jax.block_until_ready(jitted(losses))
    for b in BLOCK_SIZES:
        outputs[f"run, block_size={b}"] = jax.block_until_ready(jaxlearn_run(block_size=b)())
    outputs["run, block_size=0"] = jax.block_until_ready(jaxlearn_run(block_size=0)())
    outputs["run, no trace_fn"] = jax.block_until_ready(jaxlearn_run(trace_fn=None)())
    w_np, total_np = numpy_hedge(losses_np, eta)
    w_64, total_64 = numpy_hedge(losses_np.astype(np.float64), eta)
    weight_diff = {
        k: max_rel_diff(np.exp(np.asarray(st.log_v)), w_np) for k, (st, _) in outputs.items()
    }
    totals = {
        k: float(np.asarray(getattr(tr, "loss", tr), np.float64).sum())
        for k, (_, tr) in outputs.items()
    }
    total_run = totals["run"]
    v_run = np.exp(np.asarray(outputs["run"][0].log_v))
    report.check(
        f"{task}: jaxlearn's final allocation equals the NumPy loop's (float32, rtol {WEIGHT_RTOL:g} "
        "of the largest weight)",
        max(weight_diff.values()) < WEIGHT_RTOL,
        ", ".join(f"{k} {d:.1e}" for k, d in weight_diff.items())
        + f"; against float64 NumPy: jaxlearn run {max_rel_diff(v_run, w_64):.1e}, "
        f"NumPy float32 {max_rel_diff(w_np, w_64):.1e}",
    )
    report.check(
        f"{task}: cumulative loss sum_t v_t . l_t agrees (rtol {LOSS_RTOL:g})",
        all(abs(total - total_np) <= LOSS_RTOL * total_np for total in totals.values()),
        f"jaxlearn {min(totals.values()):.3f} .. {max(totals.values()):.3f}, NumPy {total_np:.3f}, "
        f"NumPy float64 {total_64:.3f}",
    )
    best_expert = float(losses_np.astype(np.float64).sum(axis=0).min())
    bound = math.sqrt(2 * T * math.log(n))
    report.check(
        f"{task}: regret within the Hedge bound sqrt(2 T ln n)",
        total_run - best_expert <= bound,
        f"regret {total_run - best_expert:.1f} <= {bound:.1f}",
    )
    m_river = min(RIVER_PREFIX, T)
    rows = [dict(enumerate(r)) for r in losses_np[:m_river].tolist()]
    w_river = river_hedge(rows, n, eta)
    w_prefix, _ = numpy_hedge(losses_np[:m_river].astype(np.float64), eta)
    report.check(
        f"{task}: river EWARegressor's weights equal NumPy's (float64) after {m_river} rounds",
        max_rel_diff(w_river, w_prefix) < 1e-9,
        f"{max_rel_diff(w_river, w_prefix):.1e}",
    )

    # --- timings: the ceiling and the default run back to back, then the rest ---
    t_ceiling = median_seconds(lambda: ceiling(losses, eta), repeats)
    t_run = median_seconds(jaxlearn_run(), repeats)
    t_jit = median_seconds(lambda: jitted(losses), repeats)
    t_np = median_seconds(lambda: numpy_hedge(losses_np, eta), repeats, warm_up=False)
    t_blocks = {b: median_seconds(jaxlearn_run(block_size=b), repeats) for b in BLOCK_SIZES}
    t_scan = median_seconds(jaxlearn_run(block_size=0), repeats)
    t_full = median_seconds(jaxlearn_run(trace_fn=None), repeats)
    t_river = median_seconds(lambda: river_hedge(rows, n, eta), repeats)
    t_checks = median_seconds(lambda: core._check_stream(learner, None, losses), repeats)
    t_in_order = median_seconds(lambda: in_order(losses, eta, CEILING_ROWS), repeats)
    t_in_order_long = median_seconds(lambda: in_order(losses, eta, LONG_ROWS), repeats)
    t_partial = median_seconds(lambda: partial_sums(losses), repeats)
    t_two = median_seconds(lambda: two_sums(losses, eta), repeats)
    t_read = median_seconds(lambda: read_once(losses), repeats)
    t_in_order_split = median_seconds(lambda: in_order(losses, eta, SPLIT_ROWS), repeats)
    t_halves = {}
    for rows_ in (CEILING_ROWS, SPLIT_ROWS):  # each half its own program, in its own thread
        halves = [
            jax.jit(half_of_the_experts_fn, static_argnums=(2, 3))
            .trace(losses, eta, h, rows_)
            .lower()
            .compile()
            for h in (0, 1)
        ]
        calls = [(half, losses, eta) for half in halves]
        t_halves[rows_] = median_seconds(
            lambda c=calls: run_in_threads(lambda f, *a: f(*a), c), repeats
        )

    top = T / t_ceiling
    np_rate = report.add(
        task, "NumPy loop over rounds, vectorised over experts (whole stream)", t_np, T
    )
    run_rate = report.add(
        task,
        f"jaxlearn run (default: one block of up to {learner.block_size} rounds, in chunks)",
        t_run,
        T,
        np_rate,
        top,
    )
    jit_rate = report.add(task, "jax.jit(jaxlearn run) (no host checks)", t_jit, T, np_rate, top)
    for b, t in t_blocks.items():
        report.add(task, f"jaxlearn run, block_size={b}", t, T, np_rate, top)
    report.add(
        task, "jaxlearn run, block_size=0 (round-by-round lax.scan)", t_scan, T, np_rate, top
    )
    report.add(
        task,
        "jaxlearn run (default), no trace_fn (stores T x n allocations)",
        t_full,
        T,
        np_rate,
        top,
    )
    report.add(
        task,
        f"river ensemble.EWARegressor (first {m_river:,} rounds, extrapolated)",
        t_river,
        m_river,
        np_rate,
        top,
    )
    report.add(
        task,
        "ceiling: sum_i exp(-eta l_ti) l_ti over the T x n matrix, one XLA fusion",
        t_ceiling,
        T,
        np_rate,
        top,
    )
    for rows, t in (
        (CEILING_ROWS, t_in_order),
        (LONG_ROWS, t_in_order_long),
        (SPLIT_ROWS, t_in_order_split),
    ):
        report.add(
            task,
            f"limit, in order: the ceiling's fusion in a lax.scan over blocks of {rows} rounds",
            t,
            T,
            np_rate,
            top,
        )
    for rows, t in t_halves.items():
        report.add(
            task,
            "limit, in order, experts split: the same over half the experts per core, one "
            f"thread each (blocks of {rows} rounds)",
            t,
            T,
            np_rate,
            top,
        )
    report.add(
        task,
        f"limit, Hedge's partial sums alone (blocks of {LONG_ROWS} rounds, no exp)",
        t_partial,
        T,
        np_rate,
        top,
    )
    report.add(
        task,
        f"limit, one exp and Hedge's two sums of it per entry (blocks of {LONG_ROWS} rounds)",
        t_two,
        T,
        np_rate,
        top,
    )
    report.add(
        task,
        "limit, parallel in time: one read of the losses (chunk sums, no exp)",
        t_read,
        T,
        np_rate,
        top,
    )
    report.notes.append(
        f"- {task}: why 80% of the ceiling is out of reach here. In stream order, the "
        f"ceiling's own fusion run block by block reaches {100 * t_ceiling / t_in_order:.0f}% of the ceiling "
        f"in blocks of {CEILING_ROWS} rounds, {100 * t_ceiling / t_in_order_long:.0f}% in blocks of "
        f"{LONG_ROWS} and {100 * t_ceiling / t_in_order_split:.0f}% in blocks of {SPLIT_ROWS} (long blocks "
        "are split over the cores). An in-order Hedge adds two things to that "
        "fusion. (1) The partial sums of the losses inside each block (the allocation at round t needs "
        f"every earlier loss): alone they take {100 * t_partial / t_ceiling:.0f}% of the ceiling's time. "
        "(2) Two sums of each exponential, the round's normaliser and its loss, where the ceiling takes "
        f"one: alone that reaches {100 * t_ceiling / t_two:.0f}% of the ceiling (XLA's CPU backend "
        "evaluates exp at the ceiling's rate inside a reduction fusion with one output; with two the "
        "exponentials are written out and read back). The two parts one after the other come to "
        f"{100 * t_ceiling / (t_partial + t_two):.0f}% of the ceiling, what blocks of 16 rounds (the "
        f"default before the chunks) reach: {100 * t_ceiling / t_blocks[16]:.0f}%. The default Hedge is "
        "parallel in time instead: one read of the losses for the totals of its chunks of rounds (alone "
        f"{100 * t_read / t_ceiling:.0f}% of the ceiling's time), then a scan over the rounds of a chunk "
        "advancing every chunk at once, one exp and the two sums per entry; it reaches "
        f"{100 * t_ceiling / t_run:.0f}%, and would reach at most "
        f"{100 * t_ceiling / (t_ceiling + t_read):.0f}% if its second pass ran at the ceiling's speed. "
        "A third way, the experts split between the cores (each half of the experts in stream order in "
        "its own program and thread, their sums joined at the end; XLA does not run two loops of one "
        "program side by side), reaches with the ceiling's own fusion, before any of Hedge's additions, "
        + " and ".join(
            f"{100 * t_ceiling / t:.0f}% in blocks of {r} rounds" for r, t in t_halves.items()
        )
    )
    report.notes.append(
        f"- {task}: eta = sqrt(2 ln n / T) = {eta:.5f}; every jaxlearn row but one passes "
        "`trace_fn=lambda info: info.loss`"
    )
    report.notes.append(
        f"- {task}: run()'s host-side input checks (finite, in [0, 1]) on the "
        f"{losses.nbytes / 1e6:.0f} MB of losses take {t_checks:.4f} s a call: included in every "
        "`run` row, not in the jax.jit(run) row"
    )
    report.notes.append(
        f"- {task}: the ceiling evaluates {T * n / t_ceiling / 1e9:.2f} G exponentials/s; at that rate, "
        f"any Hedge (one exp(-eta l_t,i) per round and expert) is at most {t_np / t_ceiling:.1f}x the NumPy "
        f"loop's {t_np / T * 1e6:.2f} us a round"
    )
    report.target(task, "core.run (default)", run_rate, np_rate, top, workload)
    report.target(task, "jax.jit(core.run)", jit_rate, np_rate, top, workload)
    record(f"{task}: ceiling", workload, top, np_rate, unit="rounds/s", reference_name="NumPy loop")
    return eta, t_ceiling


def sweep(report, losses, eta_star, t_ceiling, repeats):
    T, n = losses.shape
    task = f"{N_LEARNERS}-eta sweep"
    workload = f"{N_LEARNERS} etas, n={n} experts, T={T} rounds, float32"
    etas = (eta_star * np.logspace(-2, 1, N_LEARNERS)).astype(np.float32)
    state0 = experts.hedge(1.0).init(jnp.zeros(n, losses.dtype))
    losses_np = np.asarray(losses)
    prefix = min(NUMPY_SWEEP_PREFIX, T)

    def one(eta, ls):
        state, trace = core.run(experts.hedge(eta), state0, None, ls, trace_fn=loss_only)
        return jnp.exp(state.log_v), trace

    program = jax.jit(jax.vmap(one, in_axes=(0, None)))
    ceiling = jax.jit(sweep_ceiling_fn)
    on_stream = functools.partial(one, ls=losses)  # one function: parallel.sweep compiles it once
    threads = cpu_parts(N_LEARNERS) if len(jax.devices()) == 1 else 1

    # --- checks ---
    V, trace = jax.block_until_ready(program(jnp.asarray(etas), losses))
    V, totals = np.asarray(V), np.asarray(trace, np.float64).sum(axis=1)
    for i in (0, N_LEARNERS // 3, 2 * N_LEARNERS // 3, N_LEARNERS - 1):
        w_np, total_np = numpy_hedge(losses_np, etas[i])
        report.check(
            f"{task}: vmapped run equals the NumPy loop on the whole stream at eta = {etas[i]:.2e}",
            max_rel_diff(V[i], w_np) < WEIGHT_RTOL
            and abs(totals[i] - total_np) <= LOSS_RTOL * total_np,
            f"weights {max_rel_diff(V[i], w_np):.1e}, cumulative loss {totals[i]:.3f} vs {total_np:.3f}",
        )
    V_swept, trace_swept = jax.block_until_ready(parallel.sweep(on_stream, jnp.asarray(etas)))
    report.check(
        f"{task}: parallel.sweep ({threads} slice(s), one thread each) equals the one vmapped program",
        np.allclose(np.asarray(V_swept), V, rtol=1e-4, atol=1e-7)
        and np.allclose(np.asarray(trace_swept, np.float64).sum(axis=1), totals, rtol=LOSS_RTOL),
        f"weights {max(max_rel_diff(a, b) for a, b in zip(np.asarray(V_swept), V)):.1e}",
    )
    V_pre, trace_pre = program(jnp.asarray(etas), losses[:prefix])
    W_pre, totals_pre = numpy_hedge_sweep(losses_np[:prefix], etas)
    W_seq = np.stack([numpy_hedge(losses_np[:prefix], e)[0] for e in etas])
    worst = max(
        max(max_rel_diff(a, b), max_rel_diff(c, b))
        for a, b, c in zip(np.asarray(V_pre), W_seq, W_pre)
    )
    report.check(
        f"{task}: all {N_LEARNERS} rates equal NumPy (sequential and vectorised) "
        f"on the first {prefix:,} rounds",
        worst < WEIGHT_RTOL
        and np.allclose(np.asarray(trace_pre, np.float64).sum(axis=1), totals_pre, rtol=LOSS_RTOL),
        f"worst weight difference {worst:.1e}",
    )

    # --- timings ---
    t_ceiling_sweep = median_seconds(lambda: ceiling(losses, jnp.asarray(etas)), repeats)
    # the same ceiling as parallel.sweep runs Hedge: one slice of the rates per core, each in its thread
    slices = np.array_split(etas, threads)
    sliced = ceiling.trace(losses, jnp.asarray(slices[0])).lower().compile()
    calls = [(losses, jnp.asarray(part)) for part in slices]
    t_ceiling_threads = median_seconds(lambda: run_in_threads(sliced, calls), repeats)
    t_jax = median_seconds(lambda: program(jnp.asarray(etas), losses), repeats)
    t_swept = median_seconds(lambda: parallel.sweep(on_stream, jnp.asarray(etas)), repeats)
    t_seq = median_seconds(
        lambda: [numpy_hedge(losses_np[:prefix], e) for e in etas], repeats, warm_up=False
    )
    t_vec = median_seconds(
        lambda: numpy_hedge_sweep(losses_np[:prefix], etas), repeats, warm_up=False
    )

    work = N_LEARNERS * T
    top = work / min(t_ceiling_sweep, t_ceiling_threads, N_LEARNERS * t_ceiling)
    np_rate = report.add(
        task,
        f"NumPy loop x {N_LEARNERS}, sequential (first {prefix:,} rounds, extrapolated)",
        t_seq,
        N_LEARNERS * prefix,
    )
    report.add(
        task,
        f"NumPy loop over rounds, vectorised over ({N_LEARNERS} etas, experts) (first {prefix:,} rounds, "
        "extrapolated)",
        t_vec,
        N_LEARNERS * prefix,
        np_rate,
        top,
    )
    rate = report.add(task, "jax.jit(jax.vmap(jaxlearn run)) (default)", t_jax, work, np_rate, top)
    swept_rate = report.add(
        task,
        f"parallel.sweep(run, etas): {threads} slice(s) of the rates, one thread each",
        t_swept,
        work,
        np_rate,
        top,
    )
    report.add(
        task,
        f"ceiling: the {N_LEARNERS} etas over blocks of {CEILING_ROWS} rounds (64 x T x n, one pass)",
        t_ceiling_sweep,
        work,
        np_rate,
        top,
    )
    report.add(
        task,
        f"ceiling: the same, {threads} slice(s) of the rates, one thread each (as parallel.sweep runs Hedge)",
        t_ceiling_threads,
        work,
        np_rate,
        top,
    )
    report.add(
        task,
        f"ceiling: {N_LEARNERS} x the one-stream ceiling",
        N_LEARNERS * t_ceiling,
        work,
        np_rate,
        top,
    )
    report.notes.append(
        f"- {task}: eta from {etas[0]:.2e} to {etas[-1]:.2e} (eta* x 10^-2 .. eta* x 10)"
    )
    report.notes.append(
        f"- {task}: the ceiling is the fastest of its three rows ({N_LEARNERS} T n = "
        f"{work * n / 1e9:.1f} G exponentials at {top * n / 1e9:.2f} G/s)"
    )
    report.target(task, "jax.jit(jax.vmap(core.run))", rate, np_rate, top, workload)
    report.target(task, "parallel.sweep(core.run)", swept_rate, np_rate, top, workload)
    record(
        f"{task}: ceiling",
        workload,
        top,
        np_rate,
        unit="learner-rounds/s",
        reference_name="NumPy loop",
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--T", type=int, default=100_000, help="rounds")
    parser.add_argument("--n", type=int, default=1_000, help="experts")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs (median reported)")
    args = parser.parse_args()

    losses = jax.random.uniform(jax.random.PRNGKey(0), (args.T, args.n), jnp.float32)
    report = Report()
    eta_star, t_ceiling = single_stream(report, losses, args.repeats)
    sweep(report, losses, eta_star, t_ceiling, args.repeats)
    report.print(
        f"### Hedge, n={args.n:,} experts, T={args.T:,} rounds, float32, "
        f"{jax.default_backend().upper()} ({jax.devices()[0].device_kind}), median of {args.repeats}"
    )


if __name__ == "__main__":
    main()
