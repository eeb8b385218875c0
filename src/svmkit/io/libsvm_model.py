"""Read and write LIBSVM model files (what ``svm-train`` writes) for every svm type.

A model file is a header, one ``keyword values...`` per line::

    svm_type c_svc           (c_svc, nu_svc, one_class, epsilon_svr or nu_svr)
    kernel_type rbf          (linear, polynomial, rbf, sigmoid or precomputed)
    gamma 0.5                (polynomial, rbf and sigmoid)
    nr_class 3               (2 for one_class, epsilon_svr and nu_svr)
    total_sv 40
    rho 0.1 -0.2 0.05        (one per pair of classes; one value otherwise)
    label 1 2 3              (c_svc and nu_svc)
    probA ... / probB ...    (Platt parameters of classifiers fitted for probabilities;
                              probA alone: the Laplace scale of a regression model)
    prob_density_marks ...   (one_class models fitted for probabilities, LIBSVM 3.30 and later)
    nr_sv 12 15 13           (c_svc and nu_svc: support vectors of each class)
    SV

followed by one line per support vector, grouped by class in ``label``
order: ``nr_class - 1`` coefficients, then ``index:value`` for its nonzero
features (1-based), or ``0:serial`` (its 1-based row in the training set)
for a precomputed kernel. ``degree`` (polynomial) and ``coef0`` (polynomial,
sigmoid) complete the header of the kernels that have them.

For the pair ``(i, j)`` of the ``i``-th and ``j``-th labels (``i < j``),
LIBSVM's decision value is ``sum_s c_s K(x_s, x) - rho``, where ``c_s`` is
row ``j - 1`` of the coefficients for the support vectors of label ``i`` and
row ``i`` for those of label ``j``; a positive value votes for label ``i``.
LIBSVM lists the labels in the order of their first appearance in the
training data (:func:`libsvm_label_order`); svmkit sorts its classes and,
with two classes, calls ``classes_[1]`` the positive one. This module
converts both ways, so a model predicts the same labels and decision values
in LIBSVM and in svmkit. One-class and regression models have one decision
function, ``sum_s c_s K(x_s, x) - rho``, that is svmkit's with
``intercept_ = -rho``. Numbers are written with 17 significant digits
(``%.17g``), enough for float64 to read back exactly.

The Platt parameters ``probA_`` and ``probB_`` of a classifier are kept for
svmkit's sorted pairs; a pair that the file lists in the other order has the
sign of ``probB`` changed, both ways. :func:`predict_as_libsvm` and
:func:`predict_proba_as_libsvm` predict as LIBSVM's ``svm-predict`` does
(votes and probabilities in the file's label order).

Examples
--------
>>> import io
>>> import numpy as np
>>> from svmkit import SVC
>>> from svmkit.io import load_libsvm_model, save_libsvm_model
>>> X = np.array([[0.0, 1.0], [1.0, 1.0], [2.0, 0.0], [3.0, 0.0]])
>>> y = np.array([-1, -1, 1, 1])
>>> model = SVC(kernel="linear", C=10.0).fit(X, y)
>>> buffer = io.BytesIO()
>>> save_libsvm_model(model, buffer)
>>> reloaded = load_libsvm_model(io.BytesIO(buffer.getvalue()))
>>> reloaded.predict(X)
array([-1, -1,  1,  1])
>>> bool(np.allclose(reloaded.decision_function(X), model.decision_function(X), rtol=1e-12))
True
"""

from __future__ import annotations

import math
import operator
import os
from itertools import combinations

import numpy as np
import scipy.sparse as sp

from .libsvm_data import MAX_FEATURES, LibsvmFormatError, _read_bytes

__all__ = [
    "load_libsvm_model",
    "save_libsvm_model",
    "check_libsvm_model",
    "libsvm_label_order",
    "predict_as_libsvm",
    "predict_proba_as_libsvm",
]

#: LIBSVM's kernel_type names and svmkit's kernel names.
_KERNEL_NAMES = {"linear": "linear", "polynomial": "poly", "rbf": "rbf", "sigmoid": "sigmoid", "precomputed": "precomputed"}
_KERNEL_TYPES = {name: kernel_type for kernel_type, name in _KERNEL_NAMES.items()}
#: The header keywords each LIBSVM kernel type needs.
_KERNEL_PARAMETERS = {
    "linear": (),
    "polynomial": ("degree", "gamma", "coef0"),
    "rbf": ("gamma",),
    "sigmoid": ("gamma", "coef0"),
    "precomputed": (),
}
#: LIBSVM's svm types and the svmkit estimators (in svmkit.svm) that they are.
_ESTIMATOR_NAMES = {
    "c_svc": "SVC",
    "nu_svc": "NuSVC",
    "one_class": "OneClassSVM",
    "epsilon_svr": "SVR",
    "nu_svr": "NuSVR",
}
_CLASSIFIER_TYPES = ("c_svc", "nu_svc")
_REGRESSION_TYPES = ("epsilon_svr", "nu_svr")
#: Number of values of prob_density_marks (LIBSVM's nr_marks).
_N_DENSITY_MARKS = 10
_LARGEST_LABEL = 2**31 - 1


def _svm_module():
    from .. import svm  # (imported when a model is read or written: it loads the solver)

    return svm


def _svm_type(model):
    """LIBSVM's svm_type of an svmkit estimator (its exact class), or None."""
    svm = _svm_module()
    for svm_type, name in _ESTIMATOR_NAMES.items():
        if type(model).__name__ == name and type(model) is getattr(svm, name):  # (imports that class only)
            return svm_type
    return None


