"""The figures render headless and hold the expected artists."""

import doctest
import io
import warnings

import numpy as np
import pytest
from scipy.stats import norm

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from sklearn.datasets import load_iris  # noqa: E402

from svmkit import SVC, OneClassSVM  # noqa: E402
from svmkit.model_selection import SVCGridSearch  # noqa: E402
from svmkit.naive_bayes import CategoricalNB, GaussianNB, MixedNB  # noqa: E402
from svmkit.plotting import (  # noqa: E402
    CLASS_COLORS,
    RING_STYLES,
    plot_class_densities,
    plot_decision_boundary,
    plot_grid_search,
    plot_probability,
)
from svmkit.svm._binary import BOUNDED_INSIDE, BOUNDED_MISCLASSIFIED, ON_MARGIN  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def png_bytes(figure):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def rgba(color):
    return np.array(matplotlib.colors.to_rgba(color))


def filled_bands(contour_set):
    """The number of levels' bands of a contourf that hold a shaded area."""
    return sum(len(path.vertices) > 0 for path in contour_set.get_paths())


@pytest.fixture(scope="module")
def overlapping():
    """Two overlapping 2-D clouds: every KKT category occurs with C = 1."""
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(-1.0, 1.0, size=(30, 2)), rng.normal(1.0, 1.0, size=(30, 2))])
    y = np.repeat([-1, 1], 30)
    return X, y, SVC(kernel="linear", C=1.0).fit(X, y)


def test_one_feature_on_a_line_with_the_margin_band():
    # the README's example: w = -2, b = -1, so f = 0 at x = -1/2 and f = +1, -1 at x = -1, 0
    X, y = np.array([[-1.0], [0.0], [1.0]]), np.array([1, -1, -1])
    model = SVC(C=np.inf, kernel="linear").fit(X, y)
    drawn = plot_decision_boundary(model, X, y)
    assert filled_bands(drawn.regions) == 2 and filled_bands(drawn.band) == 1
    for level, x in zip(drawn.contour.levels, (0.0, -0.5, -1.0)):  # f = -1, 0, 1
        (line,) = drawn.contour.allsegs[list(drawn.contour.levels).index(level)]
        np.testing.assert_allclose(line[:, 0], x, atol=0.01)  # a vertical line at x
    band = drawn.band.allsegs[0][0]
    assert band[:, 0].min() == pytest.approx(-1.0, abs=0.01) and band[:, 0].max() == pytest.approx(0.0, abs=0.01)
    np.testing.assert_array_equal(drawn.rings[ON_MARGIN].get_offsets(), [[-1.0, 0.0], [0.0, 0.0]])
    assert list(drawn.rings) == [ON_MARGIN] and drawn.ax.get_yticks().size == 0
    assert drawn.ax.get_xlabel() == "$x_1$"
    np.testing.assert_allclose(drawn.points[1].get_facecolors()[0], rgba(CLASS_COLORS[1]))
    assert png_bytes(drawn.figure)[:8] == b"\x89PNG\r\n\x1a\n"


def test_two_classes_rings_by_kkt_category_and_points_by_class(overlapping):
    X, y, model = overlapping
    drawn = plot_decision_boundary(model, X, y)
    assert drawn.contour.levels.tolist() == [-1.0, 0.0, 1.0]
    assert filled_bands(drawn.regions) == 2 and drawn.band is not None
    report = model.kkt_report()
    for name in (ON_MARGIN, BOUNDED_INSIDE, BOUNDED_MISCLASSIFIED):
        rows = report.index[report.category == name]
        assert rows.size > 0
        ring = drawn.rings[name]
        np.testing.assert_array_equal(ring.get_offsets(), X[rows])
        np.testing.assert_allclose(ring.get_edgecolors()[0], rgba(RING_STYLES[name][0]))
        assert ring.get_facecolors().shape[0] == 0 or np.all(ring.get_facecolors()[:, 3] == 0)  # hollow
    assert sum(len(ring.get_offsets()) for ring in drawn.rings.values()) == model.support_.shape[0]
    for k, label in enumerate((-1, 1)):
        np.testing.assert_array_equal(drawn.points[label].get_offsets(), X[y == label])
        np.testing.assert_allclose(drawn.points[label].get_facecolors()[0], rgba(CLASS_COLORS[k]))
    # the ring colours differ from every class colour, and from each other
    ring_colors = {RING_STYLES[name][0] for name in RING_STYLES}
    assert len(ring_colors) == 3 and not ring_colors & set(CLASS_COLORS)


def test_three_classes_shaded_with_column_names_on_the_axes():
    pd = pytest.importorskip("pandas")
    iris = load_iris(as_frame=True)
    X = iris.data[["petal length (cm)", "sepal width (cm)"]]
    y = iris.target.map({0: "setosa", 1: "versicolor", 2: "virginica"})
    model = SVC(kernel="rbf", gamma=0.5, C=1.0).fit(X, y)
    drawn = plot_decision_boundary(model, X, y, resolution=60)
    assert (drawn.ax.get_xlabel(), drawn.ax.get_ylabel()) == ("petal length (cm)", "sepal width (cm)")
    assert filled_bands(drawn.regions) == 3 and drawn.band is None
    assert drawn.regions.levels.tolist() == [-0.5, 0.5, 1.5, 2.5]
    assert sorted(drawn.points) == ["setosa", "versicolor", "virginica"]
    ringed = np.concatenate([ring.get_offsets() for ring in drawn.rings.values()])
    np.testing.assert_array_equal(np.unique(ringed, axis=0), np.unique(X.to_numpy()[model.support_], axis=0))
    assert isinstance(X, pd.DataFrame)


