"""One solver for every SVM dual (DESIGN.md sections 1-3).

* :mod:`svmkit._solver.dual`: the dual problem as data (a batch of duals) and the solution;
* :mod:`svmkit._solver.rows`: row sources, where kernel rows come from;
* :mod:`svmkit._solver.driver`: the plan carried out, the Gram or the blocked strategy.

Formulation adapters (:mod:`svmkit.svm._formulations`) build a
:class:`~svmkit._solver.dual.DualBatch` and read the
:class:`~svmkit._solver.dual.DualSolution` back.
"""

from .driver import SolverProgress, SolverSettings, solve
from .dual import ITERATION_LIMIT, NOT_FINITE, OPTIMAL, STALLED, DualBatch, DualSolution
from .rows import KernelRows, PrecomputedRows

__all__ = [
    "DualBatch", "DualSolution", "KernelRows", "PrecomputedRows", "SolverProgress", "SolverSettings", "solve",
    "OPTIMAL", "ITERATION_LIMIT", "STALLED", "NOT_FINITE",
]