def libsvm_label_order(y):
    """The classes of ``y`` in the order LIBSVM's ``svm-train`` lists them.

    LIBSVM (``svm_group_classes``) orders the labels by their first
    appearance in the training data, except that two classes -1 and +1 are
    always listed as ``1 -1``, so that its decision values are positive for +1.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Training labels.

    Returns
    -------
    ndarray
        The distinct labels of ``y``.

    Examples
    --------
    >>> libsvm_label_order([3, 1, 3, 2]).tolist()
    [3, 1, 2]
    >>> libsvm_label_order([-1.0, 1.0, 1.0]).tolist()
    [1.0, -1.0]
    """
    y = np.asarray(y)
    labels, first = np.unique(y, return_index=True)
    labels = labels[np.argsort(first, kind="stable")]
    if labels.shape[0] == 2 and labels[0] == -1 and labels[1] == 1:
        labels = labels[::-1]
    return labels


def save_libsvm_model(model, target, labels=None):
    """Write a fitted SVM as a LIBSVM model file.

    LIBSVM's ``svm-predict`` (or ``svmutil.svm_load_model``) then predicts
    the same labels, decision values and probabilities as ``model``.

    Parameters
    ----------
    model : SVC, NuSVC, OneClassSVM, SVR or NuSVR
        A fitted model, written as ``c_svc``, ``nu_svc``, ``one_class``,
        ``epsilon_svr`` or ``nu_svr``. A classifier has two classes, or more
        with ``multiclass='ovo'``, and integer classes (LIBSVM's labels are
        ``int``). The kernel is 'linear', 'poly', 'rbf', 'sigmoid',
        'precomputed' or one of the matching kernel objects.
    target : str, os.PathLike or binary file object
        Where to write.
    labels : array-like, optional
        Classifiers: the classes in the order the file lists them, which
        orders the support vectors, the pairs, the signs of ``rho`` and the
        columns of LIBSVM's probabilities. ``svmkit train`` passes
        :func:`libsvm_label_order` of the training labels, as ``svm-train``
        writes them. By default the order of the file the model was read
        from (``libsvm_labels_``), else ``classes_``.

    Raises
    ------
    TypeError
        If ``model`` is not one of these estimators.
    ValueError
        If LIBSVM cannot express the model (:func:`check_libsvm_model`).

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> from svmkit import SVC
    >>> X = np.array([[0.0, 1.0], [1.0, 1.0], [2.0, 0.0], [3.0, 0.0]])
    >>> model = SVC(kernel="linear", C=10.0).fit(X, [-1, -1, 1, 1])
    >>> model.dual_coef_, model.intercept_
    (array([[-1.,  1.]]), array([-1.]))
    >>> buffer = io.BytesIO()
    >>> save_libsvm_model(model, buffer)
    >>> print(buffer.getvalue().decode(), end="")
    svm_type c_svc
    kernel_type linear
    nr_class 2
    total_sv 2
    rho -1
    label -1 1
    nr_sv 1 1
    SV
    1 1:1 2:1
    -1 1:2

    LIBSVM's decision is positive for the first label, here -1, so the
    coefficients are ``-dual_coef_`` and ``rho`` is ``intercept_``. With
    LIBSVM's order for these labels, ``1 -1``:

    >>> buffer = io.BytesIO()
    >>> save_libsvm_model(model, buffer, labels=[1, -1])
    >>> print(buffer.getvalue().decode().split("SV\\n")[0], end="")
    svm_type c_svc
    kernel_type linear
    nr_class 2
    total_sv 2
    rho 1
    label 1 -1
    nr_sv 1 1
    """
    svm_type = check_libsvm_model(model)
    if not hasattr(model, "intercept_"):
        raise ValueError(f"This {type(model).__name__} is not fitted: fit it before writing it as a LIBSVM model.")
    header = [f"svm_type {svm_type}", *_kernel_header(model)]
    if svm_type in _CLASSIFIER_TYPES:
        header, coef, order = _classifier_header(model, header, labels)
    else:
        header, coef, order = _single_problem_header(model, header, svm_type)
    text = "\n".join(header) + "\n" + "".join(_sv_lines(model, coef, order))
    _write(target, text.encode("ascii"))


def check_libsvm_model(model):
    """LIBSVM's svm_type of ``model``, or an error saying why LIBSVM cannot hold it.

    Looks at the parameters (and, once fitted, the classes) only, so it
    tells before a fit whether the fitted model can be written.

    Parameters
    ----------
    model : estimator
        An svmkit SVM, fitted or not.

    Returns
    -------
    str
        'c_svc', 'nu_svc', 'one_class', 'epsilon_svr' or 'nu_svr'.

    Raises
    ------
    TypeError
        If ``model`` is not an SVC, NuSVC, OneClassSVM, SVR or NuSVR.
    ValueError
        If its kernel is not one of LIBSVM's, it is a one-vs-rest classifier
        of more than two classes, or its classes are not 32-bit integers.

    Examples
    --------
    >>> from svmkit import SVR
    >>> check_libsvm_model(SVR(kernel="linear"))
    'epsilon_svr'
    """
    svm_type = _svm_type(model)
    if svm_type is None:
        names = ", ".join(_ESTIMATOR_NAMES.values())
        raise TypeError(f"LIBSVM model files hold {names} models, got {type(model).__name__}.")
    _kernel_type(model.kernel)
    if svm_type in _CLASSIFIER_TYPES and hasattr(model, "classes_"):
        n_classes = model.classes_.shape[0]
        if n_classes > 2 and model.multiclass != "ovo":
            raise ValueError(
                "LIBSVM model files hold one-vs-one models; this classifier has multiclass='ovr' "
                f"with {n_classes} classes (refit it with multiclass='ovo')."
            )
        _integer_labels(model.classes_)
    elif svm_type in _CLASSIFIER_TYPES and model.multiclass != "ovo":
        raise ValueError("LIBSVM model files hold one-vs-one models: use multiclass='ovo' (the default).")
    return svm_type


