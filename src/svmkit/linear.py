"""Linear support vector machines: :class:`LinearSVC` (dual coordinate descent) and :class:`PegasosSVC` (SGD).

Both solve the soft-margin problem of the seed "Optimal Linear Classifiers"::

    min_w  1/2 ||w||^2 + sum_i C_i loss(y_i w'x_i)

with ``C_i = C * class_weight[y_i] * sample_weight_i``. Dividing by ``C N``
(equal weights) gives the seed's regularised hinge loss
``lambda w'w + (1/N) sum_i max(0, 1 - y_i w'x_i)`` with ``lambda = 1 / (2 C N)``:
the two problems have the same minimiser.

The intercept
-------------
Both estimators use LIBLINEAR's augmented feature: every sample gets an extra
constant feature of value ``intercept_scaling`` and the bias is its weight
``w_b``, so ``intercept_ = intercept_scaling * w_b``. The bias is therefore
**regularised** (``w_b^2 / 2`` is part of the objective); a large
``intercept_scaling`` makes that penalty small. An unregularised intercept
would add the equality constraint ``y'a = 0`` to the dual, which single
coordinate updates cannot keep, so it is not offered here: use the kernel
``SVC`` with a linear kernel for the textbook bias.

Multiclass data are handled one-vs-rest: one binary problem per class, the
class against all others; every sample keeps its own class weight in every
problem (LIBLINEAR instead gives the "rest" side the unweighted ``C``; the two
agree for two classes).
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state, compute_class_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from svmkit import _plan
from svmkit._core import linear as _core
from svmkit._first_use import notice_compilation
from svmkit._interrupt import unfitted_on_interrupt
from svmkit._progress import IterationLog, check_verbose
from svmkit._validation import (
    canonical_csr, check_class_weight, check_finite_bounds, check_finite_prediction, check_finite_result,
    validate_data,
)

__all__ = ["LinearSVC", "PegasosSVC"]

_MAX_SEED = np.iinfo(np.int32).max
_EMPTY_INDEX = np.empty(0, dtype=np.int32)
_EMPTY_VALUES = np.empty(0, dtype=np.float64)


# -- helpers shared by the linear models (also used by svmkit.perceptron) ------------------
def _core_data(X):
    """The arguments ``(indptr, indices, data, dense)`` that the compiled loops read."""
    if sp.issparse(X):
        return X.indptr, X.indices, X.data, None
    return _EMPTY_INDEX, _EMPTY_INDEX, _EMPTY_VALUES, X


def _values_per_row(X, bias_value):
    """Values a compiled loop reads per visit of a sample of ``X`` (its mean row length, the
    augmented feature included), by which its calls are bounded."""
    stored = X.nnz if sp.issparse(X) else X.shape[0] * X.shape[1]
    return stored / max(X.shape[0], 1) + (bias_value != 0.0)


def _dual_coordinate_descent(data, bias_value, n_weights, y, rows, upper, diag, tol, max_iter, seed, row_values,
                             report):
    """Dual coordinate descent (:func:`svmkit._core.linear.dcd_passes`) in compiled calls of
    ``LINEAR_VALUES_PER_CALL`` values each, so that Ctrl-C is served between them.

    Returns
    -------
    alpha : (n_samples,) dual variables (0 outside ``rows``).
    w : (n_weights,) ``sum_i alpha_i y_i x_i`` (augmented).
    n_iter : passes made.
    gap : ``max PG - min PG`` of the last pass.
    status : ``CONVERGED`` or ``MAX_ITER_REACHED``.

    ``report(text, done)`` is called between the compiled calls and at the end.
    """
    sample, signs, index, bounds, counts, random = _core.dcd_start(*data, bias_value, y, rows, upper, diag, seed)
    w = np.zeros(n_weights)
    status = _core.PAUSED
    while status == _core.PAUSED:
        status = _core.dcd_passes(*data, bias_value, w, sample, signs, index, bounds, counts, random, tol,
                                  max_iter, row_values, float(_plan.LINEAR_VALUES_PER_CALL))
        report(f"pass {int(counts[1]):>6d}  projected-gradient spread {float(bounds[2]):10.4e}  active "
               f"{int(counts[0])}/{rows.shape[0]}", status != _core.PAUSED)
    return sample[:, 0].copy(), w, int(counts[1]), float(bounds[2]), status


def _check_real(name, value, *, low=0.0, allow_low=False):
    """Raise ``ValueError`` unless ``value`` is a finite real above ``low`` (or equal when allowed)."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and np.isfinite(value)
    if not ok or value < low or (value == low and not allow_low):
        bound = f">= {low}" if allow_low else f"> {low}"
        raise ValueError(f"{name} must be a finite number {bound}, got {value!r}.")


