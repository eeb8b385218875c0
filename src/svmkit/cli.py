"""The ``svmkit`` command line.

``svmkit train``, ``predict``, ``scale`` and ``grid`` take the options of
LIBSVM's ``svm-train``, ``svm-predict``, ``svm-scale`` and ``tools/grid.py``
and read and write the same files, so ``svm-train -c 4 -g 0.5 data model``
becomes ``svmkit train -c 4 -g 0.5 data model``. Where LIBSVM's semantics
differ from scikit-learn's, the commands follow LIBSVM: model files list the
labels in the order of their first appearance in the training data, and
``predict -b 1`` gives two classes the Platt sigmoid itself. ``svmkit demo``
trains on the bundled heart_scale data and reports the theory of the fitted
model.

Errors (a missing file, a malformed line, a bad option value) end the
command with exit status 1 and one line ``svmkit: error: ...`` on stderr,
naming the file and line where there is one. The command imports NumPy,
the solver and scikit-learn only when a command needs them, so ``--help``
and a bad command line answer at once.
"""

from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass

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
_REGRESSORS = (3, 4)

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
-b probability_estimates : whether to train a SVC or SVR model for probability estimates, 0 or 1 (default 0);
	svmkit trains them for C-SVC and nu-SVC
-wi weight : set the parameter C of class i to weight*C, for C-SVC (default 1)
-v n : n-fold cross validation mode (prints each fold's solver lines and the accuracy, writes no model)
-q : quiet mode (no outputs)
The model file defaults to the training file's name + ".model", in the current directory.
"""

PREDICT_USAGE = """\
Usage: svmkit predict [options] test_file model_file output_file
options:
-b probability_estimates : whether to predict probability estimates, 0 or 1 (default 0)
-q : quiet mode (no outputs)
"""

SCALE_USAGE = """\
Usage: svmkit scale [options] data_filename
options:
-l lower : x scaling lower limit (default -1)
-u upper : x scaling upper limit (default +1)
-y y_lower y_upper : y scaling limits (default: no y scaling)
-s save_filename : save scaling parameters to save_filename
-r restore_filename : restore scaling parameters from restore_filename
The scaled data go to stdout.
"""

GRID_USAGE = """\
Usage: svmkit grid [grid_options] [svm_options] dataset
grid_options (those of LIBSVM's tools/grid.py):
-log2c {begin,end,step | "null"} : set the range of c (default -5,15,2)
    begin,end,step -- c_range = 2^{begin,...,begin+k*step,...,end}
    "null"         -- do not grid with c
-log2g {begin,end,step | "null"} : set the range of g (default 3,-15,-2)
    begin,end,step -- g_range = 2^{begin,...,begin+k*step,...,end}
    "null"         -- do not grid with g
-v n : n-fold cross validation (default 5)
-svmtrain pathname : run this svm-train for each point (default: svmkit's own, in this process)
-gnuplot {pathname | "null"} : accepted; svmkit grid draws no contour
-out {pathname | "null"} : (default dataset.out)
    pathname -- set output file path and name
    "null"   -- do not output file
-png pathname : accepted; svmkit grid draws no contour
-resume [pathname] : resume the grid task using an existing output file (default pathname is dataset.out)
svm_options : additional options for svmkit train (not -c, -g or -v)
Prints each point as it finishes ("[local] log2c log2g rate (best c=..., g=..., rate=...)"),
then "C gamma rate" of the best point (rate: cross-validation accuracy in %).
"""


class UsageError(ValueError):
    """A command line that the command cannot run."""


def _number(text):
    try:
        value = float(text)
    except ValueError:
        raise ValueError("expected a number") from None
    if not math.isfinite(value):
        raise ValueError("expected a finite number")
    return value


def _integer(text):
    try:
        return int(text)
    except ValueError:
        raise ValueError("expected an integer") from None


def _binary(text):
    if text not in ("0", "1"):
        raise ValueError("expected 0 or 1")
    return int(text)


@dataclass(frozen=True)
class _Option:
    """One LIBSVM-style option: its destination, value converter and number of values."""

    dest: str
    convert: object = _number
    n_values: int = 1


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
_PREDICT_OPTIONS = {"b": _Option("probability", _binary), "q": _Option("quiet", n_values=0)}
_SCALE_OPTIONS = {
    "l": _Option("lower"),
    "u": _Option("upper"),
    "y": _Option("y_limits", n_values=2),
    "s": _Option("save", str),
    "r": _Option("restore", str),
}
#: svm-train's options that grid.py passes through (it sets -c, -g and -v itself).
_GRID_SVM_OPTIONS = {name: option for name, option in _SVM_OPTIONS.items() if name not in ("c", "g")}


def _parse(command, args, table, positional, usage):
    """LIBSVM's command-line convention: options (``-x value``) first, then the files.

    ``-w<label> weight`` sets a class weight where the table has ``w``.
    Returns the options as a dict (``class_weight`` a dict of label -> weight)
    and the positional arguments, whose count must lie in ``positional``.
    """
    options, weights = {}, {}
    i = 0
    while i < len(args) and args[i].startswith("-") and len(args[i]) > 1:
        name = args[i][1:]
        if name in ("-help", "?"):
            print(usage, end="")
            return None, None
        is_weight = name.startswith("w") and len(name) > 1 and "w" in table
        option = _Option("class_weight") if is_weight else table.get(name)
        if option is None:
            raise UsageError(f"unknown option -{name} for svmkit {command} (see svmkit {command} --help)")
        values = args[i + 1 : i + 1 + option.n_values]
        if len(values) < option.n_values:
            raise UsageError(f"option -{name} needs {option.n_values} value{'s' if option.n_values > 1 else ''}")
        try:
            converted = [option.convert(value) for value in values]
        except ValueError as error:
            raise UsageError(f"bad value for -{name}: {' '.join(values)!r} ({error})") from None
        if is_weight:
            weights[_label(name[1:])] = converted[0]
        elif option.n_values == 0:
            options[option.dest] = True
        else:
            options[option.dest] = converted[0] if option.n_values == 1 else converted
        i += 1 + option.n_values
    files = args[i:]
    if not positional[0] <= len(files) <= positional[1]:
        expected = " or ".join(str(n) for n in sorted(set(positional)))
        raise UsageError(
            f"svmkit {command} takes {expected} file names, got {len(files)} (see svmkit {command} --help)"
        )
    if weights:
        options["class_weight"] = weights
    return options, files


def _label(text):
    try:
        return float(int(text))
    except ValueError:
        raise UsageError(f"bad class label in -w{text}: expected an integer") from None


# -- loading files ----------------------------------------------------------------------------


def _load_data(path):
    from .io.libsvm_data import LibsvmFormatError, load_libsvm

    try:
        return load_libsvm(path)
    except LibsvmFormatError as error:
        raise ValueError(f"{path}: {error}") from None


def _load_kernel(path, check_serial):
    from .io.libsvm_data import LibsvmFormatError, load_libsvm_precomputed

    try:
        return load_libsvm_precomputed(path, check_serial=check_serial)
    except LibsvmFormatError as error:
        raise ValueError(f"{path}: {error}") from None


def _load_model(path, n_features=None):
    from .io.libsvm_data import LibsvmFormatError
    from .io.libsvm_model import load_libsvm_model

    try:
        return load_libsvm_model(path, n_features=n_features)
    except LibsvmFormatError as error:
        raise ValueError(f"{path}: {error}") from None


def _line_of_row(path, row):
    """The 1-based line of the ``row``-th data line of a LIBSVM data file (blank and comment
    lines do not count as rows)."""
    from .io.libsvm_data import _read_bytes

    seen = -1
    for number, line in enumerate(_read_bytes(path).split(b"\n"), start=1):
        if line.split(b"#", 1)[0].strip():
            seen += 1
            if seen == row:
                return number
    return None


def _default_output(data_path, suffix):
    """LIBSVM's default output name: the data file's base name + suffix, in the current directory."""
    return os.path.basename(data_path) + suffix


# -- train --------------------------------------------------------------------------------


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
    if options.get("probability", 0) and svm_type not in _CLASSIFIERS:
        raise UsageError(
            f"probability estimates are not available for {SVM_TYPES[svm_type][1]} in svmkit train (-b 1); "
            "svmkit trains them for C-SVC and nu-SVC (-s 0 and 1)"
        )
    return svm_type, kernel_type


def _estimator(options, n_features):
    """The svmkit estimator for LIBSVM's svm-train options (checked by :func:`_check_svm_options`)."""
    from . import svm

    svm_type = options.get("svm_type", 0)
    estimator_class = getattr(svm, SVM_TYPES[svm_type][0])
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
    from .io.libsvm_model import _file_pairs

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


def _cross_validated(estimator, X, y, n_folds, path, report):
    """svm-train -v: the prediction of each sample by the model of the folds without it
    (stratified folds for classifiers); each fold's solver lines when ``report``."""
    import numpy as np
    from sklearn.base import clone, is_regressor
    from sklearn.model_selection import KFold, StratifiedKFold
    from sklearn.utils.metaestimators import _safe_split

    from .io.libsvm_model import libsvm_label_order

    classifier = hasattr(estimator, "probability")
    regression = is_regressor(estimator)
    kind = StratifiedKFold if classifier and np.unique(y).shape[0] > 1 else KFold
    predicted = np.empty_like(y)
    for train, test in kind(n_folds, shuffle=True, random_state=0).split(X, y):
        X_train, y_train = _safe_split(estimator, X, y, train)
        X_test, _ = _safe_split(estimator, X, y, test, train)
        model = _fit(clone(estimator), X_train, y_train, path)
        if report:
            print("\n".join(_report_lines(model, libsvm_label_order(y_train) if classifier else None)))
        predicted[test] = model.predict(X_test)
    return predicted, regression


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
    if n_folds is not None:
        predicted, regression = _cross_validated(estimator, X, y, n_folds, files[0], report=not quiet)
        print(_cross_validation_message(predicted, y, regression))
        return 0
    from .io.libsvm_model import check_libsvm_model, libsvm_label_order, save_libsvm_model

    check_libsvm_model(estimator)
    labels = libsvm_label_order(y) if svm_type in _CLASSIFIERS else None
    model = _fit(estimator, X, y, files[0])
    if not quiet:
        print("\n".join(_report_lines(model, labels)))
    save_libsvm_model(model, model_path, labels=labels)
    return 0


# -- predict --------------------------------------------------------------------------------


def _read_test_set(path, model_path):
    """The test data and the model, with as many features as the larger of the two."""
    import scipy.sparse as sp

    model = _load_model(model_path)
    if model.kernel == "precomputed":
        K, y = _load_kernel(path, check_serial=False)
        if K.shape[1] < model.n_features_in_:
            raise ValueError(f"{path}: the precomputed kernel needs {model.n_features_in_} columns, found {K.shape[1]}")
        return K[:, : model.n_features_in_], y, model
    X, y = _load_data(path)
    if X.shape[1] > model.n_features_in_:
        # LIBSVM's kernels see every feature of the test point; the support
        # vectors are zero in the features they do not use.
        model = _load_model(model_path, n_features=X.shape[1])
    elif X.shape[1] < model.n_features_in_:
        X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], model.n_features_in_))
    return X, y, model


