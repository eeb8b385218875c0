"""``svmkit train``: LIBSVM's svm-train, and the checks, estimator and cross-validation it
shares with ``svmkit grid``."""

import math
import os
import sys

from ._files import _line_of_row, _load_data, _load_kernel
from ._options import UsageError, _binary, _integer, _Option, _parse

KERNELS = {0: "linear", 1: "poly", 2: "rbf", 3: "sigmoid", 4: "precomputed"}

#: LIBSVM's -s values: the estimator class (in svmkit.svm) and the LIBSVM name.
SVM_TYPES = {
    0: ("SVC", "C-SVC"),
    1: ("NuSVC", "nu-SVC"),
    2: ("OneClassSVM", "one-class SVM"),
    3: ("SVR", "epsilon-SVR"),
    4: ("NuSVR", "nu-SVR"),
}
_CLASSIFIERS = (0, 1)

TRAIN_USAGE = """\
Usage: svmkit train [options] training_set_file [model_file]
options:
-s svm_type : set type of SVM (default 0)
	0 -- C-SVC		(multi-class classification)
	1 -- nu-SVC		(multi-class classification)
	2 -- one-class SVM
	3 -- epsilon-SVR	(regression)
	4 -- nu-SVR		(regression)
-t kernel_type : set type of kernel function (default 2)
	0 -- linear: u'*v
	1 -- polynomial: (gamma*u'*v + coef0)^degree
	2 -- radial basis function: exp(-gamma*|u-v|^2)
	3 -- sigmoid: tanh(gamma*u'*v + coef0)
	4 -- precomputed kernel (kernel values in training_set_file)
-d degree : set degree in kernel function (default 3)
-g gamma : set gamma in kernel function (default 1/num_features)
-r coef0 : set coef0 in kernel function (default 0)
-c cost : set the parameter C of C-SVC, epsilon-SVR, and nu-SVR (default 1)
-n nu : set the parameter nu of nu-SVC, one-class SVM, and nu-SVR (default 0.5)
-p epsilon : set the epsilon in loss function of epsilon-SVR (default 0.1)
-m cachesize : set cache memory size in MB (default 100)
-e epsilon : set tolerance of termination criterion (default 0.001)
-h shrinking : whether to use the shrinking heuristics, 0 or 1 (default 1)
-b probability_estimates : whether to train a SVC or SVR model for probability estimates, 0 or 1 (default 0)
-wi weight : set the parameter C of class i to weight*C, for C-SVC (default 1)
-v n : n-fold cross validation mode (prints each fold's solver lines and the accuracy, writes no model)
-q : quiet mode (no outputs)
The model file defaults to the training file's name + ".model", in the current directory.
"""

_SVM_OPTIONS = {
    "s": _Option("svm_type", _integer),
    "t": _Option("kernel_type", _integer),
    "d": _Option("degree", _integer),
    "g": _Option("gamma"),
    "r": _Option("coef0"),
    "c": _Option("C"),
    "n": _Option("nu"),
    "p": _Option("epsilon"),
    "m": _Option("cache_size"),
    "e": _Option("tol"),
    "h": _Option("shrinking", _binary),
    "b": _Option("probability", _binary),
    "q": _Option("quiet", n_values=0),
    "w": _Option("class_weight"),  # -w<label> weight
}
_TRAIN_OPTIONS = {**_SVM_OPTIONS, "v": _Option("n_folds", _integer)}


def _default_output(data_path, suffix):
    """LIBSVM's default output name: the data file's base name + suffix, in the current directory."""
    return os.path.basename(data_path) + suffix


#: svm-train's checks of its parameters: option, destination, default, test, rule.
_PARAMETER_RULES = (
    ("g", "gamma", 0.0, lambda v: v >= 0, "gamma must be >= 0; 0 means 1/num_features"),
    ("d", "degree", 3, lambda v: v >= 0, "degree must be >= 0"),
    ("c", "C", 1.0, lambda v: v > 0, "C must be > 0"),
    ("n", "nu", 0.5, lambda v: 0 < v <= 1, "nu must be in (0, 1]"),
    ("p", "epsilon", 0.1, lambda v: v >= 0, "epsilon must be >= 0"),
    ("m", "cache_size", 100.0, lambda v: v > 0, "the cache size must be > 0 MB"),
    ("e", "tol", 1e-3, lambda v: v > 0, "the tolerance must be > 0"),
)


