"""The figures render headless and hold the expected artists."""

import io

import numpy as np
import pytest
from scipy.stats import norm

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from svmkit import SVC  # noqa: E402
from svmkit.model_selection import SVCGridSearch  # noqa: E402
from svmkit.naive_bayes import CategoricalNB, GaussianNB, MixedNB  # noqa: E402
from svmkit.plotting import (  # noqa: E402
    CATEGORY_COLORS,
    plot_class_densities,
    plot_decision_boundary,
    plot_grid_search,
)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def png_bytes(figure):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def overlapping():
    """Two overlapping 2-D clouds: every KKT category occurs with C = 1."""
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(-1.0, 1.0, size=(30, 2)), rng.normal(1.0, 1.0, size=(30, 2))])
    y = np.repeat([-1, 1], 30)
    return X, y, SVC(kernel="linear", C=1.0).fit(X, y)


def test_decision_boundary_draws_margins_support_vectors_and_kkt_categories(overlapping):
    X, y, model = overlapping
    drawn = plot_decision_boundary(model, X, y)
    assert drawn.contour.levels.tolist() == [-1.0, 0.0, 1.0]
    circled = drawn.support_vectors.get_offsets()
    assert len(circled) == model.support_.shape[0]
    np.testing.assert_array_equal(np.asarray(circled), X[model.support_])
    faces = drawn.support_vectors.get_facecolors()
    assert faces.shape[0] == 0 or np.all(faces[:, 3] == 0)  # hollow circles

    counts = model.kkt_report().counts()
    assert all(counts[name] > 0 for name in CATEGORY_COLORS)
    drawn_counts = {name: 0 for name in CATEGORY_COLORS}
    for key, points in drawn.points.items():
        name = key.rsplit(", class", 1)[0]
        drawn_counts[name] += len(points.get_offsets())
        np.testing.assert_allclose(points.get_facecolors()[0], matplotlib.colors.to_rgba(CATEGORY_COLORS[name]))
    assert drawn_counts == counts
    assert png_bytes(drawn.figure)[:8] == b"\x89PNG\r\n\x1a\n"


def test_decision_boundary_uses_the_given_axes(overlapping):
    X, y, model = overlapping
    figure, ax = plt.subplots()
    drawn = plot_decision_boundary(model, X, y, ax=ax, resolution=50)
    assert drawn.ax is ax and drawn.figure is figure


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda X, y: (SVC().fit(np.column_stack([X, X[:, 0]]), y), np.column_stack([X, X[:, 0]])), "two features"),
        (lambda X, y: (SVC().fit(X, np.arange(60) % 3), X), "two-class SVC"),
        (lambda X, y: (SVC().fit(X, y), X[:10]), "training points"),
    ],
)
def test_decision_boundary_refuses_other_models(overlapping, make, message):
    X, y, _ = overlapping
    model, data = make(X, y)
    with pytest.raises(ValueError, match=message):
        plot_decision_boundary(model, data, y[: data.shape[0]])


def test_grid_search_heatmap_has_one_cell_per_point(overlapping):
    X, y, _ = overlapping
    search = SVCGridSearch(log2_C=(-1, 3, 2), log2_gamma=(1, -3, -2), cv=3, refine=True, refine_steps=2).fit(X, y)
    drawn = plot_grid_search(search)
    n_points = search.cv_results_["C"].shape[0]
    assert len(drawn.cells.get_paths()) == n_points
    coarse = search.cv_results_["stage"] == "coarse"
    # coarse cells first (so finer ones lie on top), each as wide as its grid's step
    values = np.asarray(drawn.cells.get_array())
    np.testing.assert_array_equal(values[: coarse.sum()], search.cv_results_["mean_accuracy"][coarse])
    widths = [np.ptp(path.vertices[:, 0]) for path in drawn.cells.get_paths()]
    assert widths[0] == 2.0 and widths[-1] == 1.0
    best = drawn.best.get_offsets()[0]
    np.testing.assert_array_equal(best, np.log2([search.best_params_["C"], search.best_params_["gamma"]]))
    assert png_bytes(drawn.figure)[:8] == b"\x89PNG\r\n\x1a\n"


def test_grid_search_heatmap_from_a_table():
    table = {
        "log2_C": np.repeat([-1.0, 1.0, 3.0], 2),
        "log2_gamma": np.tile([-2.0, 0.0], 3),
        "mean_accuracy": np.array([0.7, 0.8, 0.9, 0.85, 0.88, 0.9]),
    }
    drawn = plot_grid_search(table)
    assert len(drawn.cells.get_paths()) == 6
    np.testing.assert_array_equal(drawn.best.get_offsets()[0], [1.0, -2.0])  # tie at 0.9: smaller C
    assert drawn.colorbar.mappable is drawn.cells


def test_gaussian_densities_one_line_per_class():
    income = np.array([[125.0], [100], [70], [120], [95], [60], [220], [85], [75], [90]])
    evade = np.array(["No", "No", "No", "No", "Yes", "No", "No", "Yes", "No", "Yes"])
    model = GaussianNB().fit(income, evade)
    drawn = plot_class_densities(model, 0)
    assert drawn.kind == "gaussian" and len(drawn.ax.get_lines()) == 2
    sds = np.sqrt(model.var_[:, 0])
    assert sds.round(2).tolist() == [54.54, 5.0]
    for label, mean, sd in zip(("No", "Yes"), (110.0, 90.0), sds):
        x, density = drawn.artists[label].get_data()
        np.testing.assert_allclose(density, norm.pdf(x, mean, sd), rtol=1e-12)
        assert x[0] < mean - 3 * sd and x[-1] > mean + 3 * sd
    # the seeds: density of income 130 given No is 0.00684 (drawn curve, interpolated)
    x, density = drawn.artists["No"].get_data()
    assert np.interp(130.0, x, density) == pytest.approx(0.00684, abs=2e-5)
    assert png_bytes(drawn.figure)[:8] == b"\x89PNG\r\n\x1a\n"


def test_categorical_bars_are_the_smoothed_probabilities():
    X = [["Single"], ["Married"], ["Single"], ["Married"], ["Divorced"], ["Married"], ["Divorced"], ["Single"],
         ["Married"], ["Single"]]
    evade = ["No", "No", "No", "No", "Yes", "No", "No", "Yes", "No", "Yes"]
    model = CategoricalNB(alpha=1).fit(X, evade)
    drawn = plot_class_densities(model, 0)
    assert drawn.kind == "categorical" and sorted(drawn.artists) == ["No", "Yes"]
    heights = {label: [bar.get_height() for bar in bars] for label, bars in drawn.artists.items()}
    # P(Divorced, Married, Single | No) = (1 + 1, 4 + 1, 2 + 1) / (7 + 3)
    np.testing.assert_allclose(heights["No"], [0.2, 0.5, 0.3])
    np.testing.assert_allclose(heights["Yes"], [2 / 6, 1 / 6, 3 / 6])
    assert [tick.get_text() for tick in drawn.ax.get_xticklabels()] == ["Divorced", "Married", "Single"]


def test_mixed_model_by_column_name():
    pd = pytest.importorskip("pandas")
    records = pd.DataFrame({"Refund": ["Yes", "No", "No", "Yes"], "Income": [125.0, 100.0, 70.0, 120.0]})
    model = MixedNB().fit(records, ["No", "No", "Yes", "Yes"])
    assert plot_class_densities(model, "Income").kind == "gaussian"
    assert plot_class_densities(model, "Refund").kind == "categorical"
    with pytest.raises(ValueError, match="Unknown feature 'Age'"):
        plot_class_densities(model, "Age")
