"""Figures that teach: decision regions with the SVM's margins and support vectors,
probability surfaces, the grid-search heatmap and the class-conditional densities of
naive Bayes.

matplotlib is an optional dependency (``pip install 'svmkit[plot]'``); it is imported
when a function is called. Every function draws on ``ax`` when one is given (else on a
new figure) and returns the figure, the axes and the artists it drew, so that they can
be restyled or checked. Classes are told apart by colour (Okabe and Ito's colour-blind-safe
palette, :data:`CLASS_COLORS`) and marker; the KKT category of a support vector by the
colour and line style of its ring (:data:`RING_STYLES`).
"""

from ._boundary import DecisionBoundaryPlot, plot_decision_boundary
from ._densities import ClassDensityPlot, plot_class_densities
from ._grid import GridSearchPlot, plot_grid_search
from ._probability import ProbabilityPlot, plot_probability
from ._style import CLASS_COLORS, CLASS_MARKERS, RING_STYLES

__all__ = [
    "CLASS_COLORS",
    "CLASS_MARKERS",
    "RING_STYLES",
    "DecisionBoundaryPlot",
    "GridSearchPlot",
    "ClassDensityPlot",
    "ProbabilityPlot",
    "plot_decision_boundary",
    "plot_grid_search",
    "plot_class_densities",
    "plot_probability",
]