def _check_svm_options(options):
    """svm-train's checks that need no data; returns the svm type and the kernel type."""
    svm_type = options.get("svm_type", 0)
    if svm_type not in SVM_TYPES:
        raise UsageError(f"bad value for -s: {svm_type} (svm types are 0 to 4)")
    kernel_type = options.get("kernel_type", 2)
    if kernel_type not in KERNELS:
        raise UsageError(f"bad value for -t: {kernel_type} (kernel types are 0 to 4)")
    for flag, name, default, valid, rule in _PARAMETER_RULES:
        if not valid(options.get(name, default)):
            raise UsageError(f"bad value for -{flag}: {options[name]:g} ({rule})")
    return svm_type, kernel_type


def _estimator(options, n_features):
    """The svmkit estimator for LIBSVM's svm-train options (checked by :func:`_check_svm_options`)."""
    from .. import svm

    svm_type = options.get("svm_type", 0)
    estimator_class = getattr(svm, SVM_TYPES[svm_type][0])  # (imports that estimator's module only)
    gamma = options.get("gamma", 0.0)
    values = {
        "kernel": KERNELS[options.get("kernel_type", 2)],
        "degree": options.get("degree", 3),
        "gamma": gamma if gamma > 0 else 1.0 / max(n_features, 1),
        "coef0": options.get("coef0", 0.0),
        "C": options.get("C", 1.0),
        "nu": options.get("nu", 0.5),
        "epsilon": options.get("epsilon", 0.1),
        "cache_size": options.get("cache_size", 100.0),
        "tol": options.get("tol", 1e-3),
        "shrinking": bool(options.get("shrinking", 1)),
    }
    if svm_type == 0:  # (LIBSVM's -w weighs C-SVC only)
        values["class_weight"] = options.get("class_weight")
    if options.get("probability", 0):
        values.update(probability=True, random_state=0, two_class_probability="sigmoid")
    accepted = estimator_class().get_params()
    return estimator_class(**{name: value for name, value in values.items() if name in accepted})


def _drop_unknown_weights(estimator, y):
    """LIBSVM warns about and ignores weights of labels that are not in the data."""
    import numpy as np

    weights = getattr(estimator, "class_weight", None)
    if not weights:
        return
    labels = set(np.unique(y).tolist())
    for label in [label for label in weights if label not in labels]:
        print(f"WARNING: class label {label:g} specified in weight is not found", file=sys.stderr)
        del weights[label]
    estimator.set_params(class_weight=weights or None)


def _check_labels(y, path, svm_type):
    """Classification labels are 32-bit integers (LIBSVM's ``int``), of two classes at least."""
    import numpy as np

    if svm_type not in _CLASSIFIERS:
        return
    bad = np.flatnonzero((y != np.trunc(y)) | (np.abs(y) > 2**31 - 1))
    if bad.shape[0]:
        row = int(bad[0])
        raise ValueError(
            f"{path}: line {_line_of_row(path, row)}: label {y[row]:.17g} is not an integer: "
            f"{SVM_TYPES[svm_type][1]} (-s {svm_type}) classifies integer labels; "
            "-s 3 or -s 4 fit real-valued targets (regression)"
        )
    if np.unique(y).shape[0] < 2:
        raise ValueError(f"{path}: the training data hold one class only ({y[0]:g}); classification needs two")


def _check_writable(path):
    """svm-train's "can't save model to file", before the fit rather than after it."""
    folder = os.path.dirname(path) or "."
    exists = os.path.exists(path)
    if os.path.isdir(path) or not os.path.isdir(folder) or not os.access(path if exists else folder, os.W_OK):
        raise ValueError(f"can't save model to file {path}")


def _report_lines(model, labels=None):
    """What svm-train prints after solving: per problem ``optimization finished, #iter``, the
    nu (C-SVC, epsilon-SVR), C (nu-SVC) or epsilon (nu-SVR) line, ``obj``, ``rho``,
    ``nSV`` and ``nBSV``; then ``Total nSV`` for classifiers. ``labels`` is the file's order
    of the classes, which sets the sign of each pair's ``rho``."""
    import numpy as np

    if not hasattr(model, "classes_"):
        return _single_problem_report(model)
    from ..io.libsvm_model import _file_pairs

    ranks = np.searchsorted(model.classes_, model.classes_ if labels is None else labels)
    problems = model.binary_models_
    lines = []
    for q, sign in _file_pairs(model._problem_pairs, ranks):
        problem = problems[q]
        alpha, upper = problem.alpha, problem.upper
        lines.append(f"optimization finished, #iter = {problem.n_iter}")
        if hasattr(problem, "r"):  # nu-SVC: the C of the equivalent C-SVC, and its objective
            lines.append(f"C = {1.0 / problem.r:f}")
            objective = float(np.sum(alpha)) - problem.dual_objective
        else:
            first_class = sign * problem.y > 0
            C_first = float(np.max(upper[first_class])) if np.any(first_class) else float(np.max(upper))
            lines.append(f"nu = {np.sum(alpha) / (C_first * alpha.shape[0]):f}")
            objective = -problem.dual_objective
        lines += [
            f"obj = {objective:f}, rho = {-sign * problem.intercept:f}",
            f"nSV = {np.count_nonzero(alpha)}, nBSV = {np.count_nonzero(alpha >= upper)}",
        ]
    lines.append(f"Total nSV = {model.support_.shape[0]}")
    return lines


