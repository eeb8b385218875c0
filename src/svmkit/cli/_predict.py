"""``svmkit predict``: LIBSVM's svm-predict."""

from ._files import _load_data, _load_kernel, _load_model
from ._options import _binary, _Option, _parse

PREDICT_USAGE = """\
Usage: svmkit predict [options] test_file model_file output_file
options:
-b probability_estimates : whether to predict probability estimates, 0 or 1 (default 0)
-q : quiet mode (no outputs)
"""

_PREDICT_OPTIONS = {"b": _Option("probability", _binary), "q": _Option("quiet", n_values=0)}


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

    from ..io.libsvm_model import check_libsvm_model, predict_as_libsvm, predict_proba_as_libsvm

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
