"""The svmkit command line: LIBSVM's svm-train, svm-predict, svm-scale and grid.py."""

import re
from contextlib import redirect_stdout
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import numpy as np
import pytest

from svmkit import SVC
from svmkit import svm as svm_module
from svmkit._first_use import NOTICE
from svmkit.cli import main
from svmkit.io import dump_libsvm, dump_libsvm_precomputed, load_libsvm, load_libsvm_model

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
needs_shared_data = pytest.mark.skipif(not SHARED_DATA.is_dir(), reason="../shared/data is not present")
HEART_SCALE = str(files("svmkit.datasets") / "heart_scale")


def run(capsys, *args):
    """``svmkit args...`` in-process: (exit status, stdout, stderr)."""
    status = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def accuracy_of(stdout):
    match = re.search(r"^Accuracy = ([0-9.]+)% \((\d+)/(\d+)\) \(classification\)$", stdout, re.MULTILINE)
    assert match, stdout
    return float(match.group(1))


def assert_one_line_error(status, stderr, *fragments):
    """Status 1 and one error line (after the first-use notice, which an empty numba cache
    prints first where the command compiles, as the compiled parser does for malformed data)."""
    assert status == 1
    lines = [line for line in stderr.splitlines() if line != NOTICE]
    assert len(lines) == 1 and lines[0].startswith("svmkit: error: "), stderr
    for fragment in fragments:
        assert fragment in lines[0]


# -- the guide's svmguide1 walk-through --------------------------------------------------------


@pytest.fixture(scope="module")
def scaled_svmguide1(tmp_path_factory):
    """svmguide1 and svmguide1.t scaled as in the guide: ``svmkit scale -l -1 -u 1 -s range``, then ``-r range``."""
    folder = tmp_path_factory.mktemp("svmguide1")
    steps = {"svmguide1": ["-l", "-1", "-u", "1", "-s", folder / "range"], "svmguide1.t": ["-r", folder / "range"]}
    for name, options in steps.items():
        with open(folder / f"{name}.scale", "w") as out, redirect_stdout(out):
            assert main(["scale", *map(str, options), str(SHARED_DATA / name)]) == 0
    return folder


@needs_shared_data
def test_svmguide1_unscaled_defaults_give_the_guides_66_925(capsys, tmp_path):
    model = tmp_path / "svmguide1.model"
    status, out, _ = run(capsys, "train", SHARED_DATA / "svmguide1", model)
    assert status == 0 and "Total nSV = " in out
    status, out, _ = run(capsys, "predict", "-q", SHARED_DATA / "svmguide1.t", model, tmp_path / "out")
    assert status == 0 and out == ""
    status, out, _ = run(capsys, "predict", SHARED_DATA / "svmguide1.t", model, tmp_path / "out")
    assert abs(accuracy_of(out) - 66.925) < 0.5
    labels = (tmp_path / "out").read_text().splitlines()
    assert len(labels) == 4000 and set(labels) == {"0", "1"}
    assert "gamma 0.25\n" in model.read_text()  # LIBSVM's default 1 / num_features


@needs_shared_data
def test_svmguide1_scaled_gives_the_guides_96_15(capsys, scaled_svmguide1):
    folder = scaled_svmguide1
    range_lines = (folder / "range").read_text().splitlines()
    assert range_lines[:2] == ["x", "-1 1"] and [line.split()[0] for line in range_lines[2:]] == ["1", "2", "3", "4"]
    first = (folder / "svmguide1.scale").read_text().splitlines()[0]
    assert re.fullmatch(r"1 1:\S+ 2:\S+ 3:\S+ 4:\S+ ", first), first
    X, _ = load_libsvm(folder / "svmguide1.scale")
    assert X.min() == -1 and X.max() == 1
    status, _, _ = run(capsys, "train", "-q", folder / "svmguide1.scale", folder / "scaled.model")
    assert status == 0
    status, out, _ = run(capsys, "predict", folder / "svmguide1.t.scale", folder / "scaled.model", folder / "out")
    assert status == 0 and abs(accuracy_of(out) - 96.15) < 0.5


