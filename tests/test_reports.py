"""Printed reports: the KKT table of every training point and naive Bayes' explanations."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris

from svmkit import SVC, SVR, OneClassSVM
from svmkit.naive_bayes import MixedNB

TAX_EVASION = Path(__file__).parent / "data" / "tax_evasion.csv"


def seed_model():
    """The seeds' hard-margin exercise: alpha = (2, 2, 0), y f(x) = (1, 1, 3)."""
    X = np.array([[-1.0], [0.0], [1.0]])
    return SVC(C=np.inf, kernel="linear").fit(X, np.array([1, -1, -1]))


def test_printed_report_has_a_row_per_point_with_the_seeds_values():
    assert str(seed_model().kkt_report()) == "\n".join(
        [
            "KKT report of 3 training points",
            "  not a support vector                1",
            "  on the margin                       2",
            "  bounded, inside the margin          0",
            "  bounded, misclassified              0",
            "  largest KKT violation        0.000e+00",
            "  leave-one-out bound          0.6667 (support vectors / N)",
            "  VC dimension bound           2 = min(ceil(R^2 / rho^2), d) + 1, R = 1, rho = 0.5",
            "index   y  alpha   mu  xi  y f(x)  category",
            "    0   1      2  inf   0       1  on the margin",
            "    1  -1      2  inf   0       1  on the margin",
            "    2  -1      0  inf   0       3  not a support vector",
        ]
    )


def test_printed_report_is_capped_with_the_number_left_out():
    X, y = load_iris(return_X_y=True)
    report = SVC(C=1.0).fit(X, y).kkt_report(problem=1)  # classes 0 and 2: 100 points
    lines = str(report).splitlines()
    assert lines[6].startswith("  leave-one-out bound") and lines[7].startswith("  VC dimension bound")
    assert lines[8].split() == ["index", "y", "alpha", "mu", "xi", "y", "f(x)", "category"]
    rows = lines[9:-1]
    assert [int(line.split()[0]) for line in rows] == list(range(20))
    assert {line.split()[1] for line in rows} == {"0"}  # the first 50 rows are class 0
    assert lines[-1] == "... 80 more (to_string(max_rows=None) or to_frame() shows every point)"
    assert len(report.to_string(max_rows=None).splitlines()) == 9 + 100
    assert len(report.to_string(max_rows=3).splitlines()) == 9 + 3 + 1
    with pytest.raises(ValueError, match="max_rows must be a non-negative integer or None"):
        report.to_string(max_rows=-1)


def test_one_vs_rest_report_names_the_class_and_the_rest():
    X, y = load_iris(return_X_y=True)
    report = SVC(multiclass="ovr").fit(X, y).kkt_report(problem=2)
    assert report.label.tolist() == [2 if label == 2 else "rest" for label in y]


def test_report_frame_has_the_labels_and_every_point():
    frame = seed_model().kkt_report().to_frame()
    assert list(frame.columns) == ["y", "alpha", "mu", "slack", "yf", "category", "violation"]
    assert frame["y"].tolist() == [1, -1, -1]
    np.testing.assert_allclose(frame["alpha"], [2.0, 2.0, 0.0], atol=1e-9)


@pytest.mark.parametrize(
    "model, value", [(OneClassSVM(nu=0.5), "f(x)"), (SVR(C=1.0), "y - f(x)")], ids=["one-class", "SVR"]
)
def test_reports_without_labels_print_their_own_value(model, value):
    X = np.linspace(0, 1, 8).reshape(-1, 1)
    report = model.fit(X, X.ravel() ** 2).kkt_report()
    lines = str(report).splitlines()
    heading = lines[len(report.categories) + 2]
    assert heading.split()[:4] == ["index", "alpha", "mu", "xi"] and heading.endswith(f"{value}  category")
    assert len(lines) == len(report.categories) + 3 + 8


def _last_error_line_without_pandas(code):
    """The last line a fresh Python process writes to stderr running ``code`` where pandas
    cannot be imported (as where it is not installed)."""
    blocked = "import sys\nsys.modules['pandas'] = None\nimport numpy as np\n" + code
    result = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True, timeout=300)
    assert result.returncode == 1, result.stderr
    return result.stderr.splitlines()[-1]


def test_to_frame_without_pandas_names_the_extra():
    line = _last_error_line_without_pandas(
        "from svmkit import SVC\n"
        "model = SVC(C=np.inf, kernel='linear').fit(np.array([[-1.0], [0.0], [1.0]]), np.array([1, -1, -1]))\n"
        "model.kkt_report().to_frame()\n"
    )
    assert line.startswith("ImportError") and "pip install 'svmkit[pandas]'" in line


@pytest.fixture
def tax():
    table = pd.read_csv(TAX_EVASION, index_col="Tid")
    return table.drop(columns="Evade"), table["Evade"]


def test_printed_explanation_is_a_table_per_row(tax):
    X, y = tax
    explanation = MixedNB().fit(X, y).explain(X)
    text = str(explanation)
    blocks = text.split("\n\n")
    assert len(blocks) == 5 + 1 and blocks[-1] == "... 5 more rows (to_string(max_rows=None) explains every row)"
    second = blocks[1].splitlines()
    assert second[0] == "row 1: predicted No (P = 0.764)"
    assert second[1].split() == ["No", "Yes"]
    # Tid 2 (Refund No, Married): Laplace-smoothed P(No | No) = 5/9, P(Married | No) = 5/10
    assert second[2].split()[-2] == f"{np.log(5 / 9):.4g}"
    assert second[3].split()[-2] == f"{np.log(5 / 10):.4g}"
    assert [line.rsplit(None, 2)[0] for line in second[2:]] == [
        "Refund", "Marital Status", "Taxable Income", "log prior", "joint log-likelihood", "log posterior"
    ]
    assert len(explanation.to_string(max_rows=None).split("\n\n")) == 10


def test_explanation_frame_without_pandas_names_the_extra():
    line = _last_error_line_without_pandas(
        "from svmkit.naive_bayes import MixedNB\n"
        "X = np.array([[0, 85.0], [1, 95.0], [0, 60.0], [1, 120.0], [0, 90.0]])  # (a category, an income)\n"
        "MixedNB(categorical=[0]).fit(X, np.array([0, 1, 0, 1, 1])).explain(X).to_frame()\n"
    )
    assert line.startswith("ImportError") and "pip install 'svmkit[pandas]'" in line