def _has_probability_model(model, svm_type):
    import numpy as np

    if svm_type == "one_class":
        return getattr(model, "prob_density_marks_", None) is not None
    return np.size(getattr(model, "probA_", ())) > 0


def predict(args):
    """``svmkit predict``: LIBSVM's svm-predict. Returns the exit status."""
    options, files = _parse("predict", args, _PREDICT_OPTIONS, (3, 3), PREDICT_USAGE)
    if options is None:
        return 0
    import numpy as np

    from .io.libsvm_model import check_libsvm_model, predict_as_libsvm, predict_proba_as_libsvm

    test_path, model_path, output_path = files
    quiet = options.get("quiet", False)
    X, y, model = _read_test_set(test_path, model_path)
    svm_type = check_libsvm_model(model)
    regression = svm_type in ("epsilon_svr", "nu_svr")
    has_probabilities = _has_probability_model(model, svm_type)
    if options.get("probability", 0) and not has_probabilities:
        raise ValueError(f"{model_path}: the model does not support probability estimates (train it with -b 1)")
    if options.get("probability", 0) and not regression:
        columns, probabilities, predicted = predict_proba_as_libsvm(model, X)
        heading = "label " + " ".join(columns) if svm_type == "one_class" else "labels " + " ".join(
            str(label) for label in columns.tolist())
        lines = [heading] + [
            " ".join([f"{label:g}", *(f"{p:g}" for p in row)]) for label, row in zip(predicted.tolist(), probabilities)
        ]
    else:
        if regression and options.get("probability", 0) and not quiet:
            print(
                "Prob. model for test data: target value = predicted value + z,\n"
                f"z: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma={model.probA_[0]:g}"
            )
        elif has_probabilities and not quiet:
            print("Model supports probability estimates, but disabled in prediction.")
        predicted = predict_as_libsvm(model, X)
        lines = [f"{value:.17g}" for value in np.asarray(predicted, dtype=np.float64).tolist()]
    with open(output_path, "w", encoding="ascii") as file:
        file.write("\n".join(lines) + "\n")
    if not quiet:
        print(_prediction_summary(np.asarray(predicted, dtype=np.float64), y, regression))
    return 0