@needs_shared_data
def test_svmguide1_grid_search_finds_the_guides_96_9(capsys, scaled_svmguide1, tmp_path):
    folder = scaled_svmguide1
    status, out, _ = run(
        capsys, "grid", "-log2c", "1,3,2", "-log2g", "1,-1,-2", "-v", "5",
        "-out", tmp_path / "grid.out", "-gnuplot", "null", folder / "svmguide1.scale",
    )
    assert status == 0
    C, gamma, rate = (float(value) for value in out.splitlines()[-1].split())
    assert C in (2.0, 8.0) and gamma in (0.5, 2.0)
    assert abs(rate - 96.8922) < 0.5  # the guide's cross-validation rate at C = 2, gamma = 2
    assert len((tmp_path / "grid.out").read_text().splitlines()) == 4
    model = tmp_path / "best.model"
    status, _, _ = run(capsys, "train", "-q", "-c", f"{C:g}", "-g", f"{gamma:g}", folder / "svmguide1.scale", model)
    assert status == 0
    _, out, _ = run(capsys, "predict", folder / "svmguide1.t.scale", model, tmp_path / "out")
    assert abs(accuracy_of(out) - 96.875) < 0.5


# -- scale ---------------------------------------------------------------------------------

TRAIN_TEXT = "1 1:2 2:5 3:1 5:1\n-1 1:4 3:3 5:1\n1 1:3 2:5 4:7 5:1\n"
TEST_TEXT = "1 1:5 3:1.5 6:2\n-1 2:2.5\n"


def test_scale_saves_and_restores_svm_scale_ranges(capsys, tmp_path):
    (tmp_path / "train").write_text(TRAIN_TEXT)
    (tmp_path / "test").write_text(TEST_TEXT)
    status, out, err = run(capsys, "scale", "-l", "-1", "-u", "1", "-s", tmp_path / "range", tmp_path / "train")
    assert status == 0 and err == ""
    # feature 5 is constant: left out of the range file and of the output
    assert (tmp_path / "range").read_text() == "x\n-1 1\n1 2 4\n2 0 5\n3 0 3\n4 0 7\n"
    assert out == "1 1:-1 2:1 3:-0.333333 4:-1 \n-1 1:1 2:-1 3:1 4:-1 \n1 2:1 3:-1 4:1 \n"

    status, out, err = run(capsys, "scale", "-r", tmp_path / "range", tmp_path / "test")
    assert status == 0
    assert out == "1 1:2 2:-1 4:-1 \n-1 1:-3 3:-1 4:-1 \n"
    warnings = err.splitlines()
    assert warnings[0].startswith("WARNING: feature index 6 appeared in file") and "scaled to 0" in warnings[0]
    assert warnings[1:3] == ["WARNING: original #nonzeros 4", "       > new      #nonzeros 6"]


def test_scale_target_range_round_trip(capsys, tmp_path):
    (tmp_path / "train").write_text(TRAIN_TEXT)
    (tmp_path / "test").write_text("-1 1:3\n")
    options = ["-l", "0", "-u", "1", "-y", "0", "1", "-s", tmp_path / "range"]
    status, out, _ = run(capsys, "scale", *options, tmp_path / "train")
    assert status == 0
    assert (tmp_path / "range").read_text().startswith("y\n0 1\n-1 1\nx\n0 1\n1 2 4\n")
    assert [line.split()[0] for line in out.splitlines()] == ["1", "0", "1"]
    status, out, _ = run(capsys, "scale", "-r", tmp_path / "range", tmp_path / "test")
    assert out == "0 1:0.5 \n"


def test_scale_warns_when_zeros_become_nonzero(capsys, tmp_path):
    (tmp_path / "sparse").write_text("1 1:1\n-1 2:1\n")
    status, out, err = run(capsys, "scale", tmp_path / "sparse")
    assert status == 0 and out == "1 1:1 2:-1 \n-1 1:-1 2:1 \n"
    assert "original #nonzeros 2" in err
    status, out, err = run(capsys, "scale", "-l", "0", tmp_path / "sparse")
    assert out == "1 1:1 \n-1 2:1 \n" and err == ""


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["-l", "abc"], "bad value for -l: 'abc' (expected a number)"),
        (["-l", "1", "-u", "0"], "inconsistent x lower/upper"),
        (["-s", "a", "-r", "b"], "cannot use -r and -s simultaneously"),
        (["-x", "1"], "unknown option -x"),
        (["-y", "1", "x"], "bad value for -y: '1 x' (expected a number)"),
        (["-r", "no-such-range"], "can't open file no-such-range"),
    ],
)
def test_scale_bad_flags_give_one_line_and_status_1(capsys, tmp_path, args, fragment):
    (tmp_path / "train").write_text(TRAIN_TEXT)
    status, out, err = run(capsys, "scale", *args, tmp_path / "train")
    assert_one_line_error(status, err, fragment)
    assert out == ""