def _check_int(name, value, *, low):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}.")


def _check_random_state_param(random_state):
    """``random_state`` as scikit-learn takes it: None, an integer or a RandomState."""
    if not (random_state is None or isinstance(random_state, (numbers.Integral, np.random.RandomState))):
        raise ValueError(f"random_state must be None, an integer or a numpy RandomState, got {random_state!r}.")


def _check_bool(name, value):
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}.")


def _encode_classes(estimator, y):
    """Return ``classes_``, the class index of every sample and the +1/-1 targets (one-vs-rest)."""
    check_classification_targets(y)
    classes, y_index = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise ValueError(
            f"{type(estimator).__name__} needs samples of at least 2 classes; "
            f"the data contain only 1 class: {classes[0]!r}."
        )
    return classes, y_index, _ovr_targets(y_index, classes.size)


def _ovr_targets(y_index, n_classes):
    """+1/-1 targets, shape (n_problems, n_samples): one row for two classes (+1 = second class)."""
    if n_classes == 2:
        return np.where(y_index == 1, 1.0, -1.0)[None, :]
    return np.where(y_index[None, :] == np.arange(n_classes)[:, None], 1.0, -1.0)


def _bias_value(fit_intercept, intercept_scaling):
    return float(intercept_scaling) if fit_intercept else 0.0


def _split_weights(weights, bias_value, n_features):
    """Split augmented weights (n_problems, n_weights) into ``coef_`` and ``intercept_``."""
    coef = np.ascontiguousarray(weights[:, :n_features])
    if bias_value == 0.0:
        return coef, np.zeros(weights.shape[0])
    return coef, weights[:, n_features] * bias_value


def _per_problem(values):
    """A scalar for a binary model, the array otherwise."""
    return float(values[0]) if values.shape[0] == 1 else values