def _prediction_summary(predicted, y, regression):
    """svm-predict's last lines: the accuracy, or the MSE and squared correlation (its formula)."""
    import numpy as np

    n = y.shape[0]
    if not regression:
        correct = int(np.sum(predicted == y))
        return f"Accuracy = {100.0 * correct / n:g}% ({correct}/{n}) (classification)"
    sum_p, sum_t = predicted.sum(), y.sum()
    sum_pp, sum_tt, sum_pt = predicted @ predicted, y @ y, predicted @ y
    with np.errstate(divide="ignore", invalid="ignore"):
        correlation = np.float64((n * sum_pt - sum_p * sum_t) ** 2) / (
            (n * sum_pp - sum_p**2) * (n * sum_tt - sum_t**2))
    return (
        f"Mean squared error = {np.mean((predicted - y) ** 2):g} (regression)\n"
        f"Squared correlation coefficient = {correlation:g} (regression)"
    )


# -- scale ----------------------------------------------------------------------------------


def _scaled_lines(X, y, scaler, target_range):
    """svm-scale's output lines: the (scaled) label with 17 digits, then ``index:value`` with %g."""
    import numpy as np
    import scipy.sparse as sp

    rows_per_block = max(1, 2**20 // max(X.shape[1], 1))
    for start in range(0, X.shape[0], rows_per_block):
        block = scaler.transform(X[start : start + rows_per_block])
        block = block.toarray() if sp.issparse(block) else block
        labels = y[start : start + rows_per_block]
        if target_range is not None:
            labels = target_range.transform(labels)
        for label, row in zip(labels.tolist(), block):
            columns = np.flatnonzero(row)
            values = zip(columns.tolist(), row[columns].tolist())
            fields = [f"{label:.17g}", *(f"{j + 1}:{value:g}" for j, value in values)]
            yield " ".join(fields) + " \n"


def _restored_scaler(restore_path, X, data_path):
    """The scaler of a range file, over all features of ``X``; warns about features the file leaves out."""
    import numpy as np
    import scipy.sparse as sp

    from .preprocessing import LibsvmScaler, load_range

    scaler, target_range = load_range(restore_path, n_features=X.shape[1])
    X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], scaler.n_features_in_))
    varies = LibsvmScaler().fit(X)
    left_out = (scaler.data_min_ == scaler.data_max_) & (varies.data_min_ != varies.data_max_)
    for j in np.flatnonzero(left_out):
        print(
            f"WARNING: feature index {j + 1} appeared in file {data_path} was not seen in the scaling factor file "
            f"{restore_path}. The feature is scaled to 0.",
            file=sys.stderr,
        )
    return scaler, target_range, X


