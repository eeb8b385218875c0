"""svmkit: support vector machines, kernel methods and naive Bayes.

Fast solvers that show their theory: multipliers, slacks, KKT status,
margin and duality gap are attributes of every fitted model.
"""

from . import io, kernels
from ._solver import SolverProgress
from .naive_bayes import CategoricalNB, Explanation, GaussianNB, MixedNB
from .svm import SVC, BinaryModel, KKTReport, NotSeparableError

__version__ = "0.1.0"

__all__ = [
    "SVC",
    "BinaryModel",
    "KKTReport",
    "NotSeparableError",
    "SolverProgress",
    "GaussianNB",
    "CategoricalNB",
    "MixedNB",
    "Explanation",
    "kernels",
    "io",
]