def test_decision_boundary_uses_the_given_axes(overlapping):
    X, y, model = overlapping
    figure, ax = plt.subplots()
    drawn = plot_decision_boundary(model, X, y, ax=ax, resolution=50)
    assert drawn.ax is ax and drawn.figure is figure


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda X, y: (SVC().fit(np.column_stack([X, X[:, 0]]), y), np.column_stack([X, X[:, 0]])),
         "one or two features"),
        (lambda X, y: (SVC().fit(X, y), X[:10]), "training points"),
        (lambda X, y: (OneClassSVM().fit(X), X), "classifier"),
    ],
)
def test_decision_boundary_refuses_what_it_cannot_draw(overlapping, make, message):
    X, y, _ = overlapping
    model, data = make(X, y)
    with pytest.raises(ValueError, match=message):
        plot_decision_boundary(model, data, y[: data.shape[0]])


def test_probability_surfaces_are_the_models_probabilities(overlapping):
    X, y, _ = overlapping
    model = SVC(kernel="rbf", probability=True, random_state=0).fit(X, y)
    drawn = plot_probability(model, X, y, resolution=40)
    assert list(drawn.surfaces) == [1] and len(drawn.axes) == 1
    surface = drawn.surfaces[1]
    assert surface.levels.tolist() == pytest.approx(np.linspace(0, 1, 11).tolist())
    assert filled_bands(surface) >= 5
    assert drawn.colorbar.ax.get_ylabel() == "P(class | x)"
    assert drawn.axes[0].get_title() == "P(1 | x)"
    with pytest.raises(ValueError, match="probability=True"):
        plot_probability(SVC().fit(X, y), X, y)


def test_probability_curves_of_one_feature():
    income = np.array([[125.0], [100], [70], [120], [95], [60], [220], [85], [75], [90]])
    evade = np.array(["No", "No", "No", "No", "Yes", "No", "No", "Yes", "No", "Yes"])
    model = GaussianNB().fit(income, evade)
    drawn = plot_probability(model, income, evade)
    x, p_yes = drawn.surfaces["Yes"].get_data()
    np.testing.assert_allclose(p_yes, model.predict_proba(x[:, np.newaxis])[:, 1])
    assert drawn.axes[0].get_xlabel() == "$x_1$"


def test_grid_search_heatmap_has_one_cell_per_point(overlapping):
    X, y, _ = overlapping
    search = SVCGridSearch(log2_C=(-1, 3, 2), log2_gamma=(1, -3, -2), cv=3, refine=True, refine_steps=2).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the best point may lie on this small grid's edge)
        drawn = plot_grid_search(search)
    # ticks at the coarse grid's exponents
    assert [tick.get_text() for tick in drawn.ax.get_xticklabels()] == ["-1", "1", "3"]
    assert [tick.get_text() for tick in drawn.ax.get_yticklabels()] == ["-3", "-1", "1"]
    n_points = search.cv_results_["C"].shape[0]
    assert len(drawn.cells.get_paths()) == n_points
    coarse = search.cv_results_["stage"] == "coarse"
    # coarse cells first (so finer ones lie on top), each as wide as its grid's step
    values = np.asarray(drawn.cells.get_array())
    np.testing.assert_allclose(values[: coarse.sum()], 100 * search.cv_results_["mean_accuracy"][coarse])
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
    with pytest.warns(UserWarning, match=r"edge of the grid \(smallest gamma\)"):
        drawn = plot_grid_search(table)
    assert len(drawn.cells.get_paths()) == 6
    np.testing.assert_array_equal(drawn.best.get_offsets()[0], [1.0, -2.0])  # tie at 0.9: smaller C
    assert drawn.colorbar.mappable is drawn.cells and drawn.edges == ["smallest gamma"]
    assert drawn.colorbar.ax.get_ylabel() == "cross-validation accuracy (%)"
    assert drawn.ax.get_title() == "best: C = 2^1, gamma = 2^-2: 90.00% accuracy"
    assert [text.get_text() for text in drawn.ax.texts] == ["90.00%"]


def test_grid_search_heatmap_warns_nothing_when_the_best_point_is_inside():
    table = {"log2_C": np.repeat([-1.0, 1.0, 3.0], 3), "log2_gamma": np.tile([-3.0, -1.0, 1.0], 3),
             "mean_accuracy": np.array([0.7, 0.8, 0.7, 0.8, 0.95, 0.8, 0.7, 0.8, 0.7])}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        drawn = plot_grid_search(table)
    assert drawn.edges == []
    many = {"log2_C": np.repeat(np.arange(-5.0, 16.0), 2), "log2_gamma": np.tile([0.0, 1.0], 21),
            "mean_accuracy": np.linspace(0.5, 0.9, 42)}
    with pytest.warns(UserWarning):
        ticks = [tick.get_text() for tick in plot_grid_search(many).ax.get_xticklabels()]
    assert ticks == [str(value) for value in range(-5, 16, 2)]  # at most 12: every second exponent


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


def test_the_module_examples_run():
    import svmkit.plotting._boundary
    import svmkit.plotting._densities
    import svmkit.plotting._grid
    import svmkit.plotting._probability

    for module in (svmkit.plotting._boundary, svmkit.plotting._densities, svmkit.plotting._grid,
                   svmkit.plotting._probability):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__