def scale(args):
    """``svmkit scale``: LIBSVM's svm-scale. Returns the exit status."""
    options, files = _parse("scale", args, _SCALE_OPTIONS, (1, 1), SCALE_USAGE)
    if options is None:
        return 0
    if "save" in options and "restore" in options:
        raise UsageError("cannot use -r and -s simultaneously")
    from .preprocessing import LibsvmScaler, TargetRange, save_range

    X, y = _load_data(files[0])
    if "restore" in options:
        scaler, target_range, X = _restored_scaler(options["restore"], X, files[0])
    else:
        scaler = LibsvmScaler(lower=options.get("lower", -1.0), upper=options.get("upper", 1.0)).fit(X)
        target_range = None
    if target_range is None and "y_limits" in options and y.size:
        target_range = TargetRange.fit(y, *options["y_limits"])
    if "save" in options:
        save_range(scaler, options["save"], target_range)
    n_nonzero = 0
    for line in _scaled_lines(X, y, scaler, target_range):
        n_nonzero += line.count(":")
        sys.stdout.write(line)
    if n_nonzero > X.nnz:
        print(
            f"WARNING: original #nonzeros {X.nnz}\n       > new      #nonzeros {n_nonzero}\n"
            "If feature values are non-negative and sparse, use -l 0 rather than the default -l -1",
            file=sys.stderr,
        )
    return 0


