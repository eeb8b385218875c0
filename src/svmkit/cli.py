"""The ``svmkit`` command line.

``svmkit train``, ``predict``, ``scale`` and ``grid`` take the options of
LIBSVM's ``svm-train``, ``svm-predict``, ``svm-scale`` and ``tools/grid.py``
and read and write the same files, so ``svm-train -c 4 -g 0.5 data model``
becomes ``svmkit train -c 4 -g 0.5 data model``. ``svmkit demo`` trains on
the bundled heart_scale data and reports the theory of the fitted model.

Errors (a missing file, a malformed line, a bad option value) end the
command with exit status 1 and one line ``svmkit: error: ...`` on stderr.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.base import is_regressor
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_predict

from . import svm as svm_module
from .demo import run_demo
from .io import LibsvmFormatError, load_libsvm, load_libsvm_model, load_libsvm_precomputed, save_libsvm_model
from .model_selection import SVCGridSearch
from .preprocessing import LibsvmScaler, TargetRange, load_range, save_range

KERNELS = {0: "linear", 1: "poly", 2: "rbf", 3: "sigmoid", 4: "precomputed"}

#: LIBSVM's -s values: the estimator class (in svmkit.svm) and the LIBSVM name.
SVM_TYPES = {
    0: ("SVC", "C-SVC"),
    1: ("NuSVC", "nu-SVC"),
    2: ("OneClassSVM", "one-class SVM"),
    3: ("SVR", "epsilon-SVR"),
    4: ("NuSVR", "nu-SVR"),
}

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
-v n : n-fold cross validation mode (prints the accuracy, writes no model)
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
grid_options:
-log2c begin,end,step : exponents of C (default -5,15,2)
-log2g begin,end,step : exponents of gamma (default 3,-15,-2)
-v n : n-fold cross validation (default 5)
-out pathname : CSV table of the results, or null (default: dataset name + ".csv")
-png pathname (or --out-png pathname) : heatmap, or null (default: dataset name + ".png")
-scale method : scaling fitted inside each fold: none, minmax or standard (default none:
                the data are used as given, as grid.py does; scale them with svmkit scale)
-refine : search a 4 times finer grid around the best point
-j n : parallel jobs (default 1; -1 for all cores)
svm_options : the options of svmkit train, except -c, -g and -v
Prints "C gamma rate" of the best point (rate: cross-validation accuracy in %).
"""


class UsageError(ValueError):
    """A command line that the command cannot run."""


def _number(text):
    try:
        value = float(text)
    except ValueError:
        raise ValueError("expected a number") from None
    if not np.isfinite(value):
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


def _triple(text):
    parts = text.split(",")
    if len(parts) != 3:
        raise ValueError("expected begin,end,step")
    return tuple(_number(part) for part in parts)


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
_GRID_OPTIONS = {
    **{name: option for name, option in _SVM_OPTIONS.items() if name not in ("c", "g")},
    "log2c": _Option("log2_C", _triple),
    "log2g": _Option("log2_gamma", _triple),
    "v": _Option("n_folds", _integer),
    "out": _Option("out", str),
    "png": _Option("png", str),
    "-out-png": _Option("png", str),
    "scale": _Option("scaling", str),
    "refine": _Option("refine", n_values=0),
    "j": _Option("n_jobs", _integer),
}


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
    try:
        return load_libsvm(path)
    except LibsvmFormatError as error:
        raise ValueError(f"{path}: {error}") from None


def _load_kernel(path, check_serial):
    try:
        return load_libsvm_precomputed(path, check_serial=check_serial)
    except LibsvmFormatError as error:
        raise ValueError(f"{path}: {error}") from None


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