class _ScoreClassifierMixin:
    """``predict`` from ``decision_function`` (the sign for two classes, the largest
    score for one-vs-rest); CSR input accepted."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def predict(self, X):
        """Predicted class of every sample (one-vs-rest: the largest decision value)."""
        scores = self.decision_function(X)
        index = (scores > 0).astype(np.intp) if scores.ndim == 1 else scores.argmax(axis=1)
        return self.classes_[index]


class _LinearClassifierMixin(_ScoreClassifierMixin):
    """``decision_function`` from ``coef_`` and ``intercept_``."""

    def decision_function(self, X):
        """Signed value ``w'x + b`` of every sample for every binary problem.

        Parameters
        ----------
        X : array-like or CSR matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes (positive means
        ``classes_[1]``), else (n_samples, n_classes).
        """
        check_is_fitted(self)
        X = canonical_csr(validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False))
        scores = check_finite_prediction(np.asarray(X @ self.coef_.T) + self.intercept_, self, "coef_ and intercept_")
        return scores.ravel() if scores.shape[1] == 1 else scores


class LinearSVC(_LinearClassifierMixin, ClassifierMixin, BaseEstimator):
    """Linear SVM trained by dual coordinate descent with shrinking (LIBLINEAR's algorithm).

    Solves ``min 1/2 ||w||^2 + sum_i C_i loss_i`` through its dual
    ``min 1/2 a'(Q + D)a - 1'a, 0 <= a_i <= U_i`` one coordinate at a time in
    a random order (Hsieh et al., "A dual coordinate descent method for
    large-scale linear SVM", ICML 2008): with ``loss='hinge'`` (L1 loss)
    ``U_i = C_i, D = 0``; with ``loss='squared_hinge'`` (L2 loss)
    ``U_i = inf, D_ii = 1 / (2 C_i)``. Variables at a bound whose gradient
    points outward are shrunk (left out of later passes); the solver stops
    when ``max PG - min PG <= tol`` over the active set, then checks once more
    on all samples. Dense and CSR data are read row by row, never densified.

    Parameters
    ----------
    C : float > 0, default=1.0
        Penalty of the losses.
    loss : {'hinge', 'squared_hinge'}, default='squared_hinge'
    tol : float > 0, default=1e-4
        Stopping tolerance on the projected-gradient spread.
    max_iter : int >= 1, default=1000
        Maximum number of passes over the data per binary problem.
    fit_intercept : bool, default=True
        Learn an intercept through the augmented feature (see below).
    intercept_scaling : float > 0, default=1.0
        Value of the augmented constant feature. The intercept is
        **regularised**: ``(intercept_ / intercept_scaling)^2 / 2`` is part of
        the objective, as in LIBLINEAR and scikit-learn. An unregularised
        intercept is not offered (it needs the constraint ``y'a = 0``, which
        single-coordinate updates cannot keep).
    class_weight : dict, 'balanced' or None, default=None
        Multiplies ``C`` for the samples of each class.
    random_state : int, RandomState or None, default=None
        Seed of the random order in which coordinates are visited.
    verbose : bool or int, default=False
        Log each problem's passes (the projected-gradient spread and active
        set, about once a second and at its end) to the ``svmkit`` logger.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    n_iter_ : int
        Largest number of passes over the binary problems.
    alpha_ : ndarray of shape (n_samples,) for two classes, else (n_classes, n_samples)
        Dual variables; ``w = sum_i alpha_i y_i x_i`` (augmented).
    margin_ : float or ndarray of shape (n_classes,)
        ``2 / ||coef_||``, the width of the band ``|w'x + b| <= 1``.
    slack_ : ndarray of shape (n_samples,) for two classes, else (n_classes, n_samples)
        ``max(0, 1 - y_i f(x_i))`` of the training samples.
    primal_objective_, dual_objective_, duality_gap_ : float or ndarray of shape (n_classes,)
        ``1/2 ||w||^2 + sum_i C_i loss_i`` (``w`` augmented with the bias
        weight), ``sum_i a_i - 1/2 ||w||^2 - 1/2 sum_i D_ii a_i^2`` and their
        difference. Scalars for two classes, one value per one-vs-rest
        problem otherwise.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit.linear import LinearSVC
    >>> X = np.array([[-2.0, 0.0], [-1.0, 1.0], [1.0, -1.0], [2.0, 0.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> clf = LinearSVC(C=10.0, loss="hinge", tol=1e-8, random_state=0).fit(X, y)
    >>> clf.predict([[3.0, 0.0], [-3.0, 0.0]])
    array([1, 0])
    >>> round(clf.duality_gap_, 6)
    0.0
    """

    def __init__(
        self,
        C=1.0,
        *,
        loss="squared_hinge",
        tol=1e-4,
        max_iter=1000,
        fit_intercept=True,
        intercept_scaling=1.0,
        class_weight=None,
        random_state=None,
        verbose=False,
    ):
        self.C = C
        self.loss = loss
        self.tol = tol
        self.max_iter = max_iter
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.random_state = random_state
        self.verbose = verbose

    def _validate_params(self):
        _check_real("C", self.C)
        _check_real("tol", self.tol)
        _check_int("max_iter", self.max_iter, low=1)
        _check_bool("fit_intercept", self.fit_intercept)
        _check_real("intercept_scaling", self.intercept_scaling)
        if self.loss not in ("hinge", "squared_hinge"):
            raise ValueError(f"loss must be 'hinge' or 'squared_hinge', got {self.loss!r}.")
        check_class_weight(self.class_weight)
        _check_random_state_param(self.random_state)
        check_verbose(self.verbose)

    @unfitted_on_interrupt
    def fit(self, X, y, sample_weight=None):
        """Fit the model.

        Parameters
        ----------
        X : array-like or CSR matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; they multiply ``C`` per sample (weight 2
            equals repeating the sample).

        Returns
        -------
        self
        """
        self._validate_params()
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C")
        X = canonical_csr(X)
        self.classes_, y_index, targets = _encode_classes(self, y)
        sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        cost = self.C * sample_weight
        if isinstance(self.class_weight, dict):
            unknown = set(self.class_weight) - set(self.classes_.tolist())
            if unknown:
                raise ValueError(
                    f"class_weight names {sorted(unknown)!r}, which are not classes of y: {self.classes_!r}."
                )
        if self.class_weight is not None:
            with np.errstate(over="ignore"):
                cost *= compute_class_weight(self.class_weight, classes=self.classes_, y=y)[y_index]
        check_finite_bounds(cost, "C * class_weight * sample_weight")
        rows = np.flatnonzero(cost > 0)
        if np.count_nonzero(np.bincount(y_index[rows], minlength=self.classes_.size)) < 2:
            raise ValueError("LinearSVC needs samples of at least 2 classes with a positive weight.")
        if self.loss == "hinge":
            upper, diag = cost, np.zeros_like(cost)
        else:
            upper = np.full_like(cost, np.inf)
            with np.errstate(divide="ignore"):
                diag = np.where(cost > 0, 0.5 / cost, np.inf)

        bias_value = _bias_value(self.fit_intercept, self.intercept_scaling)
        n_weights = X.shape[1] + (bias_value != 0.0)
        seed = check_random_state(self.random_state).randint(_MAX_SEED)
        data = _core_data(X)
        n_problems = targets.shape[0]
        weights = np.empty((n_problems, n_weights))
        self.alpha_ = np.empty((n_problems, X.shape[0]))
        n_iters = np.empty(n_problems, dtype=np.intp)
        notice_compilation(_core.dcd_start, _core.dcd_passes)
        row_values = _values_per_row(X, bias_value)
        log = IterationLog(self, self.classes_, n_problems)
        for k in range(n_problems):
            alpha, w, n_iter, gap, status = _dual_coordinate_descent(
                data, bias_value, n_weights, targets[k], rows, upper, diag, float(self.tol), int(self.max_iter), seed,
                row_values, lambda text, done: log.report(k, text, done),
            )
            if status == _core.MAX_ITER_REACHED:
                warnings.warn(
                    f"LinearSVC did not converge: after max_iter={self.max_iter} passes the projected-gradient "
                    f"spread is {gap:.3g} > tol={self.tol:g}"
                    + (f" (one-vs-rest problem of class {self.classes_[k]})" if n_problems > 1 else "")
                    + ". Increase max_iter, or scale the data.",
                    ConvergenceWarning,
                )
            self.alpha_[k], weights[k], n_iters[k] = alpha, w, n_iter
        check_finite_result({"weights": weights, "multipliers": self.alpha_},
                            "the data, C or intercept_scaling are too large for float64; scale the data")
        self.coef_, self.intercept_ = _split_weights(weights, bias_value, X.shape[1])
        self.n_iter_ = int(n_iters.max())
        self._set_theory(X, targets, weights, cost, diag)
        return self

    def _set_theory(self, X, targets, weights, cost, diag):
        # Element-wise sums rather than BLAS products: OpenBLAS threads would spin on
        # the other core for milliseconds after these small calls.
        decision = (np.asarray(X @ self.coef_.T) + self.intercept_).T
        self.slack_ = np.maximum(0.0, 1.0 - targets * decision)
        losses = self.slack_ if self.loss == "hinge" else self.slack_**2
        half_norm = 0.5 * (weights**2).sum(axis=1)
        primal = half_norm + (losses * cost).sum(axis=1)
        dual = self.alpha_.sum(axis=1) - half_norm
        if self.loss == "squared_hinge":
            finite = np.isfinite(diag)
            dual -= 0.5 * (self.alpha_[:, finite] ** 2 * diag[finite]).sum(axis=1)
        with np.errstate(divide="ignore"):
            margin = 2.0 / np.sqrt((self.coef_**2).sum(axis=1))
        self.margin_ = _per_problem(margin)
        self.primal_objective_ = _per_problem(primal)
        self.dual_objective_ = _per_problem(dual)
        self.duality_gap_ = _per_problem(primal - dual)
        if self.alpha_.shape[0] == 1:  # two classes: one problem, shapes as SVC's
            self.alpha_, self.slack_ = self.alpha_[0], self.slack_[0]


class PegasosSVC(_LinearClassifierMixin, ClassifierMixin, BaseEstimator):
    """Linear SVM trained by Pegasos, stochastic sub-gradient descent on the hinge loss.

    Minimises the seed's regularised hinge loss
    ``lambda w'w + (1/N) sum_i max(0, 1 - y_i w'x_i)`` with
    ``lambda = 1 / (2 C N)`` (``lambda_``), whose minimiser is that of the
    C-SVM ``1/2 w'w + C sum_i hinge_i``: with the same ``C`` and intercept
    settings it converges to :class:`LinearSVC` with ``loss='hinge'``.
    Pegasos (Shalev-Shwartz, Singer, Srebro, ICML 2007) writes the objective
    as ``lambda_p/2 w'w + mean hinge``, so its step uses
    ``lambda_p = 2 lambda = 1 / (C N)``: at step ``t``, for the sample ``i``
    drawn, ``eta_t = 1 / (lambda_p t)`` and

        w <- (1 - eta_t lambda_p) w + eta_t y_i x_i   if y_i w'x_i < 1, else (1 - eta_t lambda_p) w
        w <- min(1, (1/sqrt(lambda_p)) / ||w||) w      (projection, optional)

    Each epoch visits the samples in a new random order. The intercept is the
    weight of an augmented constant feature ``intercept_scaling`` and is
    regularised, exactly as in :class:`LinearSVC`.

    Parameters
    ----------
    C : float > 0, default=1.0
    max_iter : int >= 1, default=100
        Number of epochs of :meth:`fit` (there is no other stopping rule).
    fit_intercept : bool, default=True
    intercept_scaling : float > 0, default=1.0
    projection : bool, default=True
        Project onto the ball of radius ``1 / sqrt(lambda_p)`` (with sample
        weights ``s``: ``sqrt(mean(s) / lambda_p)``), which holds the optimum.
    average : bool or int >= 0, default=False
        ``True``: the model is the mean of all iterates; an integer ``k``:
        the mean of the iterates after step ``k``; ``False``: the last iterate.
    random_state : int, RandomState or None, default=None
        Seed of the visiting orders.
    verbose : bool or int, default=False
        Log the epochs of each problem (about once a second, and at its end)
        to the ``svmkit`` logger.

    Attributes
    ----------
    classes_, coef_, intercept_ : as in :class:`LinearSVC`
    lambda_ : float
        The seed's ``lambda = 1 / (2 C N)``, ``N`` the number of samples seen.
    n_iter_ : int
        Epochs run by the last call of :meth:`fit` or :meth:`partial_fit`.
    t_ : int
        Steps taken since the model was started.
    n_samples_seen_ : int
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit.linear import PegasosSVC
    >>> X = np.array([[-2.0, 0.0], [-1.0, 1.0], [1.0, -1.0], [2.0, 0.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> clf = PegasosSVC(C=10.0, max_iter=50, random_state=0).fit(X, y)
    >>> clf.predict([[3.0, 0.0], [-3.0, 0.0]])
    array([1, 0])
    >>> clf.lambda_
    0.0125
    """

    def __init__(
        self,
        C=1.0,
        *,
        max_iter=100,
        fit_intercept=True,
        intercept_scaling=1.0,
        projection=True,
        average=False,
        random_state=None,
        verbose=False,
    ):
        self.C = C
        self.max_iter = max_iter
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.projection = projection
        self.average = average
        self.random_state = random_state
        self.verbose = verbose

    def _validate_params(self):
        _check_real("C", self.C)
        _check_int("max_iter", self.max_iter, low=1)
        _check_bool("fit_intercept", self.fit_intercept)
        _check_real("intercept_scaling", self.intercept_scaling)
        _check_bool("projection", self.projection)
        if not isinstance(self.average, (bool, np.bool_)):
            _check_int("average", self.average, low=0)
        _check_random_state_param(self.random_state)
        check_verbose(self.verbose)

    def _average_start(self):
        if isinstance(self.average, (bool, np.bool_)):
            return 0 if self.average else np.inf
        return int(self.average)

    @unfitted_on_interrupt
    def fit(self, X, y, sample_weight=None):
        """Fit the model from zero weights with ``max_iter`` epochs.

        Parameters
        ----------
        X : array-like or CSR matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights ``s_i``: the objective's hinge term of sample
            ``i`` is multiplied by ``s_i`` (its ``C`` becomes ``C s_i``, as in
            :class:`LinearSVC` and scikit-learn), and so is its step.

        Returns
        -------
        self
        """
        self._validate_params()
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C")
        X = canonical_csr(X)
        weights = None
        if sample_weight is not None:
            weights = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
            if not np.all(np.isfinite(weights)) or not weights.sum() > 0:
                raise ValueError("sample_weight must be finite with a positive sum.")
        self.classes_, _, targets = _encode_classes(self, y)
        self._start(X.shape[1], targets.shape[0])
        self._run_epochs(X, targets, self.max_iter, weights)
        return self

    @unfitted_on_interrupt
    def partial_fit(self, X, y, classes=None):
        """One epoch over a batch, continuing from the current model.

        Every sample given counts as a new one: ``lambda_`` refers to all
        samples seen so far (``n_samples_seen_``), so one pass over the
        batches of a data set solves the problem of that whole set. The step
        counter ``t_`` carries over between calls.

        Parameters
        ----------
        X : array-like or CSR matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like, default=None
            All the classes. Needed on the first call when that batch does not
            contain every class; taken from ``y`` otherwise. Later calls must
            give the same classes (or None).

        Returns
        -------
        self
        """
        first_call = not hasattr(self, "classes_")
        if first_call:
            self._validate_params()
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C", reset=first_call)
        X = canonical_csr(X)
        check_classification_targets(y)
        if first_call:
            all_classes = np.unique(y if classes is None else classes)
            if all_classes.size < 2:
                raise ValueError(
                    "PegasosSVC needs at least 2 classes; the first batch contains only 1 class: pass classes=."
                )
            self.classes_ = all_classes
            self._start(X.shape[1], 1 if all_classes.size == 2 else all_classes.size)
        elif classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(f"classes={classes!r} differ from the classes of the first call, {self.classes_!r}.")
        unknown = np.setdiff1d(y, self.classes_)
        if unknown.size:
            raise ValueError(f"y contains classes {unknown!r} not in classes_={self.classes_!r}.")
        targets = _ovr_targets(np.searchsorted(self.classes_, y), self.classes_.size)
        self._run_epochs(X, targets, 1)
        return self

    def _start(self, n_features, n_problems):
        bias_value = _bias_value(self.fit_intercept, self.intercept_scaling)
        n_weights = n_features + (bias_value != 0.0)
        self._bias_value = bias_value
        self._rng = check_random_state(self.random_state)
        self._directions = np.zeros((n_problems, n_weights))  # w = scale * direction
        self._average_offsets = np.zeros((n_problems, n_weights))
        self._states = np.zeros((n_problems, 4))  # scale, sum of scales, t, ||direction||^2
        self._states[:, 0] = 1.0
        self.n_samples_seen_ = 0

    def _run_epochs(self, X, targets, n_epochs, sample_weights=None):
        if not 0.0 < 1.0 / (2.0 * self.C * (self.n_samples_seen_ + X.shape[0])) < np.inf:
            raise ValueError(
                f"C={self.C!r} is out of float64's range for {self.n_samples_seen_ + X.shape[0]} samples: "
                "the regularisation lambda = 1 / (2 C n) must be a positive finite number."
            )
        self.n_samples_seen_ += X.shape[0]
        self.lambda_ = 1.0 / (2.0 * self.C * self.n_samples_seen_)
        lambda_pegasos = 2.0 * self.lambda_
        if sample_weights is None:
            sample_weights, radius = np.ones(X.shape[0]), 1.0 / np.sqrt(lambda_pegasos)
        else:
            radius = np.sqrt(sample_weights.mean() / lambda_pegasos)
        seed = self._rng.randint(_MAX_SEED)
        average_start = float(self._average_start())
        data = _core_data(X)
        weights = np.empty_like(self._directions)
        notice_compilation(_core.pegasos_start, _core.pegasos_epochs)
        # (each step reads a row, and updates at most two vectors by it)
        per_call = _plan.epochs_per_call(3 * X.shape[0] * _values_per_row(X, self._bias_value))
        log = IterationLog(self, self.classes_, targets.shape[0])
        for k in range(targets.shape[0]):
            direction, offset, state = self._directions[k], self._average_offsets[k], self._states[k]
            order, random, sq_norms = _core.pegasos_start(*data, self._bias_value, X.shape[0], seed)
            for done in range(0, n_epochs, per_call):
                _core.pegasos_epochs(
                    *data, self._bias_value, targets[k], sample_weights, lambda_pegasos, min(per_call, n_epochs - done),
                    order, random, sq_norms, bool(self.projection), radius, average_start, direction, offset, state,
                )
                epochs = min(done + per_call, n_epochs)
                log.report(k, f"epoch {epochs:>5d}/{n_epochs}  step {int(state[2])}", epochs == n_epochs)
            scale, sum_scale, t = state[0], state[1], state[2]
            n_averaged = t - average_start
            if n_averaged > 0:
                weights[k] = (sum_scale * direction - offset) / n_averaged
            else:
                weights[k] = scale * direction
        check_finite_result({"weights": weights},
                            "the data, C or intercept_scaling are too large for float64; scale the data")
        self.coef_, self.intercept_ = _split_weights(weights, self._bias_value, self.n_features_in_)
        self.n_iter_ = n_epochs
        self.t_ = int(self._states[0, 2])
