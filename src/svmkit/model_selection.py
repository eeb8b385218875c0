"""Grid search over ``(C, gamma)`` by cross-validation, as LIBSVM's ``tools/grid.py``.

"A Practical Guide to Support Vector Classification" (Hsu, Chang and Lin)
recommends an RBF kernel and a grid search over exponentially growing
sequences, ``C = 2^-5, 2^-3, ..., 2^15`` and ``gamma = 2^-15, 2^-13, ..., 2^3``,
choosing the pair of best cross-validation accuracy, optionally followed by a
finer grid around it. :class:`SVCGridSearch` does this with the feature
scaling fitted inside every fold on the training part only, so that the held
out part never influences the scaling it is judged with (the seeds' "data
snooping" lesson). The folds come from scikit-learn's splitters and the fits
run through joblib, so ``joblib.parallel_config(backend=...)`` (dask, ray,
threads) applies.
"""

from __future__ import annotations

import copy
import numbers
import time
from itertools import product

import numpy as np
from joblib import effective_n_jobs
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.model_selection import StratifiedKFold, check_cv
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_array, check_is_fitted, column_or_1d

from ._interrupt import unfitted_on_interrupt
from ._plan import GRID_BATCHES_PER_WORKER
from ._validation import canonical_csr
from .preprocessing import LibsvmScaler
from .svm import SVC

__all__ = ["SVCGridSearch", "log2_range"]

SCALINGS = ("minmax", "standard", None)


def log2_range(begin, end, step):
    """The exponents ``begin, begin + step, ...`` up to ``end`` inclusive (grid.py's ``range_f``).

    Parameters
    ----------
    begin, end, step : float
        ``step`` may be negative (then ``end <= begin``); it must not be 0.

    Returns
    -------
    ndarray

    Examples
    --------
    >>> from svmkit.model_selection import log2_range
    >>> log2_range(-5, 15, 2).tolist()
    [-5.0, -3.0, -1.0, 1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 15.0]
    >>> log2_range(3, -15, -2).size
    10
    """
    if step == 0 or not np.isfinite([begin, end, step]).all():
        raise ValueError(f"a log2 range needs finite begin, end and a non-zero step, got {(begin, end, step)}.")
    count = int(np.floor((end - begin) / step + 1e-9)) + 1
    if count < 1:
        raise ValueError(f"the log2 range begin={begin:g}, end={end:g}, step={step:g} is empty.")
    return begin + step * np.arange(count, dtype=np.float64)


