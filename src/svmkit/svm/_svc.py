"""C-support vector classification (soft and hard margin)."""

from __future__ import annotations

import math
from dataclasses import replace
from functools import cached_property, lru_cache
from itertools import combinations
from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import ClassifierMixin
from sklearn.exceptions import NotFittedError
from sklearn.utils import check_random_state
from sklearn.utils._available_if import available_if
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted


from .._core.layout import libsvm_layout
from .._interrupt import unfitted_on_interrupt
from .._parallel import on_one_blas_thread
from .._plan import PAIR_PRODUCTS_MIN_CLASSES
from .._solver import OPTIMAL, KernelRows, PrecomputedRows
from .._solver.rows import square_block
from .._validation import (
    check_class_weight, check_finite_bounds, check_finite_prediction, check_finite_result, check_parameters,
    checked_once,
)
from ..qp import solve_dual_qp
from ._base import BaseKernelSVM, is_real
from ._binary import StackedVariables, objectives_per_problem
from ._decisions import PairCoefficients
from ._formulations import against_the_rest, c_svc_batch, c_svc_read, one_vs_one, stacked
from ._probability import MIN_PROB, draw_seed, fold_splits, pairwise_probabilities, sigmoid_predict, sigmoid_train
from ._separability import NotSeparableError, is_separable
from ._vc_bound import enclosing_radius, feature_space_dimension, vc_bound

#: The pairs' classes where the problems are not one-vs-one (:func:`svmkit._core.layout.libsvm_layout`).
_NO_CLASSES = np.empty(0, dtype=np.int64)


@lru_cache(maxsize=16)
def _pair_indicators(pairs, n_classes):
    """``(signed, as_second)`` of one-vs-one ``pairs``: ``signed[k, c]`` 1 where class ``c`` is
    pair ``k``'s first, -1 where it is its second, 0 else; ``as_second[c]`` the number of pairs
    whose second class is ``c``. Made once per set of pairs (read-only).

    Examples
    --------
    >>> signed, as_second = _pair_indicators(((0, 1), (0, 2), (1, 2)), 3)
    >>> signed
    array([[ 1., -1.,  0.],
           [ 1.,  0., -1.],
           [ 0.,  1., -1.]])
    >>> as_second
    array([0., 1., 2.])
    """
    first, second = np.array(pairs, dtype=np.int64).reshape(-1, 2).T
    signed = np.zeros((first.shape[0], n_classes))
    signed[np.arange(first.shape[0]), first] = 1.0
    signed[np.arange(first.shape[0]), second] = -1.0
    as_second = np.bincount(second, minlength=n_classes).astype(np.float64)
    signed.flags.writeable = as_second.flags.writeable = False
    return signed, as_second


def _class_starts(y_index, n_classes):
    """Where each class starts among rows ordered by class, and the end."""
    starts = np.zeros(n_classes + 1, dtype=np.int64)
    np.cumsum(np.bincount(y_index, minlength=n_classes), out=starts[1:])
    return starts


def _rows_of(X, order, precomputed):
    """The training rows in the order ``order`` (a precomputed Gram matrix: rows and columns)."""
    return square_block(X, order) if precomputed and not sp.issparse(X) else (
        X[order][:, order] if precomputed else X[order])


def _are_class_labels(y):
    """Whether ``check_classification_targets`` would accept ``y`` for certain: a 1-D array of
    integers, or of floats with integer values (LIBSVM files' labels +1.0 and -1.0)."""
    if y.ndim != 1 or y.dtype.kind not in "biuf":
        return False
    if y.dtype.kind != "f":
        return True
    return y.dtype in (np.float32, np.float64) and bool(np.all(y == np.floor(y)))


