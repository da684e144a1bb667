"""Exact multi-class consistency over the diagonal and the column totals (method ``margins``).

Every per-class count is a function of a class's diagonal cell d_k, its row total t_k (given)
and its column total c_k: TP = d, FP = c - d, FN = t - d, TN = n - t - c + d. So a score set
whose metrics read only these (class-level and averaged metrics, and matrix-level ones whose
formula touches the matrix only on its diagonal: accuracy, MCC, kappa...) is consistent iff
some (d, c) gives every score and some matrix has that diagonal and those margins. The
off-diagonal part, rows r_k = t_k - d_k and columns s_k = c_k - d_k with R = sum(r), exists
iff r_k + s_k <= R for every k (a transportation problem with a forbidden diagonal; its cut
conditions reduce to these), so the search never enumerates off-diagonal cells.

The search assigns (d_k, c_k) class by class, vectorized over the frontier of partial
assignments, and prunes a partial one when no completion can reach every score's window:

- scores of the trace alone (accuracy, micro averages) allow a set of traces D;
- a macro, weighted or binary average of a per-class metric is a sum over classes; for the
  classes still to assign, tables of its least and greatest sum for each (sum of c, sum of d)
  bound every completion (computed once, backwards over the classes);
- the feasibility condition, with R at most n minus the diagonal so far.

At the leaves every score is evaluated exactly (the generated functions, on a matrix with
that diagonal and those margins), so the answer is exact; a search past ``WORK_LIMIT``
children stops and returns None (the caller falls back to necessary conditions and says so).
"""

from __future__ import annotations

import numpy as np

from metricc.audit import consistent_grid as grid
from metricc.audit import consistent_space as space
from metricc.audit.consistent_intervals import aggregate_of_class, trace_conditions
from metricc.api.evaluate import metric
from metricc.runtime.averaging import MODES

__all__ = ["WORK_LIMIT", "MAX_SAMPLES", "applicable", "margins_search", "witness"]

WORK_LIMIT = 20_000_000  # partial assignments examined
MAX_SAMPLES = 300  # (n + 1)^2 bound tables per class and score
MAX_CLASSES = 8  # each half of the meet in the middle assigns at most four classes
TABLE_LIMIT = 3_000_000_000  # cells updated to build the bound tables (candidates x (n + 1)^2 x scores)
_CHUNK = 1 << 14


def applicable(score) -> bool:
    """Whether the score reads the matrix only through per-class counts or its diagonal."""
    info = metric(score.metric)
    if info.takes == "counts":
        return True
    return not info.reads_off_diagonal and not info.parameters_read


def _separable(score, totals: list[int]) -> tuple[str, np.ndarray] | None:
    """(class metric, per-class weights) when the score is a weighted sum over classes."""
    info = metric(score.metric)
    if info.takes == "counts" and not info.per_class_counts:  # an aggregate
        found = aggregate_of_class(info)
        if found is None:
            return None
        metric_id, average = found
    elif info.per_class_counts and score.average in MODES and MODES[score.average].linear and not info.params:
        metric_id, average = info.id, score.average
    else:
        return None
    return metric_id, MODES[average].class_weights(totals, 1 if score.pos_label is None else score.pos_label)