# -- grid -----------------------------------------------------------------------------------


@dataclass
class _GridSettings:
    """grid.py's options (``GridOption``): None for a range set to "null"."""

    dataset: str
    log2c: tuple | None = (-5.0, 15.0, 2.0)
    log2g: tuple | None = (3.0, -15.0, -2.0)
    fold: int = 5
    svmtrain: str | None = None
    out: str | None = None
    resume: str | None = None
    passed: tuple = ()


def _grid_range(text, name):
    if text == "null":
        return None
    parts = text.split(",")
    try:
        if len(parts) != 3:
            raise ValueError("expected begin,end,step")
        begin, end, step = (_number(part) for part in parts)
    except ValueError as error:
        raise UsageError(f"bad value for {name}: {text!r} ({error})") from None
    if step == 0:
        raise UsageError(f"bad value for {name}: {text!r} (the step must not be 0)")
    return begin, end, step


def _grid_settings(args):
    """grid.py's command line: the dataset last, grid options anywhere before it, the other
    options passed to svm-train. Returns None after printing the usage for ``--help``."""
    if not args or args[0] in ("--help", "-?"):
        if not args:
            raise UsageError("svmkit grid takes a dataset (see svmkit grid --help)")
        print(GRID_USAGE, end="")
        return None
    dataset, options = args[-1], args[:-1]
    settings = _GridSettings(dataset, out=os.path.basename(dataset) + ".out")
    passed, i = [], 0

    def value_of(name):
        if i + 1 >= len(options):
            raise UsageError(f"option {name} needs a value (see svmkit grid --help)")
        return options[i + 1]

    while i < len(options):
        name = options[i]
        if name in ("-log2c", "-log2g"):
            setattr(settings, name[1:], _grid_range(value_of(name), name))
            i += 1
        elif name == "-v":
            try:
                settings.fold = _integer(value_of(name))
            except ValueError as error:
                raise UsageError(f"bad value for -v: {options[i + 1]!r} ({error})") from None
            if settings.fold < 2:
                raise UsageError("n-fold cross validation: n must be >= 2")
            i += 1
        elif name in ("-c", "-g"):
            raise UsageError(f"svmkit grid sets {name} itself: use -log2c and -log2g (as grid.py)")
        elif name == "-svmtrain":
            settings.svmtrain = value_of(name)
            i += 1
        elif name in ("-gnuplot", "-png"):
            value = value_of(name)
            if not (name == "-gnuplot" and value == "null"):
                print(f"svmkit grid: note: {name} {value} ignored: svmkit grid draws no gnuplot contour",
                      file=sys.stderr)
            i += 1
        elif name == "-out":
            value = value_of(name)
            settings.out = None if value == "null" else value
            i += 1
        elif name == "-resume":
            if i == len(options) - 1 or options[i + 1].startswith("-"):
                settings.resume = os.path.basename(dataset) + ".out"
            else:
                settings.resume = options[i + 1]
                i += 1
        else:
            passed.append(name)
        i += 1
    settings.passed = tuple(passed)
    if settings.log2c is None and settings.log2g is None:
        raise UsageError("-log2c and -log2g should not be null simultaneously")
    if settings.svmtrain is not None and not os.path.exists(settings.svmtrain):
        raise ValueError(f"svm-train executable not found: {settings.svmtrain}")
    if not os.path.exists(dataset):
        raise ValueError(f"can't open file {dataset}: dataset not found")
    if settings.resume is not None and not os.path.exists(settings.resume):
        raise ValueError(f"can't open file {settings.resume}: file for resumption not found")
    return settings