def _single_problem_report(model):
    import numpy as np

    rows, upper = model._report_rows, model._upper
    lines = [f"optimization finished, #iter = {model.n_iter_}"]
    if hasattr(model, "alpha_star_"):  # regression
        a, a_star = model.alpha_[rows], model.alpha_star_[rows]
        if hasattr(model, "epsilon_"):
            lines.append(f"epsilon = {model.epsilon_:f}")
        else:
            lines.append(f"nu = {np.sum(np.abs(a - a_star)) / (model.C * rows.shape[0]):f}")
        n_sv, n_bounded = np.count_nonzero(a - a_star), np.count_nonzero((a >= upper) | (a_star >= upper))
    else:
        alpha = model.alpha_[rows]
        n_sv, n_bounded = np.count_nonzero(alpha), np.count_nonzero(alpha >= upper)
    lines += [
        f"obj = {-model.dual_objective_:f}, rho = {-model.intercept_[0]:f}",
        f"nSV = {n_sv}, nBSV = {n_bounded}",
    ]
    return lines


def _fit(estimator, X, y, path):
    """``estimator.fit``, its errors naming the data file."""
    try:
        return estimator.fit(X, y)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None


def _fit_with_bar(estimator, X, y, path):
    """:func:`_fit` with a bar of the solver's steps, naming the pair being solved, where
    stderr is a terminal."""
    if not sys.stderr.isatty():
        return _fit(estimator, X, y, path)
    from .._progress import SolverBar

    bar = SolverBar("training")
    try:
        return _fit(estimator.set_params(callback=bar), X, y, path).set_params(callback=None)
    finally:
        bar.close()


def _trained(estimator, X, y, path, report, rand, density_model=False, bar=False, say=print):
    """svm-train's ``svm_train``: the fit (with a bar of its steps where ``bar``), its solver
    lines when ``report`` (written by ``say``), and with ``density_model`` (``-b 1`` for -s 2,
    3, 4) LIBSVM's probability model of a regression (the Laplace scale ``probA_``, from 5-fold
    cross-validation drawn with ``rand``) or one-class model (``prob_density_marks_``)."""
    import numpy as np
    from sklearn.base import is_regressor

    from ..io.libsvm_model import libsvm_label_order

    model = _fit_with_bar(estimator, X, y, path) if bar else _fit(estimator, X, y, path)
    if report:
        say("\n".join(_report_lines(model, libsvm_label_order(y) if hasattr(model, "classes_") else None)))
    if density_model:
        if is_regressor(model):
            model.probA_ = np.array([_laplace_scale(estimator, X, y, path, report, rand)])
        else:
            marks = _density_marks(model.decision_function(X))
            if marks is not None:
                model.prob_density_marks_ = marks
    return model


def _laplace_scale(estimator, X, y, path, report, rand):
    """LIBSVM's ``svm_svr_probability``: the mean absolute residual of 5-fold cross-validation,
    leaving out residuals above 5 standard deviations of the Laplace distribution."""
    import numpy as np
    from sklearn.base import clone

    predicted = _cross_validated(clone(estimator), X, y, 5, path, report, rand, fold_bar=False)[0]
    residuals = np.abs(y - predicted).tolist()
    mae = sum(residuals) / len(residuals)
    std = math.sqrt(2 * mae * mae)
    kept = [residual for residual in residuals if not residual > 5 * std]
    sigma = sum(kept) / len(kept)
    if report:
        print(
            "Prob. model for test data: target value = predicted value + z,\n"
            f"z: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma= {sigma:g}"
        )
    return sigma