def load_libsvm_model(source, n_features=None, max_features=MAX_FEATURES):
    """Read a LIBSVM model file as a fitted svmkit estimator.

    ``c_svc`` gives an :class:`svmkit.SVC`, ``nu_svc`` a
    :class:`svmkit.NuSVC`, ``one_class`` a :class:`svmkit.OneClassSVM`,
    ``epsilon_svr`` an :class:`svmkit.SVR` and ``nu_svr`` a
    :class:`svmkit.NuSVR`. The model predicts the labels and decision values
    that LIBSVM does (to round-off): ``decision_function`` gives svmkit's
    layout (sorted classes; with two classes, positive for the larger label).

    What the file does not hold is not available: ``C``, ``nu`` and
    ``epsilon`` (left at their defaults), the training data and so
    ``alpha_``, ``slack_``, ``margin_``, the objectives, ``loo_bound_``,
    ``n_iter_``, ``fit_status_`` and ``shape_fit_`` (except with a
    precomputed kernel). A classifier's ``binary_models_`` keep the support
    vectors' multipliers ``alpha`` and labels, with NaN for the unknown
    bounds ``C_i`` and margins ``y_i f(x_i)``, so their ``kkt_report`` says
    nothing. ``support_`` numbers the support vectors (``0, 1, ...``), or
    gives their training rows with a precomputed kernel.
    ``support_vectors_`` is a CSR matrix. ``libsvm_labels_`` (classifiers)
    holds the labels in the file's order, which :func:`save_libsvm_model`,
    :func:`predict_as_libsvm` and :func:`predict_proba_as_libsvm` follow. A
    classifier with ``probA`` and ``probB`` has ``probability=True`` and
    ``predict_proba``; ``probA`` of a regression model (the scale of
    LIBSVM's Laplace model of the errors) is kept as ``probA_``, and
    ``prob_density_marks`` of a one-class model as ``prob_density_marks_``.

    ``predict`` and ``predict_proba`` are svmkit's: with three or more
    classes whose labels are not in ascending order in the file, a tie of
    one-vs-one votes may go to another class than in LIBSVM and the
    probabilities differ within the tolerance of the iterative pairwise
    coupling; with two classes ``predict_proba`` couples the pair unless
    ``two_class_probability='sigmoid'``. :func:`predict_as_libsvm` and
    :func:`predict_proba_as_libsvm` give LIBSVM's.

    Parameters
    ----------
    source : str, os.PathLike or binary file object
        The model file, possibly compressed with gzip, bzip2 or xz.
    n_features : int, optional
        Number of features of the data to predict (for a precomputed kernel:
        number of training samples, the columns of the test kernel). By
        default the largest feature index (serial number) of the support
        vectors; give it when the data have more columns.
    max_features : int or None, default 2**24
        Largest number of features that the support vectors' largest
        feature index (or serial number) may make; None for no limit. A
        larger one raises :class:`LibsvmFormatError`, so that a small file
        cannot make predictions allocate gigabytes.

    Returns
    -------
    SVC, NuSVC, OneClassSVM, SVR or NuSVR

    Raises
    ------
    LibsvmFormatError
        A ``ValueError`` naming the problem and its line when the file is
        malformed: unknown keyword or ``svm_type``, wrong counts, bad
        numbers, a truncated file.

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> text = b'''svm_type c_svc
    ... kernel_type linear
    ... nr_class 2
    ... total_sv 2
    ... rho 0
    ... label 1 -1
    ... nr_sv 1 1
    ... SV
    ... 0.5 1:1
    ... -0.5 1:-1
    ... '''
    >>> model = load_libsvm_model(io.BytesIO(text))
    >>> model.classes_, model.predict(np.array([[2.0], [-0.5]]))
    (array([-1,  1]), array([ 1, -1]))
    >>> model.decision_function(np.array([[2.0]]))
    array([2.])
    >>> regression = load_libsvm_model(io.BytesIO(b'''svm_type epsilon_svr
    ... kernel_type linear
    ... nr_class 2
    ... total_sv 1
    ... rho -1
    ... SV
    ... 2 1:1
    ... '''))
    >>> type(regression).__name__, regression.predict(np.array([[3.0]]))
    ('SVR', array([7.]))
    """
    lines = _text_lines(_read_bytes(source))
    header, first_sv_line = _read_header(lines)
    coef, features = _read_support_vectors(lines, first_sv_line, header)
    needed = features.shape[1] if sp.issparse(features) else int(features.max(initial=0))
    if max_features is not None and needed > operator.index(max_features):
        raise LibsvmFormatError(
            f"the support vectors' largest feature index (serial number) {needed} is larger than "
            f"max_features={max_features}; pass a larger max_features to read the file")
    if header["svm_type"][0] in _CLASSIFIER_TYPES:
        return _build_classifier(header, coef, features, n_features)
    return _build_single_problem(header, coef, features, n_features)


# -- predicting as svm-predict -----------------------------------------------------------------