def _grid_sequence(begin, end, step):
    """grid.py's ``range_f`` (the end included when the steps reach it), in grid.py's order
    (``permute_sequence``: the middle first, then the middles of the halves, ...)."""
    values = []
    while not (step > 0 and begin > end) and not (step < 0 and begin < end):
        values.append(begin)
        begin += step

    def permuted(seq):
        if len(seq) <= 1:
            return list(seq)
        middle = len(seq) // 2
        left, right = permuted(seq[:middle]), permuted(seq[middle + 1 :])
        order = [seq[middle]]
        while left or right:
            if left:
                order.append(left.pop(0))
            if right:
                order.append(right.pop(0))
        return order

    return permuted(values)


def _grid_jobs(c_values, g_values):
    """grid.py's ``calculate_jobs``: the points, coarse first, C and gamma refined in turn."""
    n_c, n_g = float(len(c_values)), float(len(g_values))
    i = j = 0
    jobs = []
    while i < n_c or j < n_g:
        if i / n_c < j / n_g:
            jobs += [(c_values[i], g_values[k]) for k in range(j)]
            i += 1
        else:
            jobs += [(c_values[k], g_values[j]) for k in range(i)]
            j += 1
    return jobs


def _resumed_points(path):
    """The rates that a grid.py ``.out`` file holds, by (log2c, log2g)."""
    import re

    points = {}
    with open(path, encoding="ascii") as file:
        for line in file:
            rate = re.findall(r"rate=([0-9.]+)", line)
            if not rate:
                continue
            c = re.findall(r"log2c=([0-9.-]+)", line)
            g = re.findall(r"log2g=([0-9.-]+)", line)
            points[(float(c[0]) if c else None, float(g[0]) if g else None)] = float(rate[0])
    return points


def _external_rate(settings, c, g):
    """The rate that ``settings.svmtrain -v`` prints for the point, as grid.py reads it."""
    import subprocess

    command = [settings.svmtrain]
    if c is not None:
        command += ["-c", str(2.0**c)]
    if g is not None:
        command += ["-g", str(2.0**g)]
    command += ["-v", str(settings.fold), *settings.passed, settings.dataset]
    result = subprocess.run(command, capture_output=True, text=True)
    for line in result.stdout.splitlines():
        if "Cross" in line:
            return float(line.split()[-1][:-1])
    raise ValueError(f"{settings.svmtrain} printed no cross-validation rate for {' '.join(command[1:])}: "
                     f"{result.stderr.strip() or 'no output'}")


def _grid_edges(settings, best_c, best_g):
    """Warnings for a best point on the grid's edge (a wider grid may do better)."""
    warnings = []
    for name, spec, best in (("log2c", settings.log2c, best_c), ("log2g", settings.log2g, best_g)):
        if spec is None or best is None:
            continue
        values = _grid_sequence(*spec)
        if len(values) > 1 and best in (min(values), max(values)):
            warnings.append(
                f"svmkit grid: warning: the best {name} = {best:g} lies on the edge of the grid "
                f"({min(values):g} to {max(values):g}); a wider -{name} range may find a better point"
            )
    return warnings