def test_scale_bad_range_file_names_the_line(capsys, tmp_path):
    (tmp_path / "train").write_text(TRAIN_TEXT)
    (tmp_path / "range").write_text("x\n-1 1\n1 0 2\n2 zero 3\n")
    status, _, err = run(capsys, "scale", "-r", tmp_path / "range", tmp_path / "train")
    assert_one_line_error(status, err, "line 4", "'index min max'")


# -- train and predict ------------------------------------------------------------------------


def test_cross_validation_mode_prints_libsvm_accuracy_and_writes_no_model(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "train", "-v", "5", "-c", "2", HEART_SCALE)
    assert status == 0
    *solver_lines, last = out.splitlines()
    # svm-train -v 5 -c 2 heart_scale (LIBSVM 3.24, Debian), whose folds svmkit draws alike
    assert last == "Cross Validation Accuracy = 82.963%"
    # svm-train's lines for each fold's model: #iter, nu, obj and rho, nSV and nBSV, Total nSV
    assert len(solver_lines) == 5 * 5
    fold = "\n".join(solver_lines[:5])
    assert re.fullmatch(
        r"optimization finished, #iter = \d+\nnu = [0-9.]+\nobj = -[0-9.]+, rho = -?[0-9.]+\n"
        r"nSV = \d+, nBSV = \d+\nTotal nSV = \d+", fold), fold
    assert list(tmp_path.iterdir()) == []
    status, out, _ = run(capsys, "train", "-q", "-v", "5", "-c", "2", HEART_SCALE)
    assert out == last + "\n"


def test_default_model_file_is_the_base_name_in_the_current_directory(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "train", "-q", "-t", "0", HEART_SCALE)
    assert status == 0 and out == ""
    assert (tmp_path / "heart_scale.model").read_text().startswith("svm_type c_svc\nkernel_type linear\n")


def test_train_options_reach_the_estimator(capsys, tmp_path):
    model_path = tmp_path / "model"
    args = ["-t", "1", "-d", "2", "-g", "0.1", "-r", "1", "-c", "4", "-e", "0.0001", "-m", "50", "-h", "0"]
    status, _, err = run(capsys, "train", "-q", *args, "-w1", "2", "-w-1", "0.5", "-w7", "3", HEART_SCALE, model_path)
    assert status == 0
    assert err == "WARNING: class label 7 specified in weight is not found\n"
    X, y = load_libsvm(HEART_SCALE)
    weights = {1.0: 2.0, -1.0: 0.5}
    expected = SVC(
        kernel="poly", degree=2, gamma=0.1, coef0=1.0, C=4.0, tol=1e-4, cache_size=50, shrinking=False,
        class_weight=weights,
    )
    expected.fit(X, y)
    model = load_libsvm_model(model_path)
    assert "degree 2\ngamma 0.10000000000000001\ncoef0 1\n" in model_path.read_text()
    np.testing.assert_allclose(model.decision_function(X), expected.decision_function(X), atol=1e-8)


def test_probability_outputs_follow_svm_predict(capsys, tmp_path):
    status, _, _ = run(capsys, "train", "-q", "-b", "1", HEART_SCALE, tmp_path / "model")
    assert status == 0
    status, out, _ = run(capsys, "predict", "-b", "1", HEART_SCALE, tmp_path / "model", tmp_path / "out")
    assert status == 0 and 80 < accuracy_of(out) < 95
    lines = (tmp_path / "out").read_text().splitlines()
    assert lines[0] == "labels 1 -1" and len(lines) == 271  # LIBSVM's order: +1 first
    rows = np.array([[float(value) for value in line.split()] for line in lines[1:]])
    np.testing.assert_allclose(rows[:, 1:].sum(axis=1), 1.0, atol=2e-6)
    np.testing.assert_array_equal(rows[:, 0], np.where(rows[:, 1] >= rows[:, 2], 1.0, -1.0))

    status, out, _ = run(capsys, "predict", HEART_SCALE, tmp_path / "model", tmp_path / "out")
    assert out.startswith("Model supports probability estimates, but disabled in prediction.\n")
    assert set((tmp_path / "out").read_text().split()) == {"-1", "1"}


