"""The Cascade SVM (Graf, Cosatto, Bottou, Durdanovic and Vapnik, NIPS 2004) on a Dask
cluster: the exact C-SVC of rows that stay on the workers."""

from __future__ import annotations

import logging
import time
import uuid
import warnings

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
from distributed import default_client
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ..kernels import resolve_gamma
from ..svm import SVC
from ..svm._base import enable_logging
from . import _cascade_tasks as tasks
from ._blocks import BlockwiseModel

logger = logging.getLogger("svmkit")

#: The parameters of SVC that every node of the cascade is fitted with.
SVC_PARAMETERS = ("C", "kernel", "degree", "gamma", "coef0", "shrinking", "tol", "cache_size", "class_weight",
                  "max_iter", "multiclass", "decision_function_shape", "n_jobs")


class CascadeSVC(ClassifierMixin, BaseEstimator):
    """C-support vector classification of a Dask array or dataframe, solved exactly by a
    Cascade SVM on a ``dask.distributed`` cluster.

    Each partition of the data is solved with :class:`svmkit.SVC` on the worker that holds
    it; the support vectors of the partitions are merged pairwise in a binary tree, each
    merge solved again, and the last node's :class:`~svmkit.SVC` is the model of the pass.
    Its support vectors are fed back: the workers check every row of their partitions
    against the model, and the rows that violate their KKT conditions by more than ``tol``
    (the only rows that move) enter the next pass: each partition's violators with the
    fed-back support vectors in a node of their own, merged by the tree as before, or, when
    the violators are no more than the support vectors, all of them in one node with the
    support vectors (every leaf would otherwise solve the support vectors again). The fit
    ends when no row violates them: the model is then the solution of the C-SVC of all rows
    (Graf et al. 2004), to ``tol``. Each pass's dual objective is at least the last one's.

    The fitted model is an :class:`svmkit.SVC` fitted on the last working set
    (:attr:`model_`); the attributes below are its attributes with rows numbered in the
    whole training data. Binary, one-vs-one (LIBSVM) and one-vs-rest multiclass.

    Parameters
    ----------
    C, kernel, degree, gamma, coef0, shrinking, tol, cache_size, class_weight, max_iter : see SVC
    multiclass, decision_function_shape, n_jobs : see SVC
        As :class:`svmkit.SVC`, for every node's fit; ``gamma='scale'`` and
        ``class_weight='balanced'`` are computed from all the rows. ``cache_size`` is per
        node, so a worker's memory is its partitions plus the node's rows plus
        ``cache_size``. ``kernel='precomputed'`` is refused.
    max_passes : int, default=20
        Passes at most; reaching it with violators left warns with their number.
    verbose : bool, default=False
        Log each layer of each pass (nodes, rows in and out, time) and each check
        (violators, largest violation, duality gap, dual objective) to the ``svmkit`` logger.

    Attributes
    ----------
    model_ : SVC
        The SVC of the last pass, fitted on the rows of :attr:`working_set_`.
    working_set_ : ndarray of int64
        Rows of the training data (global numbers, sorted) that the last SVC was fitted on.
    support_ : ndarray of int32
        Support vectors' rows in the training data, grouped by class.
    support_vectors_, n_support_, dual_coef_, intercept_, classes_, n_iter_, fit_status_, problem_classes_
        Those of :attr:`model_`.
    dual_objective_ : float or ndarray
        The dual objective of each two-class problem: that of all rows, since the multipliers
        outside the working set are 0.
    primal_objective_, duality_gap_ : float or ndarray
        ``1/2 ||w||^2 + sum_i C_i xi_i`` over all rows (the slacks summed on the workers),
        and its difference to the dual objective.
    kkt_violation_ : float
        The largest KKT violation of any row at the last check.
    n_passes_ : int
    history_ : list of dict
        Per pass: working set rows, support vectors, violators, largest violation, dual
        objective, duality gap and seconds.
    shape_fit_ : tuple
    n_features_in_ : int

    Examples
    --------
    >>> import dask.array as da
    >>> from distributed import Client, LocalCluster
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from svmkit import SVC
    >>> from svmkit.dask import CascadeSVC
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \\
    ...         Client(cluster) as client:
    ...     cascade = CascadeSVC(C=1.0, gamma=0.05).fit(da.from_array(X, chunks=150), da.from_array(y, chunks=150))
    >>> single = SVC(C=1.0, gamma=0.05).fit(X, y)
    >>> bool(abs(cascade.dual_objective_ - single.dual_objective_) < 1e-3 * abs(single.dual_objective_))
    True
    >>> bool((cascade.predict(X) == single.predict(X)).all()), cascade.kkt_violation_ <= 1e-3
    (True, True)
    """

    def __init__(
        self,
        C=1.0,
        kernel="rbf",
        degree=3,
        gamma="scale",
        coef0=0.0,
        shrinking=True,
        tol=1e-3,
        cache_size=200,
        class_weight=None,
        max_iter=-1,
        multiclass="ovo",
        decision_function_shape="ovr",
        n_jobs=None,
        max_passes=20,
        verbose=False,
    ):
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.tol = tol
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.multiclass = multiclass
        self.decision_function_shape = decision_function_shape
        self.n_jobs = n_jobs
        self.max_passes = max_passes
        self.verbose = verbose

    # -- fitting -------------------------------------------------------------
    def fit(self, X, y):
        """Fit on the partitions of a Dask array or dataframe, on the current Dask client.

        Parameters
        ----------
        X : dask.array.Array or dask.dataframe.DataFrame of shape (n_samples, n_features)
            Its row blocks (partitions) are the cascade's first nodes.
        y : dask.array.Array, dask.dataframe.Series or ndarray of shape (n_samples,)
            Class labels, split as ``X``'s rows.

        Returns
        -------
        self
        """
        if self.verbose:
            enable_logging()
        max_passes = self.max_passes
        if isinstance(max_passes, bool) or not isinstance(max_passes, (int, np.integer)) or max_passes < 1:
            raise ValueError(f"max_passes must be a positive integer, got {self.max_passes!r}.")
        if isinstance(self.kernel, str) and self.kernel == "precomputed":
            raise ValueError("CascadeSVC cannot use kernel='precomputed': its rows are data rows split over workers.")
        X, y = _dask_rows(X, y)
        client = _current_client()
        probe = SVC(**self._svc_parameters())
        probe._check_params()
        classes, counts = (np.asarray(v) for v in dask.compute(*da.unique(y, return_counts=True)))
        if classes.shape[0] < 2:
            raise ValueError(f"CascadeSVC needs samples of at least two classes; the data contain one class only "
                             f"({classes[0]}).")
        params = self._node_parameters(X, classes, counts)
        n, d = X.shape
        token = uuid.uuid4().hex[:8]
        starts = np.concatenate([[0], np.cumsum(X.chunks[0])[:-1]]).tolist()
        parts = client.compute([
            dask.delayed(tasks.partition_rows)(xb, yb, start, dask_key_name=f"svmkit-cascade-partition-{p}-{token}")
            for p, (xb, yb, start) in enumerate(zip(X.to_delayed()[:, 0], y.to_delayed(), starts))
        ])
        self.classes_ = classes
        self.shape_fit_ = (int(n), int(d))
        self.n_features_in_ = int(d)
        self._fit_passes(client, parts, params, token)
        return self

    def _svc_parameters(self):
        return {name: getattr(self, name) for name in SVC_PARAMETERS}

    def _node_parameters(self, X, classes, counts):
        """The SVC parameters of every node: gamma and class weights from all the rows."""
        params = self._svc_parameters()
        if isinstance(self.gamma, str) and self.gamma == "scale":  # (as resolve_gamma, on all the rows)
            variance = float(X.var().compute())
            params["gamma"] = 1.0 / (X.shape[1] * variance) if variance != 0 else 1.0
        elif isinstance(self.gamma, str):
            params["gamma"] = resolve_gamma(self.gamma, X[:1])
        if isinstance(self.class_weight, str):  # 'balanced': n / (n_classes * count), from all the rows
            params["class_weight"] = dict(zip(classes.tolist(), (counts.sum() / (classes.shape[0] * counts)).tolist()))
        self._class_upper = np.array([
            float(self.C) * float((params["class_weight"] or {}).get(label, 1.0)) for label in classes.tolist()
        ])
        return params

    def _fit_passes(self, client, parts, params, token):
        feeds = [[part] for part in parts]
        start = None
        self.history_ = []
        for pass_number in range(1, self.max_passes + 1):
            started = time.perf_counter()
            top = self._cascade(client, feeds, params, start, pass_number, token)
            model, working_set = client.submit(tasks.model_of, top,
                                               key=f"svmkit-cascade-model-{pass_number}-{token}").result()
            if not np.array_equal(model.classes_, self.classes_):
                raise RuntimeError("a pass's working set lost a class; the cascade cannot go on.")  # (cannot happen)
            checks, summary = self._check(client, parts, top, pass_number, token)
            self._record(pass_number, model, working_set, summary, time.perf_counter() - started)
            if not checks:
                break
            support = client.submit(tasks.support_of, top, key=f"svmkit-cascade-support-{pass_number}-{token}")
            start = client.submit(tasks.start_of, top, key=f"svmkit-cascade-start-{pass_number}-{token}")
            violators = [client.submit(tasks.violators_of, check, key=f"svmkit-cascade-violators-{pass_number}-{p}-"
                                       f"{token}") for p, check in checks]
            if self.history_[-1]["violators"] <= model.support_.shape[0]:
                feeds = [[support, *violators]]  # (one node: a tree would solve the support vectors once a leaf)
            else:
                feeds = [[support, part_violators] for part_violators in violators]
        else:
            warnings.warn(
                f"CascadeSVC stopped after max_passes={self.max_passes} passes with "
                f"{self.history_[-1]['violators']} rows still violating their KKT conditions by more than "
                f"tol={self.tol:g} (largest violation {self.kkt_violation_:.3e}); increase max_passes.",
                ConvergenceWarning, stacklevel=3,
            )
        self._set_attributes(model, working_set)

    def _cascade(self, client, feeds, params, start, pass_number, token):
        """One pass of the cascade: the nodes of ``feeds`` (each a list of row sets to join),
        merged pairwise to the last node; returns the last node's future. Nodes that hold all
        the last pass's support vectors start from their multipliers (``start``)."""
        if len(feeds) == 1:
            return client.submit(tasks.fit_top, params, start, *feeds[0],
                                 key=f"svmkit-cascade-top-{pass_number}-{token}")
        nodes = [
            client.submit(tasks.fit_node, params, start, *feed,
                          key=f"svmkit-cascade-node-{pass_number}-layer0-{i}-{token}")
            for i, feed in enumerate(feeds)
        ]
        layer = 0
        while True:
            self._log_layer(client, nodes, pass_number, layer, token)
            if len(nodes) <= 2:
                return client.submit(tasks.fit_top, params, start, *nodes,
                                     key=f"svmkit-cascade-top-{pass_number}-{token}")
            layer += 1
            merged = [
                client.submit(tasks.fit_node, params, start, *nodes[i:i + 2],
                              key=f"svmkit-cascade-node-{pass_number}-layer{layer}-{i // 2}-{token}")
                for i in range(0, len(nodes) - 1, 2)
            ]
            nodes = merged + nodes[len(nodes) - len(nodes) % 2:]

    def _log_layer(self, client, nodes, pass_number, layer, token):
        if not self.verbose:
            return
        sizes = client.gather([client.submit(tasks.node_size, node, key=f"svmkit-cascade-size-{pass_number}-{layer}-"
                                             f"{i}-{token}") for i, node in enumerate(nodes)])
        logger.info("cascade pass %d layer %d: %d nodes, %d support vectors out (largest node %d)",
                    pass_number, layer, len(nodes), sum(sizes), max(sizes))

    def _check(self, client, parts, top, pass_number, token):
        """Check every partition against the pass's model on its worker; returns the checks
        with violators ``[(partition, future)]`` and the summed summary. The model reaches
        each worker once, as the result of a task on the last node (so that Dask can compute
        it again if a worker dies)."""
        pass_model = client.submit(tasks.pass_model_of, top, self._class_upper, float(self.tol),
                                   key=f"svmkit-cascade-pass-model-{pass_number}-{token}")
        checks = [
            client.submit(tasks.check_partition, pass_model, part, key=f"svmkit-cascade-kkt-{pass_number}-{p}-{token}")
            for p, part in enumerate(parts)
        ]
        summaries = client.gather([
            client.submit(tasks.check_summary, check, key=f"svmkit-cascade-kkt-summary-{pass_number}-{p}-{token}")
            for p, check in enumerate(checks)
        ])
        violating = [(p, check) for p, (check, summary) in enumerate(zip(checks, summaries)) if summary[0] > 0]
        summary = (
            sum(s[0] for s in summaries),
            sum(s[1] for s in summaries),
            max(s[2] for s in summaries),
            np.sum([s[3] for s in summaries], axis=0),
        )
        return violating, summary

    def _record(self, pass_number, model, working_set, summary, seconds):
        n_violators, n_rows, max_violation, slack_cost = summary
        dual = np.atleast_1d(model.dual_objective_)
        alpha_sum = np.atleast_1d(np.atleast_2d(model.alpha_).sum(axis=1))
        primal = alpha_sum - dual + slack_cost  # (1/2 ||w||^2 = sum alpha - dual)
        one = dual.shape[0] == 1
        self.primal_objective_ = float(primal[0]) if one else primal
        self.duality_gap_ = float(primal[0] - dual[0]) if one else primal - dual
        self.kkt_violation_ = max_violation
        self.n_passes_ = pass_number
        self.history_.append({
            "pass": pass_number, "working_set": int(working_set.shape[0]),
            "support_vectors": int(model.support_.shape[0]),
            "violators": int(n_violators), "max_violation": float(max_violation), "dual": dual.tolist(),
            "duality_gap": (primal - dual).tolist(), "seconds": seconds,
        })
        if self.verbose:
            logger.info("cascade pass %d: working set %d rows, %d support vectors; check of %d rows: %d violators, "
                        "largest violation %.3e, dual %s, duality gap %s, %.2f s", pass_number, working_set.shape[0],
                        model.support_.shape[0], n_rows, n_violators, max_violation,
                        np.array2string(dual, precision=6), np.array2string(primal - dual, precision=3), seconds)

    def _set_attributes(self, model, working_set):
        self.model_ = model
        self.working_set_ = working_set
        self.support_ = working_set[model.support_].astype(np.int32)
        for name in ("support_vectors_", "n_support_", "dual_coef_", "intercept_", "n_iter_", "fit_status_",
                     "problem_classes_"):
            setattr(self, name, getattr(model, name))

    # -- theory ---------------------------------------------------------------
    @property
    def dual_objective_(self):
        """``sum a - 1/2 a'Qa`` of each problem (the last SVC's: multipliers outside its
        working set are 0)."""
        check_is_fitted(self)
        return self.model_.dual_objective_

    # -- prediction -------------------------------------------------------------
    def decision_function(self, X):
        """Decision values as :meth:`svmkit.SVC.decision_function`; a Dask array or
        dataframe gives a Dask collection computed block by block."""
        return self._score("decision_function", X)

    def predict(self, X):
        """Class labels as :meth:`svmkit.SVC.predict`; a Dask array or dataframe gives a
        Dask collection computed block by block."""
        return self._score("predict", X)

    def _score(self, method, X):
        check_is_fitted(self)
        if isinstance(X, (da.Array, dd.DataFrame)):
            return getattr(BlockwiseModel(self.model_), method)(X)
        return getattr(self.model_, method)(X)


