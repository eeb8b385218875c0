"""Draw the README's pictures and the tutorial's into docs/images/ (or the folder given):
python docs/make_images.py [folder]."""

import doctest
import os
import shutil
import sys
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.datasets import load_iris  # noqa: E402

from svmkit import SVC  # noqa: E402
from svmkit.datasets import load_heart_scale  # noqa: E402
from svmkit.model_selection import SVCGridSearch  # noqa: E402
from svmkit.plotting import plot_decision_boundary, plot_grid_search  # noqa: E402

DOCS = Path(__file__).resolve().parent
IMAGES = DOCS / "images"
#: Size and resolution of every picture (small PNGs for the repository).
FIGSIZE, DPI = (6.4, 4.0), 80


def soft_margin():
    """Two overlapping clouds, a linear soft margin (C = 1): every KKT category occurs."""
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(-1.0, 1.0, size=(30, 2)), rng.normal(1.0, 1.0, size=(30, 2))])
    y = np.repeat([-1, 1], 30)
    figure, ax = plt.subplots(figsize=FIGSIZE, layout="constrained")
    plot_decision_boundary(SVC(kernel="linear", C=1.0).fit(X, y), X, y, ax=ax)
    ax.set_title("soft margin, C = 1: f(x) = 0 and the margins f(x) = ±1")
    return figure


def three_classes():
    """Iris, two of its columns, an RBF SVM: three shaded regions and the column names."""
    iris = load_iris(as_frame=True)
    X = iris.data[["petal length (cm)", "petal width (cm)"]]
    y = iris.target.map(dict(enumerate(iris.target_names)))
    figure, ax = plt.subplots(figsize=FIGSIZE, layout="constrained")
    plot_decision_boundary(SVC(kernel="rbf", gamma=0.5, C=1.0).fit(X, y), X, y, ax=ax)
    ax.set_title("iris: three classes, RBF kernel (gamma = 0.5, C = 1)")
    return figure


def grid_search():
    """The LIBSVM guide's (C, gamma) grid on heart_scale, 5-fold cross-validation."""
    X, y = load_heart_scale()
    search = SVCGridSearch(log2_C=(-5, 15, 2), log2_gamma=(3, -15, -2), cv=5).fit(X, y)
    figure, ax = plt.subplots(figsize=FIGSIZE, layout="constrained")
    plot_grid_search(search, ax=ax)
    return figure


PICTURES = {"soft_margin.png": soft_margin, "three_classes.png": three_classes, "grid_search.png": grid_search}


def main(folder=IMAGES):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name, draw in PICTURES.items():
        figure = draw()
        figure.savefig(folder / name, dpi=DPI)
        plt.close(figure)
        print(folder / name)
    for name in tutorial_pictures():
        shutil.copy(name, folder / name.name)
        print(folder / name.name)


def tutorial_pictures():
    """Run docs/tutorial.md (which saves its pictures in images/) in a fresh folder; its pictures."""
    here = os.getcwd()
    work = Path(tempfile.mkdtemp())
    (work / "images").mkdir()
    try:
        os.chdir(work)
        result = doctest.testfile(str(DOCS / "tutorial.md"), module_relative=False,
                                  optionflags=doctest.NORMALIZE_WHITESPACE)
    finally:
        os.chdir(here)
    if result.failed:
        raise SystemExit(f"docs/tutorial.md: {result.failed} of {result.attempted} examples failed")
    return sorted((work / "images").glob("*.png"))


if __name__ == "__main__":
    main(*sys.argv[1:])
