"""Figures of the seeds: the SVM's boundary and margins, the grid-search heatmap
and the class-conditional densities of naive Bayes.

matplotlib is an optional dependency (``pip install 'svmkit[plot]'``); it is
imported when a function is called. Every function draws on ``ax`` when one
is given (else on a new figure) and returns the figure, the axes and the
artists it drew, so that they can be restyled or checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .svm._binary import BOUNDED_INSIDE, BOUNDED_MISCLASSIFIED, NOT_SUPPORT_VECTOR, ON_MARGIN

__all__ = [
    "DecisionBoundaryPlot",
    "GridSearchPlot",
    "ClassDensityPlot",
    "plot_decision_boundary",
    "plot_grid_search",
    "plot_class_densities",
]

#: Colour of each KKT category of a training point.
CATEGORY_COLORS = {
    NOT_SUPPORT_VECTOR: "tab:gray",
    ON_MARGIN: "tab:green",
    BOUNDED_INSIDE: "tab:orange",
    BOUNDED_MISCLASSIFIED: "tab:red",
}
#: Marker of the negative and the positive class.
CLASS_MARKERS = ("o", "^")


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError("svmkit.plotting needs matplotlib: pip install 'svmkit[plot]'.") from error
    return plt


def _figure_and_axes(ax):
    if ax is None:
        return _pyplot().subplots(layout="constrained")
    return ax.figure, ax


@dataclass
class DecisionBoundaryPlot:
    """What :func:`plot_decision_boundary` drew.

    Attributes
    ----------
    figure, ax : matplotlib Figure and Axes
    contour : matplotlib ContourSet
        The lines ``f(x) = -1, 0, 1`` (``contour.levels``).
    support_vectors : matplotlib PathCollection
        The circles around the support vectors, one per support vector.
    points : dict of str -> PathCollection
        The training points of each KKT category and class, keyed
        ``"<category>, class <label>"``.
    """

    figure: object
    ax: object
    contour: object
    support_vectors: object
    points: dict = field(default_factory=dict)


def plot_decision_boundary(model, X, y, ax=None, resolution=200):
    """The seeds' figure of a two-class SVM on two features.

    Draws the decision boundary ``f(x) = 0`` and the margins ``f(x) = -1`` and
    ``f(x) = +1`` (dashed), circles the support vectors and colours every
    training point by its KKT category (see :meth:`svmkit.SVC.kkt_report`):
    not a support vector (grey), on the margin (green), bounded inside the
    margin (orange), bounded and misclassified (red); the marker shows the
    class.

    Parameters
    ----------
    model : SVC
        Fitted on two classes and two features.
    X : array-like of shape (n_samples, 2)
        The training data the model was fitted on (the KKT categories belong
        to the training points).
    y : array-like of shape (n_samples,)
        Their labels.
    ax : matplotlib Axes, optional
    resolution : int, default=200
        Grid points per axis at which ``f`` is evaluated.

    Returns
    -------
    DecisionBoundaryPlot

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from svmkit import SVC
    >>> from svmkit.plotting import plot_decision_boundary
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [2.0, 2.0], [3.0, 2.0], [2.0, 3.0]])
    >>> y = np.array([-1, -1, -1, 1, 1, 1])
    >>> model = SVC(kernel="linear", C=10.0).fit(X, y)
    >>> drawn = plot_decision_boundary(model, X, y)
    >>> drawn.contour.levels.tolist(), len(drawn.support_vectors.get_offsets()), model.support_.size
    ([-1.0, 0.0, 1.0], 2, 2)
    """
    check_is_fitted(model)
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=np.float64)
    y = np.asarray(y)
    if len(getattr(model, "binary_models_", ())) != 1 or model.classes_.shape[0] != 2:
        raise ValueError("plot_decision_boundary draws a fitted two-class SVC.")
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"plot_decision_boundary draws two features; X has shape {X.shape}.")
    if X.shape[0] != model.binary_models_[0].indices.shape[0]:
        raise ValueError(
            f"X must be the {model.binary_models_[0].indices.shape[0]} training points of the model, got {X.shape[0]}."
        )
    figure, ax = _figure_and_axes(ax)
    low, high = X.min(axis=0), X.max(axis=0)
    pad = 0.1 * np.where(high > low, high - low, 1.0)
    xx, yy = np.meshgrid(
        np.linspace(low[0] - pad[0], high[0] + pad[0], resolution),
        np.linspace(low[1] - pad[1], high[1] + pad[1], resolution),
    )
    decision = model.decision_function(np.column_stack([xx.ravel(), yy.ravel()])).reshape(xx.shape)
    contour = ax.contour(xx, yy, decision, levels=[-1.0, 0.0, 1.0], colors="k", linestyles=["--", "-", "--"])

    report = model.kkt_report()
    category = np.empty(X.shape[0], dtype=object)
    category[report.index] = report.category
    points = {}
    for marker, label in zip(CLASS_MARKERS, model.classes_):
        for name, color in CATEGORY_COLORS.items():
            rows = (y == label) & (category == name)
            if rows.any():
                key = f"{name}, class {label}"
                points[key] = ax.scatter(X[rows, 0], X[rows, 1], c=color, marker=marker, label=key, zorder=3)
    support = X[model.support_]
    support_vectors = ax.scatter(
        support[:, 0], support[:, 1], s=180, facecolors="none", edgecolors="k", linewidths=1.2,
        label="support vectors", zorder=4,
    )
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.set_title("f(x) = 0 (solid) and the margins f(x) = ±1 (dashed)")
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    return DecisionBoundaryPlot(figure, ax, contour, support_vectors, points)


@dataclass
class GridSearchPlot:
    """What :func:`plot_grid_search` drew.

    Attributes
    ----------
    figure, ax : matplotlib Figure and Axes
    cells : matplotlib PolyCollection
        One square per evaluated ``(C, gamma)``, coloured by accuracy.
    colorbar : matplotlib Colorbar
    best : matplotlib PathCollection
        The marker on the best point.
    """

    figure: object
    ax: object
    cells: object
    colorbar: object
    best: object


def plot_grid_search(results, ax=None, cmap="viridis"):
    """Heatmap of the cross-validation accuracy over ``log2 C`` and ``log2 gamma``.

    Each evaluated point is a cell centred on it, as wide as the spacing of
    its grid; the cells of a finer grid (refinement) lie over the coarse ones.

    Parameters
    ----------
    results : SVCGridSearch, dict or DataFrame
        A fitted :class:`svmkit.model_selection.SVCGridSearch`, or its
        ``cv_results_`` (needs 'log2_C', 'log2_gamma' and 'mean_accuracy';
        'stage' when the points come from grids of different spacing).
    ax : matplotlib Axes, optional
    cmap : str or Colormap, default='viridis'

    Returns
    -------
    GridSearchPlot

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from svmkit.plotting import plot_grid_search
    >>> results = {"log2_C": [-1, -1, 1, 1], "log2_gamma": [-1, 1, -1, 1],
    ...            "mean_accuracy": [0.80, 0.85, 0.90, 0.88]}
    >>> drawn = plot_grid_search(results)
    >>> len(drawn.cells.get_paths()), drawn.best.get_offsets().tolist()
    (4, [[1.0, -1.0]])
    """
    table = getattr(results, "cv_results_", results)
    log2_C = np.asarray(table["log2_C"], dtype=np.float64)
    log2_gamma = np.asarray(table["log2_gamma"], dtype=np.float64)
    accuracy = np.asarray(table["mean_accuracy"], dtype=np.float64)
    stage = np.asarray(table["stage"]) if "stage" in table else np.zeros(log2_C.shape[0])
    figure, ax = _figure_and_axes(ax)
    from matplotlib.collections import PolyCollection

    squares, values = [], []
    for name in dict.fromkeys(stage.tolist()):  # coarse first, so finer cells lie on top
        rows = np.flatnonzero(stage == name)
        width, height = _spacing(log2_C[rows]) / 2, _spacing(log2_gamma[rows]) / 2
        for c, g in zip(log2_C[rows], log2_gamma[rows]):
            squares.append([(c - width, g - height), (c + width, g - height), (c + width, g + height),
                            (c - width, g + height)])
        values.append(accuracy[rows])
    cells = PolyCollection(squares, array=np.concatenate(values), cmap=cmap, edgecolors="face")
    ax.add_collection(cells)
    ax.autoscale_view()
    colorbar = figure.colorbar(cells, ax=ax, label="cross-validation accuracy")
    best_row = min(range(accuracy.shape[0]), key=lambda row: (-accuracy[row], log2_C[row], log2_gamma[row]))
    best = ax.scatter(
        [log2_C[best_row]], [log2_gamma[best_row]], marker="*", s=200, c="red", edgecolors="white", zorder=3
    )
    ax.set_xlabel("log2 C")
    ax.set_ylabel("log2 gamma")
    ax.set_title(
        f"best: C = 2^{log2_C[best_row]:g}, gamma = 2^{log2_gamma[best_row]:g}, accuracy {accuracy[best_row]:.4f}"
    )
    return GridSearchPlot(figure, ax, cells, colorbar, best)


def _spacing(values):
    """The smallest gap between distinct values (1 for a single value)."""
    gaps = np.diff(np.unique(values))
    return float(gaps.min()) if gaps.size else 1.0


@dataclass
class ClassDensityPlot:
    """What :func:`plot_class_densities` drew.

    Attributes
    ----------
    figure, ax : matplotlib Figure and Axes
    kind : {'gaussian', 'categorical'}
    artists : dict
        Per class label: its density curve (Line2D) or its bars (BarContainer).
    """

    figure: object
    ax: object
    kind: str
    artists: dict


def plot_class_densities(model, feature, ax=None, n_points=400):
    """The class-conditional distribution ``P(x_i | C_k)`` of one feature of a naive Bayes model.

    A Gaussian feature shows the normal density of each class (its mean and
    standard deviation); a categorical feature shows, for each class, bars of
    the smoothed ``P(value | class)``.

    Parameters
    ----------
    model : GaussianNB, CategoricalNB or MixedNB
        Fitted.
    feature : int or str
        Column index, or column name when the model was fitted on a DataFrame.
    ax : matplotlib Axes, optional
    n_points : int, default=400
        Points of each density curve.

    Returns
    -------
    ClassDensityPlot

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from svmkit.naive_bayes import GaussianNB
    >>> from svmkit.plotting import plot_class_densities
    >>> income = np.array([[125.0], [100], [70], [120], [95], [60], [220], [85], [75], [90]])
    >>> evade = np.array(["No", "No", "No", "No", "Yes", "No", "No", "Yes", "No", "Yes"])
    >>> drawn = plot_class_densities(GaussianNB().fit(income, evade), 0)
    >>> drawn.kind, sorted(drawn.artists)
    ('gaussian', ['No', 'Yes'])
    """
    check_is_fitted(model)
    column = _column_index(model, feature)
    name = model.feature_names_in_[column] if hasattr(model, "feature_names_in_") else f"x{column}"
    figure, ax = _figure_and_axes(ax)
    gaussian = np.flatnonzero(model.gaussian_features_ == column)
    if gaussian.size:
        position = gaussian[0]
        mean = model.theta_[:, position]
        sd = np.sqrt(model.var_[:, position])
        x = np.linspace((mean - 4 * sd).min(), (mean + 4 * sd).max(), n_points)
        artists = {}
        for label, m, s in zip(model.classes_.tolist(), mean, sd):
            density = np.exp(-0.5 * ((x - m) / s) ** 2) / (s * np.sqrt(2 * np.pi))
            (artists[label],) = ax.plot(x, density, label=f"{label} (mean {m:.4g}, sd {s:.4g})")
        ax.set_ylabel("density")
        kind = "gaussian"
    else:
        position = int(np.flatnonzero(model.categorical_features_ == column)[0])
        categories = model.categories_[position]
        probabilities = np.exp(model.feature_log_prob_[position])
        n_classes = probabilities.shape[0]
        width = 0.8 / n_classes
        slots = np.arange(categories.shape[0])
        artists = {}
        for k, label in enumerate(model.classes_.tolist()):
            offset = (k - (n_classes - 1) / 2) * width
            artists[label] = ax.bar(slots + offset, probabilities[k], width=width, label=str(label))
        ax.set_xticks(slots, [str(category) for category in categories.tolist()])
        ax.set_ylabel("probability")
        kind = "categorical"
    ax.set_xlabel(str(name))
    ax.set_title(f"P({name} | class)")
    ax.legend(title="class", fontsize="small")
    return ClassDensityPlot(figure, ax, kind, artists)


def _column_index(model, feature):
    if isinstance(feature, str):
        names = getattr(model, "feature_names_in_", None)
        if names is None or feature not in names.tolist():
            known = None if names is None else names.tolist()
            raise ValueError(f"Unknown feature {feature!r}: the model's features are {known}.")
        return names.tolist().index(feature)
    index = int(feature)
    if not 0 <= index < model.n_features_in_:
        raise ValueError(f"feature must be in 0..{model.n_features_in_ - 1}, got {feature!r}.")
    return index