def _estimator(options, n_features):
    """The svmkit estimator for LIBSVM's svm-train options."""
    svm_type = options.get("svm_type", 0)
    if svm_type not in SVM_TYPES:
        raise UsageError(f"bad value for -s: {svm_type} (svm types are 0 to 4)")
    class_name, libsvm_name = SVM_TYPES[svm_type]
    estimator_class = getattr(svm_module, class_name, None)
    if estimator_class is None:
        raise UsageError(f"svm type {svm_type} ({libsvm_name}) is not available in this svmkit; use -s 0 (C-SVC)")
    kernel_type = options.get("kernel_type", 2)
    if kernel_type not in KERNELS:
        raise UsageError(f"bad value for -t: {kernel_type} (kernel types are 0 to 4)")
    for flag, name, default, valid, rule in _PARAMETER_RULES:
        if not valid(options.get(name, default)):
            raise UsageError(f"bad value for -{flag}: {options[name]:g} ({rule})")
    gamma = options.get("gamma", 0.0)
    values = {
        "kernel": KERNELS[kernel_type],
        "degree": options.get("degree", 3),
        "gamma": gamma if gamma > 0 else 1.0 / max(n_features, 1),
        "coef0": options.get("coef0", 0.0),
        "C": options.get("C", 1.0),
        "nu": options.get("nu", 0.5),
        "epsilon": options.get("epsilon", 0.1),
        "cache_size": options.get("cache_size", 100.0),
        "tol": options.get("tol", 1e-3),
        "shrinking": bool(options.get("shrinking", 1)),
        "class_weight": options.get("class_weight"),
    }
    accepted = estimator_class().get_params()
    if options.get("probability", 0):
        if "probability" not in accepted:
            raise UsageError(f"probability estimates are not available for {libsvm_name} in this svmkit (-b 1)")
        values.update(probability=True, random_state=0)
    return estimator_class(**{name: value for name, value in values.items() if name in accepted})


def _drop_unknown_weights(estimator, y):
    """LIBSVM warns about and ignores weights of labels that are not in the data."""
    weights = getattr(estimator, "class_weight", None)
    if not weights:
        return
    labels = set(np.unique(y).tolist())
    for label in [label for label in weights if label not in labels]:
        print(f"WARNING: class label {label:g} specified in weight is not found", file=sys.stderr)
        del weights[label]
    estimator.set_params(class_weight=weights or None)


def _training_report(model):
    """What svm-train prints after training: per problem, then the total number of SVs."""
    lines = []
    for problem in getattr(model, "binary_models_", []):
        at_bound = np.count_nonzero(problem.alpha >= problem.upper)
        lines += [
            f"optimization finished, #iter = {problem.n_iter}",
            f"obj = {-problem.dual_objective:f}, rho = {-problem.intercept:f}",
            f"nSV = {np.count_nonzero(problem.alpha)}, nBSV = {at_bound}",
        ]
    lines.append(f"Total nSV = {model.support_.shape[0]}")
    return "\n".join(lines)


def _cross_validation(estimator, X, y, n_folds):
    """svm-train -v: the accuracy (classification) or the MSE and r^2 (regression)."""
    if n_folds < 2:
        raise UsageError("n-fold cross validation: n must be >= 2")
    regression = is_regressor(estimator)
    kind = KFold if regression or np.unique(y).shape[0] < 2 else StratifiedKFold
    splitter = kind(n_folds, shuffle=True, random_state=0)
    predicted = cross_val_predict(estimator, X, y, cv=splitter)
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
    X, y = _read_training_set(files[0], options.get("kernel_type", 2))
    estimator = _estimator(options, X.shape[1])
    _drop_unknown_weights(estimator, y)
    if "n_folds" in options:
        print(_cross_validation(estimator, X, y, options["n_folds"]))
        return 0
    model = estimator.fit(X, y)
    if not options.get("quiet"):
        print(_training_report(model))
    model_path = files[1] if len(files) == 2 else _default_output(files[0], ".model")
    try:
        save_libsvm_model(model, model_path)
    except TypeError as error:
        raise ValueError(f"cannot write a LIBSVM model file: {error}") from None
    return 0


# -- predict --------------------------------------------------------------------------------


def _read_test_set(path, model_path):
    """The test data and the model, with as many features as the larger of the two."""
    model = load_libsvm_model(model_path)
    if model.kernel == "precomputed":
        K, y = _load_kernel(path, check_serial=False)
        if K.shape[1] < model.n_features_in_:
            raise ValueError(f"{path}: the precomputed kernel needs {model.n_features_in_} columns, found {K.shape[1]}")
        return K[:, : model.n_features_in_], y, model
    X, y = _load_data(path)
    if X.shape[1] > model.n_features_in_:
        # LIBSVM's kernels see every feature of the test point; the support
        # vectors are zero in the features they do not use.
        model = load_libsvm_model(model_path, n_features=X.shape[1])
    elif X.shape[1] < model.n_features_in_:
        X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], model.n_features_in_))
    return X, y, model


