"""The heatmap of a (C, gamma) grid search."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ._style import figure_and_axes

#: Most tick labels on an axis; a longer grid labels every second (third, ...) exponent.
MAX_TICKS = 12


@dataclass
class GridSearchPlot:
    """What :func:`plot_grid_search` drew.

    Attributes
    ----------
    figure, ax : matplotlib Figure and Axes
    cells : matplotlib PolyCollection
        One square per evaluated ``(C, gamma)``, coloured by accuracy in percent.
    colorbar : matplotlib Colorbar
    best : matplotlib PathCollection
        The marker on the best point.
    edges : list of str
        The edges of the grid the best point lies on ('smallest C', 'largest C',
        'smallest gamma', 'largest gamma'); empty when it lies inside.
    """

    figure: object
    ax: object
    cells: object
    colorbar: object
    best: object
    edges: list


def plot_grid_search(results, ax=None, cmap="viridis"):
    """Heatmap of the cross-validation accuracy (percent) over ``log2 C`` and ``log2 gamma``.

    Each evaluated point is a cell centred on it, as wide as the spacing of its grid; the
    cells of a finer grid (refinement) lie over the coarse ones. The ticks are the grid's
    exponents, the best point is marked with a star and its accuracy, and a warning says
    when it lies on an edge of the grid (a wider grid may hold a better point).

    Parameters
    ----------
    results : SVCGridSearch, dict or DataFrame
        A fitted :class:`svmkit.model_selection.SVCGridSearch`, or its
        ``cv_results_`` (needs 'log2_C', 'log2_gamma' and 'mean_accuracy' as a
        fraction; 'stage' when the points come from grids of different spacing).
    ax : matplotlib Axes, optional
    cmap : str or Colormap, default='viridis'
        (viridis reads the same to colour-blind readers and in grey.)

    Returns
    -------
    GridSearchPlot

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from svmkit.plotting import plot_grid_search
    >>> results = {"log2_C": [-1, -1, -1, 1, 1, 1, 3, 3, 3], "log2_gamma": [-3, -1, 1] * 3,
    ...            "mean_accuracy": [0.80, 0.82, 0.81, 0.85, 0.90, 0.88, 0.84, 0.86, 0.83]}
    >>> drawn = plot_grid_search(results)
    >>> [tick.get_text() for tick in drawn.ax.get_xticklabels()], drawn.best.get_offsets().tolist()
    (['-1', '1', '3'], [[1.0, -1.0]])
    >>> drawn.colorbar.ax.get_ylabel(), drawn.edges
    ('cross-validation accuracy (%)', [])
    """
    table = getattr(results, "cv_results_", results)
    log2_C = np.asarray(table["log2_C"], dtype=np.float64)
    log2_gamma = np.asarray(table["log2_gamma"], dtype=np.float64)
    percent = 100.0 * np.asarray(table["mean_accuracy"], dtype=np.float64)
    stage = np.asarray(table["stage"]) if "stage" in table else np.zeros(log2_C.shape[0])
    figure, ax = figure_and_axes(ax)
    from matplotlib.collections import PolyCollection

    squares, values = [], []
    stages = list(dict.fromkeys(stage.tolist()))
    for name in stages:  # coarse first, so finer cells lie on top
        rows = np.flatnonzero(stage == name)
        width, height = _spacing(log2_C[rows]) / 2, _spacing(log2_gamma[rows]) / 2
        for c, g in zip(log2_C[rows], log2_gamma[rows]):
            squares.append([(c - width, g - height), (c + width, g - height), (c + width, g + height),
                            (c - width, g + height)])
        values.append(percent[rows])
    cells = PolyCollection(squares, array=np.concatenate(values), cmap=cmap, edgecolors="face")
    ax.add_collection(cells)
    ax.autoscale_view()
    colorbar = figure.colorbar(cells, ax=ax, label="cross-validation accuracy (%)")
    best_row = getattr(results, "best_index_", None)
    if best_row is None:
        best_row = min(range(percent.shape[0]), key=lambda row: (-percent[row], log2_C[row], log2_gamma[row]))
    best_C, best_gamma = log2_C[best_row], log2_gamma[best_row]
    best = ax.scatter([best_C], [best_gamma], marker="*", s=260, c="#D55E00", edgecolors="white", zorder=3,
                      label="best")
    ax.annotate(f"{percent[best_row]:.2f}%", (best_C, best_gamma), xytext=(8, 8), textcoords="offset points",
                color="white", fontweight="bold", fontsize="small")
    coarse = stage == stages[0]
    for axis, exponents in ((ax.xaxis, log2_C[coarse]), (ax.yaxis, log2_gamma[coarse])):
        ticks = np.unique(exponents)
        ticks = ticks[:: int(np.ceil(ticks.shape[0] / MAX_TICKS))]
        axis.set_ticks(ticks, [f"{tick:g}" for tick in ticks])
    ax.set_xlabel("log2 C")
    ax.set_ylabel("log2 gamma")
    ax.set_title(f"best: C = 2^{best_C:g}, gamma = 2^{best_gamma:g}: {percent[best_row]:.2f}% accuracy")
    edges = [name for name, at_edge in (
        ("smallest C", best_C == log2_C.min()), ("largest C", best_C == log2_C.max()),
        ("smallest gamma", best_gamma == log2_gamma.min()), ("largest gamma", best_gamma == log2_gamma.max()),
    ) if at_edge]
    if edges:
        warnings.warn(
            f"The best point (log2 C = {best_C:g}, log2 gamma = {best_gamma:g}) lies on the edge of the grid "
            f"({', '.join(edges)}): a better one may lie beyond it; widen the grid in that direction.",
            UserWarning, stacklevel=2,
        )
    return GridSearchPlot(figure, ax, cells, colorbar, best, edges)


def _spacing(values):
    """The smallest gap between distinct values (1 for a single value)."""
    gaps = np.diff(np.unique(values))
    return float(gaps.min()) if gaps.size else 1.0