def _density_marks(decisions):
    """LIBSVM's ``svm_one_class_probability``: ten marks between the sorted training decision
    values, five through the negative and five through the non-negative ones; None (with
    LIBSVM's warning) when either side has fewer than five values."""
    import numpy as np

    values = np.sort(decisions)
    n = values.shape[0]
    n_negative = int(np.argmax(values >= 0)) if np.any(values >= 0) else 0
    n_positive = n - n_negative
    middle = 5
    if n_negative < middle or n_positive < middle:
        print("WARNING: number of positive or negative decision values <5; too few to do a probability estimation.",
              file=sys.stderr)
        return None
    edges = [values[i * n_negative // middle] for i in range(middle)] + [0.0]
    edges += [values[n_negative - 1 + (i - middle) * n_positive // middle] for i in range(middle + 1, 2 * middle + 1)]
    edges = np.array(edges)
    return (edges[:-1] + edges[1:]) / 2


def _cross_validated(estimator, X, y, n_folds, path, report, rand=None, density_model=False, fold_bar=True):
    """svm-train -v (LIBSVM's ``svm_cross_validation``): the prediction of each sample by the
    model of the folds without it, in LIBSVM's folds (stratified for classifiers) drawn with
    ``rand`` (a fresh :class:`._folds.CRand`, as a fresh svm-train, by default); each fold's
    solver lines when ``report``, and a progress bar of the folds where stderr is a terminal
    (unless not ``fold_bar``). Classifiers with ``-b 1`` predict the label of largest
    probability, as LIBSVM does."""
    import numpy as np
    from sklearn.base import clone, is_regressor
    from sklearn.utils.metaestimators import _safe_split

    from .._progress import ProgressBar
    from ..io.libsvm_model import predict_proba_as_libsvm
    from ._folds import CRand, libsvm_folds

    rand = CRand() if rand is None else rand
    n = y.shape[0]
    if n_folds > n:
        print(f"WARNING: # folds ({n_folds}) > # data ({n}). Will use # folds = # data instead "
              "(i.e., leave-one-out cross validation)", file=sys.stderr)
        n_folds = n
    classifier = hasattr(estimator, "probability")
    predicted = np.empty_like(y)
    folds = ProgressBar(n_folds, "cross-validation", " folds", enabled=None if fold_bar else False)
    for fold, (train, test) in enumerate(libsvm_folds(y, n_folds, classifier and n_folds < n, rand), 1):
        X_train, y_train = _safe_split(estimator, X, y, train)
        X_test, _ = _safe_split(estimator, X, y, test, train)
        model = _trained(clone(estimator), X_train, y_train, path, report, rand, density_model, say=folds.print)
        if classifier and estimator.probability:
            predicted[test] = predict_proba_as_libsvm(model, X_test)[2]
        else:
            predicted[test] = model.predict(X_test)
        folds.update(1, f"fold {fold}/{n_folds}")
    folds.close()
    return predicted, is_regressor(estimator)


def _cross_validation_message(predicted, y, regression):
    import numpy as np

    if not regression:
        return f"Cross Validation Accuracy = {100.0 * np.mean(predicted == y):g}%"
    error = np.mean((predicted - y) ** 2)
    correlation = np.corrcoef(predicted, y)[0, 1] ** 2 if np.std(predicted) > 0 and np.std(y) > 0 else np.nan
    return (
        f"Cross Validation Mean squared error = {error:g}\n"
        f"Cross Validation Squared correlation coefficient = {correlation:g}"
    )


def _read_training_set(path, kernel_type):
    if kernel_type == 4:
        K, y = _load_kernel(path, check_serial=True)
        if K.shape[1] < K.shape[0]:
            raise ValueError(f"{path}: a precomputed kernel needs {K.shape[0]} columns per row, found {K.shape[1]}")
        return K[:, : K.shape[0]], y
    return _load_data(path)


def train(args):
    """``svmkit train``: LIBSVM's svm-train. Returns the exit status."""
    options, files = _parse("train", args, _TRAIN_OPTIONS, (1, 2), TRAIN_USAGE)
    if options is None:
        return 0
    svm_type, kernel_type = _check_svm_options(options)
    n_folds = options.get("n_folds")
    if n_folds is not None and n_folds < 2:
        raise UsageError("n-fold cross validation: n must be >= 2")
    model_path = files[1] if len(files) == 2 else _default_output(files[0], ".model")
    if n_folds is None:
        _check_writable(model_path)
    X, y = _read_training_set(files[0], kernel_type)
    _check_labels(y, files[0], svm_type)
    estimator = _estimator(options, X.shape[1])
    _drop_unknown_weights(estimator, y)
    quiet = options.get("quiet", False)
    from ._folds import CRand

    rand = CRand()  # (svm-train's unseeded rand())
    density_model = bool(options.get("probability", 0)) and svm_type not in _CLASSIFIERS
    if n_folds is not None:
        predicted, regression = _cross_validated(estimator, X, y, n_folds, files[0], not quiet, rand, density_model)
        print(_cross_validation_message(predicted, y, regression))
        return 0
    from ..io.libsvm_model import check_libsvm_model, libsvm_label_order, save_libsvm_model

    check_libsvm_model(estimator)
    labels = libsvm_label_order(y) if svm_type in _CLASSIFIERS else None
    model = _trained(estimator, X, y, files[0], not quiet, rand, density_model, bar=not quiet)
    save_libsvm_model(model, model_path, labels=labels)
    return 0