def _file_ranks(model):
    """For a classifier: the labels in file order and the svmkit index of each."""
    labels = np.asarray(getattr(model, "libsvm_labels_", model.classes_))
    return labels, np.searchsorted(model.classes_, labels)


def _file_decisions(model, X):
    """A classifier's decision value of each pair ``(a, b)``, ``a < b`` in file order, positive
    for ``a`` (LIBSVM's ``svm_predict_values``), and the labels in file order."""
    labels, ranks = _file_ranks(model)
    decisions = model._problem_decisions(X)
    pairs = _file_pairs(model._problem_pairs, ranks)
    return np.column_stack([sign * decisions[:, q] for q, sign in pairs]), labels, ranks


def predict_as_libsvm(model, X):
    """What LIBSVM's ``svm_predict`` gives for the rows of ``X``.

    For a classifier, each one-vs-one pair votes and the label with most
    votes wins, ties going to the label listed first in the model file
    (``libsvm_labels_``, else ``classes_``); svmkit's ``predict`` gives ties
    to the smallest label. Other models predict as svmkit does.

    Parameters
    ----------
    model : SVC, NuSVC, OneClassSVM, SVR or NuSVR
        A fitted model, typically read by :func:`load_libsvm_model`.
    X : array-like or CSR matrix
        The data (or test kernel).

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    if _svm_type(model) not in _CLASSIFIER_TYPES:
        return model.predict(X)
    decisions, labels, _ = _file_decisions(model, X)
    n_classes = labels.shape[0]
    votes = np.zeros((decisions.shape[0], n_classes), dtype=np.int64)
    for p, (a, b) in enumerate(combinations(range(n_classes), 2)):
        positive = decisions[:, p] > 0
        votes[:, a] += positive
        votes[:, b] += ~positive
    return labels[np.argmax(votes, axis=1)]


def predict_proba_as_libsvm(model, X):
    """LIBSVM's ``svm_predict_probability`` for the rows of ``X``.

    For a classifier: Platt's sigmoid of each pair's decision value, clipped
    to ``[1e-7, 1 - 1e-7]``; with two classes these are the probabilities,
    with more they are coupled (Wu, Lin and Weng 2004, method 2) in the
    file's label order, as LIBSVM does. For a one-class model with
    ``prob_density_marks_``: the probability of being normal from the marks
    (0.001 below the first, 0.999 above the last, else ``i / 10`` for the
    first mark ``i`` above the decision value) and of being an outlier.

    Parameters
    ----------
    model : SVC, NuSVC or OneClassSVM
        A fitted model with a probability model.
    X : array-like or CSR matrix

    Returns
    -------
    columns : ndarray
        The labels of the columns (file order), or ``['normal', 'outlier']``.
    probabilities : ndarray of shape (n_samples, n_columns)
    predicted : ndarray of shape (n_samples,)
        The label of largest probability (the first of equals) for a
        classifier, as ``svm-predict -b 1`` prints; the +1/-1 prediction for
        a one-class model.

    Raises
    ------
    ValueError
        If the model has no probability model.
    """
    svm_type = _svm_type(model)
    if svm_type == "one_class":
        marks = getattr(model, "prob_density_marks_", None)
        if marks is None:
            raise ValueError("the one-class model has no prob_density_marks for probability estimates")
        decisions = model.decision_function(X)
        normal = np.where(decisions < marks[0], 0.001, 0.999)
        inside = (decisions >= marks[0]) & (decisions <= marks[-1])
        first_above = np.argmax(decisions[:, np.newaxis] < marks[np.newaxis, 1:], axis=1) + 1
        normal = np.where(inside, first_above / _N_DENSITY_MARKS, normal)
        predicted = np.where(decisions > 0, 1, -1)
        return np.array(["normal", "outlier"]), np.column_stack([normal, 1.0 - normal]), predicted
    if svm_type not in _CLASSIFIER_TYPES or np.size(getattr(model, "probA_", ())) == 0:
        raise ValueError("the model has no probability model (train it with probability estimates, -b 1)")
    from ..svm._probability import MIN_PROB, pairwise_probabilities, sigmoid_predict

    decisions, labels, ranks = _file_decisions(model, X)
    prob_a, prob_b = _file_platt(model.probA_, model.probB_, ranks)
    if labels.shape[0] == 2:
        first = np.clip(sigmoid_predict(decisions[:, 0], prob_a[0], prob_b[0]), MIN_PROB, 1 - MIN_PROB)
        probabilities = np.column_stack([first, 1.0 - first])
    else:
        probabilities = pairwise_probabilities(decisions, prob_a, prob_b, labels.shape[0])
    return labels, probabilities, labels[np.argmax(probabilities, axis=1)]


# -- svmkit -> LIBSVM ------------------------------------------------------------------------


def _kernel_type(kernel):
    """LIBSVM's kernel_type of an estimator's ``kernel`` parameter."""
    if isinstance(kernel, str):
        if kernel in _KERNEL_TYPES:
            return _KERNEL_TYPES[kernel]
        name = kernel
    else:
        from ..kernels import LinearKernel, PolynomialKernel, RBFKernel, SigmoidKernel

        classes = {LinearKernel: "linear", PolynomialKernel: "polynomial", RBFKernel: "rbf", SigmoidKernel: "sigmoid"}
        if type(kernel) in classes:
            return classes[type(kernel)]
        from ..kernels import Kernel

        name = type(kernel).__name__ if isinstance(kernel, Kernel) else "a callable kernel"
    raise ValueError(
        f"LIBSVM model files support the linear, polynomial, rbf, sigmoid and precomputed kernels; this model uses {name}."
    )


def _kernel_header(model):
    """The kernel_type, degree, gamma and coef0 lines of a model."""
    kernel_type = _kernel_type(model.kernel)
    lines = [f"kernel_type {kernel_type}"]
    for name in _KERNEL_PARAMETERS[kernel_type]:
        value = getattr(model.kernel_, name)
        lines.append(f"{name} {value:d}" if name == "degree" else f"{name} {value:.17g}")
    return lines


def _classifier_header(model, header, labels):
    """The rest of a classifier's header, LIBSVM's coefficients (n_classes - 1, n_SV) and the
    order of svmkit's support vectors in the file."""
    n_classes = model.classes_.shape[0]
    if labels is None:
        labels = getattr(model, "libsvm_labels_", model.classes_)
    labels = np.asarray(labels)
    ranks = np.searchsorted(model.classes_, labels)
    valid = labels.shape == model.classes_.shape and bool(np.all(ranks < n_classes))
    if not (valid and np.array_equal(model.classes_[ranks], labels) and np.unique(ranks).shape[0] == n_classes):
        raise ValueError(f"labels must list the model's classes {model.classes_.tolist()!r} once each, got {labels.tolist()!r}.")
    starts = np.concatenate([[0], np.cumsum(model.n_support_)])
    order = np.concatenate([np.arange(starts[r], starts[r + 1]) for r in ranks])
    file_class = np.repeat(np.arange(n_classes), model.n_support_[ranks])
    pairs = _file_pairs(model._problem_pairs, ranks)
    pair_coef = np.column_stack([sign * model._problem_coef[order, q] for q, sign in pairs])
    rho = [-sign * model.intercept_[q] for q, sign in pairs]
    header += [
        f"nr_class {n_classes}",
        f"total_sv {order.shape[0]}",
        "rho " + " ".join(_numbers(rho)),
        "label " + " ".join(str(label) for label in _integer_labels(labels)),
    ]
    if model.probA_.shape[0]:
        prob_a, prob_b = _file_platt(model.probA_, model.probB_, ranks)
        header += ["probA " + " ".join(_numbers(prob_a)), "probB " + " ".join(_numbers(prob_b))]
    header += ["nr_sv " + " ".join(str(int(count)) for count in model.n_support_[ranks]), "SV"]
    return header, _file_coef(pair_coef, file_class, n_classes), order