def _current_client():
    try:
        return default_client()
    except ValueError as error:
        raise RuntimeError(
            "CascadeSVC runs on a dask.distributed cluster: start a client first, e.g. "
            "Client(LocalCluster()) for this machine or Client('tcp://scheduler:8786') for a cluster."
        ) from error


def _dask_rows(X, y):
    """``X`` as a Dask array of row blocks (one column block, known sizes) and ``y`` as a
    Dask array split like its rows."""
    if isinstance(X, dd.DataFrame):
        X = X.to_dask_array(lengths=True)
    if not isinstance(X, da.Array):
        raise TypeError(
            f"CascadeSVC fits Dask arrays or dataframes, got {type(X).__name__}: split NumPy data with "
            "dask.array.from_array(X, chunks=(rows_per_partition, -1)), or fit svmkit.SVC."
        )
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features), got {X.ndim} dimensions.")
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()
    if X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    if isinstance(y, dd.Series):
        y = y.to_dask_array(lengths=True)
    if not isinstance(y, da.Array):
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(f"y must have one label per row of X ({X.shape[0]}), got shape {y.shape}.")
        y = da.from_array(y, chunks=(X.chunks[0],))
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"y must have one label per row of X ({X.shape[0]}), got shape {y.shape}.")
    if y.chunks[0] != X.chunks[0]:
        y = y.rechunk((X.chunks[0],))
    return X, y