def _candidates(total: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every (d, c) of a class: d <= total, d <= c <= d + n - total."""
    d = np.repeat(np.arange(total + 1), n - total + 1)
    c = d + np.tile(np.arange(n - total + 1), total + 1)
    return d.astype(np.int64), c.astype(np.int64)


def _per_class(metric_id: str, d, c, total: int, n: int) -> np.ndarray:
    counts = [np.asarray(x, dtype=np.int64).reshape(-1, 1) for x in (d, c - d, total - d, n - total - c + d)]
    with np.errstate(all="ignore"):
        return np.asarray(metric(metric_id).function(*counts, average="none"), dtype=float).reshape(-1)


def _suffix_tables(contributions, cands, n: int):
    """For each class j, least and greatest sum of contributions over classes j.. for each
    (sum of c, sum of d); +inf/-inf where no assignment reaches it. ``contributions[j]``: one
    value per candidate of class j."""
    classes = len(cands)
    lows = [None] * (classes + 1)
    highs = [None] * (classes + 1)
    low = np.full((n + 1, n + 1), np.inf)
    high = np.full((n + 1, n + 1), -np.inf)
    low[0, 0] = high[0, 0] = 0.0
    lows[classes], highs[classes] = low, high
    for j in range(classes - 1, -1, -1):
        new_low = np.full((n + 1, n + 1), np.inf)
        new_high = np.full((n + 1, n + 1), -np.inf)
        d, c = cands[j]
        for value, dd, cc in zip(contributions[j], d, c):
            np.minimum(new_low[cc:, dd:], low[:n + 1 - cc, :n + 1 - dd] + value, out=new_low[cc:, dd:])
            np.maximum(new_high[cc:, dd:], high[:n + 1 - cc, :n + 1 - dd] + value, out=new_high[cc:, dd:])
        low, high = new_low, new_high
        lows[j], highs[j] = low, high
    return lows, highs


def _fake_matrices(d: np.ndarray, c: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """Integer matrices ``(B, C, C)`` with diagonal d, row totals t and column totals c, and a
    zero-diagonal off-diagonal part whose entries may be negative: metrics of the diagonal and
    the margins give their value on every real matrix with these, and this one is built in O(C^2)."""
    count, classes = d.shape
    rows, cols = totals[None, :] - d, c - d
    matrix = np.zeros((count, classes, classes), dtype=np.int64)
    index = np.arange(classes)
    matrix[:, index, index] = d
    matrix[:, index, (index + 1) % classes] = rows  # row i's off-diagonal mass in column i + 1
    deficit = cols - np.roll(rows, 1, axis=1)  # column j got row j - 1's mass
    for j in range(1, classes):
        a = next(i for i in range(classes) if i not in (0, j))
        matrix[:, a, j] += deficit[:, j]
        matrix[:, a, 0] -= deficit[:, j]
    return matrix


def witness(d, c, totals) -> list[list[int]]:
    """A real matrix (non-negative integers) with diagonal d, row totals and column totals c:
    the off-diagonal part as a maximum flow from the rows' remainders to the columns' (a row
    never sends to its own column), by augmenting paths (Edmonds-Karp) on 2C + 2 nodes."""
    classes = len(totals)
    size = 2 * classes + 2
    source, sink = 0, size - 1
    capacity = [[0] * size for _ in range(size)]
    for i in range(classes):
        capacity[source][1 + i] = int(totals[i] - d[i])
        capacity[1 + classes + i][sink] = int(c[i] - d[i])
        for j in range(classes):
            if i != j:
                capacity[1 + i][1 + classes + j] = sum(totals)
    flow = [[0] * size for _ in range(size)]
    while True:
        parent = [-1] * size
        parent[source] = source
        queue = [source]
        while queue and parent[sink] < 0:
            node = queue.pop(0)
            for other in range(size):
                if parent[other] < 0 and capacity[node][other] - flow[node][other] > 0:
                    parent[other] = node
                    queue.append(other)
        if parent[sink] < 0:
            break
        amount, node = None, sink
        while node != source:
            residual = capacity[parent[node]][node] - flow[parent[node]][node]
            amount = residual if amount is None else min(amount, residual)
            node = parent[node]
        node = sink
        while node != source:
            flow[parent[node]][node] += amount
            flow[node][parent[node]] -= amount
            node = parent[node]
    return [[int(d[i]) if i == j else flow[1 + i][1 + classes + j] for j in range(classes)] for i in range(classes)]


class _Budget(Exception):
    """The search would pass ``WORK_LIMIT``."""


class _Problem:
    """The per-class candidates (d, c), each separable score's contribution per candidate,
    the traces the trace scores allow, and the windows of the separable scores."""

    def __init__(self, scores, totals: list[int]) -> None:
        self.n, self.classes, self.totals = sum(totals), len(totals), totals
        n = self.n
        cands = [_candidates(total, n) for total in totals]
        separable = [(i, s) for i, s in ((i, _separable(s, totals)) for i, s in enumerate(scores)) if s is not None]
        masks = [m for m in trace_conditions(scores, None, n, self.classes) if m is not None]
        self.traces = np.logical_and.reduce(masks) if masks else np.ones(n + 1, dtype=bool)
        per = [[_per_class(m, d, c, totals[j], n) * w[j] if w[j] else np.zeros(len(d)) for j, (d, c) in enumerate(cands)]
               for _, (m, w) in separable]
        keep = [np.ones(len(d), dtype=bool) for d, _ in cands]  # NaN in a weighted sum: the score is NaN
        for values in per:
            for j in range(self.classes):
                keep[j] &= ~np.isnan(values[j])
        self.cands = [(d[k], c[k]) for (d, c), k in zip(cands, keep)]
        self.values = [np.stack([v[j][keep[j]] for v in per], axis=-1) if per else np.zeros((int(keep[j].sum()), 0))
                       for j in range(self.classes)]
        self.windows = np.array([(scores[i].value - scores[i].tolerance - 1e-9, scores[i].value + scores[i].tolerance + 1e-9)
                                 for i, _ in separable]).reshape(-1, 2)
        self.work = 0
        self.limit = WORK_LIMIT

    def tables(self, order: list[int]):
        """Suffix tables along ``order``: per score and for reachability."""
        cands = [self.cands[j] for j in order]
        scores = [_suffix_tables([self.values[j][:, k] for j in order], cands, self.n) for k in range(len(self.windows))]
        reach = [np.isfinite(low) for low in _suffix_tables([np.zeros(len(c[0])) for c in cands], cands, self.n)[0]]
        return scores, reach

    def half(self, order: list[int], steps: int):
        """Partial assignments of the first ``steps`` classes of ``order`` that some assignment of
        the rest may complete (bounded by the suffix tables along ``order``), yielded in chunks,
        depth first: memory stays bounded and a caller that has its answer stops early."""
        tables, reach = self.tables(order)
        spans = [([lo.min(axis=1) for lo in low], [hi.max(axis=1) for hi in high]) for low, high in tables]
        start = {"D": np.zeros(1, np.int64), "C": np.zeros(1, np.int64), "X": np.zeros(1, np.int64),
                 "S": np.zeros((1, len(self.windows))), "d": np.zeros((1, 0), np.int64), "c": np.zeros((1, 0), np.int64)}
        yield from self._expand(start, 0, order, steps, tables, spans, reach)

    def _expand(self, state, level, order, steps, tables, spans, reach):
        if level == steps:
            if len(state["D"]):
                yield state
            return
        n, j = self.n, order[level]
        d, c = self.cands[j]
        ds = np.arange(n + 1)
        step = max(1, _CHUNK // max(1, len(d)))
        for first in range(0, len(state["D"]), step):
            part = {k: v[first:first + step] for k, v in state.items()}
            size = len(part["D"]) * len(d)
            self.work += size
            if self.work > self.limit:
                raise _Budget
            child = {
                "D": (part["D"][:, None] + d[None, :]).ravel(), "C": (part["C"][:, None] + c[None, :]).ravel(),
                "X": np.maximum(part["X"][:, None], (self.totals[j] + c - 2 * d)[None, :]).ravel(),
                "S": (part["S"][:, None, :] + self.values[j][None, :, :]).reshape(size, -1),
                "d": np.concatenate([np.repeat(part["d"], len(d), axis=0), np.tile(d, len(part["D"]))[:, None]], axis=1),
                "c": np.concatenate([np.repeat(part["c"], len(d), axis=0), np.tile(c, len(part["D"]))[:, None]], axis=1),
            }
            ok = (child["C"] <= n) & (child["X"] <= n - child["D"])
            rest = np.where(ok, n - child["C"], 0)
            for k in range(len(tables)):  # cheap first: each score's bounds over any completion
                value = child["S"][:, k]
                ok &= (value + spans[k][0][level + 1][rest] <= self.windows[k, 1])
                ok &= (value + spans[k][1][level + 1][rest] >= self.windows[k, 0])
            child = {k: v[ok] for k, v in child.items()}
            rest = n - child["C"]
            final = child["D"][:, None] + ds[None, :]
            good = (final <= n) & reach[level + 1][rest] & self.traces[np.minimum(final, n)]
            for k, (low, high) in enumerate(tables):
                value = child["S"][:, k:k + 1]
                good &= (value + low[level + 1][rest] <= self.windows[k, 1]) & (value + high[level + 1][rest] >= self.windows[k, 0])
            alive = good.any(axis=1)
            yield from self._expand({k: v[alive] for k, v in child.items()}, level + 1, order, steps, tables, spans, reach)


def _join(problem: _Problem, front: dict, back: dict, order: list[int]):
    """Pairs of a front and a back assignment that fit together: column totals adding up to n,
    a trace allowed, the off-diagonal feasible, every separable score in its window. Yields
    (d, c) arrays in class order."""
    n = problem.n
    position = np.argsort(order)
    for total in np.unique(front["C"]):
        f = np.flatnonzero(front["C"] == total)
        b = np.flatnonzero(back["C"] == n - total)
        if not len(f) or not len(b):
            continue
        if len(problem.windows):
            b = b[np.argsort(back["S"][b, 0], kind="stable")]
            keys = back["S"][b, 0]
            low = np.searchsorted(keys, problem.windows[0, 0] - front["S"][f, 0], side="left")
            high = np.searchsorted(keys, problem.windows[0, 1] - front["S"][f, 0], side="right")
        else:
            low, high = np.zeros(len(f), np.int64), np.full(len(f), len(b))
        counts = np.maximum(high - low, 0)
        problem.work += int(counts.sum())
        if problem.work > problem.limit:
            raise _Budget
        if not counts.sum():
            continue
        fi = np.repeat(f, counts)
        offsets = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        bi = b[np.repeat(low, counts) + offsets]
        D = front["D"][fi] + back["D"][bi]
        S = front["S"][fi] + back["S"][bi]
        ok = problem.traces[D] & (np.maximum(front["X"][fi], back["X"][bi]) <= n - D)
        ok &= np.all((S >= problem.windows[:, 0]) & (S <= problem.windows[:, 1]), axis=1)
        d = np.concatenate([front["d"][fi[ok]], back["d"][bi[ok]]], axis=1)[:, position]
        c = np.concatenate([front["c"][fi[ok]], back["c"][bi[ok]]], axis=1)[:, position]
        yield d, c


def margins_search(scores, totals: list[int], work_limit: int | None = None):
    """(count of feasible (diagonal, column totals) found, up to ten witness matrices), or None
    when the search would pass ``WORK_LIMIT``; 0 means no matrix gives every score. The search
    stops at the first chunk with a witness, so a positive count is a lower bound. Every score
    must be :func:`applicable`.

    Meet in the middle: the first half of the classes assigned forwards, the second half
    backwards (each pruned by the tables of everything not yet assigned), joined on their
    column totals and the first separable score, then checked exactly."""
    n, classes = sum(totals), len(totals)
    candidates = sum((t + 1) * (n - t + 1) for t in totals)
    if candidates * (n + 1) ** 2 * (len(scores) + 1) * 2 > TABLE_LIMIT:
        return None
    problem = _Problem(scores, totals)
    problem.limit = WORK_LIMIT if work_limit is None else work_limit
    # the larger (back) half takes the classes with the fewest candidates
    order = sorted(range(classes), key=lambda j: -len(problem.cands[j][0]))
    half = classes // 2
    t = np.asarray(totals, dtype=np.int64)
    try:
        chunks = list(problem.half(order, half))
        if not chunks:
            return 0, []
        front = {k: np.concatenate([p[k] for p in chunks]) for k in chunks[0]}
        back_order = order[half:][::-1] + order[:half][::-1]
        count, found = 0, []
        for back in problem.half(back_order, classes - half):
            for d, c in _join(problem, front, back, order[:half] + back_order[:classes - half]):
                for start in range(0, len(d), grid.CHUNK):
                    dd, cc = d[start:start + grid.CHUNK], c[start:start + grid.CHUNK]
                    batch = grid.Batch.of_matrices(_fake_matrices(dd, cc, t))
                    hit = np.ones(len(dd), dtype=bool)
                    for score in scores:
                        hit &= space.matches(score, batch)
                    count += int(hit.sum())
                    for k in np.flatnonzero(hit)[:space.MAX_MATRICES - len(found)]:
                        found.append(witness(dd[k], cc[k], totals))
            if found:
                return count, found  # a lower bound: the search stops at the first witnesses
    except _Budget:
        return None
    return count, found