def test_predict_pads_or_widens_features(capsys, tmp_path):
    run(capsys, "train", "-q", HEART_SCALE, tmp_path / "model")
    X, y = load_libsvm(HEART_SCALE)
    dump_libsvm(X[:, :3], y, tmp_path / "narrow")
    status, out, _ = run(capsys, "predict", tmp_path / "narrow", tmp_path / "model", tmp_path / "out")
    assert status == 0
    expected = SVC(gamma=1 / 13).fit(X, y)
    narrow = X.toarray()
    narrow[:, 3:] = 0
    assert (tmp_path / "out").read_text().split() == [f"{v:g}" for v in expected.predict(narrow)]
    # An extra feature (index 14) takes part in the RBF distances, as in LIBSVM.
    wide = np.column_stack([X.toarray(), np.full(270, 0.5)])
    dump_libsvm(wide, y, tmp_path / "wide")
    status, _, _ = run(capsys, "predict", tmp_path / "wide", tmp_path / "model", tmp_path / "out")
    padded = np.column_stack([X.toarray(), np.zeros(270)])
    wide_expected = SVC(gamma=1 / 13).fit(padded, y).predict(wide)
    assert status == 0 and (tmp_path / "out").read_text().split() == [f"{v:g}" for v in wide_expected]


def test_precomputed_kernel_matches_the_linear_kernel(capsys, tmp_path):
    X, y = load_libsvm(HEART_SCALE)
    K = (X @ X.T).toarray()
    dump_libsvm_precomputed(K, y, tmp_path / "kernel")
    status, _, _ = run(capsys, "train", "-q", "-t", "4", tmp_path / "kernel", tmp_path / "pre.model")
    assert status == 0
    _, pre_out, _ = run(capsys, "predict", tmp_path / "kernel", tmp_path / "pre.model", tmp_path / "pre.out")
    run(capsys, "train", "-q", "-t", "0", HEART_SCALE, tmp_path / "lin.model")
    _, lin_out, _ = run(capsys, "predict", HEART_SCALE, tmp_path / "lin.model", tmp_path / "lin.out")
    assert accuracy_of(pre_out) == accuracy_of(lin_out)
    assert (tmp_path / "pre.out").read_text() == (tmp_path / "lin.out").read_text()


REGRESSION_CV = r"Cross Validation Mean squared error = \S+\nCross Validation Squared correlation coefficient = \S+\n"


@pytest.mark.parametrize(
    "svm_type, class_name, pattern",
    [
        ("1", "NuSVC", r"Cross Validation Accuracy = [0-9.]+%\n"),
        ("2", "OneClassSVM", r"Cross Validation Accuracy = [0-9.]+%\n"),
        ("3", "SVR", REGRESSION_CV),
        ("4", "NuSVR", REGRESSION_CV),
    ],
)
def test_other_svm_types_cross_validate(capsys, svm_type, class_name, pattern):
    if not hasattr(svm_module, class_name):
        status, _, err = run(capsys, "train", "-s", svm_type, "-v", "3", HEART_SCALE)
        assert_one_line_error(status, err, "is not available")
        return
    status, out, _ = run(capsys, "train", "-q", "-s", svm_type, "-n", "0.3", "-p", "0.2", "-v", "3", HEART_SCALE)
    assert status == 0 and re.fullmatch(pattern, out), out


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["train", "-c", "x", HEART_SCALE], "bad value for -c: 'x' (expected a number)"),
        (["train", "-c", "0", HEART_SCALE], "C must be > 0"),
        (["train", "-t", "7", HEART_SCALE], "bad value for -t: 7"),
        (["train", "-s", "9", HEART_SCALE], "bad value for -s: 9"),
        (["train", "-h", "2", HEART_SCALE], "bad value for -h: '2' (expected 0 or 1)"),
        (["train", "-v", "1", HEART_SCALE], "n must be >= 2"),
        (["train", "-z", "1", HEART_SCALE], "unknown option -z"),
        (["train"], "takes 1 or 2 file names, got 0"),
        (["train", "no-such-file"], "can't open file no-such-file"),
        (["predict", HEART_SCALE, "no-such-model"], "takes 3 file names, got 2"),
        (["grid", "-c", "1", HEART_SCALE], "use -log2c and -log2g"),
        (["grid", "-z", "1", HEART_SCALE], "unknown option -z"),
        (["grid", "-log2c", "null", "-log2g", "null", HEART_SCALE], "should not be null simultaneously"),
        (["grid", "-log2c", "1,2", HEART_SCALE], "bad value for -log2c: '1,2' (expected begin,end,step)"),
    ],
)
def test_bad_command_lines_give_one_line_and_status_1(capsys, args, fragment):
    status, out, err = run(capsys, *args)
    assert_one_line_error(status, err, fragment)


