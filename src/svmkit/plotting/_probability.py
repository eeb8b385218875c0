"""Probability surfaces: ``P(class | x)`` over one or two features."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._style import as_matrix, class_color, feature_names, figure_and_axes, grid_input, padded_range, pyplot, \
    scatter_classes

#: Colormap of a probability (cividis: read alike with every common colour-vision deficiency).
PROBABILITY_CMAP = "cividis"
#: Probability levels of the shading.
PROBABILITY_LEVELS = np.linspace(0.0, 1.0, 11)


@dataclass
class ProbabilityPlot:
    """What :func:`plot_probability` drew.

    Attributes
    ----------
    figure : matplotlib Figure
    axes : list of matplotlib Axes
        One per class drawn.
    surfaces : dict
        Per class label: its shaded ``P(class | x)`` (QuadContourSet, levels 0, 0.1, ..., 1)
        for two features, its curve (Line2D) for one.
    colorbar : matplotlib Colorbar or None
        Two features: the scale of the probabilities.
    """

    figure: object
    axes: list
    surfaces: dict
    colorbar: object


def plot_probability(model, X, y=None, classes=None, ax=None, resolution=200):
    """The probability ``P(class | x)`` of a classifier over one or two features.

    Two features: ``P(class | x)`` shaded from 0 to 1 with the line ``P = 0.5``, one panel
    per class drawn (scikit-learn's :class:`~sklearn.inspection.DecisionBoundaryDisplay`
    evaluates it). One feature: the curve of ``P(class | x)`` of each class, with the
    points on the line ``P = 0``. The points of ``y`` are drawn in their class's colour.

    Parameters
    ----------
    model : classifier with ``predict_proba``
        An SVC fitted with ``probability=True``, a naive Bayes model, ...
    X : array-like or DataFrame of shape (n_samples, 1 or 2)
    y : array-like of shape (n_samples,), optional
        Labels of the points to draw.
    classes : list of labels, optional
        The classes whose probability is drawn (two features): by default the
        second class of two (``classes_[1]``), every class of more.
    ax : matplotlib Axes, optional
        For one feature, or one class of two features.
    resolution : int, default=200

    Returns
    -------
    ProbabilityPlot

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn.datasets import load_iris
    >>> from svmkit.naive_bayes import GaussianNB
    >>> from svmkit.plotting import plot_probability
    >>> X, y = load_iris(return_X_y=True)
    >>> drawn = plot_probability(GaussianNB().fit(X[:, :2], y), X[:, :2], y, resolution=50)
    >>> len(drawn.axes), sorted(drawn.surfaces), drawn.colorbar.ax.get_ylabel()
    (3, [0, 1, 2], 'P(class | x)')
    """
    check_is_fitted(model)
    if not hasattr(model, "predict_proba"):
        raise ValueError(f"{type(model).__name__} has no predict_proba: for an SVC, fit it with probability=True.")
    names = feature_names(model, X)
    matrix = as_matrix(X)
    if matrix.ndim != 2 or matrix.shape[1] not in (1, 2):
        raise ValueError(f"plot_probability draws one or two features; X has shape {np.shape(X)}.")
    labels = model.classes_.tolist()
    if matrix.shape[1] == 1:
        return _curves(model, matrix, y, names, ax, resolution)
    if classes is None:
        classes = labels[1:] if len(labels) == 2 else labels
    unknown = [label for label in classes if label not in labels]
    if unknown:
        raise ValueError(f"Unknown classes {unknown}: the model's classes are {labels}.")
    if ax is not None and len(classes) != 1:
        raise ValueError(f"One axes draws one class; pass classes=[one label] or no ax (classes: {classes}).")
    if ax is None:
        figure, axes = pyplot().subplots(1, len(classes), figsize=(4.2 * len(classes) + 1.0, 4.0), squeeze=False,
                                         layout="constrained")
        axes = list(axes[0])
    else:
        figure, axes = ax.figure, [ax]
    from sklearn.inspection import DecisionBoundaryDisplay

    span = max(float(np.ptp(matrix[:, 0])), float(np.ptp(matrix[:, 1])), 1.0)
    data = X if hasattr(X, "columns") else matrix
    surfaces = {}
    for panel, label in zip(axes, classes):
        display = DecisionBoundaryDisplay.from_estimator(
            model, data, response_method="predict_proba", class_of_interest=label, plot_method="contourf",
            grid_resolution=resolution, eps=0.1 * span, ax=panel, cmap=PROBABILITY_CMAP, levels=PROBABILITY_LEVELS,
            xlabel=names[0], ylabel=names[1],
        )
        surfaces[label] = display.surface_
        panel.contour(display.xx0, display.xx1, display.response, levels=[0.5], colors="white", linewidths=1.2)
        if y is not None:
            scatter_classes(panel, model, matrix, y)
        panel.set_title(f"P({label} | x)")
    colorbar = figure.colorbar(surfaces[classes[-1]], ax=axes, label="P(class | x)")
    if y is not None:
        axes[-1].legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.25, 1.0), borderaxespad=0.0)
    return ProbabilityPlot(figure, axes, surfaces, colorbar)


def _curves(model, X, y, names, ax, resolution):
    figure, ax = figure_and_axes(ax)
    grid = padded_range(X[:, 0], resolution)
    probabilities = model.predict_proba(grid_input(model, grid[:, np.newaxis], names))
    surfaces = {}
    for k, label in enumerate(model.classes_.tolist()):
        (surfaces[label],) = ax.plot(grid, probabilities[:, k], color=class_color(k), label=f"P({label} | x)")
    if y is not None:
        scatter_classes(ax, model, X, y, vertical=0.0)
    ax.set_xlabel(names[0])
    ax.set_ylabel("probability")
    ax.set_ylim(-0.05, 1.05)
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    return ProbabilityPlot(figure, [ax], surfaces, None)
