"""The passes of a Cascade SVM on a Dask cluster: the tree of nodes over the partitions, the
KKT check of every row on the workers, and the feedback of the violators, until no row
violates its conditions."""

from __future__ import annotations

import logging
import time
import uuid
import warnings
from typing import NamedTuple

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from . import _cascade_tasks as tasks

logger = logging.getLogger("svmkit")


class CascadeResult(NamedTuple):
    """What the passes of one cascade found: the SVC of the last pass and the global rows it
    was fitted on, and the theory of the last check (per two-class problem where an array)."""

    model: object
    working_set: np.ndarray
    history: list
    n_passes: int
    kkt_violation: float
    primal_objective: np.ndarray
    duality_gap: np.ndarray


class CascadePasses:
    """The passes of a cascade of the SVC parameters ``params`` over partitions of rows
    (futures of :class:`~svmkit.dask._cascade_tasks.Rows`) on ``client``.

    ``class_upper`` is ``C * class_weight`` of each class of the problem (in the order of
    their sorted labels); ``name`` begins the log lines and the tasks' keys.
    """

    def __init__(self, client, params, class_upper, tol, max_passes, verbose, name="cascade"):
        self.client = client
        self.params = params
        self.class_upper = class_upper
        self.tol = tol
        self.max_passes = max_passes
        self.verbose = verbose
        self.name = name
        self._label, self._token = name.replace(" ", "-"), uuid.uuid4().hex[:8]

    def run(self, parts):
        """Passes until no row of ``parts`` violates its KKT conditions by more than ``tol``
        (or ``max_passes``, with a ConvergenceWarning); returns a :class:`CascadeResult`."""
        client = self.client
        feeds = [[part] for part in parts]
        start = None
        history = []
        for pass_number in range(1, self.max_passes + 1):
            started = time.perf_counter()
            top = self._cascade(feeds, start, pass_number)
            # (no reference here to the row sets fed to this pass, nor to the last checks that
            # hold the violators: Dask frees each once the node that joins it has, and not only
            # after the node's fit; the last working set, fed back whole, is the largest)
            feeds = working = violators = all_checks = checks = None
            model, working_set = client.submit(tasks.model_of, top, key=self._key("model", pass_number)).result()
            all_checks, checks, summary = self._check(parts, top, pass_number)
            result = self._record(history, pass_number, model, working_set, summary, time.perf_counter() - started)
            if not checks:
                return result
            working = client.submit(tasks.rows_of, top, key=self._key("working-set", pass_number))
            start = client.submit(tasks.start_of, top, *all_checks, key=self._key("start", pass_number))
            violators = [client.submit(tasks.violators_of, check, key=self._key("violators", pass_number, p))
                         for p, check in checks]
            if history[-1]["violators"] <= working_set.shape[0]:
                feeds = [[working, *violators]]  # (one node: a tree would solve the working set once a leaf)
            else:
                feeds = [[working, part_violators] for part_violators in violators]
        warnings.warn(
            f"{self.name} stopped after max_passes={self.max_passes} passes with {history[-1]['violators']} rows "
            f"still violating their KKT conditions by more than tol={self.tol:g} (largest violation "
            f"{result.kkt_violation:.3e}); increase max_passes.",
            ConvergenceWarning, stacklevel=3,
        )
        return result

    def _key(self, what, *numbers):
        """A task's key: Dask's dashboard groups the tasks by the words before the numbers."""
        return "-".join(["svmkit", self._label, what, *map(str, numbers), self._token])

    def _cascade(self, feeds, start, pass_number):
        """One pass of the cascade: the nodes of ``feeds`` (each a list of row sets to join),
        merged pairwise to the last node; returns the last node's future. Nodes that hold all
        the last pass's support vectors start from their multipliers (``start``)."""
        client, params = self.client, self.params
        if len(feeds) == 1:
            return self._top(start, feeds[0], pass_number)
        nodes = [client.submit(tasks.fit_node, params, start, *feed, key=self._key("node", pass_number, 0, i))
                 for i, feed in enumerate(feeds)]
        layer = 0
        while True:
            self._log_layer(nodes, pass_number, layer)
            if len(nodes) <= 2:
                return self._top(start, nodes, pass_number)
            layer += 1
            merged = [client.submit(tasks.fit_node, params, start, *nodes[i:i + 2],
                                    key=self._key("node", pass_number, layer, i // 2))
                      for i in range(0, len(nodes) - 1, 2)]
            nodes = merged + nodes[len(nodes) - len(nodes) % 2:]

    def _top(self, start, feeds, pass_number):
        """The last node of a pass: the union of the row sets ``feeds``, then its fit (two
        tasks: the row sets are freed once joined, before the fit takes its memory)."""
        rows = self.client.submit(tasks.union, *feeds, key=self._key("top-rows", pass_number))
        return self.client.submit(tasks.fit_top, self.params, start, rows, key=self._key("top", pass_number))

    def _log_layer(self, nodes, pass_number, layer):
        if not self.verbose:
            return
        sizes = self.client.gather([self.client.submit(tasks.node_size, node, key=self._key("size", pass_number, layer, i))
                                    for i, node in enumerate(nodes)])
        logger.info("%s pass %d layer %d: %d nodes, %d support vectors out (largest node %d)",
                    self.name, pass_number, layer, len(nodes), sum(sizes), max(sizes))

    def _check(self, parts, top, pass_number):
        """Check every partition against the pass's model on its worker; returns all the
        checks, those with violators ``[(partition, future)]`` and the summed summary. The
        model reaches each worker once, as the result of a task on the last node (so that
        Dask can compute it again if a worker dies)."""
        client = self.client
        pass_model = client.submit(tasks.pass_model_of, top, self.class_upper, float(self.tol),
                                   key=self._key("pass-model", pass_number))
        checks = [client.submit(tasks.check_partition, pass_model, part, key=self._key("kkt", pass_number, p))
                  for p, part in enumerate(parts)]
        summaries = client.gather([client.submit(tasks.check_summary, check, key=self._key("kkt-summary", pass_number, p))
                                   for p, check in enumerate(checks)])
        violating = [(p, check) for p, (check, summary) in enumerate(zip(checks, summaries)) if summary[0] > 0]
        summary = (
            sum(s[0] for s in summaries),
            sum(s[1] for s in summaries),
            max(s[2] for s in summaries),
            np.sum([s[3] for s in summaries], axis=0),
        )
        return checks, violating, summary

    def _record(self, history, pass_number, model, working_set, summary, seconds):
        n_violators, n_rows, max_violation, slack_cost = summary
        dual = np.atleast_1d(model.dual_objective_)
        alpha_sum = np.atleast_1d(np.atleast_2d(model.alpha_).sum(axis=1))
        primal = alpha_sum - dual + slack_cost  # (1/2 ||w||^2 = sum alpha - dual)
        history.append({
            "pass": pass_number, "working_set": int(working_set.shape[0]),
            "support_vectors": int(model.support_.shape[0]),
            "violators": int(n_violators), "max_violation": float(max_violation), "dual": dual.tolist(),
            "duality_gap": (primal - dual).tolist(), "seconds": seconds,
        })
        if self.verbose:
            logger.info("%s pass %d: working set %d rows, %d support vectors; check of %d rows: %d violators, "
                        "largest violation %.3e, dual %s, duality gap %s, %.2f s", self.name, pass_number,
                        working_set.shape[0], model.support_.shape[0], n_rows, n_violators, max_violation,
                        np.array2string(dual, precision=6), np.array2string(primal - dual, precision=3), seconds)
        return CascadeResult(model, working_set, history, pass_number, max_violation, primal, primal - dual)