def _single_problem_header(model, header, svm_type):
    """The rest of the header of a one-class or regression model, its coefficients (1, n_SV)
    and the order of its support vectors (svmkit's)."""
    coef = np.asarray(model.dual_coef_, dtype=np.float64).reshape(1, -1)
    header += ["nr_class 2", f"total_sv {coef.shape[1]}", "rho " + " ".join(_numbers(-model.intercept_[:1]))]
    if svm_type in _REGRESSION_TYPES and np.size(getattr(model, "probA_", ())):
        header.append("probA " + " ".join(_numbers(model.probA_)))
    if svm_type == "one_class" and getattr(model, "prob_density_marks_", None) is not None:
        header.append("prob_density_marks " + " ".join(_numbers(model.prob_density_marks_)))
    header.append("SV")
    return header, coef, np.arange(coef.shape[1])


def _file_platt(prob_a, prob_b, ranks):
    """probA and probB of the file's pairs from svmkit's (sorted pairs)."""
    sorted_pair = {pair: p for p, pair in enumerate(combinations(range(len(ranks)), 2))}
    file_a, file_b = [], []
    for a, b in combinations(range(len(ranks)), 2):
        p = sorted_pair[tuple(sorted((int(ranks[a]), int(ranks[b]))))]
        file_a.append(prob_a[p])
        file_b.append(prob_b[p] if ranks[a] < ranks[b] else -prob_b[p])
    return np.array(file_a), np.array(file_b)


def _integer_labels(classes):
    values = np.asarray(classes)
    if values.dtype.kind in "iub":
        labels = values.astype(np.int64)
    elif values.dtype.kind == "f" and np.all(np.isfinite(values)) and np.all(values == np.trunc(values)):
        labels = values.astype(np.int64)
    else:
        raise ValueError(f"LIBSVM model files hold integer labels; the classes of this model are {values.tolist()!r}.")
    if np.any(np.abs(labels) > _LARGEST_LABEL):
        raise ValueError(f"LIBSVM labels are 32-bit integers; the classes of this model are {labels.tolist()!r}.")
    return labels.tolist()


def _sv_lines(model, coef, order):
    """One line per support vector, the ``order``-th of svmkit's support vectors in turn."""
    coef_texts = [" ".join(_numbers(column)) for column in coef.T]
    if model._precomputed:
        return [f"{c} 0:{row + 1}\n" for c, row in zip(coef_texts, model.support_[order].tolist())]
    vectors = sp.csr_matrix(model.support_vectors_)[order]
    lines = []
    for s, c in enumerate(coef_texts):
        start, stop = vectors.indptr[s], vectors.indptr[s + 1]
        values = vectors.data[start:stop]
        keep = values != 0
        pairs = zip((vectors.indices[start:stop][keep] + 1).tolist(), _numbers(values[keep]))
        lines.append(" ".join([c, *(f"{index}:{value}" for index, value in pairs)]) + "\n")
    return lines


def _numbers(values):
    return [f"{value:.17g}" for value in np.asarray(values, dtype=np.float64).tolist()]


def _write(target, data):
    if isinstance(target, (str, os.PathLike)):
        with open(target, "wb") as file:
            file.write(data)
    else:
        target.write(data)