class SVCGridSearch(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Choose ``C`` and ``gamma`` of an SVM by k-fold cross-validation over a log2 grid.

    Every candidate is a pipeline of a scaler and the SVM, fitted on the
    training part of each fold, so the scaling never sees the held-out part.
    The accuracy of a candidate is LIBSVM's cross-validation accuracy: the
    fraction of all points predicted correctly when held out. Ties go to the
    smaller ``C``, then the smaller ``gamma``.

    Parameters
    ----------
    estimator : estimator with parameters ``C`` and ``gamma``, default=None
        The classifier to tune, e.g. ``SVC(class_weight="balanced")``;
        ``None`` means ``SVC()`` (RBF kernel).
    log2_C : (begin, end, step), default=(-5, 15, 2)
        Exponents of ``C``, end included (as grid.py's ``-log2c``).
    log2_gamma : (begin, end, step), default=(3, -15, -2)
        Exponents of ``gamma`` (as grid.py's ``-log2g``).
    cv : int or cross-validation splitter, default=5
        An int k means stratified k-fold with shuffling (as LIBSVM's ``-v``),
        seeded by ``random_state``; anything else goes to
        :func:`sklearn.model_selection.check_cv`.
    scaling : {'minmax', 'standard', None}, default='minmax'
        Scaling fitted inside each fold: LIBSVM's map of each feature to
        ``[-1, 1]`` (:class:`svmkit.preprocessing.LibsvmScaler`), scikit-learn's
        standardisation (without centring for sparse input), or none.
    refine : bool, default=False
        After the coarse grid, search a finer grid around its best point:
        exponents within one coarse step of it, ``refine_steps`` times denser.
    refine_steps : int, default=4
        Fine points per coarse step.
    n_jobs : int, default=None
        Parallel fits through joblib (``-1``: all cores).
    progress : bool, None or callable, default=None
        A progress bar (tqdm) on stderr, one per stage, naming the grid point
        and fold last fitted: None draws it where stderr is a terminal, True
        always, False never. A callable is called as ``progress(stage, done,
        total)`` after every fit instead, ``stage`` being 'coarse' or 'fine'.
    random_state : int, RandomState or None, default=0
        Seeds the shuffling of the folds when ``cv`` is an int.

    Attributes
    ----------
    cv_results_ : dict of ndarray
        One entry per evaluated point: 'log2_C', 'log2_gamma', 'C', 'gamma',
        'mean_accuracy' (cross-validation accuracy), 'std_accuracy' (over the
        folds), 'mean_fit_time' (seconds per fold) and 'stage'
        ('coarse' or 'fine'). :meth:`results_frame` gives it as a DataFrame.
    best_index_ : int
        Row of the best point in ``cv_results_``.
    best_params_ : dict
        ``{'C': ..., 'gamma': ...}`` of the best point.
    best_score_ : float
        Its cross-validation accuracy.
    best_estimator_ : estimator
        The scaling pipeline (or the estimator, without scaling) with the best
        parameters, refitted on all the data.
    classes_ : ndarray
    n_splits_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit.model_selection import SVCGridSearch
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2)) * [1.0, 100.0]
    >>> y = (X[:, 0] ** 2 + (X[:, 1] / 100) ** 2 < 1.5).astype(int)
    >>> search = SVCGridSearch(log2_C=(-1, 5, 2), log2_gamma=(1, -3, -2)).fit(X, y)
    >>> len(search.cv_results_["C"]), search.best_params_
    (12, {'C': 32.0, 'gamma': 2.0})
    >>> round(search.best_score_, 4)
    0.9667
    >>> search.best_estimator_.named_steps["scale"].data_max_.round(1)
    array([  1.8, 200.2])
    """

    def __init__(
        self,
        estimator=None,
        *,
        log2_C=(-5, 15, 2),
        log2_gamma=(3, -15, -2),
        cv=5,
        scaling="minmax",
        refine=False,
        refine_steps=4,
        n_jobs=None,
        progress=None,
        random_state=0,
    ):
        self.estimator = estimator
        self.log2_C = log2_C
        self.log2_gamma = log2_gamma
        self.cv = cv
        self.scaling = scaling
        self.refine = refine
        self.refine_steps = refine_steps
        self.n_jobs = n_jobs
        self.progress = progress
        self.random_state = random_state

    @unfitted_on_interrupt
    def fit(self, X, y):
        """Cross-validate every grid point, then refit the best one on all the data.

        Parameters
        ----------
        X : array-like or CSR matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        if self.scaling not in SCALINGS:
            raise ValueError(f"scaling must be one of {SCALINGS}, got {self.scaling!r}.")
        if not isinstance(self.refine_steps, numbers.Integral) or self.refine_steps < 1:
            raise ValueError(f"refine_steps must be a positive integer, got {self.refine_steps!r}.")
        if self.progress not in (None, False, True) and not callable(self.progress):
            raise ValueError("progress must be None, a bool or a callable progress(stage, done, total).")
        X = canonical_csr(check_array(X, accept_sparse="csr", dtype=np.float64))
        y_column = column_or_1d(y, warn=True)
        # (the jobs take the caller's own 1-D array as it is: joblib's Dask backend finds the
        # data scattered to the workers by identity, and would send a copy with the jobs)
        y = y if isinstance(y, np.ndarray) and y.ndim == 1 else y_column
        check_classification_targets(y)
        if isinstance(self.cv, numbers.Integral):
            splitter = StratifiedKFold(self.cv, shuffle=True, random_state=self.random_state)
        else:
            splitter = check_cv(self.cv, y, classifier=True)
        splits = list(splitter.split(X, y))
        self.n_splits_ = len(splits)
        base = self._candidate(X)
        report = _StageBars(self.progress) if self.progress in (None, True) else self.progress or None

        C_exponents, gamma_exponents = log2_range(*self.log2_C), log2_range(*self.log2_gamma)
        points = list(product(C_exponents, gamma_exponents))
        table = self._evaluate(base, X, y, splits, points, "coarse", report)
        if self.refine:
            best = table[_best_row(table)]
            points = _finer_points(best, abs(self.log2_C[2]), abs(self.log2_gamma[2]), self.refine_steps, table)
            if points:
                table += self._evaluate(base, X, y, splits, points, "fine", report)

        columns = list(zip(*table))
        self.cv_results_ = {
            "log2_C": np.array(columns[0]),
            "log2_gamma": np.array(columns[1]),
            "C": np.exp2(columns[0]),
            "gamma": np.exp2(columns[1]),
            "mean_accuracy": np.array(columns[2]),
            "std_accuracy": np.array(columns[3]),
            "mean_fit_time": np.array(columns[4]),
            "stage": np.array(columns[5]),
        }
        self.best_index_ = _best_row(table)
        self.best_params_ = {
            "C": float(self.cv_results_["C"][self.best_index_]),
            "gamma": float(self.cv_results_["gamma"][self.best_index_]),
        }
        self.best_score_ = float(self.cv_results_["mean_accuracy"][self.best_index_])
        self.best_estimator_ = clone(base).set_params(**self._named(self.best_params_["C"], self.best_params_["gamma"]))
        self.best_estimator_.fit(X, y)
        return self

    def _candidate(self, X):
        estimator = SVC() if self.estimator is None else clone(self.estimator)
        if self.scaling is None:
            return estimator
        if self.scaling == "minmax":
            scaler = LibsvmScaler()
        else:
            scaler = StandardScaler(with_mean=not hasattr(X, "toarray"))
        return Pipeline([("scale", scaler), ("svc", estimator)])

    def _named(self, C, gamma):
        prefix = "" if self.scaling is None else "svc__"
        return {f"{prefix}C": C, f"{prefix}gamma": gamma}

    def _evaluate(self, base, X, y, splits, points, stage, report):
        """Rows ``(log2 C, log2 gamma, accuracy, std over folds, mean fit time, stage)``."""
        correct = np.zeros((len(points), len(splits)))
        seconds = np.zeros((len(points), len(splits)))
        # largest C first: its fits are the longest, and a long fit dispatched last would keep
        # one worker busy while the others wait (the results are placed by point and fold)
        by_cost = sorted(range(len(points)), key=lambda p: -points[p][0])
        # (a job per point, its folds in turn, and points batched so that each worker gets about
        # GRID_BATCHES_PER_WORKER tasks: a fold's fit is often shorter than a task's round trip
        # through a cluster's scheduler)
        jobs = (delayed(_fit_folds)(base, self._named(2.0**points[p][0], 2.0**points[p][1]), X, y, splits, p)
                for p in by_cost)
        total = len(points) * len(splits)
        batch_size = max(1, len(points) // (GRID_BATCHES_PER_WORKER * effective_n_jobs(self.n_jobs)))
        results = Parallel(n_jobs=self.n_jobs, return_as="generator_unordered", batch_size=batch_size)(jobs)
        done = 0
        for p, counts in results:
            for f, (n_correct, fit_seconds) in enumerate(counts):
                correct[p, f], seconds[p, f] = n_correct, fit_seconds
                done += 1
                if isinstance(report, _StageBars):
                    report.last = f"log2 C={points[p][0]:g}, log2 gamma={points[p][1]:g}, fold {f + 1}/{len(splits)}"
                if report is not None:
                    report(stage, done, total)
        test_sizes = np.array([test.shape[0] for _, test in splits])
        accuracy = correct.sum(axis=1) / test_sizes.sum()
        std = (correct / test_sizes).std(axis=1)
        return [
            (float(c), float(g), float(a), float(s), float(t), stage)
            for (c, g), a, s, t in zip(points, accuracy, std, seconds.mean(axis=1))
        ]

    def results_frame(self):
        """:attr:`cv_results_` as a pandas DataFrame, best accuracy first.

        Returns
        -------
        pandas.DataFrame
        """
        check_is_fitted(self)
        try:
            import pandas as pd
        except ImportError as error:
            raise ImportError("results_frame needs pandas: pip install 'svmkit[pandas]'.") from error
        frame = pd.DataFrame(self.cv_results_)
        return frame.sort_values(["mean_accuracy", "log2_C", "log2_gamma"], ascending=[False, True, True])

    @property
    def classes_(self):
        """Class labels of the refitted best estimator."""
        check_is_fitted(self)
        return self.best_estimator_.classes_

    def predict(self, X):
        """Predict with the refitted best estimator."""
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

    def decision_function(self, X):
        """Decision values of the refitted best estimator."""
        check_is_fitted(self)
        return self.best_estimator_.decision_function(X)


def _fit_folds(base, params, X, y, splits, point):
    """``(point, [(correct, fit seconds) of each fold])``: a copy of the unfitted ``base`` with
    the point's ``params`` fitted on each fold's training rows, and the number of its test rows
    it predicts correctly.

    The point's estimator is made here, once for all its folds, where the job runs: scikit-learn's
    clone and set_params cost a fair part of a small fit, and made in the process that dispatches
    the jobs they would hold back every worker."""
    estimator = clone(base).set_params(**params)
    counts = []
    for train, test in splits:
        fitted = copy.deepcopy(estimator)
        start = time.perf_counter()
        fitted.fit(X[train], y[train])
        fit_seconds = time.perf_counter() - start
        counts.append((int(np.sum(fitted.predict(X[test]) == y[test])), fit_seconds))
    return point, counts


def _best_row(table):
    """Highest accuracy; ties to the smaller log2 C, then the smaller log2 gamma."""
    return min(range(len(table)), key=lambda row: (-table[row][2], table[row][0], table[row][1]))


def _finer_points(best, C_step, gamma_step, steps, table):
    """Points of the finer grid around ``best`` not already in ``table``."""
    offsets = np.arange(-steps, steps + 1) / steps
    done = {(round(row[0], 9), round(row[1], 9)) for row in table}
    points = []
    for log2_C, log2_gamma in product(best[0] + C_step * offsets, best[1] + gamma_step * offsets):
        if (round(log2_C, 9), round(log2_gamma, 9)) not in done:
            points.append((float(log2_C), float(log2_gamma)))
    return points


class _StageBars:
    """``progress(stage, done, total)`` drawn as a tqdm bar per stage (:class:`svmkit._progress.ProgressBar`),
    its note the grid point and fold of the last fit (``last``)."""

    def __init__(self, enabled):
        self.enabled = enabled
        self.stage = None
        self.bar = None
        self.last = None

    def __call__(self, stage, done, total):
        from ._progress import ProgressBar

        if stage != self.stage:
            self.stage = stage
            self.bar = ProgressBar(total, f"{stage} grid", " fits", self.enabled)
        self.bar.set(done, self.last)
        if done == total:
            self.bar.close()