def predict(args):
    """``svmkit predict``: LIBSVM's svm-predict. Returns the exit status."""
    options, files = _parse("predict", args, _PREDICT_OPTIONS, (3, 3), PREDICT_USAGE)
    if options is None:
        return 0
    test_path, model_path, output_path = files
    X, y, model = _read_test_set(test_path, model_path)
    has_probabilities = np.size(getattr(model, "probA_", ())) > 0
    if options.get("probability", 0):
        if not has_probabilities:
            raise ValueError(f"{model_path}: the model does not support probability estimates (train it with -b 1)")
        probabilities = model.predict_proba(X)
        predicted = model.classes_[np.argmax(probabilities, axis=1)]
        lines = ["labels " + " ".join(f"{label:.17g}" for label in model.classes_)]
        lines += [
            " ".join([f"{label:g}", *(f"{p:g}" for p in row)]) for label, row in zip(predicted.tolist(), probabilities)
        ]
    else:
        if has_probabilities and not options.get("quiet"):
            print("Model supports probability estimates, but disabled in prediction.")
        predicted = model.predict(X)
        lines = [f"{label:.17g}" for label in predicted.tolist()]
    with open(output_path, "w", encoding="ascii") as file:
        file.write("\n".join(lines) + "\n")
    if not options.get("quiet"):
        correct = int(np.sum(predicted == y))
        print(f"Accuracy = {100.0 * correct / y.shape[0]:g}% ({correct}/{y.shape[0]}) (classification)")
    return 0


# -- scale ----------------------------------------------------------------------------------


def _scaled_lines(X, y, scaler, target_range):
    """svm-scale's output lines: the (scaled) label with 17 digits, then ``index:value`` with %g."""
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


def _write_table(search, path):
    results = search.cv_results_
    with open(path, "w", newline="", encoding="ascii") as file:
        writer = csv.writer(file)
        writer.writerow(["log2c", "log2g", "C", "gamma", "accuracy_percent", "std_percent", "mean_fit_time", "stage"])
        numbers = zip(
            results["log2_C"], results["log2_gamma"], results["C"], results["gamma"],
            100.0 * results["mean_accuracy"], 100.0 * results["std_accuracy"], results["mean_fit_time"],
        )
        for values, stage in zip(numbers, results["stage"]):
            writer.writerow([f"{value:.17g}" for value in values] + [stage])


def _write_heatmap(search, path):
    try:
        from matplotlib.figure import Figure
    except ImportError:
        print(
            f"WARNING: matplotlib is not installed, so {path} was not written (pip install 'svmkit[plot]')",
            file=sys.stderr,
        )
        return
    from .plotting import plot_grid_search

    figure = Figure(figsize=(6.4, 4.8))
    plot_grid_search(search, ax=figure.add_subplot())
    figure.savefig(path, dpi=100)


def grid(args):
    """``svmkit grid``: LIBSVM's tools/grid.py. Returns the exit status."""
    options, files = _parse("grid", args, _GRID_OPTIONS, (1, 1), GRID_USAGE)
    if options is None:
        return 0
    scaling = options.get("scaling", "none")
    if scaling not in ("none", "minmax", "standard"):
        raise UsageError(f"bad value for -scale: {scaling!r} (none, minmax or standard)")
    X, y = _read_training_set(files[0], options.get("kernel_type", 2))
    estimator = _estimator(options, X.shape[1])
    _drop_unknown_weights(estimator, y)
    search = SVCGridSearch(
        estimator,
        log2_C=options.get("log2_C", (-5, 15, 2)),
        log2_gamma=options.get("log2_gamma", (3, -15, -2)),
        cv=options.get("n_folds", 5),
        scaling=None if scaling == "none" else scaling,
        refine=options.get("refine", False),
        n_jobs=options.get("n_jobs", 1),
        progress=not options.get("quiet") and sys.stderr.isatty(),
    ).fit(X, y)
    table_path = options.get("out", _default_output(files[0], ".csv"))
    if table_path != "null":
        _write_table(search, table_path)
    png_path = options.get("png", _default_output(files[0], ".png"))
    if png_path != "null":
        _write_heatmap(search, png_path)
    best = search.best_params_
    print(f"{best['C']:g} {best['gamma']:g} {100.0 * search.best_score_:g}")
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
    print(run_demo(C=args.C, random_state=args.seed))
    return 0


def build_parser():
    """The argument parser of the ``svmkit`` command.

    It runs ``demo`` and lists every command in ``svmkit --help``; ``main``
    hands the LIBSVM-style commands to their own parser.
    """
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
    Five-fold cross-validation of an RBF C-SVC (``svm-train -v 5``) on the
    bundled heart_scale data:

    >>> from importlib.resources import files
    >>> from svmkit.cli import main
    >>> main(["train", "-v", "5", str(files("svmkit.datasets") / "heart_scale")])
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