class SVC(ClassifierMixin, BaseKernelSVM):
    """C-support vector classifier solved in the dual by SMO.

    Minimises ``1/2 ||w||^2 + C sum_i xi_i`` subject to
    ``y_i (w'phi(x_i) + b) >= 1 - xi_i``, ``xi_i >= 0``, through its dual
    ``max sum a_i - 1/2 sum_ij a_i a_j y_i y_j K(x_i, x_j)``,
    ``sum a_i y_i = 0``, ``0 <= a_i <= C``. ``C=np.inf`` gives the hard margin
    and raises :class:`~svmkit.NotSeparableError` when the data are not
    separable in the kernel's feature space.

    Parameters
    ----------
    C : float or np.inf, default=1.0
        Penalty of the slacks (> 0). ``np.inf``: hard margin.
    kernel : {'linear', 'poly', 'rbf', 'sigmoid', 'precomputed'}, Kernel or callable, default='rbf'
        A name as in scikit-learn, any :class:`svmkit.kernels.Kernel`
        (including sums, products, ...) or a function of two matrices.
    degree : int, default=3
        Degree of the 'poly' kernel.
    gamma : {'scale', 'auto'} or float, default='scale'
        Coefficient of 'rbf', 'poly' and 'sigmoid'; 'scale' is
        ``1 / (n_features * X.var())``, 'auto' is ``1 / n_features``.
    coef0 : float, default=0.0
        Constant of 'poly' and 'sigmoid'.
    shrinking : bool, default=True
        Drop bounded multipliers that cannot move from the working problem.
    probability : bool, default=False
        Also fit LIBSVM's probability model (Platt scaling on 5-fold
        cross-validated decision values, pairwise coupling for more than two
        classes) for :meth:`predict_proba`; this fits every problem five more
        times. Needs ``multiclass='ovo'`` with more than two classes.
    two_class_probability : {'coupling', 'sigmoid'}, default='coupling'
        How :meth:`predict_proba` turns the one pair of two classes into
        probabilities. 'coupling': the pairwise coupling used for more classes,
        whose iterations stop within ``0.005 / 2`` of the fixed point, as
        scikit-learn's SVC (its LIBSVM 3.10) computes them. 'sigmoid': the
        clipped Platt sigmoid of the decision value itself, as LIBSVM's own
        ``svm-predict -b 1`` (3.24 and later) and ``svmkit predict -b 1`` do;
        the two differ by up to about ``1e-2``.
    tol : float, default=1e-3
        Stop when the maximal violating-pair gap ``m(a) - M(a)`` is below ``tol``.
    cache_size : float, default=200
        Memory for kernel values in MB. When the Gram matrix of a problem fits,
        it is computed once; otherwise kernel rows are cached in float32, and
        the float32 copy of the data they are computed from, the solver's
        per-variable arrays and the blocks being computed count against it.
        One-vs-one problems of three or more classes share the kernel blocks
        within each class (computed once) when these fit in half of it; small
        ones are solved in one compiled call from one block per class. Small
        one-vs-rest problems share the Gram matrix of all rows, computed once,
        when it fits in half of it.
    class_weight : dict, 'balanced' or None, default=None
        Multiplies C for each class.
    verbose : bool, default=False
        Log solver progress (iterations, gap, active set, time) to the
        ``svmkit`` logger.
    max_iter : int, default=-1
        Limit on the number of two-variable updates per problem; -1 for none.
        Reaching it warns with the gap attained.
    multiclass : {'ovo', 'ovr'}, default='ovo'
        One-vs-one (LIBSVM) or one-vs-rest (one problem per class against the
        others, as the seeds teach it).
    decision_function_shape : {'ovr', 'ovo'}, default='ovr'
        Shape of :meth:`decision_function` for ``multiclass='ovo'``, as in scikit-learn.
    break_ties : bool, default=False
        As in scikit-learn: with ``decision_function_shape='ovr'`` and more than
        two classes, :meth:`predict` returns the class of the largest
        one-vs-rest score of :meth:`decision_function` (votes, ties broken by
        the summed decision values) instead of the first class among those of
        most votes. Costs a little more at prediction. Must be False with
        ``decision_function_shape='ovo'``.
    random_state : int, RandomState or None, default=None
        Seeds the shuffle of the cross-validation folds of ``probability=True``
        (the solver itself is deterministic). With the same integer, the folds
        are those of scikit-learn's ``SVC(probability=True)``.
    callback : callable, default=None
        Called with a :class:`svmkit.SolverProgress` about once a second during a fit.
    solver : {'smo', 'qp'}, default='smo'
        'smo': the library's SMO solver. 'qp': the seed's dual QP formed densely
        and solved by Clarabel (:mod:`svmkit.qp`), for small problems and as a
        reference; it needs the ``qp`` extra (``pip install svmkit[qp]``).
    n_jobs : int or None, default=None
        Threads that solve the two-class problems of a multiclass fit in
        parallel: None or -1 for every core, 1 for one at a time. **Unlike
        scikit-learn**, where ``n_jobs=None`` means one job, None here means every
        usable core: these are threads inside one fit (scikit-learn's SVC has none),
        and svmkit's speed on a multiclass fit relies on them. Inside outer
        parallelism (``GridSearchCV(n_jobs=...)``, ``cross_val_score(n_jobs=...)``,
        joblib) pass ``n_jobs=1`` so that the processes do not compete for cores. They share
        ``cache_size``. A callable kernel and ``callback`` are then called from
        several threads at once. Fits whose Gram matrices hold fewer than 2**23
        values in all run on one thread (threads there only contend for the
        interpreter's lock). (BLAS threads, and the threads that compute parts of
        large blocks of kernel rows, are limited with ``OMP_NUM_THREADS`` /
        ``OPENBLAS_NUM_THREADS``; numba's with ``NUMBA_NUM_THREADS``.)

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    support_ : ndarray of int
        Indices of the support vectors, grouped by class (as LIBSVM).
    support_vectors_ : ndarray or CSR matrix
        The support vectors (empty with a precomputed kernel).
    n_support_ : ndarray of shape (n_classes,)
        Number of support vectors of each class.
    dual_coef_ : ndarray
        ``alpha_i y_i``; shape (n_classes - 1, n_SV) in LIBSVM's one-vs-one
        layout, or (n_classes, n_SV) for one-vs-rest (row k: class k against the rest).
    intercept_ : ndarray of shape (n_problems,)
        The bias ``b`` of each two-class problem.
    coef_ : ndarray of shape (n_problems, n_features)
        ``w`` for the linear kernel only.
    binary_models_ : list of BinaryModel
        The two-class problems, each with its own multipliers and theory.
    problem_classes_ : list of tuples
        ``(positive class, negative class or 'rest')`` of each problem.
    alpha_ : ndarray
        Multipliers: shape (n_samples,) for two classes, else (n_problems, n_samples)
        with zeros for samples outside a problem.
    slack_ : ndarray
        ``xi_i``, same shapes as ``alpha_`` (NaN outside a problem).
    margin_, dual_objective_, primal_objective_, duality_gap_ : float or ndarray
        ``2/||w||``, ``sum a - 1/2 a'Qa``, ``1/2||w||^2 + C sum xi`` and their
        difference, per problem.
    loo_bound_ : float
        Leave-one-out error bound: number of support vectors / N.
    radius_ : float
        ``R``: the radius of the smallest ball around all training points in the
        kernel's feature space (computed from kernel values; an upper bound of
        it within a relative 1e-6 on ``R^2``).
    rho_ : float or ndarray
        ``rho = 1 / ||w||``, half of ``margin_``, per problem.
    vc_bound_ : int or ndarray of int
        The fat-margin bound on the VC dimension of hyperplanes of margin
        ``rho_`` on data within ``radius_``: ``min(ceil(R^2 / rho^2), d) + 1``
        per problem, ``d`` the dimension of the feature space: the number of
        features for the linear kernel, that of the monomials for the
        polynomial kernel, and infinite for every other kernel (RBF's feature
        space is infinite; that of sigmoid, combined, callable and precomputed
        kernels is not known), where the bound is ``ceil(R^2 / rho^2) + 1``.
        With a soft margin, points inside the margin are not separated at
        ``rho``, and the bound describes the hyperplanes of that margin only.
    probA_, probB_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        Platt parameters of each one-vs-one pair ``(i, j)``, ``i < j``, in
        LIBSVM's order and sign convention: ``P(class i | i or j) =
        1 / (1 + exp(probA_ * f + probB_))`` with ``f`` positive for class ``i``
        (for two classes, ``f = -decision_function``). Empty without
        ``probability=True``.
    n_iter_ : ndarray of int
        Two-variable updates per problem.
    fit_status_ : int
        0 if every problem converged, 1 otherwise.
    kernel_ : Kernel or None
        The kernel used (None when precomputed).

    Notes
    -----
    The probabilities come from a model fitted on cross-validated decision
    values, so ``argmax(predict_proba(X))`` can differ from ``predict(X)``
    near the boundaries (as in LIBSVM and scikit-learn). Use
    :meth:`predict_from_proba` for labels that agree with the probabilities
    (what LIBSVM's ``svm-predict -b 1`` prints).

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit import SVC
    >>> X = np.array([[-1.0], [0.0], [1.0]])
    >>> y = np.array([1, -1, -1])
    >>> model = SVC(C=np.inf, kernel="linear").fit(X, y)
    >>> model.coef_.round(6), model.intercept_.round(6)
    (array([[-2.]]), array([-1.]))
    >>> float(model.margin_)
    1.0
    >>> model.radius_, model.rho_, model.vc_bound_  # min(ceil(1 / 0.25), d = 1) + 1
    (1.0, 0.5, 2)
    >>> print(model.kkt_report())
    KKT report of 3 training points
      not a support vector                1
      on the margin                       2
      bounded, inside the margin          0
      bounded, misclassified              0
      largest KKT violation        0.000e+00
      leave-one-out bound          0.6667 (support vectors / N)
      VC dimension bound           2 = min(ceil(R^2 / rho^2), d) + 1, R = 1, rho = 0.5
    index   y  alpha   mu  xi  y f(x)  category
        0   1      2  inf   0       1  on the margin
        1  -1      2  inf   0       1  on the margin
        2  -1      0  inf   0       3  not a support vector
    """

    _parameter_constraints = {
        **BaseKernelSVM._parameter_constraints,
        "C": [Interval(Real, 0, None, closed="right")],
        "probability": ["boolean"],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "multiclass": [StrOptions({"ovo", "ovr"})],
        "decision_function_shape": [StrOptions({"ovo", "ovr"})],
        "break_ties": ["boolean"],
        "random_state": ["random_state"],
        "solver": [StrOptions({"smo", "qp"})],
    }

    def __init__(
        self,
        C=1.0,
        kernel="rbf",
        degree=3,
        gamma="scale",
        coef0=0.0,
        shrinking=True,
        probability=False,
        tol=1e-3,
        cache_size=200,
        class_weight=None,
        verbose=False,
        max_iter=-1,
        multiclass="ovo",
        decision_function_shape="ovr",
        break_ties=False,
        random_state=None,
        callback=None,
        solver="smo",
        two_class_probability="coupling",
        n_jobs=None,
    ):
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.probability = probability
        self.tol = tol
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.verbose = verbose
        self.max_iter = max_iter
        self.multiclass = multiclass
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.random_state = random_state
        self.callback = callback
        self.solver = solver
        self.n_jobs = n_jobs
        self.two_class_probability = two_class_probability

    # -- fitting -------------------------------------------------------------
    def _check_params(self):
        if not is_real(self.C) or isinstance(self.C, bool) or math.isnan(self.C) or self.C <= 0:
            raise ValueError(f"C must be > 0 (np.inf for a hard margin), got {self.C!r}.")
        if self.solver not in ("smo", "qp"):
            raise ValueError(f"solver must be 'smo' or 'qp', got {self.solver!r}.")
        self._check_classifier_params()

    def _check_classifier_params(self):
        self._check_common_params()
        if self.multiclass not in ("ovo", "ovr"):
            raise ValueError(f"multiclass must be 'ovo' or 'ovr', got {self.multiclass!r}.")
        if self.decision_function_shape not in ("ovo", "ovr"):
            raise ValueError(f"decision_function_shape must be 'ovo' or 'ovr', got {self.decision_function_shape!r}.")
        if not isinstance(self.probability, (bool, np.bool_)):
            raise ValueError(f"probability must be True or False, got {self.probability!r}.")
        if not isinstance(self.break_ties, (bool, np.bool_)):
            raise ValueError(f"break_ties must be True or False, got {self.break_ties!r}.")
        if self.break_ties and self.decision_function_shape == "ovo":
            raise ValueError("break_ties must be False when decision_function_shape is 'ovo'.")
        if self.two_class_probability not in ("coupling", "sigmoid"):
            raise ValueError(
                f"two_class_probability must be 'coupling' or 'sigmoid', got {self.two_class_probability!r}."
            )
        check_class_weight(self.class_weight)
        check_parameters(self)

    @on_one_blas_thread
    @unfitted_on_interrupt
    def fit(self, X, y, sample_weight=None):
        """Fit the classifier.

        Parameters
        ----------
        X : array-like, DataFrame or CSR matrix of shape (n_samples, n_features)
            Training data, or the (n_samples, n_samples) Gram matrix when
            ``kernel='precomputed'``. NaN and infinite values are refused.
        y : array-like of shape (n_samples,)
            Class labels (at least two classes).
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights multiplying C per sample.

        Returns
        -------
        self
        """
        checked_once(self, self._check_params)
        X, y = self._validate_train_X(X, y)
        if not _are_class_labels(y):  # (scikit-learn's check, only where needed: it is slow)
            check_classification_targets(y)
        classes = np.unique(y)
        y_index = np.searchsorted(classes, y)  # (np.unique's inverse, without its argsort)
        if classes.shape[0] < 2:
            raise ValueError(
                f"SVC needs samples of at least two classes; the data contain one class only ({classes[0]})."
            )
        if self.probability and self.multiclass == "ovr" and classes.shape[0] > 2:
            raise ValueError(
                "probability=True uses LIBSVM's pairwise coupling of one-vs-one problems: "
                "use multiclass='ovo' (the default)."
            )
        weights = self._check_weights(sample_weight, X)
        if self.class_weight is not None:
            weights = compute_class_weight(self.class_weight, classes=classes, y=y)[y_index] * weights
        self._check_kernel_matrix(X)
        self.classes_ = classes
        upper = self._upper_bounds(weights, y_index)
        self.shape_fit_ = X.shape
        problems = self._problems(classes.shape[0])
        # one-vs-one problems and the folds of the probability model take the rows class by class
        # (in training order within a class), so that each problem's rows are two runs of rows
        by_class = len(problems) > 1 and problems[0][1] is not None or self.probability
        order = np.argsort(y_index, kind="stable") if by_class else None
        X_rows, y_rows, upper_rows = (_rows_of(X, order, self._precomputed), y_index[order], upper[order]) \
            if by_class else (X, y_index, upper)
        self.kernel_, source = self._row_source(X_rows)
        names, label = (), ""
        if self._reports_progress():
            names = [self._pair_name(problem) for problem in problems]
            label = f"{len(problems)} {'one-vs-one pairs' if by_class else 'one-vs-rest problems'}" \
                if len(problems) > 1 else names[0]
        settings = self._solver_settings()
        variables = self._fit_problems(X_rows, source, self._problem_data(y_rows, upper_rows, problems),
                                       problems, names, label, settings)
        if by_class:
            variables = variables._replace(indices=order[variables.indices])
        self._problem_pairs = problems
        self._variables = variables
        vars(self).pop("binary_models_", None)  # (that of an earlier fit)
        self.problem_classes_ = [(classes[a], classes[b] if b is not None else "rest") for a, b in problems]
        self._set_libsvm_attributes(X, y_index, variables)
        # R is a fit of its own (a smallest enclosing ball): made when first asked for
        vars(self).pop("_radius", None)
        self._radius_inputs = (X, settings)
        if self.probability:
            self._fit_probability(source, X_rows, y_rows, upper_rows)
        else:
            self.probA_ = self.probB_ = np.empty(0)
        return self

    @cached_property
    def binary_models_(self):
        """The fitted two-class problems (:class:`BinaryModel`), each with its own multipliers
        and theory; see the class's Attributes."""
        variables = vars(self).get("_variables")
        if variables is None:
            raise AttributeError(f"{type(self).__name__} has no binary_models_: it is not fitted.")
        return variables.models(self._problem_pairs)

    def _upper_bounds(self, weights, y_index):
        """``U_i = C * class_weight[y_i] * sample_weight_i`` (``inf`` for a hard margin).

        Called before any kernel evaluation; other formulations check their
        parameters against the data here.
        """
        if math.isinf(self.C):
            return np.where(weights > 0, np.inf, 0.0)
        if math.isfinite(2.0 * self.C * float(weights.max(initial=0.0)) * weights.shape[0]):
            return self.C * weights  # (neither a product nor their sum, however rounded, can overflow)
        with np.errstate(over="ignore"):
            upper = self.C * weights
        check_finite_bounds(upper, "C * class_weight * sample_weight")
        return upper

    def _problems(self, n_classes):
        """The two-class problems ``(positive class, negative class or None for the rest)``."""
        if n_classes == 2:
            return [(1, 0)]
        if self.multiclass == "ovr":
            return [(k, None) for k in range(n_classes)]
        return list(combinations(range(n_classes), 2))

    def _pair_name(self, problem):
        """How progress reports name a two-class problem: 'pair 3 vs 7', 'class 3 vs rest'."""
        positive, negative = problem
        if negative is None:
            return f"class {self.classes_[positive]} vs rest"
        return f"pair {self.classes_[positive]} vs {self.classes_[negative]}"

    def _problem_data(self, y_index, upper, problems):
        """The :class:`svmkit.svm._formulations.Problems` of the fit: every row against the
        others (two classes, one-vs-rest), or the pairs' rows in LIBSVM's order (``y_index``
        ordered by class)."""
        if problems[0][1] is None or len(problems) == 1:
            return against_the_rest(y_index, [positive for positive, _ in problems], upper)
        return one_vs_one(_class_starts(y_index, self.classes_.shape[0]), problems, upper)

    def _fit_problems(self, X, source, problem_data, problems, names=(), label="", settings=None):
        """Solve the problems (SMO, or the QP library) and return their
        :class:`StackedVariables`; ``names`` and ``label`` name them in progress reports,
        ``settings`` are the fit's solver settings (None: made here)."""
        undecided = []
        if self._is_hard_margin():
            for k in range(problem_data.bounds.shape[0] - 1):
                part = slice(problem_data.bounds[k], problem_data.bounds[k + 1])
                movable = problem_data.upper[part] > 0
                if self._check_separable(source, X, problem_data.rows[part][movable],
                                         problem_data.labels[part][movable]) is None:
                    undecided.append(k)
        batch = self._batch(problem_data)
        if getattr(self, "solver", "smo") == "qp":
            solution = solve_dual_qp(source, batch)
            self._check_undecided(solution, undecided)
            for k in np.flatnonzero(solution.status):
                self._warn_unless_optimal(int(solution.status[k]), float(solution.gap[k]))
        else:
            solution = self._solve(batch, source, lambda solution: self._check_undecided(solution, undecided),
                                   names, label, settings)
        return self._read(batch, solution, problems)

    def _check_undecided(self, solution, undecided):
        """Raise :class:`NotSeparableError` where the separability test of a hard-margin
        problem was undecided and its dual, solved within the step limit, did not converge
        (the multipliers of a dual without a solution grow without bound)."""
        for k in undecided:
            if solution.status[k] != OPTIMAL:
                raise NotSeparableError(
                    "The hard-margin SVM (C=inf) found no solution: the separability test was undecided "
                    "(the kernel matrix is numerically singular) and the dual did not converge within the "
                    f"step limit (KKT gap {float(solution.gap[k]):.3e}). Use a finite C (soft margin)."
                )

    def _is_hard_margin(self):
        return math.isinf(self.C)

    def _batch(self, problem_data):
        """The duals of the problems (:mod:`svmkit.svm._formulations`)."""
        return c_svc_batch(problem_data)

    def _read(self, batch, solution, problems):
        """The :class:`StackedVariables` of the solved duals of ``problems`` (None: the
        folds of a cross-validation)."""
        alpha, b, yf = c_svc_read(batch, solution)
        check_finite_result({"multipliers": alpha, "intercept_": b},
                            "C, the weights or the kernel values are too large for float64; scale the data")
        return StackedVariables(batch.bounds, batch.rows, batch.y, alpha, batch.upper, yf, b,
                                solution.n_iter.astype(np.int64), solution.gap, solution.status)

    def _check_separable(self, source, X, rows, labels):
        """Raise :class:`NotSeparableError` where a hard margin has no solution; True where
        it has one, None where the test was undecided."""
        separable = is_separable(source, self.kernel_, X, rows, labels)
        if separable is False:
            kernel_name = self.kernel if isinstance(self.kernel, str) else type(self.kernel).__name__
            raise NotSeparableError(
                f"The data are not separable with the {kernel_name} kernel, so the hard-margin SVM "
                "(C=inf) has no solution: use a finite C (soft margin) or a more flexible kernel."
            )
        return separable

    def _fit_probability(self, source, X, y_index, upper):
        """probA_ and probB_ of each one-vs-one pair (LIBSVM's ``svm_binary_svc_probability``):
        Platt's sigmoid fitted on decision values from a 5-fold cross-validation.

        As LIBSVM, a pair's samples (positive weights only) are those of class ``i`` then
        those of class ``j`` in training order (``X``'s rows are class by class), labelled
        +1 and -1, and every pair is shuffled from the same seed. Each fold is the pair's
        problem with the held-out rows' bounds at 0 (they cannot move, and their gradient gives
        their decision values), and all folds of all pairs are one batch of duals.
        """
        seed = draw_seed(check_random_state(self.random_state))
        class_start = _class_starts(y_index, self.classes_.shape[0])
        pairs, folds = [], []
        for pair in combinations(range(self.classes_.shape[0]), 2):
            problem = one_vs_one(class_start, [pair], upper)
            weighted = np.flatnonzero(problem.upper > 0)  # (LIBSVM's samples: positive weights only)
            labels = problem.labels[weighted]
            decisions, splits = fold_splits(labels, seed)
            pairs.append((labels, decisions, [held for _, held in splits], weighted))
            for _, held in splits:
                fold_upper = problem.upper.copy()
                fold_upper[weighted[held]] = 0.0
                folds.append(problem._replace(upper=fold_upper))
        if folds:
            names, label = (), ""
            if self._reports_progress():
                names = [f"{self._pair_name(pair)}, fold {f + 1}/{len(helds)}"
                         for pair, (_, _, helds, _) in zip(combinations(range(self.classes_.shape[0]), 2), pairs)
                         for f in range(len(helds))]
                label = f"probability fit: {len(folds)} folds of {len(pairs)} pair{'s' if len(pairs) > 1 else ''}"
            variables = self._fit_problems(X, source, stacked(folds), None, names, label)
        fold = 0
        prob_a, prob_b = [], []
        for labels, decisions, helds, weighted in pairs:
            for held in helds:
                part = slice(variables.bounds[fold], variables.bounds[fold + 1])
                decisions[held] = labels[held] * variables.yf[part][weighted[held]]  # (f = y * y f)
                fold += 1
            a, b = sigmoid_train(decisions, labels)
            prob_a.append(a)
            prob_b.append(b)
        self.probA_ = np.array(prob_a)
        self.probB_ = np.array(prob_b)

    def _set_libsvm_attributes(self, X, y_index, variables):
        """support_, dual_coef_, intercept_, ... in scikit-learn's (LIBSVM's) layout, and the
        theory of every problem."""
        n_classes, n = self.classes_.shape[0], X.shape[0]
        one_vs_one = n_classes > 2 and self.multiclass == "ovo"
        first, second = self._pair_classes() if one_vs_one else (_NO_CLASSES, _NO_CLASSES)
        v = variables
        support, n_support, problem_coef, dual_coef = libsvm_layout(
            v.bounds, v.indices, v.alpha * v.y, y_index, n_classes, first, second)
        self.support_ = support.astype(np.int32)
        self.n_support_ = n_support.astype(np.int32)
        self.support_vectors_ = np.empty((0, X.shape[1])) if self._precomputed else X[support]
        # problem_coef[s, p]: coefficient of support vector s in problem p
        self._problem_coef = problem_coef
        self.dual_coef_ = dual_coef if one_vs_one else problem_coef.T.copy()
        self.intercept_ = np.asarray(v.intercept, dtype=np.float64)
        self.n_iter_ = np.asarray(v.n_iter, dtype=np.int64)
        self.fit_status_ = int(v.status.any())
        self.loo_bound_ = float(support.shape[0] / n)
        self._n_training_rows = n
        for name in ("alpha_", "slack_", "_objectives"):
            vars(self).pop(name, None)  # (those of an earlier fit)
        self._keep_prediction_model()

    @cached_property
    def _objectives(self):
        """``(margin, dual, primal, gap)`` of every problem, computed when first read (Python
        floats for one problem)."""
        variables = vars(self).get("_variables")
        if variables is None:
            raise AttributeError(f"{type(self).__name__} has no objectives: it was not fitted on training data.")
        v = variables
        objectives = objectives_per_problem(v.bounds, v.alpha, v.y, v.yf, v.upper, v.intercept)
        if len(self._problem_pairs) == 1:
            return tuple(float(values[0]) for values in objectives)
        return objectives

    @property
    def margin_(self):
        """``2 / ||w||`` of each problem (feature space)."""
        return self._objectives[0]

    @property
    def rho_(self):
        """``rho = 1 / ||w||``, the half-width of the margin of each problem (feature space)."""
        return self._objectives[0] / 2.0

    @property
    def radius_(self):
        """``R``, the radius of the smallest ball around the training points in the kernel's
        feature space (see the class's Attributes): solved when first asked for, from the
        training data the model refers to until then (saving or pickling the model asks)."""
        if "_radius" not in vars(self):
            inputs = vars(self).pop("_radius_inputs", None)
            if inputs is None:
                raise AttributeError(f"{type(self).__name__} has no radius_: it was not fitted on training data.")
            X, settings = inputs
            source = PrecomputedRows(X.toarray() if sp.issparse(X) else X) if self._precomputed else KernelRows(
                self.kernel_, X)
            self._radius = enclosing_radius(source, settings)
        return self._radius

    @radius_.setter
    def radius_(self, value):
        vars(self).pop("_radius_inputs", None)
        self._radius = value

    def __getstate__(self):
        if "_radius_inputs" in vars(self):
            self.radius_  # (solved now: a pickle holds R, not the training data)
        return super().__getstate__()

    @property
    def vc_bound_(self):
        """The fat-margin bound ``min(ceil(radius_^2 / rho_^2), d) + 1`` on the VC dimension of
        each problem's hyperplanes (see the class's Attributes)."""
        d = feature_space_dimension(self.kernel_, self.n_features_in_)
        rho = self.rho_
        if np.ndim(rho) == 0:
            return vc_bound(self.radius_, rho, d)
        return np.array([vc_bound(self.radius_, value, d) for value in rho.tolist()])

    @property
    def dual_objective_(self):
        """``sum a - 1/2 a'Qa`` of each problem."""
        return self._objectives[1]

    @property
    def primal_objective_(self):
        """``1/2 ||w||^2 + sum C_i xi_i`` of each problem."""
        return self._objectives[2]

    @property
    def duality_gap_(self):
        """``primal - dual`` of each problem."""
        return self._objectives[3]

    @cached_property
    def alpha_(self):
        """Multipliers: shape (n_samples,) for two classes, else (n_problems, n_samples) with
        zeros for samples outside a problem."""
        return self._by_training_row("alpha", 0.0)

    @cached_property
    def slack_(self):
        """``xi_i``, same shapes as ``alpha_`` (NaN outside a problem)."""
        return self._by_training_row("slack", np.nan)

    def _by_training_row(self, name, outside):
        """A variable of every problem (``BinaryModel`` attribute ``name``) by training row."""
        n = vars(self).get("_n_training_rows")
        if n is None:  # (a model read from a LIBSVM file has no training rows)
            raise AttributeError(f"{type(self).__name__} has no {name}_: it was not fitted on training data.")
        models = self.binary_models_
        values = np.full((len(models), n), outside)
        for p, model in enumerate(models):
            values[p, model.indices] = getattr(model, name)
        return values[0] if len(models) == 1 else values

    # -- theory ---------------------------------------------------------------
    def kkt_report(self, problem=None):
        """Per training point: alpha, mu = C - alpha, xi, y f(x) and KKT category.

        Parameters
        ----------
        problem : int, optional
            Which two-class problem (index into :attr:`binary_models_`);
            required when there are more than two classes.

        Returns
        -------
        KKTReport
            ``print(report)`` shows every point's row (the first 20, then "... N
            more"; ``report.to_string(max_rows=None)`` shows all of them).
        """
        check_is_fitted(self)
        if problem is None:
            if len(self.binary_models_) != 1:
                raise ValueError(
                    f"This model has {len(self.binary_models_)} two-class problems; pass problem= "
                    f"(see problem_classes_)."
                )
            problem = 0
        model = self.binary_models_[problem]
        report = model.kkt_report()
        positive, negative = (np.asarray([label], dtype=object) for label in self.problem_classes_[problem])
        return replace(report, label=np.where(report.label > 0, positive, negative), bounds=self._bounds(model, problem))

    def _bounds(self, model, problem):
        """The printed bounds of problem ``problem`` (:class:`KKTReport`'s ``bounds``): the
        leave-one-out bound and, where the radius is known, the fat-margin VC bound."""
        bounds = [("leave-one-out bound", f"{model.loo_bound:.4f} (support vectors / N)")]
        try:
            radius = self.radius_
        except AttributeError:  # (a model file without the radius)
            return tuple(bounds)
        rho = np.ravel(self.rho_)[problem]
        vc = np.ravel(self.vc_bound_)[problem]
        bounds.append(("VC dimension bound", f"{vc} = min(ceil(R^2 / rho^2), d) + 1, R = {radius:.4g}, rho = {rho:.4g}"))
        return tuple(bounds)

    # -- prediction -------------------------------------------------------------
    def _problem_decisions(self, X):
        """The decision value of every problem at the rows of ``X`` (n_samples, n_problems)."""
        X = self._validate_test_X(X)
        return self._kernel_decision(X, self._problem_coef, self.intercept_)

    def _class_coefficients(self, coef):
        """One-vs-one coefficients class by class (:class:`PairCoefficients`), where there are
        enough classes for them to pay."""
        if self.multiclass != "ovo" or self.n_support_.shape[0] < PAIR_PRODUCTS_MIN_CLASSES:
            return None
        return PairCoefficients(coef, self.n_support_, self._problem_pairs)

    def _decision_coef(self):
        """``_problem_coef``: column ``p`` holds the coefficients of the support vectors in problem ``p``."""
        return self._problem_coef

    def decision_function(self, X):
        """Signed distances to the decision boundaries, in units of ``1/||w||``.

        Two classes: shape (n_samples,), positive for ``classes_[1]``.
        One-vs-one: (n_samples, n_classes * (n_classes - 1) / 2) positive for the
        first class of each pair, or the (n_samples, n_classes) one-vs-rest
        aggregate when ``decision_function_shape='ovr'`` (as scikit-learn).
        One-vs-rest: (n_samples, n_classes).
        """
        decisions = self._problem_decisions(X)
        n_classes = self.classes_.shape[0]
        if n_classes == 2:
            return decisions[:, 0]
        if self.multiclass == "ovo" and self.decision_function_shape == "ovr":
            return self._one_vs_rest_scores(decisions)
        return decisions

    def _one_vs_rest_scores(self, decisions):
        """scikit-learn's one-vs-rest scores of one-vs-one decisions
        (``sklearn.utils.multiclass._ovr_decision_function(decisions < 0, -decisions, n_classes)``)
        by products with the pairs' class indicators: votes (pair ``k`` votes for its first
        class where its decision is at least 0) plus the summed decisions mapped into
        (-1/3, 1/3), ``x / (3 (|x| + 1))``, which break ties without overturning a vote."""
        signed, as_second = _pair_indicators(tuple(self._problem_pairs), self.classes_.shape[0])
        # (a pair whose decision is at least 0 adds 1 to its first class and takes back from its
        # second the vote as_second gives every second class)
        votes = (decisions >= 0).astype(np.float64) @ signed + as_second
        confidences = decisions @ signed
        return votes + confidences / (3 * (np.abs(confidences) + 1))

    def predict(self, X):
        """Class labels: the sign for two classes, votes for one-vs-one (ties go
        to the first class, as LIBSVM, or with ``break_ties=True`` to the largest
        one-vs-rest score), the largest decision for one-vs-rest."""
        if self.break_ties and self.decision_function_shape == "ovo":
            raise ValueError("break_ties must be False when decision_function_shape is 'ovo'.")
        decisions = self._problem_decisions(X)
        n_classes = self.classes_.shape[0]
        if n_classes == 2:
            return self.classes_[(decisions[:, 0] > 0).astype(int)]
        if self.multiclass == "ovr":
            return self.classes_[np.argmax(decisions, axis=1)]
        if self.break_ties:
            return self.classes_[np.argmax(self._one_vs_rest_scores(decisions), axis=1)]
        # (a pair whose decision is above 0 votes for its first class, else for its second; the
        # votes are small integers, exact in float64)
        signed, as_second = _pair_indicators(tuple(self._problem_pairs), n_classes)
        votes = (decisions > 0).astype(np.float64) @ signed + as_second
        return self.classes_[np.argmax(votes, axis=1)]

    def _pair_classes(self):
        """The first and second class of each one-vs-one problem (int64 arrays)."""
        pairs = np.array(self._problem_pairs, dtype=np.int64).reshape(-1, 2).T.copy()
        return pairs[0], pairs[1]

    # -- probabilities ----------------------------------------------------------
    def _check_probability(self):
        if not self.probability:
            raise AttributeError("predict_proba is not available when probability=False.")
        return True

    @available_if(_check_probability)
    def predict_proba(self, X):
        """Class probabilities, columns in the order of ``classes_``.

        Platt's sigmoid of each pair's decision value, clipped to
        ``[1e-7, 1 - 1e-7]``, coupled into class probabilities (Wu, Lin and
        Weng 2004, method 2), as LIBSVM does for three or more classes. With
        two classes, ``two_class_probability`` chooses between this coupling
        (the default, scikit-learn's values) and the clipped sigmoid itself
        (LIBSVM's ``svm-predict -b 1``). See the Notes of the class on how
        they relate to :meth:`predict`.

        Examples
        --------
        >>> import numpy as np
        >>> from svmkit import SVC
        >>> X = np.r_[np.linspace(-3, 1, 20), np.linspace(-1, 3, 20)].reshape(-1, 1)
        >>> y = np.repeat([0, 1], 20)
        >>> model = SVC(kernel="linear", probability=True, random_state=0).fit(X, y)
        >>> sigmoid = model.set_params(two_class_probability="sigmoid").predict_proba(X)
        >>> A, B = model.probA_[0], model.probB_[0]
        >>> bool(np.allclose(sigmoid[:, 0], 1 / (1 + np.exp(-A * model.decision_function(X) + B))))
        True
        """
        check_is_fitted(self)
        if self.probA_.shape[0] == 0:
            raise NotFittedError("predict_proba is not available: the model was fitted with probability=False.")
        decisions = self._problem_decisions(X)
        if self.classes_.shape[0] == 2:
            decisions = -decisions  # LIBSVM's pair (0, 1) is positive for classes_[0]
            if self.two_class_probability == "sigmoid":
                first = np.clip(sigmoid_predict(decisions[:, 0], self.probA_[0], self.probB_[0]), MIN_PROB, 1 - MIN_PROB)
                return np.column_stack([first, 1.0 - first])
        probabilities = pairwise_probabilities(decisions, self.probA_, self.probB_, self.classes_.shape[0])
        return check_finite_prediction(probabilities, self, "probA_ and probB_", "probabilities")

    @available_if(_check_probability)
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`."""
        return np.log(self.predict_proba(X))

    @available_if(_check_probability)
    def predict_from_proba(self, X):
        """The class of largest probability: labels that agree with :meth:`predict_proba`.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.datasets import load_iris
        >>> from svmkit import SVC
        >>> X, y = load_iris(return_X_y=True)
        >>> model = SVC(probability=True, random_state=0).fit(X, y)
        >>> proba = model.predict_proba(X)
        >>> proba[:2].sum(axis=1).round(6)
        array([1., 1.])
        >>> bool(np.all(model.predict_from_proba(X) == model.classes_[proba.argmax(axis=1)]))
        True
        """
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


__all__ = ["SVC", "NotSeparableError"]