# -- the one-vs-one layout, shared by both directions -----------------------------------------


def _file_pairs(problems, ranks):
    """For each pair ``(a, b)``, ``a < b``, of classes in file order: the index of
    the svmkit problem on the same two classes, and +1 if its positive class is
    ``a`` (LIBSVM's sign) or -1. ``ranks[a]`` is the svmkit index of class ``a``."""
    problem_of = {frozenset(problem): q for q, problem in enumerate(problems)}
    pairs = []
    for a, b in combinations(range(len(ranks)), 2):
        q = problem_of[frozenset((int(ranks[a]), int(ranks[b])))]
        pairs.append((q, 1.0 if problems[q][0] == ranks[a] else -1.0))
    return pairs


def _file_coef(pair_coef, sv_class, n_classes):
    """LIBSVM's (n_classes - 1, n_SV) coefficients from one column per pair (i, j), i < j:
    row ``j - 1`` for the support vectors of class ``i``, row ``i`` for those of ``j``."""
    coef = np.zeros((n_classes - 1, sv_class.shape[0]))
    for p, (i, j) in enumerate(combinations(range(n_classes), 2)):
        in_i, in_j = sv_class == i, sv_class == j
        coef[j - 1, in_i] = pair_coef[in_i, p]
        coef[i, in_j] = pair_coef[in_j, p]
    return coef


