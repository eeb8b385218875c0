"""C-support vector classification (soft and hard margin)."""

from __future__ import annotations

import contextlib
import math
from functools import cached_property
from itertools import combinations

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.exceptions import NotFittedError
from sklearn.utils import check_random_state
from sklearn.utils._available_if import available_if
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._class_blocks import (
    class_strip_dtype, pair_class_arrays, pairs_fit_in_one_call, shared_class_blocks, solve_pairs_in_one_call,
)
from .._core.labels import are_whole_numbers, class_indices, class_order
from .._core.libsvm_layout import libsvm_layout_and_objectives
from .._core.multiclass import one_vs_one_rows, one_vs_one_votes, ovr_scores
from .._solver import (
    PrecomputedGram, blas_threads_for, compiled_row_kernel, full_gram_dtype, full_gram_row_kernel,
    linear_row_kernel, two_class_gram,
)
from .._stacked import StackedDuals, StackedSolutions, solve_subsets_in_one_call, starts_and_stops
from ._base import BaseKernelSVM, enable_logging, is_real, map_in_threads, resolve_n_jobs
from ._binary import BinaryModel, StackedVariables
from ..qp import solve_dual_qp
from ._formulations import (
    c_svc_dual, c_svc_pair_duals, c_svc_pairs_in_one_call, c_svc_pairs_on_gram_rows_in_one_call,
    c_svc_pairs_on_own_rows_in_one_call, c_svc_solution, c_svc_solutions, c_svc_two_class_in_one_call,
    c_svc_two_class_on_gram_in_one_call,
)
from ._probability import cross_validated_decisions, draw_seed, pairwise_probabilities, sigmoid_train
from ._separability import NotSeparableError, is_separable

# One-vs-one fits of at most this many rows solve their pairs on the Gram matrix of all rows,
# one block, instead of the class strips (alternating in one process, ratio to scikit-learn:
# iris RBF 0.48 -> 0.40, wine 0.48 -> 0.39, 214 x 9 in 6 classes 0.50 -> 0.44; but 528 x 10
# in 11 classes 0.36 -> 0.40, linear 0.49 -> 0.63), or, thin dense data, on kernel rows that
# their one compiled call computes (SVC._pairs_in_compiled_calls)
_ONE_VS_ONE_ALL_ROWS = 256
# Larger one-vs-one fits with the linear kernel on dense data of at most this many features solve
# their problems on kernel rows that compiled calls compute, not on class strips or products of
# each pair's rows (SVC._pairs_in_compiled_calls). Alternating in one process, each fit after a
# oneDAL fit, fit time over LIBSVM's: digits (64 features, 45 pairs of some 270 rows, few rows of
# each needed) 0.342 -> 0.282 (0.329 with float64 rows); make_classification, 10 classes, 5%
# flipped (most rows needed), 1347 x 64 0.087 -> 0.085, 1400 x 30 0.107 -> 0.094, but 1000 x 96
# 0.150 -> 0.162, 1500 x 128 0.124 -> 0.139 (a BLAS block beats the rows' loops there)
_OWN_ROWS_LINEAR_FEATURES = 64
# Below this many Gram matrix values over all problems, a multiclass fit whose one-vs-one
# problems do not fit one compiled call (_pairs_in_one_call, where large strips and groups of
# problems go to worker threads) solves them one after another: solved one by one, such a fit
# was mostly Python's per-problem work, which threads do not share out (the GIL), and one worker
# was faster (digits, 10 classes, 5.8 million values: 44 ms instead of 52 ms with two; 5 classes
# of 600 rows, 14 million: 67 ms with one, 53 ms with two).
_PARALLEL_FIT_VALUES = 2**23
# The kernel strips of such a one-call fit (one BLAS block per class) are computed on worker
# threads from this many multiply-adds, kernel values times features (digits, 1.0 million
# values of 64 features: RBF 5.3 -> 2.5 ms, linear 3.7 -> 2.0 ms; its first 1,000 rows, 0.55
# million: 2.7 -> 1.8 ms; 700 rows, 0.27 million: 1.05-1.46 -> 0.9 ms; 500 rows, 0.14 million:
# 0.62-0.68 -> 0.69-0.81 ms, slower)
_PARALLEL_STRIP_WORK = 2**24
# ... and its problems are solved in groups on worker threads from this many Gram matrix values
# (digits, 10 classes, alternating: 1347 rows, 3.5 million values: linear 20.6 -> 14.9 ms, RBF
# 16.2 -> 12.1 ms; 450 rows, 0.37 million: 8.2 -> 7.2 and 7.6 -> 7.1 ms; 300 rows, 0.16
# million: 6.2 and 5.8 ms either way)
_PARALLEL_PAIR_VALUES = 2**18
# From this many problems their duals are built at once (stacked, one problem after another),
# solved and read at once, with no arrays joined or split problem by problem (fits back to back,
# median of 200: iris, 3 classes, RBF 160 -> 130 us, wine 185 -> 154 us, against one problem at
# a time; 11 classes, 55 problems: some 0.25 ms less)
_PROBLEMS_AT_ONCE = 2


