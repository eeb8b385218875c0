"""The command line against LIBSVM itself: models trained by either tool predict the same in the other.

Debian's ``svm-train`` and ``svm-predict`` (``apt-get install libsvm-tools``) are the oracle of
the command-line tests; libsvm-official's Python bindings (``pip install libsvm-official``, in
the test extra) that of the decision values, which svm-predict does not print.
"""

import re
import shutil
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, load_iris

from svmkit.cli import main
from svmkit.io import dump_libsvm, dump_libsvm_precomputed, load_libsvm, load_libsvm_model

HEART_SCALE = str(files("svmkit.datasets") / "heart_scale")
needs_svm_tools = pytest.mark.skipif(
    shutil.which("svm-train") is None or shutil.which("svm-predict") is None,
    reason="LIBSVM's svm-train and svm-predict are not installed (apt-get install libsvm-tools)",
)

#: Options of each svm type (-s) shared by both tools; -b 1 where Debian's LIBSVM (3.24) trains
#: probabilities (its one-class SVM has none).
SVM_OPTIONS = {
    0: ["-c", "2", "-b", "1"],
    1: ["-n", "0.4", "-b", "1"],
    2: ["-n", "0.3"],
    3: ["-c", "2", "-p", "0.05", "-b", "1"],
    4: ["-c", "2", "-n", "0.4", "-b", "1"],
}
KERNEL_OPTIONS = ["-g", "0.2", "-r", "0.5", "-d", "2"]


def _data(name):
    """Small data sets: two classes (-1 first in the file), three classes whose labels first
    appear unsorted, and a regression target."""
    if name == "two":
        X, y = load_libsvm(HEART_SCALE)
        X, y = X[:80].toarray(), y[:80]
        return X, y
    if name == "three":
        X, y = load_iris(return_X_y=True)
        order = np.random.default_rng(0).permutation(150)[:90]
        return X[order] / 8.0, np.array([1.0, 3.0, 2.0])[y[order]]
    X, y = load_diabetes(return_X_y=True)
    return X[:80] * 5.0, y[:80] / 100.0


def _files(tmp_path, name, precomputed):
    """The training file and the test file (the training rows, then 20 others), and the test
    rows as a model reads them (the kernel's values against the training rows where
    ``precomputed``)."""
    X, y = _data(name)
    test_X = np.vstack([X, X[:20] + 0.05])
    test_y = np.concatenate([y, y[:20]])
    train, test = tmp_path / "train", tmp_path / "test"
    if precomputed:
        dump_libsvm_precomputed(X @ X.T, y, train)
        dump_libsvm_precomputed(test_X @ X.T, test_y, test)
        return train, test, test_X @ X.T
    dump_libsvm(X, y, train)
    dump_libsvm(test_X, test_y, test)
    return train, test, test_X


def _svmkit(*args):
    assert main([str(arg) for arg in args]) == 0


def _libsvm(program, *args):
    subprocess.run([program, *map(str, args)], check=True, capture_output=True, text=True)


def _read_output(path):
    lines = Path(path).read_text().splitlines()
    if lines[0].startswith("label"):
        return lines[0], np.array([[float(v) for v in line.split()] for line in lines[1:]])
    return None, np.array([float(line) for line in lines])


def _assert_same_predictions(ours, theirs, regression, ties=None):
    """The same output; labels may differ only at ``ties`` (rows whose decision value is zero
    within rounding, where either tool's rounding picks the side)."""
    header, values = _read_output(ours)
    their_header, their_values = _read_output(theirs)
    assert header == their_header  # the labels, in the same order
    if header is not None:
        np.testing.assert_array_equal(values[:, 0], their_values[:, 0])
        np.testing.assert_allclose(values[:, 1:], their_values[:, 1:], rtol=0, atol=1.01e-6)  # (printed with %g)
    elif regression:
        np.testing.assert_allclose(values, their_values, rtol=1e-9, atol=1e-12)
    else:
        settled = np.ones(values.shape[0], dtype=bool) if ties is None else ~ties
        np.testing.assert_array_equal(values[settled], their_values[settled])


