"""What every figure shares: the colour-blind-safe palette, the KKT rings, axes and data."""

from __future__ import annotations

import numpy as np

from ..svm._binary import BOUNDED_INSIDE, BOUNDED_MISCLASSIFIED, NOT_SUPPORT_VECTOR, ON_MARGIN

#: Colour of each class, in the order of ``classes_``: Okabe and Ito's palette, which readers
#: with any common colour-vision deficiency tell apart (vermillion and reddish purple are kept
#: for the rings); more classes reuse it, with other markers.
CLASS_COLORS = ("#0072B2", "#E69F00", "#009E73", "#56B4E9", "#F0E442")
#: Marker of each class (a second cue beside the colour).
CLASS_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
#: Edge colour and line style of the ring around a support vector of each KKT category.
RING_STYLES = {
    ON_MARGIN: ("#000000", "solid"),
    BOUNDED_INSIDE: ("#D55E00", "dashed"),
    BOUNDED_MISCLASSIFIED: ("#CC79A7", "dotted"),
}
#: Severity of the KKT categories: a point of several two-class problems shows its most severe one.
CATEGORY_ORDER = (NOT_SUPPORT_VECTOR, ON_MARGIN, BOUNDED_INSIDE, BOUNDED_MISCLASSIFIED)
#: Opacity of the shaded decision regions.
REGION_ALPHA = 0.25


def class_color(k):
    """The colour of the ``k``-th class."""
    return CLASS_COLORS[k % len(CLASS_COLORS)]


def class_marker(k):
    """The marker of the ``k``-th class."""
    return CLASS_MARKERS[k % len(CLASS_MARKERS)]


def pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError("svmkit.plotting needs matplotlib: pip install 'svmkit[plot]'.") from error
    return plt


def figure_and_axes(ax):
    if ax is None:
        return pyplot().subplots(layout="constrained")
    return ax.figure, ax


def feature_names(model, X):
    """The names of the columns: a DataFrame's, the model's ``feature_names_in_``, else x1, x2, ..."""
    columns = getattr(X, "columns", None)
    if columns is not None:
        return [str(name) for name in columns]
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        return [str(name) for name in names]
    return [f"$x_{j + 1}$" for j in range(np.shape(X)[1])]


def as_matrix(X):
    """Dense float64 rows of ``X`` (a DataFrame, a sparse matrix or an array)."""
    X = X.toarray() if hasattr(X, "toarray") else X
    return np.asarray(X, dtype=np.float64)


def grid_input(model, points, names):
    """The grid's rows as the model was fitted on them: a DataFrame with the model's feature
    names, else an array."""
    if getattr(model, "feature_names_in_", None) is None:
        return points
    import pandas as pd

    return pd.DataFrame(points, columns=list(model.feature_names_in_))


def padded_range(values, resolution):
    """``resolution`` points over the values, 10% wider on each side."""
    low, high = float(values.min()), float(values.max())
    pad = 0.1 * (high - low) if high > low else 1.0
    return np.linspace(low - pad, high + pad, resolution)


def class_index(model, y):
    """The position of each label of ``y`` in ``model.classes_`` (ValueError for an unknown label)."""
    y = np.asarray(y)
    classes = model.classes_
    position = np.searchsorted(classes, y)
    position = np.clip(position, 0, classes.shape[0] - 1)
    unknown = classes[position] != y
    if np.any(unknown):
        raise ValueError(f"y holds labels the model does not know: {np.unique(y[unknown]).tolist()}; "
                         f"its classes are {classes.tolist()}.")
    return position


def scatter_classes(ax, model, X, y, vertical=None, size=36):
    """One scatter per class (its colour and marker); ``vertical`` places 1-D data on a line."""
    index = class_index(model, y)
    points = {}
    for k, label in enumerate(model.classes_.tolist()):
        rows = index == k
        if rows.any():
            second = X[rows, 1] if vertical is None else np.full(rows.sum(), vertical)
            points[label] = ax.scatter(X[rows, 0], second, c=class_color(k), marker=class_marker(k), s=size,
                                       edgecolors="white", linewidths=0.6, label=f"class {label}", zorder=3)
    return points
