"""The Cascade SVM (Graf, Cosatto, Bottou, Durdanovic and Vapnik, NIPS 2004) on a Dask
cluster: the exact C-SVC of rows that stay on the workers."""

from __future__ import annotations

import uuid
from itertools import combinations

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
from distributed import default_client
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils._available_if import available_if
from sklearn.utils.validation import check_is_fitted

from ..kernels import resolve_gamma
from ..svm import SVC
from ..svm._base import enable_logging
from ..svm._probability import draw_seed, fold_splits, sigmoid_train
from . import _cascade_tasks as tasks
from ._blocks import BlockwiseModel
from ._cascade_passes import CascadePasses

#: The parameters of SVC that every node of the cascade is fitted with (and the model of the
#: last pass predicts with).
SVC_PARAMETERS = ("C", "kernel", "degree", "gamma", "coef0", "shrinking", "tol", "cache_size", "class_weight",
                  "max_iter", "multiclass", "decision_function_shape", "break_ties", "two_class_probability",
                  "n_jobs")


class CascadeSVC(ClassifierMixin, BaseEstimator):
    """C-support vector classification of a Dask array or dataframe, solved exactly by a
    Cascade SVM on a ``dask.distributed`` cluster.

    Each partition of the data is solved with :class:`svmkit.SVC` on the worker that holds
    it; the support vectors of the partitions are merged pairwise in a binary tree, each
    merge solved again, and the last node's :class:`~svmkit.SVC` is the model of the pass.
    Its working set is fed back: the workers check every row of their partitions against
    the model, and the rows that violate their KKT conditions by more than ``tol`` (the only
    rows that move) enter the next pass: each partition's violators with the fed-back
    working set in a node of their own, merged by the tree as before, or, when the violators
    are no more than the working set, all of them in one node with it (every leaf would
    otherwise solve the working set again). Nodes that hold all the last support vectors
    start from their multipliers, and from the gradient the checks' decision values give.
    The fit ends when no row violates its conditions: the model is then the solution of the
    C-SVC of all rows (Graf et al. 2004), to ``tol``. Each pass's dual objective is at least
    the last one's; passes of one node solve ever larger working sets, so they end.

    The fitted model is an :class:`svmkit.SVC` fitted on the last working set
    (:attr:`model_`); the attributes below are its attributes with rows numbered in the
    whole training data. Binary, one-vs-one (LIBSVM) and one-vs-rest multiclass.

    Parameters
    ----------
    C, kernel, degree, gamma, coef0, shrinking, tol, cache_size, class_weight, max_iter : see SVC
    multiclass, decision_function_shape, break_ties, two_class_probability, n_jobs : see SVC
        As :class:`svmkit.SVC`, for every node's fit; ``gamma='scale'`` and
        ``class_weight='balanced'`` are computed from all the rows. ``cache_size`` is per
        node, so a worker's memory is its partitions plus the node's rows plus
        ``cache_size``. ``kernel='precomputed'`` is refused.
    probability : bool, default=False
        Also fit LIBSVM's probability model, as :class:`svmkit.SVC`: Platt's sigmoid of
        each one-vs-one pair on decision values from a 5-fold cross-validation with SVC's
        folds, each fold a cascade of its own on the cluster (five more fits per pair).
    random_state : int, RandomState instance or None, default=None
        Seeds the shuffle of the folds of ``probability=True``, as :class:`svmkit.SVC`'s.
    max_passes : int, default=20
        Passes at most; reaching it with violators left warns with their number.
    verbose : bool, default=False
        Log each layer of each pass (nodes, rows in and out, time) and each check
        (violators, largest violation, duality gap, dual objective) to the ``svmkit`` logger.

    Attributes
    ----------
    model_ : SVC
        The SVC of the last pass, fitted on the rows of :attr:`working_set_`; it has no
        ``radius_`` (the enclosing ball of the training points is a fit over all of them).
    working_set_ : ndarray of int64
        Rows of the training data (global numbers, sorted) that the last SVC was fitted on.
    support_ : ndarray of int32
        Support vectors' rows in the training data, grouped by class.
    support_vectors_, n_support_, dual_coef_, intercept_, classes_, n_iter_, fit_status_, problem_classes_
        Those of :attr:`model_`.
    probA_, probB_ : ndarray of shape (n_pairs,)
        Platt's parameters of each one-vs-one pair (empty without ``probability=True``).
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
        break_ties=False,
        probability=False,
        two_class_probability="coupling",
        random_state=None,
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
        self.break_ties = break_ties
        self.probability = probability
        self.two_class_probability = two_class_probability
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.max_passes = max_passes
        self.verbose = verbose

    # -- fitting -------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit on the partitions of a Dask array or dataframe, on the current Dask client.

        Parameters
        ----------
        X : dask.array.Array or dask.dataframe.DataFrame of shape (n_samples, n_features)
            Its row blocks (partitions) are the cascade's first nodes.
        y : dask.array.Array, dask.dataframe.Series or ndarray of shape (n_samples,)
            Class labels, split as ``X``'s rows.
        sample_weight : dask.array.Array, dask.dataframe.Series or ndarray of shape (n_samples,), optional
            Non-negative weights multiplying C per row, as :meth:`svmkit.SVC.fit`; rows of
            weight 0 take no part in the problem.

        Returns
        -------
        self
        """
        if self.verbose:
            enable_logging()
        self._check_params()
        X, y, weight = _dask_rows(X, y, sample_weight)
        client = _current_client()
        classes, counts = (np.asarray(v) for v in dask.compute(*da.unique(y, return_counts=True)))
        if classes.shape[0] < 2:
            raise ValueError(f"CascadeSVC needs samples of at least two classes; the data contain one class only "
                             f"({classes[0]}).")
        if weight is not None:
            _check_weights(weight, y, classes)
        if self.probability and self.multiclass == "ovr" and classes.shape[0] > 2:
            raise ValueError("probability=True uses LIBSVM's pairwise coupling of one-vs-one problems: "
                             "use multiclass='ovo' (the default).")
        params = self._node_parameters(X, classes, counts)
        n, d = X.shape
        starts = np.concatenate([[0], np.cumsum(X.chunks[0])[:-1]]).astype(np.int64)
        weights = weight.to_delayed() if weight is not None else [None] * len(starts)
        token = uuid.uuid4().hex[:8]
        parts = client.compute([
            dask.delayed(tasks.partition_rows)(xb, yb, wb, int(start), dask_key_name=f"svmkit-cascade-partition-{p}-{token}")
            for p, (xb, yb, wb, start) in enumerate(zip(X.to_delayed()[:, 0], y.to_delayed(), weights, starts))
        ])
        self.classes_ = classes
        self.shape_fit_ = (int(n), int(d))
        self.n_features_in_ = int(d)
        result = self._passes(client, params, self._class_upper, "cascade").run(parts)
        self._set_attributes(result)
        if self.probability:
            labels, row_weights = dask.compute(y, weight if weight is not None else 1.0)
            self._fit_probability(client, params, parts, starts, labels, np.broadcast_to(row_weights, labels.shape))
        else:
            self.probA_ = self.probB_ = np.empty(0)
        self.model_.probability = bool(self.probability)
        self.model_.probA_, self.model_.probB_ = self.probA_, self.probB_
        return self

    def _check_params(self):
        """Raise ValueError for a parameter that SVC refuses, or for max_passes or a
        precomputed kernel."""
        max_passes = self.max_passes
        if isinstance(max_passes, bool) or not isinstance(max_passes, (int, np.integer)) or max_passes < 1:
            raise ValueError(f"max_passes must be a positive integer, got {self.max_passes!r}.")
        if isinstance(self.kernel, str) and self.kernel == "precomputed":
            raise ValueError("CascadeSVC cannot use kernel='precomputed': its rows are data rows split over workers.")
        SVC(**self._svc_parameters(), probability=self.probability, random_state=self.random_state)._check_params()

    def _passes(self, client, params, class_upper, name):
        return CascadePasses(client, params, class_upper, self.tol, self.max_passes, self.verbose, name)

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

    def _fit_probability(self, client, params, parts, starts, labels, row_weights):
        """probA_ and probB_ of each one-vs-one pair, as :class:`svmkit.SVC` (LIBSVM's
        ``svm_binary_svc_probability``): Platt's sigmoid fitted on the decision values of a
        5-fold cross-validation with SVC's folds (the pair's rows of positive weight, class
        ``i`` then class ``j`` in training order, shuffled from one seed). Each fold is a
        cascade of its own over the pair's training rows of the fold, which stay on their
        workers (each worker selects them from its partitions); only the held-out rows'
        decision values come back."""
        seed = draw_seed(check_random_state(self.random_state))
        y_index = np.searchsorted(self.classes_, labels)
        ends = np.append(starts[1:], labels.shape[0])
        prob_a, prob_b = [], []
        for i, j in combinations(range(self.classes_.shape[0]), 2):
            rows = np.concatenate([np.flatnonzero(y_index == i), np.flatnonzero(y_index == j)])
            rows = rows[row_weights[rows] > 0]
            pair_labels = np.where(y_index[rows] == i, 1.0, -1.0)
            decisions, splits = fold_splits(pair_labels, seed)
            for fold, (train, held) in enumerate(splits, start=1):
                name = f"cascade probability {self.classes_[i]} vs {self.classes_[j]} fold {fold}"
                fold_parts = _selected(client, parts, starts, ends, rows[train], f"{name}-rows")
                result = self._passes(client, params, self._class_upper[[i, j]], name).run(fold_parts)
                held_rows = np.sort(rows[held])
                decisions[held[np.argsort(rows[held])]] = _pair_decisions(
                    client, result.model, parts, starts, ends, held_rows, f"{name}-decisions")
            a, b = sigmoid_train(decisions, pair_labels)
            prob_a.append(a)
            prob_b.append(b)
        self.probA_ = np.array(prob_a)
        self.probB_ = np.array(prob_b)

    def _set_attributes(self, result):
        model, working_set = result.model, result.working_set
        one = result.primal_objective.shape[0] == 1
        self.model_ = model
        self.working_set_ = working_set
        self.history_ = result.history
        self.n_passes_ = result.n_passes
        self.kkt_violation_ = result.kkt_violation
        self.primal_objective_ = float(result.primal_objective[0]) if one else result.primal_objective
        self.duality_gap_ = float(result.duality_gap[0]) if one else result.duality_gap
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

    # (SVC's check: predict_proba and its kin exist where probability=True)
    @available_if(SVC._check_probability)
    def predict_proba(self, X):
        """Class probabilities as :meth:`svmkit.SVC.predict_proba`; a Dask array or dataframe
        gives a Dask collection computed block by block."""
        return self._score("predict_proba", X)

    @available_if(SVC._check_probability)
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`."""
        return np.log(self.predict_proba(X))

    @available_if(SVC._check_probability)
    def predict_from_proba(self, X):
        """The class of largest probability, as :meth:`svmkit.SVC.predict_from_proba`."""
        return self._score("predict_from_proba", X)

    def _score(self, method, X):
        check_is_fitted(self)
        if isinstance(X, (da.Array, dd.DataFrame)):
            return BlockwiseModel(self.model_)._score(method, X)
        return getattr(self.model_, method)(X)


def _current_client():
    try:
        return default_client()
    except ValueError as error:
        raise RuntimeError(
            "CascadeSVC runs on a dask.distributed cluster: start a client first, e.g. "
            "Client(LocalCluster()) for this machine or Client('tcp://scheduler:8786') for a cluster."
        ) from error


def _local_rows(starts, ends, rows):
    """``(partition, rows of it numbered from its first row)`` of each partition holding some
    of the sorted global ``rows``."""
    bounds = np.searchsorted(rows, np.append(starts, ends[-1]))
    return [(p, rows[bounds[p]:bounds[p + 1]] - starts[p]) for p in range(starts.shape[0])
            if bounds[p + 1] > bounds[p]]


def _selected(client, parts, starts, ends, rows, name):
    """Futures of the partitions' ``rows`` (global numbers), selected on their workers."""
    label = name.replace(" ", "-")
    return [client.submit(tasks.select_rows, parts[p], local, key=f"svmkit-{label}-{p}-{uuid.uuid4().hex[:8]}")
            for p, local in _local_rows(starts, ends, np.sort(rows))]


def _pair_decisions(client, model, parts, starts, ends, rows, name):
    """The decision values of a two-class ``model`` (positive for its first class) at the
    sorted global ``rows``, computed on the workers that hold them; the model is sent to each
    worker once."""
    label = name.replace(" ", "-")
    shipped = client.scatter(model, hash=False)
    futures = [client.submit(tasks.pair_decisions, shipped, parts[p], local,
                             key=f"svmkit-{label}-{p}-{uuid.uuid4().hex[:8]}")
               for p, local in _local_rows(starts, ends, rows)]
    return np.concatenate(client.gather(futures))


def _check_weights(weight, y, classes):
    """Sample weights non-negative and finite, and positive for some row of every class
    (the nodes solve the rows of positive weight only, so a class without any would be
    missing from their models)."""
    smallest, finite, weighted_classes = dask.compute(weight.min(), da.isfinite(weight).all(),
                                                      da.unique(y[weight > 0]))
    if not finite:
        raise ValueError("sample_weight must be finite (it holds NaN or infinite values).")
    if smallest < 0:
        raise ValueError("sample_weight must be non-negative.")
    unweighted = np.setdiff1d(classes, weighted_classes)
    if unweighted.shape[0]:
        raise ValueError(f"CascadeSVC needs rows of positive weight in every class; sample_weight leaves none in "
                         f"class{'es' if unweighted.shape[0] > 1 else ''} {unweighted.tolist()}.")


def _split_like(values, X, name):
    """A Dask array or series, or a NumPy array, of one value per row of ``X`` as a Dask
    array split like ``X``'s rows."""
    if isinstance(values, dd.Series):
        values = values.to_dask_array(lengths=True)
    if not isinstance(values, da.Array):
        values = np.asarray(values)
        if values.ndim != 1 or values.shape[0] != X.shape[0]:
            raise ValueError(f"{name} must have one value per row of X ({X.shape[0]}), got shape {values.shape}.")
        values = da.from_array(values, chunks=(X.chunks[0],))
    if values.ndim != 1 or values.shape[0] != X.shape[0]:
        raise ValueError(f"{name} must have one value per row of X ({X.shape[0]}), got shape {values.shape}.")
    if values.chunks[0] != X.chunks[0]:
        values = values.rechunk((X.chunks[0],))
    return values


def _dask_rows(X, y, sample_weight):
    """``X`` as a Dask array of row blocks (one column block, known sizes), and ``y`` and the
    sample weights (None: all 1) as Dask arrays split like its rows."""
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
    y = _split_like(y, X, "y")
    weight = None if sample_weight is None else _split_like(sample_weight, X, "sample_weight").astype(np.float64)
    return X, y, weight