def _ties(model_file, X):
    """Rows whose decision value under a one-class ``model_file`` is zero within rounding: its
    free support vectors lie on its boundary, exactly in exact arithmetic. (A precomputed
    model reads the columns up to its last support vector's.)"""
    model = load_libsvm_model(model_file)
    return np.abs(model.decision_function(X[:, :model.n_features_in_])) <= 1e-12


@needs_svm_tools
@pytest.mark.parametrize("kernel_type", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("svm_type", [0, 1, 2, 3, 4])
def test_models_of_either_tool_predict_the_same_in_the_other(tmp_path, svm_type, kernel_type, capsys):
    names = ["two", "three"] if svm_type in (0, 1) else ["two"] if svm_type == 2 else ["regression"]
    for name in names:
        folder = tmp_path / name
        folder.mkdir()
        train, test, test_rows = _files(folder, name, precomputed=kernel_type == 4)
        options = ["-s", svm_type, "-t", kernel_type, *KERNEL_OPTIONS, *SVM_OPTIONS[svm_type]]
        probability = ["-b", "1"] if "-b" in options[4:] else []
        _libsvm("svm-train", "-q", *options, train, folder / "libsvm.model")
        _svmkit("train", "-q", *options, train, folder / "svmkit.model")
        for model in ("libsvm.model", "svmkit.model"):
            ties = _ties(folder / model, test_rows) if svm_type == 2 else None
            for mode in ([], probability) if probability else ([],):
                _libsvm("svm-predict", *mode, test, folder / model, folder / "by_libsvm")
                _svmkit("predict", "-q", *mode, test, folder / model, folder / "by_svmkit")
                _assert_same_predictions(folder / "by_svmkit", folder / "by_libsvm", svm_type >= 3, ties)
    capsys.readouterr()


@needs_svm_tools
def test_model_files_list_labels_and_rho_as_svm_train(tmp_path, capsys):
    for name in ("two", "three"):
        train, _, _ = _files(tmp_path, name, precomputed=False)
        _libsvm("svm-train", "-q", "-t", "0", train, tmp_path / "libsvm.model")
        _svmkit("train", "-q", "-t", "0", train, tmp_path / "svmkit.model")
        header = {}
        for tool in ("libsvm", "svmkit"):
            lines = (tmp_path / f"{tool}.model").read_text().split("SV\n")[0].splitlines()
            header[tool] = {line.split()[0]: line.split()[1:] for line in lines}
        assert header["svmkit"]["label"] == header["libsvm"]["label"]
        assert header["svmkit"]["label"] == (["1", "-1"] if name == "two" else ["3", "2", "1"])
        rho = [np.array(header[tool]["rho"], dtype=float) for tool in ("svmkit", "libsvm")]
        np.testing.assert_allclose(rho[0], rho[1], atol=2e-2)  # the same signs, to the solvers' tolerance
    capsys.readouterr()


@needs_svm_tools
def test_regression_probability_model_of_svm_train_is_read(tmp_path, capsys):
    train, test, _ = _files(tmp_path, "regression", precomputed=False)
    _libsvm("svm-train", "-q", "-s", "3", "-b", "1", train, tmp_path / "model")
    sigma = float((tmp_path / "model").read_text().split("probA ")[1].split()[0])
    _svmkit("predict", "-b", "1", test, tmp_path / "model", tmp_path / "out")
    out = capsys.readouterr().out
    assert out.startswith(
        "Prob. model for test data: target value = predicted value + z,\n"
        f"z: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma={sigma:g}\nMean squared error = "
    )


@needs_svm_tools
def test_label_that_is_not_an_integer_gets_a_command_line_message(tmp_path, capsys):
    (tmp_path / "data").write_text("# a comment\n1 1:0.5\n\n1.5 1:0.25\n")
    assert main(["train", str(tmp_path / "data"), str(tmp_path / "model")]) == 1
    err = capsys.readouterr().err
    assert err == (f"svmkit: error: {tmp_path / 'data'}: line 4: label 1.5 is not an integer: C-SVC (-s 0) "
                   "classifies integer labels; -s 3 or -s 4 fit real-valued targets (regression)\n")
    assert not (tmp_path / "model").exists()


def test_train_refuses_an_unwritable_model_path_before_fitting(tmp_path, capsys):
    assert main(["train", HEART_SCALE, str(tmp_path / "no-such-folder" / "model")]) == 1
    assert capsys.readouterr().err == f"svmkit: error: can't save model to file {tmp_path / 'no-such-folder' / 'model'}\n"


def test_model_file_errors_name_the_file(tmp_path, capsys):
    (tmp_path / "model").write_text("svm_type c_svc\nkernel_type rbf\n")
    assert main(["predict", HEART_SCALE, str(tmp_path / "model"), str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"svmkit: error: {tmp_path / 'model'}: line 2: the file ends before the 'SV' line")


@pytest.mark.parametrize("svm_type", [0, 1, 2, 3, 4])
def test_decision_values_of_either_tool_agree_in_the_other(tmp_path, svm_type, capsys):
    svmutil = pytest.importorskip("libsvm.svmutil", reason="libsvm-official is not installed (pip install libsvm-official)")
    # (three classes for C-SVC only: libsvm.svmutil's svm_predict sizes the decision values of nu_svc
    # as one, svm_predict_values writes three; two classes are safe)
    name = "three" if svm_type == 0 else "two" if svm_type in (1, 2) else "regression"
    X, y = _data(name)
    dump_libsvm(X, y, tmp_path / "train")
    options = ["-s", svm_type, "-t", "2", *KERNEL_OPTIONS, *SVM_OPTIONS[svm_type]]
    _svmkit("train", "-q", *options, tmp_path / "train", tmp_path / "svmkit.model")
    rows = [{j + 1: float(v) for j, v in enumerate(row)} for row in X]
    trained = svmutil.svm_train(y.tolist(), rows, " ".join(map(str, options)) + " -q")
    svmutil.svm_save_model(str(tmp_path / "libsvm.model"), trained)
    for path in ("svmkit.model", "libsvm.model"):
        theirs = svmutil.svm_load_model(str(tmp_path / path))
        _, _, their_values = svmutil.svm_predict(y.tolist(), rows, theirs, "-q")
        model = load_libsvm_model(tmp_path / path, n_features=X.shape[1])
        if svm_type in (0, 1):
            from svmkit.io.libsvm_model import _file_decisions

            ours = _file_decisions(model, X)[0]
        else:
            ours = (model.decision_function(X) if svm_type == 2 else model.predict(X))[:, np.newaxis]
        np.testing.assert_allclose(ours, np.array(their_values), rtol=1e-9, atol=1e-12)
    capsys.readouterr()


def _train_with_libsvm_official(train, options, model):
    """libsvm-official's svm_train in a fresh process: its unseeded rand(), like svm-train's,
    then draws the folds of -b 1 as svmkit train does."""
    code = (
        "import sys\nfrom libsvm.svmutil import svm_read_problem, svm_save_model, svm_train\n"
        "y, x = svm_read_problem(sys.argv[1])\nsvm_save_model(sys.argv[3], svm_train(y, x, sys.argv[2] + ' -q'))\n"
    )
    subprocess.run([sys.executable, "-c", code, str(train), " ".join(map(str, options)), str(model)], check=True)


def _header_numbers(path, name):
    line = next(line for line in Path(path).read_text().splitlines() if line.startswith(name + " "))
    return np.array(line.split()[1:], dtype=float)


@pytest.mark.parametrize("svm_type", [2, 3, 4])
def test_probability_models_of_one_class_and_regression_match_libsvm(tmp_path, svm_type, capsys):
    svmutil = pytest.importorskip("libsvm.svmutil", reason="libsvm-official is not installed (pip install libsvm-official)")
    name = "two" if svm_type == 2 else "regression"
    train, test, _ = _files(tmp_path, name, precomputed=False)
    # (regression with a tight tolerance: the Laplace scale averages the residuals of five models, each
    # within -e of its optimum; one-class with the default, as the marks hinge on the signs of the
    # decision values of margin vectors, 0 to within -e)
    tolerance = ["-e", "1e-6"] if svm_type > 2 else []
    probability = [] if "-b" in SVM_OPTIONS[svm_type] else ["-b", "1"]
    options = ["-s", svm_type, "-t", "2", *KERNEL_OPTIONS, *SVM_OPTIONS[svm_type], *probability, *tolerance]
    _svmkit("train", "-q", *options, train, tmp_path / "svmkit.model")
    _train_with_libsvm_official(train, options, tmp_path / "libsvm.model")
    field = "prob_density_marks" if svm_type == 2 else "probA"
    ours, theirs = (_header_numbers(tmp_path / f"{tool}.model", field) for tool in ("svmkit", "libsvm"))
    assert ours.shape == theirs.shape == ((10,) if svm_type == 2 else (1,))
    # the same folds (svm_svr_probability's five), so the same model up to the solvers' tolerance
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)
    test_y, test_x = svmutil.svm_read_problem(str(test))
    for model in ("svmkit.model", "libsvm.model"):
        _svmkit("predict", "-b", "1", test, tmp_path / model, tmp_path / "by_svmkit")
        printed = capsys.readouterr().out
        _, _, their_values = svmutil.svm_predict(test_y, test_x, svmutil.svm_load_model(str(tmp_path / model)), "-b 1 -q")
        header, values = _read_output(tmp_path / "by_svmkit")
        if svm_type == 2:
            np.testing.assert_allclose(values[:, 1:], np.array(their_values), rtol=0, atol=1e-15)  # (printed tenths)
        else:
            sigma = _header_numbers(tmp_path / model, "probA")[0]
            assert printed.startswith(f"Prob. model for test data: target value = predicted value + z,\n"
                                      f"z: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma={sigma:g}\n")


@needs_svm_tools
@pytest.mark.parametrize("svm_type, name", [(0, "three"), (1, "two"), (3, "regression")])
def test_cross_validation_draws_svm_trains_folds(tmp_path, svm_type, name, capsys):
    train, _, _ = _files(tmp_path, name, precomputed=False)
    options = ["-s", svm_type, "-v", "5", *SVM_OPTIONS[svm_type][:2]]
    theirs = subprocess.run(["svm-train", *map(str, options), str(train)], check=True, capture_output=True, text=True)
    _svmkit("train", *options, train)
    ours = capsys.readouterr().out
    # each fold's solver lines (LIBSVM's progress marks, '.' and '*', aside), then the same result
    their_lines = [line for line in theirs.stdout.splitlines() if not re.fullmatch(r"[.*]+", line)]
    assert [line.split(" = ")[0] for line in ours.splitlines()] == [line.split(" = ")[0] for line in their_lines]
    summary = [[line for line in text.splitlines() if line.startswith("Cross Validation")]
               for text in (ours, theirs.stdout)]
    if svm_type == 3:
        values = [[float(line.split("= ")[1]) for line in lines] for lines in summary]
        np.testing.assert_allclose(values[0], values[1], rtol=1e-4)
    else:
        assert summary[0] == summary[1]


@pytest.mark.skipif(shutil.which("svm-grid") is None or shutil.which("svm-train") is None,
                    reason="LIBSVM's grid.py (svm-grid) is not installed (apt-get install libsvm-tools)")
def test_grid_gives_the_cross_validation_rates_of_grid_py(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").write_text("".join(Path(HEART_SCALE).read_text().splitlines(keepends=True)[:80]))
    options = ["-log2c", "-1,3,2", "-log2g", "-3,-1,1", "-v", "5", "-gnuplot", "null"]
    subprocess.run([sys.executable, shutil.which("svm-grid"), "-svmtrain", shutil.which("svm-train"), *options,
                    "-out", "libsvm.out", "data"], check=True, capture_output=True)
    _svmkit("grid", *options, "-out", "svmkit.out", "data")
    # (the same folds at every point, as each svm-train grid.py starts draws them; the lines in
    # the order each tool's workers finish)
    lines = [sorted((tmp_path / f"{tool}.out").read_text().splitlines()) for tool in ("svmkit", "libsvm")]
    assert len(lines[0]) == 9 and lines[0] == lines[1]
    capsys.readouterr()
