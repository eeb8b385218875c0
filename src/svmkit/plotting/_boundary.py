"""The decision regions of a classifier, with the SVM's margins and support vectors."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..svm._binary import BOUNDED_INSIDE, BOUNDED_MISCLASSIFIED, ON_MARGIN
from ._style import (
    CATEGORY_ORDER,
    REGION_ALPHA,
    RING_STYLES,
    as_matrix,
    class_color,
    feature_names,
    figure_and_axes,
    grid_input,
    padded_range,
    scatter_classes,
)

#: Legend of the rings of each KKT category.
RING_LABELS = {
    ON_MARGIN: "support vector on the margin",
    BOUNDED_INSIDE: "SV inside the margin (ξ ≤ 1)",
    BOUNDED_MISCLASSIFIED: "SV misclassified (ξ > 1)",
}
#: Colour of the margin band ``-1 < f(x) < 1``.
BAND_COLOR = "#999999"


@dataclass
class DecisionBoundaryPlot:
    """What :func:`plot_decision_boundary` drew.

    Attributes
    ----------
    figure, ax : matplotlib Figure and Axes
    regions : matplotlib QuadContourSet
        The shaded regions of the predicted classes (``contourf``; one band per class,
        ``regions.levels`` ``-0.5, 0.5, ...`` around the class positions).
    band : matplotlib QuadContourSet or None
        Two classes: the shaded margin band ``-1 < f(x) < 1``.
    contour : matplotlib QuadContourSet
        Two classes: the lines ``f(x) = -1, 0, 1`` (``contour.levels``); more classes: the
        borders between the regions.
    points : dict
        Per class label: its training points (PathCollection in the class's colour).
    rings : dict
        Per KKT category (on the margin, bounded inside the margin, bounded and
        misclassified): the rings around the support vectors of that category
        (PathCollection, edge colour and line style of :data:`RING_STYLES`). Empty for a
        model without support vectors.
    """

    figure: object
    ax: object
    regions: object
    band: object
    contour: object
    points: dict = field(default_factory=dict)
    rings: dict = field(default_factory=dict)


def plot_decision_boundary(model, X, y, ax=None, resolution=200):
    """The decision regions of a classifier on one or two features, as the course draws them.

    The region of each class is shaded in its colour, and the training points are drawn in
    the colour (and marker) of their class. For two classes, the boundary ``f(x) = 0`` is a
    solid line, the margins ``f(x) = -1`` and ``f(x) = +1`` are dashed and the band between
    them is grey; for more classes, the borders of the regions are drawn. The support
    vectors of an SVM are ringed, the ring showing the point's KKT category (see
    :meth:`svmkit.SVC.kkt_report`): on the margin (black, solid), bounded inside the margin
    (vermillion, dashed), bounded and misclassified (purple, dotted); a point of several
    two-class problems shows its most severe category. One feature is drawn on a line,
    the regions and the margin band as intervals. The axes are named after the columns
    of a DataFrame.

    Parameters
    ----------
    model : classifier
        Fitted on one or two features: an SVC (or NuSVC) for the margins and rings, or
        any classifier with ``predict`` (and ``decision_function`` for the margins).
    X : array-like or DataFrame of shape (n_samples, 1 or 2)
        The points to draw; for the rings of an SVC, the training data it was fitted on
        (the KKT categories belong to the training points).
    y : array-like of shape (n_samples,)
        Their labels.
    ax : matplotlib Axes, optional
    resolution : int, default=200
        Grid points per axis at which the model is evaluated.

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
    >>> X = np.array([[-1.0], [0.0], [1.0]])
    >>> y = np.array([1, -1, -1])
    >>> drawn = plot_decision_boundary(SVC(C=np.inf, kernel="linear").fit(X, y), X, y)
    >>> drawn.contour.levels.tolist(), sorted(drawn.rings), len(drawn.rings["on the margin"].get_offsets())
    ([-1.0, 0.0, 1.0], ['on the margin'], 2)
    """
    check_is_fitted(model)
    if not hasattr(model, "classes_") or not hasattr(model, "predict"):
        raise ValueError(f"plot_decision_boundary draws a fitted classifier; {type(model).__name__} has no classes_.")
    names = feature_names(model, X)
    X = as_matrix(X)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[1] not in (1, 2):
        raise ValueError(
            f"plot_decision_boundary draws one or two features; X has shape {np.shape(X)}: choose two columns "
            "(or project the data, e.g. with sklearn.decomposition.PCA) and fit the model on them."
        )
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows and y {y.shape[0]} labels.")
    categories = _kkt_categories(model, X.shape[0])
    n_classes = model.classes_.shape[0]
    two_classes = n_classes == 2 and hasattr(model, "decision_function")
    figure, ax = figure_and_axes(ax)

    first = padded_range(X[:, 0], resolution)
    second = padded_range(X[:, 1], resolution) if X.shape[1] == 2 else np.array([-1.0, 1.0])
    xx, yy = np.meshgrid(first, second)
    points = np.column_stack([xx.ravel()]) if X.shape[1] == 1 else np.column_stack([xx.ravel(), yy.ravel()])
    grid = grid_input(model, points, names)
    if two_classes:
        decision = np.asarray(model.decision_function(grid), dtype=np.float64).reshape(xx.shape)
        predicted = (decision > 0).astype(np.float64)
    else:
        predicted = np.searchsorted(model.classes_, np.asarray(model.predict(grid))).reshape(xx.shape).astype(float)
    levels = np.arange(n_classes + 1) - 0.5
    regions = ax.contourf(xx, yy, predicted, levels=levels, colors=[class_color(k) for k in range(n_classes)],
                          alpha=REGION_ALPHA, zorder=0)
    band = None
    if two_classes:
        band = ax.contourf(xx, yy, decision, levels=[-1.0, 1.0], colors=[BAND_COLOR], alpha=0.25, zorder=1)
        contour = ax.contour(xx, yy, decision, levels=[-1.0, 0.0, 1.0], colors="k", linestyles=["--", "-", "--"],
                             linewidths=[1.0, 1.6, 1.0], zorder=2)
    else:
        contour = ax.contour(xx, yy, predicted, levels=np.arange(n_classes - 1) + 0.5, colors="k", linewidths=1.0,
                             zorder=2)

    one_feature = X.shape[1] == 1
    drawn_points = scatter_classes(ax, model, X, y, vertical=0.0 if one_feature else None)
    rings = {}
    if categories is not None:
        for name, (color, style) in RING_STYLES.items():
            rows = categories == name
            if rows.any():
                second_axis = np.zeros(rows.sum()) if one_feature else X[rows, 1]
                rings[name] = ax.scatter(X[rows, 0], second_axis, s=220, facecolors="none", edgecolors=color,
                                         linestyles=style, linewidths=2.2, label=RING_LABELS[name],
                                         zorder=4)
    ax.set_xlabel(names[0])
    if one_feature:
        ax.set_ylim(-1.0, 1.0)
        ax.set_yticks([])
    else:
        ax.set_ylabel(names[1])
    _legend(ax, two_classes)
    title = "regions of the classes"
    if two_classes:
        title = "f(x) = 0 (solid), margins f(x) = ±1 (dashed)"
    ax.set_title(title)
    return DecisionBoundaryPlot(figure, ax, regions, band, contour, drawn_points, rings)


def _kkt_categories(model, n_rows):
    """The KKT category of every training row of an SVM (the most severe over its two-class
    problems), or None for a model without them."""
    models = getattr(model, "binary_models_", None) if hasattr(model, "kkt_report") else None
    if not models or vars(model).get("_n_training_rows") is None:
        return None
    n_training = model._n_training_rows
    if n_rows != n_training:
        raise ValueError(
            f"X must be the {n_training} training points of the model (their KKT categories are drawn), "
            f"got {n_rows} rows."
        )
    rank_of = {name: rank for rank, name in enumerate(CATEGORY_ORDER)}
    severity = np.zeros(n_training, dtype=np.int64)
    for binary in models:
        report = binary.kkt_report()
        np.maximum.at(severity, report.index, [rank_of[name] for name in report.category.tolist()])
    return np.array(CATEGORY_ORDER, dtype=object)[severity]


def _legend(ax, two_classes):
    from matplotlib.lines import Line2D

    handles, labels = ax.get_legend_handles_labels()
    if two_classes:
        handles += [Line2D([], [], color="k", linewidth=1.6), Line2D([], [], color="k", linestyle="--")]
        labels += ["f(x) = 0", "f(x) = ±1"]
    ax.legend(handles, labels, fontsize="x-small", loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