def grid(args):
    """``svmkit grid``: LIBSVM's tools/grid.py. Returns the exit status."""
    settings = _grid_settings(args)
    if settings is None:
        return 0
    train_options, _ = _parse("grid", [*settings.passed, settings.dataset], _GRID_SVM_OPTIONS, (1, 1), GRID_USAGE)
    if train_options is None:
        return 0
    c_values = [None] if settings.log2c is None else _grid_sequence(*settings.log2c)
    g_values = [None] if settings.log2g is None else _grid_sequence(*settings.log2g)
    if settings.svmtrain is None:
        svm_type, kernel_type = _check_svm_options(train_options)
        if svm_type not in (0, 1, 2):
            raise UsageError(f"svmkit grid maximises a cross-validation accuracy: use -s 0, 1 or 2, not -s {svm_type}")
        X, y = _read_training_set(settings.dataset, kernel_type)
        _check_labels(y, settings.dataset, svm_type)

        def rate_of(c, g):
            point = dict(train_options)
            if c is not None:
                point["C"] = 2.0**c
            if g is not None:
                point["gamma"] = 2.0**g
            estimator = _estimator(point, X.shape[1])
            _drop_unknown_weights(estimator, y)
            predicted, _ = _cross_validated(estimator, X, y, settings.fold, settings.dataset, report=False)
            return float(f"{100.0 * (predicted == y).mean():g}")
    else:

        def rate_of(c, g):
            return _external_rate(settings, c, g)

    resumed = _resumed_points(settings.resume) if settings.resume else {}
    out = None
    if settings.out is not None:
        out = open(settings.out, "a" if settings.resume else "w", encoding="ascii")
    best_c = best_g = None
    best_rate = -1.0
    try:
        points = [(point, resumed[point], "resumed") for point in resumed]
        points += [((c, g), None, "local") for c, g in _grid_jobs(c_values, g_values) if (c, g) not in resumed]
        for (c, g), rate, worker in points:
            if rate is None:
                rate = rate_of(c, g)
            if rate > best_rate or (rate == best_rate and g == best_g and c < best_c):
                best_rate, best_c, best_g = rate, c, g
            shown = " ".join(str(value) for value in (c, g) if value is not None)
            best = "".join(
                f"{name}={2.0**value}, " for name, value, spec in (("c", best_c, c), ("g", best_g, g)) if spec is not None
            )
            print(f"[{worker}] {shown} {rate} (best {best}rate={best_rate})", flush=True)
            if out is not None and worker != "resumed":
                given = "".join(f"{name}={value} " for name, value in (("log2c", c), ("log2g", g)) if value is not None)
                out.write(f"{given}rate={rate}\n")
                out.flush()
    finally:
        if out is not None:
            out.close()
    for warning in _grid_edges(settings, best_c, best_g):
        print(warning, file=sys.stderr)
    best_values = [2.0**value for value in (best_c, best_g) if value is not None]
    print(f"{' '.join(map(str, best_values))} {best_rate}")
    return 0


# -- the command ----------------------------------------------------------------------------

#: The commands with LIBSVM's option syntax (``-h`` is svm-train's shrinking,
#: ``-w-1`` a weight), parsed by :func:`_parse` rather than argparse.
LIBSVM_COMMANDS = {
    "train": (train, "train an SVM on a LIBSVM data file (LIBSVM's svm-train)"),
    "predict": (predict, "predict a LIBSVM data file with a model file (LIBSVM's svm-predict)"),
    "scale": (scale, "scale a LIBSVM data file to [-1, 1] (LIBSVM's svm-scale)"),
    "grid": (grid, "choose C and gamma by cross-validation (LIBSVM's tools/grid.py)"),
}


def _demo(args):
    from .demo import run_demo

    print(run_demo(C=args.C, random_state=args.seed))
    return 0


def build_parser():
    """The argument parser of the ``svmkit`` command.

    It runs ``demo`` and lists every command in ``svmkit --help``; ``main``
    hands the LIBSVM-style commands to their own parser.
    """
    import argparse

    parser = argparse.ArgumentParser(prog="svmkit", description="Support vector machines that show their theory.")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, (_, summary) in LIBSVM_COMMANDS.items():
        commands.add_parser(name, help=f"{summary}; see svmkit {name} --help", add_help=False)
    demo = commands.add_parser("demo", help="train an RBF SVM on the bundled heart_scale data and report on it")
    demo.add_argument("-c", dest="C", type=float, default=1.0, help="the penalty C (default 1)")
    demo.add_argument("--seed", type=int, default=0, help="seed of the train/test split (default 0)")
    demo.set_defaults(handler=_demo)
    return parser


def _message(error):
    if isinstance(error, OSError) and error.filename is not None:
        return f"can't open file {error.filename}: {error.strerror}"
    return str(error).replace("\n", " ")


def main(argv=None):
    """Entry point of the ``svmkit`` console script.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name; ``sys.argv[1:]`` by default.

    Returns
    -------
    int
        The exit status: 0 on success, 1 on an error.

    Examples
    --------
    Five-fold cross-validation of an RBF C-SVC (``svm-train -v 5 -q``) on the
    bundled heart_scale data:

    >>> from importlib.resources import files
    >>> from svmkit.cli import main
    >>> main(["train", "-q", "-v", "5", str(files("svmkit.datasets") / "heart_scale")])
    Cross Validation Accuracy = 84.0741%
    0
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in LIBSVM_COMMANDS:
        command = LIBSVM_COMMANDS[argv[0]][0]
        try:
            return command(argv[1:])
        except (ValueError, OSError) as error:
            print(f"svmkit: error: {_message(error)}", file=sys.stderr)
            return 1
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except (ValueError, OSError) as error:
        print(f"svmkit: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