def test_malformed_data_names_the_file_and_line(capsys, tmp_path):
    (tmp_path / "bad").write_text("1 1:0.5\n-1 1:x\n")
    status, _, err = run(capsys, "train", tmp_path / "bad")
    assert_one_line_error(status, err, f"{tmp_path / 'bad'}: line 2: feature value is not a finite decimal number")


def test_one_class_b1_with_too_few_outliers_warns_as_libsvm_and_has_no_probability_model(capsys, tmp_path):
    # 12 rows, nu = 0.5: four negative decision values, where LIBSVM's ten marks need five of each sign
    (tmp_path / "data").write_text("".join(Path(HEART_SCALE).read_text().splitlines(keepends=True)[:12]))
    status, _, err = run(capsys, "train", "-q", "-s", "2", "-b", "1", tmp_path / "data", tmp_path / "model")
    assert status == 0
    assert err == "WARNING: number of positive or negative decision values <5; too few to do a probability estimation.\n"
    assert "prob_density_marks" not in (tmp_path / "model").read_text()
    status, _, err = run(capsys, "predict", "-b", "1", tmp_path / "data", tmp_path / "model", tmp_path / "out")
    assert_one_line_error(status, err, "does not support probability estimates")


def test_predict_without_probability_model_refuses_b1(capsys, tmp_path):
    run(capsys, "train", "-q", "-t", "0", HEART_SCALE, tmp_path / "model")
    status, _, err = run(capsys, "predict", "-b", "1", HEART_SCALE, tmp_path / "model", tmp_path / "out")
    assert_one_line_error(status, err, "does not support probability estimates")


def test_help_goes_to_stdout_with_status_0(capsys):
    status, out, _ = run(capsys, "train", "--help")
    assert status == 0 and out.startswith("Usage: svmkit train [options] training_set_file [model_file]")


def test_demo_still_runs(capsys):
    status, out, _ = run(capsys, "demo", "-c", "2")
    assert status == 0 and "held-out accuracy" in out and "C=2" in out


# -- grid ---------------------------------------------------------------------------------

POINT = re.compile(
    r"\[local\] (-?\d+\.0) (-?\d+\.0) ([0-9.]+) \(best c=([0-9.e+-]+), g=([0-9.e+-]+), rate=([0-9.]+)\)"
)


@pytest.fixture
def small_heart_scale(tmp_path, monkeypatch):
    """The first 60 rows of heart_scale, as ``heart_scale`` in the current directory."""
    monkeypatch.chdir(tmp_path)
    lines = Path(HEART_SCALE).read_text().splitlines(keepends=True)
    (tmp_path / "heart_scale").write_text("".join(lines[:60]))
    return tmp_path


def test_grid_py_command_line_from_the_guide_runs_unchanged(capsys, small_heart_scale):
    # LIBSVM's guide: grid.py -log2c -5,15,2 -log2g 3,-15,-2 -v 5 -gnuplot null heart_scale
    status, out, err = run(capsys, *"grid -log2c -5,15,2 -log2g 3,-15,-2 -v 5 -gnuplot null heart_scale".split())
    assert status == 0
    *points, last = out.splitlines()
    matches = [POINT.fullmatch(line) for line in points]
    assert len(points) == 11 * 10 and all(matches), points[:3]
    # grid.py's order (its calculate_jobs): the middle of each range first, coarse to fine
    assert [m.group(1, 2) for m in matches[:4]] == [("5.0", "-7.0"), ("-1.0", "-7.0"), ("5.0", "-1.0"), ("-1.0", "-1.0")]
    assert {(float(m.group(1)), float(m.group(2))) for m in matches} == {
        (c, g) for c in range(-5, 16, 2) for g in range(3, -16, -2)}
    rates = [float(m.group(3)) for m in matches]
    best = max(rates)
    assert float(matches[-1].group(6)) == best
    C, gamma, rate = last.split()
    assert float(rate) == best and float(C) == float(matches[-1].group(4)) and float(gamma) == float(matches[-1].group(5))
    # the .out file: "log2c=5.0 log2g=-7.0 rate=..." per point, in the same order
    out_lines = Path("heart_scale.out").read_text().splitlines()
    assert out_lines == [f"log2c={m.group(1)} log2g={m.group(2)} rate={m.group(3)}" for m in matches]
    # a point's rate is svmkit train -v's accuracy
    _, cv, _ = run(capsys, "train", "-q", "-v", "5", "-c", "32", "-g", str(2.0**-7), "heart_scale")
    assert cv == f"Cross Validation Accuracy = {rates[0]:g}%\n"