def _pair_coef(coef, sv_class, n_classes):
    """The inverse of :func:`_file_coef`: column p holds the coefficients of pair p."""
    pair_coef = np.zeros((sv_class.shape[0], n_classes * (n_classes - 1) // 2))
    for p, (i, j) in enumerate(combinations(range(n_classes), 2)):
        in_i, in_j = sv_class == i, sv_class == j
        pair_coef[in_i, p] = coef[j - 1, in_i]
        pair_coef[in_j, p] = coef[i, in_j]
    return pair_coef


# -- LIBSVM text -> header and support vectors ----------------------------------------------


def _text_lines(raw):
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise LibsvmFormatError("a LIBSVM model file is ASCII text; found another byte", line) from None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _read_header(lines):
    """The header as a dict of keyword -> (parsed values, line number), and the
    index of the first support-vector line."""
    header = {}
    for index, line in enumerate(lines):
        number = index + 1
        words = line.split()
        if not words:
            raise LibsvmFormatError("blank line in the header", number)
        keyword, values = words[0], words[1:]
        if keyword == "SV":
            if values:
                raise LibsvmFormatError("the 'SV' line takes no values", number)
            _check_header(header, number)
            return header, index + 1
        if keyword in header:
            raise LibsvmFormatError(f"'{keyword}' appears twice in the header", number)
        header[keyword] = (_header_values(keyword, values, header, number), number)
    raise LibsvmFormatError("the file ends before the 'SV' line that starts the support vectors", len(lines) or None)


def _header_values(keyword, values, header, line):
    if keyword == "svm_type":
        (svm_type,) = _count(values, 1, keyword, line)
        if svm_type not in _ESTIMATOR_NAMES:
            raise LibsvmFormatError(f"unknown svm_type (expected one of {', '.join(_ESTIMATOR_NAMES)})", line, svm_type)
        return svm_type
    if keyword == "kernel_type":
        (kernel_type,) = _count(values, 1, keyword, line)
        if kernel_type not in _KERNEL_NAMES:
            raise LibsvmFormatError(f"unknown kernel_type (expected one of {', '.join(_KERNEL_NAMES)})", line, kernel_type)
        return kernel_type
    if keyword in ("degree", "nr_class", "total_sv"):
        (value,) = _count(values, 1, keyword, line)
        least = {"degree": 1, "nr_class": 2, "total_sv": 0}[keyword]
        number = _integer(value, line)
        if number < least:
            raise LibsvmFormatError(f"{keyword} must be at least {least}", line, value)
        return number
    if keyword == "gamma":
        (value,) = _count(values, 1, keyword, line)
        gamma = _real(value, line)
        if not gamma > 0:
            raise LibsvmFormatError("gamma must be > 0", line, value)
        return gamma
    if keyword == "coef0":
        (value,) = _count(values, 1, keyword, line)
        return _real(value, line)
    if keyword == "prob_density_marks":
        return [_real(value, line) for value in _count(values, _N_DENSITY_MARKS, keyword, line)]
    if keyword in ("rho", "probA", "probB", "label", "nr_sv"):
        if "nr_class" not in header:
            raise LibsvmFormatError(f"'{keyword}' comes before 'nr_class'", line)
        n_classes = header["nr_class"][0]
        if keyword in ("label", "nr_sv"):
            return [_integer(value, line) for value in _count(values, n_classes, keyword, line)]
        return [_real(value, line) for value in _count(values, n_classes * (n_classes - 1) // 2, keyword, line)]
    raise LibsvmFormatError("unknown header keyword", line, keyword)


#: Header keywords that only some svm types have.
_ONLY_FOR = {
    "label": _CLASSIFIER_TYPES,
    "nr_sv": _CLASSIFIER_TYPES,
    "probB": _CLASSIFIER_TYPES,
    "probA": _CLASSIFIER_TYPES + _REGRESSION_TYPES,
    "prob_density_marks": ("one_class",),
}


def _check_header(header, sv_line):
    required = ["svm_type", "kernel_type", "nr_class", "total_sv", "rho"]
    if "kernel_type" in header:
        required += _KERNEL_PARAMETERS[header["kernel_type"][0]]
    classifier = "svm_type" in header and header["svm_type"][0] in _CLASSIFIER_TYPES
    if classifier:
        required += ["label", "nr_sv"]
    missing = [keyword for keyword in required if keyword not in header]
    if missing:
        raise LibsvmFormatError(f"the header lacks {', '.join(repr(k) for k in missing)} before 'SV'", sv_line)
    svm_type = header["svm_type"][0]
    for keyword, types in _ONLY_FOR.items():
        if keyword in header and svm_type not in types:
            raise LibsvmFormatError(f"{svm_type} models have no '{keyword}'", header[keyword][1])
    if not classifier:
        if header["nr_class"][0] != 2:
            raise LibsvmFormatError(f"{svm_type} models have nr_class 2", header["nr_class"][1])
        return
    if ("probA" in header) != ("probB" in header):
        raise LibsvmFormatError("the header has only one of 'probA' and 'probB'", sv_line)
    labels, label_line = header["label"]
    if len(set(labels)) != len(labels):
        raise LibsvmFormatError("the labels are not distinct", label_line)
    counts, count_line = header["nr_sv"]
    if any(count < 0 for count in counts):
        raise LibsvmFormatError("nr_sv holds a negative count", count_line)
    if sum(counts) != header["total_sv"][0]:
        raise LibsvmFormatError(f"nr_sv adds up to {sum(counts)}, not total_sv = {header['total_sv'][0]}", count_line)


def _read_support_vectors(lines, start, header):
    """LIBSVM's coefficients (n_classes - 1, n_SV) and the support vectors:
    a CSR matrix, or the serial numbers for a precomputed kernel."""
    n_classes, total_sv = header["nr_class"][0], header["total_sv"][0]
    precomputed = header["kernel_type"][0] == "precomputed"
    rows = lines[start:]
    if len(rows) < total_sv:
        raise LibsvmFormatError(f"the file ends after {len(rows)} of the {total_sv} support vectors", len(lines))
    for offset, extra in enumerate(rows[total_sv:]):
        if extra.strip():
            raise LibsvmFormatError(f"text after the {total_sv} support vectors that total_sv announces", start + total_sv + offset + 1)
    coef = np.empty((n_classes - 1, total_sv))
    indptr, indices, values = [0], [], []
    for s, line in enumerate(rows[:total_sv]):
        number = start + s + 1
        tokens = line.split()
        if len(tokens) < n_classes - 1:
            raise LibsvmFormatError(f"expected {n_classes - 1} coefficients", number)
        coef[:, s] = [_real(token, number) for token in tokens[: n_classes - 1]]
        row_indices, row_values = _features(tokens[n_classes - 1 :], number, precomputed)
        indices += row_indices
        values += row_values
        indptr.append(len(indices))
    if precomputed:
        return coef, np.array(values, dtype=np.int64)
    n_columns = max(indices, default=0) + 1
    vectors = sp.csr_matrix((np.array(values, dtype=np.float64), np.array(indices, dtype=np.int64), indptr), shape=(total_sv, n_columns))
    return coef, vectors


def _features(tokens, line, precomputed):
    """0-based indices and values of one support vector (precomputed: [-1], [serial])."""
    if precomputed:
        if len(tokens) != 1 or not tokens[0].startswith("0:"):
            raise LibsvmFormatError("a precomputed-kernel support vector is '0:serial' after its coefficients", line)
        serial = _real(tokens[0][2:], line)
        if serial != math.trunc(serial) or not 1 <= serial <= _LARGEST_LABEL:
            raise LibsvmFormatError(f"the serial number of a support vector is an integer >= 1 (at most {_LARGEST_LABEL})",
                                    line, tokens[0])
        return [-1], [int(serial)]
    indices, values = [], []
    for token in tokens:
        index_text, colon, value_text = token.partition(":")
        if not colon:
            raise LibsvmFormatError("expected 'index:value'", line, token)
        index = _integer(index_text, line) - 1
        if index < 0:
            raise LibsvmFormatError("feature indices start at 1", line, token)
        if indices and index <= indices[-1]:
            raise LibsvmFormatError("feature index is not greater than the one before it", line, token)
        indices.append(index)
        values.append(_real(value_text, line))
    return indices, values


def _count(values, expected, keyword, line):
    if len(values) != expected:
        raise LibsvmFormatError(f"'{keyword}' needs {expected} value{'s' if expected > 1 else ''}, found {len(values)}", line)
    return values


def _integer(text, line):
    if not (text.isdigit() or (text[:1] in "+-" and text[1:].isdigit())) or abs(int(text)) > _LARGEST_LABEL:
        raise LibsvmFormatError("expected a 32-bit integer", line, text)
    return int(text)


def _real(text, line):
    try:
        value = float(text)
    except ValueError:
        raise LibsvmFormatError("expected a number", line, text) from None
    if not math.isfinite(value):
        raise LibsvmFormatError("expected a finite number", line, text)
    return value


# -- header and support vectors -> estimator -------------------------------------------------


def _kernel_of(header):
    """svmkit's kernel name, its parameters and the kernel object (None when precomputed)."""
    from ..kernels import make_kernel

    kernel_type = header["kernel_type"][0]
    name = _KERNEL_NAMES[kernel_type]
    parameters = {key: header[key][0] for key in _KERNEL_PARAMETERS[kernel_type]}
    return name, parameters, None if name == "precomputed" else make_kernel(name, **parameters)


def _set_support(model, features, order, n_features):
    """support_, support_vectors_, n_features_in_ (and shape_fit_ for a precomputed kernel) from
    the file's support vectors taken in ``order``."""
    if model._precomputed:
        support = features[order] - 1
        n_features = _n_features(n_features, int(support.max(initial=-1)) + 1, "serial number")
        model.support_ = support.astype(np.int32)
        model.support_vectors_ = np.empty((0, n_features))
        model.shape_fit_ = (n_features, n_features)
    else:
        n_features = _n_features(n_features, features.shape[1], "feature index")
        vectors = features[order]
        model.support_ = np.arange(vectors.shape[0], dtype=np.int32)
        model.support_vectors_ = sp.csr_matrix((vectors.data, vectors.indices, vectors.indptr), shape=(vectors.shape[0], n_features))
    model.n_features_in_ = n_features


def _build_single_problem(header, coef, features, n_features):
    """A fitted OneClassSVM, SVR or NuSVR: ``intercept_ = -rho``, ``dual_coef_`` the file's coefficients."""
    svm_type = header["svm_type"][0]
    name, parameters, kernel = _kernel_of(header)
    model = getattr(_svm_module(), _ESTIMATOR_NAMES[svm_type])(kernel=name, **parameters)
    model.kernel_ = kernel
    _set_support(model, features, np.arange(coef.shape[1]), n_features)
    model.dual_coef_ = coef[:1].copy()
    model.intercept_ = -np.array(header["rho"][0][:1])
    model.n_support_ = np.array([coef.shape[1]], dtype=np.int32)
    if svm_type == "one_class":
        model.offset_ = -model.intercept_
        if "prob_density_marks" in header:
            model.prob_density_marks_ = np.array(header["prob_density_marks"][0])
    elif "probA" in header:
        model.probA_ = np.array(header["probA"][0])
    return model


def _build_classifier(header, coef, features, n_features):
    """A fitted SVC or NuSVC in svmkit's layout (sorted classes)."""
    svm_type = header["svm_type"][0]
    labels = np.array(header["label"][0], dtype=np.int64)
    counts = np.array(header["nr_sv"][0], dtype=np.int64)
    n_classes = labels.shape[0]
    name, parameters, kernel = _kernel_of(header)
    estimator = getattr(_svm_module(), _ESTIMATOR_NAMES[svm_type])
    model = estimator(kernel=name, probability="probA" in header, **parameters)

    order = np.argsort(labels)  # file class of each svmkit class
    ranks = np.argsort(order)  # svmkit class of each file class
    file_class = np.repeat(np.arange(n_classes), counts)
    file_starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    permutation = np.concatenate([np.arange(file_starts[c], file_starts[c] + counts[c]) for c in order])
    sv_class = ranks[file_class][permutation]

    problems = model._problems(n_classes)
    pairs = _file_pairs(problems, ranks)
    file_pair_coef = _pair_coef(coef, file_class, n_classes)[permutation]
    problem_coef = np.zeros_like(file_pair_coef)
    intercept = np.zeros(len(problems))
    rho = header["rho"][0]
    for p, (q, sign) in enumerate(pairs):
        problem_coef[:, q] = sign * file_pair_coef[:, p]
        intercept[q] = -sign * rho[p]
    model.probA_, model.probB_ = _platt_parameters(header, ranks)

    model.classes_ = labels[order]
    model.libsvm_labels_ = labels
    model.kernel_ = kernel
    _set_support(model, features, permutation, n_features)
    model.n_support_ = counts[order].astype(np.int32)
    model._problem_coef = problem_coef
    model.dual_coef_ = problem_coef.T.copy() if n_classes == 2 else _file_coef(problem_coef, sv_class, n_classes)
    model.intercept_ = intercept
    model._problem_pairs = problems
    model.binary_models_ = [_binary_model(problem_coef[:, q], b, problem) for q, (b, problem) in enumerate(zip(intercept, problems))]
    model.problem_classes_ = [(model.classes_[positive], model.classes_[negative]) for positive, negative in problems]
    return model


def _platt_parameters(header, ranks):
    """probA_ and probB_ for svmkit's sorted pairs (empty without probabilities)."""
    if "probA" not in header:
        return np.empty(0), np.empty(0)
    n_classes = len(ranks)
    sorted_pair = {pair: p for p, pair in enumerate(combinations(range(n_classes), 2))}
    prob_a, prob_b = np.zeros(len(sorted_pair)), np.zeros(len(sorted_pair))
    for (a, b), A, B in zip(combinations(range(n_classes), 2), header["probA"][0], header["probB"][0]):
        p = sorted_pair[tuple(sorted((int(ranks[a]), int(ranks[b]))))]
        prob_a[p], prob_b[p] = A, (B if ranks[a] < ranks[b] else -B)
    return prob_a, prob_b


def _n_features(requested, needed, what):
    if requested is None:
        return needed
    if requested < needed:
        raise ValueError(f"n_features={requested} is smaller than the largest {what} of the support vectors, {needed}.")
    return int(requested)


def _binary_model(problem_coef, intercept, problem):
    """The support vectors of one problem, with NaN for what the file does not hold."""
    from ..svm import BinaryModel

    rows = np.flatnonzero(problem_coef)
    n_rows = rows.shape[0]
    return BinaryModel(
        positive_class=problem[0],
        negative_class=problem[1],
        indices=rows,
        y=np.sign(problem_coef[rows]),
        alpha=np.abs(problem_coef[rows]),
        upper=np.full(n_rows, np.nan),
        intercept=float(intercept),
        yf=np.full(n_rows, np.nan),
        n_iter=0,
        gap=np.nan,
        status=0,
    )