def _are_class_labels(y):
    """Whether ``check_classification_targets`` would accept ``y`` for certain: a 1-D array of
    integers, or of floats with integer values (LIBSVM files' labels +1.0 and -1.0)."""
    if y.ndim != 1 or y.dtype.kind not in "biuf":
        return False
    if y.dtype.kind != "f":
        return True
    return y.dtype in (np.float32, np.float64) and are_whole_numbers(y)  # (a compiled pass: 202 labels 10 -> 3 us)


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
        parallel: None or -1 for every core, 1 for one at a time. They share
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
    >>> print(model.kkt_report())
    KKT report of 3 training points
      not a support vector                1
      on the margin                       2
      bounded, inside the margin          0
      bounded, misclassified              0
      largest KKT violation        0.000e+00
    """

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
        random_state=None,
        callback=None,
        solver="smo",
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
        self.random_state = random_state
        self.callback = callback
        self.solver = solver
        self.n_jobs = n_jobs

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
        self._check_params()
        X, y = self._validate_train_X(X, y)
        if not _are_class_labels(y):  # (scikit-learn's check costs 0.35 ms)
            check_classification_targets(y)
        if y.dtype in (np.float64, np.int64) and y.flags.c_contiguous:  # (202 labels: 20 -> 7 us)
            classes, y_index = class_indices(y)
        else:
            classes, y_index = np.unique(y, return_inverse=True)
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
        self.classes_ = classes
        upper = self._upper_bounds(weights, y_index)
        self.shape_fit_ = X.shape
        self.kernel_, gram = self._build_kernel(X)

        problems = self._problems(classes.shape[0])
        models = model = None
        solve_all = (self._two_class_in_one_call(gram, y_index, upper, problems)
                     or self._pairs_in_compiled_calls(X, gram, y_index, upper, problems))
        if solve_all is not None:
            variables, model = self._fit_in_one_compiled_call(solve_all)
        else:
            models, variables = self._fit_problems(X, gram, y_index, upper, problems)
        self._set_models(problems, models, variables)
        self.problem_classes_ = [(classes[a], classes[b] if b is not None else "rest") for a, b in problems]
        self._set_libsvm_attributes(X, y_index, variables, model)
        if self.probability:
            with blas_threads_for(*self._blas_shape(X, self._problem_sizes(y_index, problems))):
                self._fit_probability(gram, X, y_index, upper)
        else:
            self.probA_ = self.probB_ = np.empty(0)
        return self

    def _set_models(self, problems, models, variables):
        """Keep the fitted ``problems`` (``(positive, negative)`` class indices): their ``models``
        as :attr:`binary_models_`, or, where their solutions were read at once (``models`` None),
        their ``variables`` (:class:`StackedVariables`), of which :attr:`binary_models_` is made
        when first read (wine, 3 problems, each fit after a oneDAL fit: 15 us of a 260 us fit)."""
        self._problem_pairs = problems
        self._variables = variables if models is None else None
        if models is None:
            vars(self).pop("binary_models_", None)  # (that of an earlier fit)
        else:
            self.binary_models_ = models

    @cached_property
    def binary_models_(self):
        """The fitted two-class problems (:class:`BinaryModel`), each with its own multipliers
        and theory; see the class's Attributes."""
        variables = vars(self).get("_variables")
        if variables is None:
            raise AttributeError(f"{type(self).__name__} has no binary_models_: it is not fitted.")
        return variables.models(self._problem_pairs)

    def _problem_sizes(self, y_index, problems):
        """The rows of each of ``problems``: all rows (one-vs-rest, two classes), or those of
        the two classes of a pair."""
        counts = np.bincount(y_index, minlength=self.classes_.shape[0])
        return [y_index.shape[0] if b is None else int(counts[a] + counts[b]) for a, b in problems]

    def _blas_shape(self, X, sizes):
        """``(rows, features)`` of the largest of the problems of ``sizes`` rows, for
        :func:`blas_threads_for`."""
        return max(sizes), 1 if self._precomputed else X.shape[1]

    def _fit_problems(self, X, gram, y_index, upper, problems):
        """The two-class ``problems`` of a fit (but those of :meth:`_fit_in_one_compiled_call`)
        fitted: ``(models, None)`` where they were solved one by one, ``(None, variables)``
        (:class:`StackedVariables`) where their solutions were read at once; on the Gram matrix
        of all rows, on the class blocks of one-vs-one problems in one compiled call, or problem
        by problem (on worker threads where they are large)."""
        order, class_start = class_order(y_index, self.classes_.shape[0])
        members = [order[start:stop] for start, stop in starts_and_stops(class_start)]
        sizes = self._problem_sizes(y_index, problems)
        pair_values = sum(size**2 for size in sizes)
        parallel = pair_values >= _PARALLEL_FIT_VALUES
        n_workers = min(resolve_n_jobs(self.n_jobs), len(problems)) if parallel else 1
        one_call = not self._uses_qp()

        def problem_data(pair):
            positive, negative = pair
            if negative is None or len(problems) == 1:
                indices = np.arange(X.shape[0])
                labels = np.where(y_index == positive, 1.0, -1.0)
            else:  # LIBSVM's order: the samples of the first class, then those of the second
                indices, labels, _ = one_vs_one_rows(order, class_start, np.array([positive]), np.array([negative]))
            return indices, labels, upper[indices]

        pairs_at_once = self._duals_at_once(len(problems)) and problems[0][1] is not None

        def problem_duals(problem_gram):
            if pairs_at_once:
                return c_svc_pair_duals(order, class_start, upper, problems)
            return [self._binary_dual(problem_gram, X, *problem_data(pair)) for pair in problems]

        # (each problem sets its BLAS threads too: done once here for problems of thin blocks; the
        # probability fits' pair Gram matrices too, whose threads contended with other libraries':
        # heart, probability=True, interleaved with scikit-learn and sklearnex: 20 ms a fit, 4 ms alone)
        blas_shape = self._blas_shape(X, sizes)
        # one-vs-one problems whose class strips fit take one compiled call (with strips and groups
        # of problems on worker threads) also where the problems would go to workers one by one
        # (alternating in one process, 26 classes of make_classification, 16 features: 2,500 rows
        # RBF 104 -> 57 ms, linear 148 -> 94 ms; 5,000 rows 177 -> 156 and 266 -> 220 ms)
        # (one problem solved by SMO: its solver sets the same threads itself)
        with contextlib.nullcontext() if one_call and len(problems) == 1 else blas_threads_for(*blas_shape):
            shared = self._gram_of_all_rows(gram, problems) if one_call and n_workers == 1 else None
            if shared is not None:
                return self._fit_in_one_call(
                    shared, problem_duals(shared), problems, self.cache_size, self._subsets_in_one_call
                )
            problem_gram, cache_size = shared_class_blocks(gram, members, problems, self.cache_size, n_workers)

            def fit_problem(pair):
                return self._fit_binary(problem_gram, X, *problem_data(pair), *pair, cache_size)

            if one_call and pairs_fit_in_one_call(problem_gram, problems, self.cache_size):
                return self._fit_in_one_call(
                    problem_gram, problem_duals(problem_gram), problems, cache_size,
                    lambda pair_gram, duals: self._pairs_in_one_call(pair_gram, duals, problems, pair_values),
                )
            return map_in_threads(fit_problem, problems, n_workers), None

    def _upper_bounds(self, weights, y_index):
        """``U_i = C * class_weight[y_i] * sample_weight_i`` (``inf`` for a hard margin).

        Called before any kernel evaluation; other formulations check their
        parameters against the data here.
        """
        if math.isinf(self.C):
            return np.where(weights > 0, np.inf, 0.0)
        return self.C * weights

    def _problems(self, n_classes):
        if n_classes == 2:
            return [(1, 0)]
        if self.multiclass == "ovr":
            return [(k, None) for k in range(n_classes)]
        return list(combinations(range(n_classes), 2))

    def _fit_binary(self, gram, X, indices, labels, upper, positive, negative, cache_size=None):
        problem = self._binary_dual(gram, X, indices, labels, upper)
        return self._binary_model(problem, self._solve_binary(gram, problem, cache_size), positive, negative)

    def _solve_binary(self, gram, problem, cache_size=None):
        """The solution of one two-class dual, by SMO or the QP library."""
        return solve_dual_qp(gram, problem) if self._uses_qp() else self._solve(gram, problem, cache_size)

    def _uses_qp(self):
        """Whether the duals go to the QP library (``solver='qp'``) instead of SMO."""
        return self.solver == "qp"

    def _binary_dual(self, gram, X, indices, labels, upper):
        """The dual of the two-class problem of the samples ``indices`` (after the check that a
        hard margin exists)."""
        if math.isinf(self.C):
            keep = upper > 0
            if not is_separable(gram, self.kernel_, X, indices[keep], labels[keep]):
                kernel_name = self.kernel if isinstance(self.kernel, str) else type(self.kernel).__name__
                raise NotSeparableError(
                    f"The data are not separable with the {kernel_name} kernel, so the hard-margin SVM "
                    "(C=inf) has no solution: use a finite C (soft margin) or a more flexible kernel."
                )
        return c_svc_dual(indices, labels, upper)

    def _c_svc_in_compiled_code(self):
        """Whether the duals can be built and their solutions read in compiled code: C-SVC
        with a finite C (no problem's separability to check)."""
        return math.isfinite(self.C)

    def _duals_at_once(self, n_problems):
        """Whether the duals of ``n_problems`` problems are built at once, and their solutions
        read at once: :meth:`_c_svc_in_compiled_code`, from ``_PROBLEMS_AT_ONCE`` problems."""
        return n_problems >= _PROBLEMS_AT_ONCE and self._c_svc_in_compiled_code()

    def _binary_model(self, problem, solution, positive, negative):
        """The fitted two-class problem from the solution of its dual."""
        alpha, b, yf = c_svc_solution(problem, solution)
        return BinaryModel(
            positive_class=positive,
            negative_class=negative,
            indices=problem.rows,
            y=problem.y,
            alpha=alpha,
            upper=problem.upper,
            intercept=b,
            yf=yf,
            n_iter=solution.n_iter,
            gap=solution.gap,
            status=solution.status,
        )

    def _fit_in_one_call(self, gram, duals, problems, cache_size, solve_all):
        """``problems`` fitted from their ``duals``, as :meth:`_fit_problems` returns them: their
        models, or the :class:`StackedVariables` of all where their solutions were read at
        once. ``solve_all`` solves the duals
        in one compiled call (one-vs-one: :func:`svmkit._class_blocks.solve_pairs_in_one_call`, digits, 45 problems
        of some 270 rows, RBF 15.6 ms instead of 21.0, linear 15.5 instead of 20.5;
        one-vs-rest: :func:`svmkit._stacked.solve_subsets_in_one_call` on the Gram matrix of all
        rows, digits' first 700 rows, 10 problems, RBF 14.5 ms instead of 40.6, linear 18.4
        instead of 35.4), unless it returns None (nu-SVC leaves out samples of weight 0): then
        one by one."""
        solutions = self._solutions(gram, duals, solve_all, cache_size)
        if not self._duals_at_once(len(duals)):
            models = [self._binary_model(dual, solution, *pair) for dual, solution, pair in zip(duals, solutions, problems)]
            return models, None
        duals, solutions = StackedDuals.of(duals), StackedSolutions.of(solutions)
        return None, self._stacked_variables(duals, solutions, *c_svc_solutions(duals, solutions))

    def _pairs_in_compiled_calls(self, X, gram, y_index, upper, pairs):
        """``solve_all`` of :meth:`_fit_in_one_compiled_call` where the one-vs-one problems
        ``pairs`` are built, solved, read and laid out by compiled calls with no Python per
        problem (C-SVC by SMO with a finite C), else None:

        - fits of so few rows that the Gram matrix of all rows would do
          (:meth:`_fits_gram_of_all_rows`): one compiled call, on kernel rows that it computes
          where :func:`svmkit._solver.compiled_row_kernel` allows
          (:func:`svmkit.svm._formulations.c_svc_pairs_on_own_rows_in_one_call`), else on that
          Gram matrix (:func:`svmkit.svm._formulations.c_svc_pairs_in_one_call`);
        - every problem small enough for a float64 Gram matrix of its own, groups of problems
          on ``n_jobs`` threads where they are many (``_PARALLEL_PAIR_VALUES``), instead of
          the problems of :meth:`_fit_problems`:

          - a precomputed kernel (a float64 matrix that the compiled code may read): on the
            rows of the user's matrix that the calls copy as their solvers ask for them, not
            on each problem's whole Gram matrix gathered from it and solved from Python (fit
            time over LIBSVM's, ``benchmarks/precomputed.py``: digits' 1,347 training rows,
            RBF 1.60 -> 0.45, linear 1.70 -> 0.37; usps' first 2,000 rows 1.75 -> 0.43 and
            1.83 -> 0.36; since each row is copied in the solver's round, not after a return
            from it, digits 0.33 and 0.28, usps 0.31 and 0.24);
          - the linear kernel on dense data of at most ``_OWN_ROWS_LINEAR_FEATURES``
            features: on kernel rows that the calls compute, instead of the class strips,
            and of the strips' type (float32 from 4 MB of their values: digits).
        """
        if pairs[0][1] is None or not self._duals_at_once(len(pairs)) or self._uses_qp():
            return None
        n_classes = self.classes_.shape[0]
        if self._fits_gram_of_all_rows(X.shape[0], pairs):
            row_kernel = compiled_row_kernel(gram)
            if row_kernel is None:
                with blas_threads_for(X.shape[0], 1 if self._precomputed else X.shape[1]):
                    matrix = gram.K if self._precomputed else gram.square()
                return lambda *options: c_svc_pairs_in_one_call(matrix, y_index, n_classes, upper, pairs, *options)
            map_groups = None
        else:
            sizes = self._problem_sizes(y_index, pairs)
            if full_gram_dtype(max(sizes), self.cache_size * 2**20) != np.float64:
                return None
            map_groups = self._pair_groups_on_workers(sum(size**2 for size in sizes))
            if self._precomputed:
                if not gram.is_plain_float64():  # (a read-only matrix: other compiled code)
                    return None
                return lambda *options: c_svc_pairs_on_gram_rows_in_one_call(
                    gram.K, y_index, n_classes, upper, pairs, *options, map_groups=map_groups
                )
            strips_dtype = class_strip_dtype(np.bincount(y_index, minlength=n_classes))
            row_kernel = linear_row_kernel(gram, strips_dtype, _OWN_ROWS_LINEAR_FEATURES)
            if row_kernel is None:
                return None
        diag = gram.diag()
        return lambda *options: c_svc_pairs_on_own_rows_in_one_call(
            row_kernel, diag, y_index, n_classes, upper, pairs, *options, map_groups=map_groups
        )

    def _two_class_in_one_call(self, gram, y_index, upper, problems):
        """``solve_all`` of :meth:`_fit_in_one_compiled_call` where a two-class fit is solved in
        one compiled call: C-SVC by SMO (:meth:`_c_svc_in_compiled_code`) with no progress to
        report, on kernel rows that the full-Gram solver computes itself
        (:func:`svmkit._solver.full_gram_row_kernel`) or on the Gram matrix of all rows
        (:func:`svmkit._solver.two_class_gram`); else None. Fit time over LIBSVM's, alternating
        in one process, each fit after a oneDAL fit: heart RBF 0.414 -> 0.297, linear 0.400 ->
        0.342; breast cancer 0.341 -> 0.287 and 0.395 -> 0.356 (own rows); 208 x 60 RBF 0.328
        -> 0.243, 351 x 34 RBF 0.281 -> 0.243 (BLAS rows)."""
        if (len(problems) != 1 or not self._c_svc_in_compiled_code() or self._uses_qp() or self.verbose
                or self.callback is not None):
            return None
        if (row_kernel := full_gram_row_kernel(gram, self.cache_size, self.max_iter)) is not None:
            return lambda *options: c_svc_two_class_in_one_call(row_kernel, gram.diag(), y_index, upper, *options)
        if (K := two_class_gram(gram, self.cache_size, self.max_iter)) is not None:
            return lambda *options: c_svc_two_class_on_gram_in_one_call(K, gram.diag(), y_index, upper, *options)
        return None

    def _fit_in_one_compiled_call(self, solve_all):
        """The :class:`StackedVariables` of the fitted problems and their arrays in LIBSVM's
        layout, from ``solve_all(tol, max_iter, shrinking, verbose, callback)``, one
        compiled call that builds, solves, reads and lays out their duals and returns their
        :class:`svmkit._stacked.StackedDuals`, :class:`svmkit._stacked.StackedSolutions`,
        biases, ``y f(x)`` and layout (:func:`svmkit.svm._formulations.c_svc_two_class_in_one_call`,
        :func:`svmkit.svm._formulations.c_svc_pairs_in_one_call`,
        :func:`svmkit.svm._formulations.c_svc_pairs_on_own_rows_in_one_call`)."""
        if self.verbose:
            enable_logging()
        duals, solutions, biases, margins, model = solve_all(*self._one_call_options())
        if solutions.status.any():  # (not all OPTIMAL, 0)
            for solution in solutions:
                self._warn_unless_optimal(solution)
        return self._stacked_variables(duals, solutions, biases, margins), model

    @staticmethod
    def _stacked_variables(duals, solutions, biases, margins):
        """The :class:`StackedVariables` of problems from their
        :class:`svmkit._stacked.StackedDuals`, their :class:`svmkit._stacked.StackedSolutions`
        and the biases and ``y f(x)`` read from these."""
        return StackedVariables(
            duals.bounds, duals.rows, duals.y, solutions.alpha, duals.upper, margins, biases, solutions.n_iter,
            solutions.gap, solutions.status,
        )

    def _solutions(self, gram, duals, solve_all, cache_size=None):
        """The solutions of ``duals``: from ``solve_all(gram, duals)``, one compiled call for all,
        or where that returns None (or the QP library solves), one by one."""
        if self.verbose:
            enable_logging()
        solutions = None if self._uses_qp() else solve_all(gram, duals)
        if solutions is None:
            return [self._solve_binary(gram, dual, cache_size) for dual in duals]
        if solutions.status.any():  # (not all OPTIMAL, 0; no view of each solution made for nothing: digits 38 us)
            for solution in solutions:
                self._warn_unless_optimal(solution)
        return solutions

    def _one_call_options(self):
        """``(tol, max_iter, shrinking, verbose, callback)`` for the solvers of many problems in
        one call."""
        return self.tol, self.max_iter, self.shrinking, bool(self.verbose), self.callback

    def _pairs_in_one_call(self, gram, duals, pairs, pair_values):
        """:func:`svmkit._class_blocks.solve_pairs_in_one_call` with this estimator's settings,
        its kernel strips on ``n_jobs`` threads where they are large (``_PARALLEL_STRIP_WORK``),
        and its groups of problems where their ``pair_values`` (the sum of their squared sizes,
        counted from the classes' sizes: no view of each dual made for it, digits 67 us) are
        many (``_PARALLEL_PAIR_VALUES``)."""
        n_workers = resolve_n_jobs(self.n_jobs)

        def on_workers(function, items):
            return map_in_threads(function, items, n_workers)

        strip_work = gram.class_strip_values() * gram.n_features
        map_blocks = on_workers if n_workers > 1 and strip_work >= _PARALLEL_STRIP_WORK else None
        return solve_pairs_in_one_call(
            gram, duals, pairs, *self._one_call_options(), map_blocks=map_blocks,
            map_groups=self._pair_groups_on_workers(pair_values),
        )

    def _pair_groups_on_workers(self, pair_values):
        """``map_groups`` of one-vs-one problems solved in compiled calls: their groups on
        ``n_jobs`` threads where the problems' ``pair_values`` (the sum of their squared sizes)
        are many (``_PARALLEL_PAIR_VALUES``); else None (one call for all)."""
        n_workers = resolve_n_jobs(self.n_jobs)
        if n_workers > 1 and pair_values >= _PARALLEL_PAIR_VALUES:
            return lambda function, groups: map_in_threads(function, groups, n_workers)
        return None

    def _subsets_in_one_call(self, gram, duals):
        """:func:`svmkit._stacked.solve_subsets_in_one_call` with this estimator's settings."""
        return solve_subsets_in_one_call(gram, duals, self.cache_size, *self._one_call_options())

    def _fits_gram_of_all_rows(self, n_rows, problems):
        """Whether ``problems`` are solved on the Gram matrix of all ``n_rows`` rows: two or more
        one-vs-rest problems (each on every row), or one-vs-one problems of at most
        ``_ONE_VS_ONE_ALL_ROWS`` rows in all, where that matrix is small enough for float64 and
        fits in half of ``cache_size``."""
        few_rows = problems[0][1] is None or n_rows <= _ONE_VS_ONE_ALL_ROWS  # (one-vs-rest: any number)
        return len(problems) >= 2 and few_rows and full_gram_dtype(n_rows, self.cache_size * 2**20 / 2) == np.float64

    def _gram_of_all_rows(self, gram, problems):
        """The Gram matrix of all rows computed once, where :meth:`_fits_gram_of_all_rows`;
        else None."""
        if not self._fits_gram_of_all_rows(gram.n_rows, problems):
            return None
        return PrecomputedGram(gram.K if self._precomputed else gram.square(), rows_are_copies=True)

    def _fit_probability(self, gram, X, y_index, upper):
        """probA_ and probB_ of each one-vs-one pair (LIBSVM's ``svm_binary_svc_probability``).

        As LIBSVM, a pair's samples (positive weights only) are those of class
        ``i`` then those of class ``j`` in training order, labelled +1 and -1,
        and every pair is shuffled from the same seed.
        """
        seed = draw_seed(check_random_state(self.random_state))
        prob_a, prob_b = [], []
        for i, j in combinations(range(self.classes_.shape[0]), 2):
            rows = np.concatenate([np.flatnonzero((y_index == k) & (upper > 0)) for k in (i, j)])
            labels = np.where(y_index[rows] == i, 1.0, -1.0)
            fit_and_decide = self._held_out_decisions(gram, X, rows, labels, upper, i, j)
            decisions = cross_validated_decisions(fit_and_decide, labels, seed)
            a, b = sigmoid_train(decisions, labels)
            prob_a.append(a)
            prob_b.append(b)
        self.probA_ = np.array(prob_a)
        self.probB_ = np.array(prob_b)

    def _held_out_decisions(self, gram, X, rows, labels, upper, positive, negative):
        """``fit_and_decide(trains, helds)`` for :func:`cross_validated_decisions` on one pair.

        The pair's Gram matrix is computed once for its five fits and their decision values
        where it fits in ``cache_size`` (digits, probability=True, RBF: 382 ms a fit instead of
        449, linear 364 instead of 507), and the five are then solved in one compiled call
        (:func:`svmkit._stacked.solve_subsets_in_one_call`: 212 ms instead of 294 and 204 instead
        of 261).
        """
        n = rows.shape[0]
        if not self._precomputed and n * n * 8 <= self.cache_size * 2**20:
            gram = PrecomputedGram(gram.block(rows, rows), rows_are_copies=True)
            X, upper, rows = X[rows], upper[rows], np.arange(n)

        def fit_and_decide(trains, helds):
            duals = [self._binary_dual(gram, X, rows[train], labels[train], upper[rows[train]]) for train in trains]
            solutions = self._solutions(gram, duals, self._subsets_in_one_call)
            decisions = []
            for dual, solution, held in zip(duals, solutions, helds):
                model = self._binary_model(dual, solution, positive, negative)
                if model.support.shape[0] == 0:
                    decisions.append(np.full(held.shape[0], model.intercept))
                else:
                    decisions.append(gram.block(rows[held], model.support) @ model.dual_coef + model.intercept)
            return decisions

        return fit_and_decide

    def _set_libsvm_attributes(self, X, y_index, variables=None, model=None):
        """support_, dual_coef_, intercept_, ... in scikit-learn's (LIBSVM's) layout.

        ``model``: the eight arrays of
        :func:`svmkit._core.libsvm_layout.libsvm_layout_and_objectives`, where the solver's
        compiled call returned them; else they come from one compiled pass over the models'
        variables (``variables``, their :class:`StackedVariables`, or joined from the models).
        """
        n_classes, n_problems, n = self.classes_.shape[0], len(self._problem_pairs), X.shape[0]
        one_vs_one = n_classes > 2 and self.multiclass == "ovo"
        if variables is None:
            variables = StackedVariables.of(self.binary_models_)
        if model is None:
            v = variables
            first, second = self._pair_classes() if one_vs_one else (np.empty(0, dtype=np.int64),) * 2
            model = libsvm_layout_and_objectives(
                v.bounds, v.indices, v.y, v.alpha, v.upper, v.yf, v.intercept, y_index, n, n_classes, first, second
            )
        support, n_support, problem_coef, dual_coef, *objectives = model
        self.support_ = support.astype(np.int32)
        self.n_support_ = n_support.astype(np.int32)
        if self._precomputed:
            self.support_vectors_ = np.empty((0, X.shape[1]))
        else:
            self.support_vectors_ = X[support]
        # problem_coef_[s, p]: coefficient of support vector s in problem p
        self._problem_coef = problem_coef
        self.dual_coef_ = dual_coef if one_vs_one else problem_coef.T.copy()
        self.intercept_ = variables.intercept
        self.n_iter_ = variables.n_iter.astype(np.int64)
        self.fit_status_ = int(variables.status.any())
        self.loo_bound_ = float(support.shape[0] / n)
        self._decision_model()  # (now, while its arrays are in the caches: the first prediction's
        # 45 test rows, 3 classes, RBF, took 26 us instead of 33 with scikit-learn's and oneDAL's fits after each)

        # alpha_ and slack_ are filled when first read: with many classes they are large and
        # mostly empty (26 classes, 5,000 rows: 26 MB; with the objectives of all problems at once,
        # these attributes took 21 ms of a 210 ms fit instead of 28 ms)
        self._n_training_rows = n
        for name in ("alpha_", "slack_"):
            vars(self).pop(name, None)  # (those of an earlier fit)
        if n_problems == 1:  # (Python floats)
            objectives = [float(values[0]) for values in objectives]
        self.margin_, self.dual_objective_, self.primal_objective_, self.duality_gap_ = objectives

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
        """
        check_is_fitted(self)
        if problem is None:
            if len(self.binary_models_) != 1:
                raise ValueError(
                    f"This model has {len(self.binary_models_)} two-class problems; pass problem= "
                    f"(see problem_classes_)."
                )
            problem = 0
        return self.binary_models_[problem].kkt_report()

    # -- prediction -------------------------------------------------------------
    def _problem_decisions(self, X):
        decisions = self._small_decisions(X)
        return self._kernel_problem_decisions(X) if decisions is None else decisions

    def _kernel_problem_decisions(self, X):
        """The problems' decision values by kernel blocks (:meth:`_kernel_decision`), ``X`` checked
        as usual: where :meth:`_small_decisions` does not apply."""
        X = self._validate_test_X(X)
        one_vs_one = self.multiclass == "ovo" and self.classes_.shape[0] > 2
        make_combine = self._class_by_class_products if one_vs_one else None
        return self._kernel_decision(X, self._problem_coef, self.intercept_, make_combine)

    def _decision_coef(self):
        """``_problem_coef``: column ``p`` holds the coefficients of the support vectors in problem ``p``."""
        return self._problem_coef

    def _class_by_class_products(self):
        """``K(X, SV) -> K(X, SV) @ _problem_coef`` one class at a time: the support vectors of
        a class enter only its ``n_classes - 1`` problems, so each class's columns multiply its
        rows of ``dual_coef_`` (``n_SV (n_classes - 1)`` products per sample instead of
        ``n_SV n_classes (n_classes - 1) / 2``: digits, 10 classes, 5 times fewer). Each class's
        products go to a slab of their own, and problem ``(a, b)`` adds its two columns (in
        the order of the classes, as the sum over all support vectors would): digits, 225 rows,
        0.20 ms a block instead of 0.32 ms with each class's products added to the problems'
        columns in place."""
        n_classes = self.classes_.shape[0]
        bounds = np.concatenate([[0], np.cumsum(self.n_support_)])
        coefs = [np.ascontiguousarray(self.dual_coef_[:, start:stop].T) for start, stop in starts_and_stops(bounds)]
        # row r of dual_coef_ holds a support vector's coefficient against class r (r < k) or r + 1
        first, second = self._pair_classes()

        def combine(block):
            products = np.empty((n_classes, block.shape[0], n_classes - 1))
            for k, coef in enumerate(coefs):
                np.matmul(block[:, bounds[k] : bounds[k + 1]], coef, out=products[k])
            return (products[first, :, second - 1] + products[second, :, first]).T

        return combine

    def decision_function(self, X):
        """Signed distances to the decision boundaries, in units of ``1/||w||``.

        Two classes: shape (n_samples,), positive for ``classes_[1]``.
        One-vs-one: (n_samples, n_classes * (n_classes - 1) / 2) positive for the
        first class of each pair, or the (n_samples, n_classes) one-vs-rest
        aggregate when ``decision_function_shape='ovr'`` (as scikit-learn).
        One-vs-rest: (n_samples, n_classes).
        """
        n_classes = self.classes_.shape[0] if self.__sklearn_is_fitted__() else 0
        ovr_of_pairs = n_classes > 2 and self.multiclass == "ovo" and self.decision_function_shape == "ovr"
        # (one try of the compiled path, with the one-vs-rest scores where they are asked for)
        decisions = self._small_decisions(X, n_classes if ovr_of_pairs else 0)
        if decisions is None:
            decisions = self._kernel_problem_decisions(X)
            if ovr_of_pairs:
                return ovr_scores(decisions, *self._pair_classes(), n_classes)
        return decisions[:, 0] if n_classes == 2 else decisions

    def predict(self, X):
        """Class labels: the sign for two classes, votes for one-vs-one (ties go
        to the first class, as LIBSVM), the largest decision for one-vs-rest."""
        decisions = self._problem_decisions(X)
        n_classes = self.classes_.shape[0]
        if n_classes == 2:
            return self.classes_[(decisions[:, 0] > 0).astype(int)]
        if self.multiclass == "ovr":
            return self.classes_[np.argmax(decisions, axis=1)]
        votes = one_vs_one_votes(decisions, *self._pair_classes(), n_classes)
        return self.classes_[np.argmax(votes, axis=1)]

    def _pair_classes(self):
        """The first and second class of each one-vs-one problem (int64 arrays; none for
        one-vs-rest problems)."""
        pairs = self._problem_pairs
        if any(negative is None for _, negative in pairs):
            return super()._pair_classes()
        return pair_class_arrays(pairs)

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
        Weng 2004, method 2), as LIBSVM. See the Notes of the class on how
        they relate to :meth:`predict`.
        """
        check_is_fitted(self)
        if self.probA_.shape[0] == 0:
            raise NotFittedError("predict_proba is not available: the model was fitted with probability=False.")
        decisions = self._problem_decisions(X)
        if self.classes_.shape[0] == 2:
            decisions = -decisions  # LIBSVM's pair (0, 1) is positive for classes_[0]
        return pairwise_probabilities(decisions, self.probA_, self.probB_, self.classes_.shape[0])

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