def test_grid_with_c_only_resume_and_edge_warning(capsys, small_heart_scale):
    status, out, err = run(capsys, "grid", "-log2c", "-3,-1,1", "-log2g", "null", "-t", "0", "-v", "3",
                           "-out", "c.out", "-png", "ignored.png", "heart_scale")
    assert status == 0
    points = out.splitlines()[:-1]
    assert [line.split(" (")[0] for line in points][0] == f"[local] -2.0 {points[0].split()[2]}"
    assert all(re.fullmatch(r"\[local\] -?\d\.0 [0-9.]+ \(best c=[0-9.]+, rate=[0-9.]+\)", line) for line in points)
    assert not Path("ignored.png").exists() and "-png ignored.png ignored" in err
    assert Path("c.out").read_text().splitlines()[0].startswith("log2c=-2.0 rate=")
    best_c = float(out.splitlines()[-1].split()[0])
    if best_c in (0.125, 0.5):
        assert "lies on the edge of the grid" in err
    else:
        assert "edge" not in err
    # -resume reads the points back instead of computing them again
    status, again, _ = run(capsys, "grid", "-log2c", "-3,-1,1", "-log2g", "null", "-t", "0", "-v", "3",
                           "-out", "c.out", "-resume", "c.out", "heart_scale")
    assert status == 0 and again.count("[resumed]") == 3 and "[local]" not in again
    assert again.splitlines()[-1] == out.splitlines()[-1]


def test_grid_runs_another_svm_train(capsys, small_heart_scale):
    script = small_heart_scale / "fake-svm-train"
    script.write_text("#!/bin/sh\necho \"$@\" >> calls\necho 'Cross Validation Accuracy = 50%'\n")
    script.chmod(0o755)
    status, out, _ = run(capsys, "grid", "-log2c", "0,1,1", "-log2g", "0,0,1", "-svmtrain", script, "-t", "2",
                         "-out", "null", "heart_scale")
    assert status == 0 and out.splitlines()[-1] == "1.0 1.0 50.0"
    assert Path("calls").read_text().splitlines() == [
        "-c 2.0 -g 1.0 -v 5 -t 2 heart_scale", "-c 1.0 -g 1.0 -v 5 -t 2 heart_scale"]  # grid.py's order


# -- the console script --------------------------------------------------------------------


def test_console_script_exit_status(tmp_path):
    script = Path(sys.executable).with_name("svmkit")
    if not script.exists():
        pytest.skip("the svmkit console script is not installed beside this Python")
    (tmp_path / "train").write_text(TRAIN_TEXT)
    bad = subprocess.run([script, "scale", "-l", "1", "-u", "0", tmp_path / "train"], capture_output=True, text=True)
    assert bad.returncode == 1 and bad.stdout == ""
    assert bad.stderr.startswith("svmkit: error: inconsistent x lower/upper") and bad.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "args",
    [["--help"], ["train", "--help"], ["grid", "--help"], ["train", "-c", "x", HEART_SCALE], ["predict", HEART_SCALE]],
)
def test_help_and_argument_errors_import_nothing_heavy(args):
    code = (
        "import sys\nfrom svmkit.cli import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "heavy = sorted(name for name in ('numpy', 'scipy', 'numba', 'sklearn') if name in sys.modules)\n"
        "print('HEAVY', heavy)"
    )
    result = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True)
    assert "HEAVY []" in result.stdout, result.stdout


def loaded_modules_after(args, names):
    """The modules among ``names`` that ``svmkit ARGS`` has loaded by its end (a fresh process)."""
    code = (
        "import sys\nfrom svmkit.cli import main\nmain(sys.argv[2:])\n"
        "print('LOADED', sorted(name for name in sys.argv[1].split(',') if name in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code, ",".join(names), *args], capture_output=True, text=True,
                            check=True)
    return result.stdout.rsplit("LOADED ", 1)[1].strip()


def test_scale_loads_neither_scipy_numba_nor_scikit_learn():
    assert loaded_modules_after(["scale", HEART_SCALE], ["numpy", "scipy", "numba", "sklearn"]) == "['numpy']"


def test_train_loads_only_the_estimator_it_trains(tmp_path):
    modules = ["svmkit.svm._svc", "svmkit.svm._nu_svc", "svmkit.svm._one_class", "svmkit.svm._svr"]
    loaded = loaded_modules_after(["train", "-q", "-s", "3", "-t", "0", HEART_SCALE, str(tmp_path / "model")], modules)
    assert loaded == "['svmkit.svm._svr']"
