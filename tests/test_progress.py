"""Progress that says where it is: verbose lines naming their sub-problem, tqdm bars on a
terminal (and none in pipes and logs)."""

import fcntl
import logging
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from importlib.resources import files

import pytest
from sklearn.datasets import load_iris

from svmkit import SVC, KernelPerceptron, LinearSVC, PegasosSVC, Perceptron, SolverProgress
from svmkit.cli import main

HEART_SCALE = str(files("svmkit.datasets") / "heart_scale")


@pytest.fixture
def iris():
    return load_iris(return_X_y=True)


def svmkit_lines(caplog):
    return [record.getMessage() for record in caplog.records if record.name == "svmkit"]


def test_multiclass_verbose_lines_name_their_problems(iris, caplog):
    X, y = iris
    caplog.set_level(logging.INFO, logger="svmkit")
    reports = []
    SVC(verbose=True, probability=True, random_state=0, callback=reports.append).fit(X, y)
    lines = svmkit_lines(caplog)
    assert lines[0].startswith("3 one-vs-one pairs: plan: ")
    assert any(line.startswith("3 one-vs-one pairs: iter ") for line in lines)
    assert any(line.startswith("probability fit: 15 folds of 3 pairs: plan: ") for line in lines)
    assert lines[-2].startswith("probability fit: 15 folds of 3 pairs: iter ")
    assert lines[-1].startswith("probability fit: 15 folds of 3 pairs: kernel rows computed: ")
    names = {"3 one-vs-one pairs", "probability fit: 15 folds of 3 pairs"}
    names |= {f"pair {a} vs {b}" for a, b in ((0, 1), (0, 2), (1, 2))}
    names |= {f"pair {a} vs {b}, fold {f}/5" for a, b in ((0, 1), (0, 2), (1, 2)) for f in range(1, 6)}
    assert all(isinstance(report, SolverProgress) and report.problem in names for report in reports)
    assert all(re.split(": (?:iter|plan:|kernel rows computed:) ", line)[0] in names for line in lines)
    assert len(lines) <= 6 + 2 * len(reports)  # (a fast fit: two plans, two ends, two counts, a line a second at most)


def test_one_vs_rest_and_two_class_problems_are_named(iris, caplog):
    X, y = iris
    caplog.set_level(logging.INFO, logger="svmkit")
    SVC(verbose=True, multiclass="ovr").fit(X, y)
    SVC(verbose=True).fit(X[:100], y[:100])
    lines = svmkit_lines(caplog)
    assert lines[0].startswith("3 one-vs-rest problems: plan: ")
    assert lines[-2].startswith("pair 1 vs 0: iter ")  # (the positive class first, as binary_models_)
    assert lines[-1].startswith("pair 1 vs 0: kernel rows computed: ")


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(
    "estimator, what",
    [
        (LinearSVC(), "pass"),
        (PegasosSVC(random_state=0, max_iter=5), "epoch"),
        (Perceptron(max_iter=5), "sweep"),
        (KernelPerceptron(max_iter=5), "sweep"),
    ],
    ids=["LinearSVC", "PegasosSVC", "Perceptron", "KernelPerceptron"],
)
def test_every_iterative_estimator_has_verbose(iris, caplog, estimator, what):
    X, y = iris
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    caplog.set_level(logging.INFO, logger="svmkit")
    estimator.set_params(verbose=True)
    estimator.fit(X, y)
    lines = svmkit_lines(caplog)
    name = type(estimator).__name__
    done = [line for line in lines if line.endswith(" s") and ", done" in line]
    assert [line.split(":")[0] for line in done] == [f"{name} class {k} vs rest" for k in range(3)]
    assert all(f": {what} " in line for line in lines)
    caplog.clear()
    estimator.set_params(verbose=False).fit(X[:100], y[:100])
    assert svmkit_lines(caplog) == []
    with pytest.raises(ValueError, match="verbose must be True, False or an integer >= 0"):
        estimator.set_params(verbose="yes").fit(X, y)


def test_command_line_is_quiet_on_stderr_in_pipes(tmp_path, capsys):
    status = main(["train", "-v", "3", HEART_SCALE])
    captured = capsys.readouterr()
    assert status == 0 and captured.err == ""
    assert captured.out.count("optimization finished") == 3


def on_a_terminal(commands):
    """Run ``svmkit`` command lines in one process whose stderr is a pseudo-terminal of 100
    columns: (stdout, what the terminal showed)."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    script = "import sys\nfrom svmkit.cli import main\nfor args in %r:\n    assert main(args) == 0\n" % (commands,)
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=follower)
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # (the terminal closed with the process)
            break
        if not chunk:
            break
        shown += chunk
    stdout = process.stdout.read().decode()
    assert process.wait(timeout=300) == 0, shown
    os.close(leader)
    return stdout, shown.decode(errors="replace")


def test_bars_on_a_terminal(tmp_path):
    model = str(tmp_path / "model")
    stdout, shown = on_a_terminal([
        ["train", "-v", "4", HEART_SCALE],
        ["grid", "-log2c", "-1,1,2", "-log2g", "-2,-1,1", "-v", "3", "-out", "null", HEART_SCALE],
        ["train", "-c", "2", HEART_SCALE, model],
    ])
    assert "Cross Validation Accuracy" in stdout and stdout.count("[local]") == 4
    assert "cross-validation: 100%" in shown and "| 4/4 [" in shown and "fold 4/4]" in shown
    assert re.search(r"grid: 100%\|[^\r]*\| 4/4 \[[^\r]*points[^\r]*, log2c=-?[0-9.]+ log2g=-?[0-9.]+\]", shown)
    assert "training: " in shown and " steps" in shown and "pair 1.0 vs -1.0, gap " in shown
    assert open(model).read().startswith("svm_type c_svc")
