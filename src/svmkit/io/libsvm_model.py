"""Read and write LIBSVM model files (what ``svm-train`` writes) for :class:`svmkit.SVC`.

A model file is a header, one ``keyword values...`` per line::

    svm_type c_svc
    kernel_type rbf          (linear, polynomial, rbf, sigmoid or precomputed)
    gamma 0.5                (polynomial, rbf and sigmoid)
    nr_class 3
    total_sv 40
    rho 0.1 -0.2 0.05        (one per pair of classes)
    label 1 2 3
    probA ... / probB ...    (only for models with Platt probabilities)
    nr_sv 12 15 13           (support vectors of each class)
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
svmkit sorts its classes and, with two classes, calls ``classes_[1]`` the
positive one; this module converts both ways, so a model predicts the same
labels and decision values in LIBSVM and in svmkit. Numbers are written with
17 significant digits (``%.17g``), enough for float64 to read back exactly.

The Platt parameters ``probA_`` and ``probB_`` of a model fitted with
``probability=True`` are LIBSVM's for the sorted labels, so they are written
as they are; a LIBSVM file whose labels are not in ascending order has the
sign of ``probB`` changed for the pairs whose order svmkit reverses.

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
from sklearn.utils.validation import check_is_fitted

from ..kernels import LinearKernel, PolynomialKernel, RBFKernel, SigmoidKernel, make_kernel
from ..svm import SVC, BinaryModel, NuSVC
from .libsvm_data import MAX_FEATURES, LibsvmFormatError, _read_bytes

__all__ = ["load_libsvm_model", "save_libsvm_model"]

#: LIBSVM's kernel_type names and svmkit's kernel names.
_KERNEL_NAMES = {"linear": "linear", "polynomial": "poly", "rbf": "rbf", "sigmoid": "sigmoid", "precomputed": "precomputed"}
_KERNEL_TYPES = {name: kernel_type for kernel_type, name in _KERNEL_NAMES.items()}
_KERNEL_CLASSES = {LinearKernel: "linear", PolynomialKernel: "polynomial", RBFKernel: "rbf", SigmoidKernel: "sigmoid"}
#: The header keywords each LIBSVM kernel type needs.
_KERNEL_PARAMETERS = {
    "linear": (),
    "polynomial": ("degree", "gamma", "coef0"),
    "rbf": ("gamma",),
    "sigmoid": ("gamma", "coef0"),
    "precomputed": (),
}
_SVM_TYPES = {SVC: "c_svc", NuSVC: "nu_svc"}
_OTHER_SVM_TYPES = ("nu_svc", "one_class", "epsilon_svr", "nu_svr")
_LARGEST_LABEL = 2**31 - 1


def save_libsvm_model(model, target):
    """Write a fitted :class:`svmkit.SVC` or :class:`svmkit.NuSVC` as a LIBSVM model file.

    LIBSVM's ``svm-predict`` (or ``svmutil.svm_load_model``) then predicts
    the same labels and decision values as ``model``.

    Parameters
    ----------
    model : SVC or NuSVC
        A fitted classifier (written as ``c_svc`` or ``nu_svc``) with two
        classes, or more with ``multiclass='ovo'``; its kernel is 'linear',
        'poly', 'rbf', 'sigmoid', 'precomputed' or one of the matching kernel
        objects, and its classes are integers (LIBSVM's labels are ``int``).
    target : str, os.PathLike or binary file object
        Where to write.

    Raises
    ------
    ValueError
        If LIBSVM cannot express the model: one-vs-rest with more than two
        classes, another kernel (sums, products, callables, ...), or labels
        that are not integers.

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

    LIBSVM's decision is positive for the first label, -1, so with two
    classes the coefficients are ``-dual_coef_`` and ``rho`` is
    ``intercept_`` (with more classes: ``dual_coef_`` and ``-intercept_``).
    """
    if type(model) not in _SVM_TYPES:
        raise TypeError(f"LIBSVM model files hold SVC and NuSVC models, got {type(model).__name__}.")
    check_is_fitted(model)
    n_classes = model.classes_.shape[0]
    if n_classes > 2 and model.multiclass != "ovo":
        raise ValueError(
            "LIBSVM model files hold one-vs-one models; this SVC has multiclass='ovr' "
            f"with {n_classes} classes (refit it with multiclass='ovo')."
        )
    header = [f"svm_type {_SVM_TYPES[type(model)]}", *_kernel_header(model)]
    labels = _integer_labels(model.classes_)
    sv_class = np.repeat(np.arange(n_classes), model.n_support_)
    problems = model._problem_pairs
    pairs = _file_pairs(problems, np.arange(n_classes))
    pair_coef = np.column_stack([sign * model._problem_coef[:, q] for q, sign in pairs])
    rho = [-sign * model.intercept_[q] for q, sign in pairs]
    header += [
        f"nr_class {n_classes}",
        f"total_sv {sv_class.shape[0]}",
        "rho " + " ".join(_numbers(rho)),
        "label " + " ".join(str(label) for label in labels),
    ]
    if model.probA_.shape[0]:
        header += ["probA " + " ".join(_numbers(model.probA_)), "probB " + " ".join(_numbers(model.probB_))]
    header += ["nr_sv " + " ".join(str(int(count)) for count in model.n_support_), "SV"]
    coef = _file_coef(pair_coef, sv_class, n_classes)
    text = "\n".join(header) + "\n" + "".join(_sv_lines(model, coef))
    _write(target, text.encode("ascii"))


def load_libsvm_model(source, n_features=None, max_features=MAX_FEATURES):
    """Read a LIBSVM model file (``c_svc``) as a fitted :class:`svmkit.SVC`.

    The model predicts the labels and decision values that LIBSVM does (to
    round-off): ``decision_function`` gives svmkit's layout (sorted classes;
    with two classes, positive for the larger label).

    What the file does not hold is not available: ``C`` (left at its
    default), the training data and so ``alpha_``, ``slack_``, ``margin_``,
    the objectives, ``loo_bound_``, ``n_iter_``, ``fit_status_`` and
    ``shape_fit_`` (except with a precomputed kernel). ``binary_models_``
    keep the support vectors' multipliers ``alpha`` and labels, with NaN
    for the unknown bounds ``C_i`` and margins ``y_i f(x_i)``, so their
    ``kkt_report`` says nothing. ``support_`` numbers the support vectors
    (``0, 1, ...``), or gives their training rows with a precomputed kernel.
    ``support_vectors_`` is a CSR matrix. A file with ``probA`` and
    ``probB`` gives a model with ``probability=True`` and ``predict_proba``.

    With three or more classes whose labels are not in ascending order in
    the file, a point whose one-vs-one votes tie between classes may get
    another label than in LIBSVM (svmkit gives ties to the smallest label,
    LIBSVM to the first in the file), and ``predict_proba`` differs from
    LIBSVM's within the tolerance of the iterative pairwise coupling, which
    depends on the order of the classes.

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
    SVC

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
    """
    lines = _text_lines(_read_bytes(source))
    header, first_sv_line = _read_header(lines)
    coef, features = _read_support_vectors(lines, first_sv_line, header)
    needed = features.shape[1] if sp.issparse(features) else int(features.max(initial=0))
    if max_features is not None and needed > operator.index(max_features):
        raise LibsvmFormatError(
            f"the support vectors' largest feature index (serial number) {needed} is larger than "
            f"max_features={max_features}; pass a larger max_features to read the file")
    return _build_svc(header, coef, features, n_features)


# -- svmkit -> LIBSVM ------------------------------------------------------------------------


def _kernel_header(model):
    """The kernel_type, degree, gamma and coef0 lines of a model."""
    if isinstance(model.kernel, str):
        kernel_type = _KERNEL_TYPES[model.kernel]
    else:
        kernel_type = _KERNEL_CLASSES.get(type(model.kernel_))
        if kernel_type is None:
            raise ValueError(
                "LIBSVM model files support the linear, polynomial, rbf, sigmoid and precomputed kernels; "
                f"this SVC uses {type(model.kernel_).__name__}."
            )
    lines = [f"kernel_type {kernel_type}"]
    for name in _KERNEL_PARAMETERS[kernel_type]:
        value = getattr(model.kernel_, name)
        lines.append(f"{name} {value:d}" if name == "degree" else f"{name} {value:.17g}")
    return lines


def _integer_labels(classes):
    values = np.asarray(classes)
    if values.dtype.kind in "iub":
        labels = values.astype(np.int64)
    elif values.dtype.kind == "f" and np.all(np.isfinite(values)) and np.all(values == np.trunc(values)):
        labels = values.astype(np.int64)
    else:
        raise ValueError(f"LIBSVM model files hold integer labels; the classes of this SVC are {values.tolist()!r}.")
    if np.any(np.abs(labels) > _LARGEST_LABEL):
        raise ValueError(f"LIBSVM labels are 32-bit integers; the classes of this SVC are {labels.tolist()!r}.")
    return labels.tolist()


def _sv_lines(model, coef):
    coef_texts = [" ".join(_numbers(column)) for column in coef.T]
    if model._precomputed:
        return [f"{c} 0:{row + 1}\n" for c, row in zip(coef_texts, model.support_.tolist())]
    vectors = sp.csr_matrix(model.support_vectors_)
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
        if svm_type in _OTHER_SVM_TYPES:
            raise LibsvmFormatError(f"svm_type {svm_type} is not supported: SVC reads c_svc models", line)
        if svm_type != "c_svc":
            raise LibsvmFormatError("unknown svm_type", line, svm_type)
        return svm_type
    if keyword == "kernel_type":
        (kernel_type,) = _count(values, 1, keyword, line)
        if kernel_type not in _KERNEL_NAMES:
            raise LibsvmFormatError(f"unknown kernel_type (expected one of {', '.join(_KERNEL_NAMES)})", line, kernel_type)
        return kernel_type
    if keyword in ("degree", "nr_class", "total_sv"):
        (value,) = _count(values, 1, keyword, line)
        least = {"degree": 1, "nr_class": 2, "total_sv": 1}[keyword]
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
    if keyword in ("rho", "probA", "probB", "label", "nr_sv"):
        if "nr_class" not in header:
            raise LibsvmFormatError(f"'{keyword}' comes before 'nr_class'", line)
        n_classes = header["nr_class"][0]
        if keyword in ("label", "nr_sv"):
            return [_integer(value, line) for value in _count(values, n_classes, keyword, line)]
        return [_real(value, line) for value in _count(values, n_classes * (n_classes - 1) // 2, keyword, line)]
    raise LibsvmFormatError("unknown header keyword", line, keyword)


def _check_header(header, sv_line):
    required = ["svm_type", "kernel_type", "nr_class", "total_sv", "rho", "label", "nr_sv"]
    if "kernel_type" in header:
        required += _KERNEL_PARAMETERS[header["kernel_type"][0]]
    missing = [keyword for keyword in required if keyword not in header]
    if missing:
        raise LibsvmFormatError(f"the header lacks {', '.join(repr(k) for k in missing)} before 'SV'", sv_line)
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


# -- header and support vectors -> SVC -------------------------------------------------------


def _build_svc(header, coef, features, n_features):
    kernel_type = header["kernel_type"][0]
    labels = np.array(header["label"][0], dtype=np.int64)
    counts = np.array(header["nr_sv"][0], dtype=np.int64)
    n_classes = labels.shape[0]
    name = _KERNEL_NAMES[kernel_type]
    parameters = {key: header[key][0] for key in _KERNEL_PARAMETERS[kernel_type]}
    model = SVC(kernel=name, probability="probA" in header, **parameters)

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
    model.kernel_ = None if name == "precomputed" else make_kernel(name, **parameters)
    model._gamma = parameters.get("gamma")
    if name == "precomputed":
        support = features[permutation] - 1
        n_features = _n_features(n_features, int(support.max()) + 1, "serial number")
        model.support_ = support.astype(np.int32)
        model.support_vectors_ = np.empty((0, n_features))
        model.shape_fit_ = (n_features, n_features)
    else:
        n_features = _n_features(n_features, features.shape[1], "feature index")
        vectors = features[permutation]
        model.support_ = np.arange(vectors.shape[0], dtype=np.int32)
        model.support_vectors_ = sp.csr_matrix((vectors.data, vectors.indices, vectors.indptr), shape=(vectors.shape[0], n_features))
    model.n_features_in_ = n_features
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
