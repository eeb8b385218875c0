"""svmkit: support vector machines, kernel methods and naive Bayes.

Fast solvers that show their theory: multipliers, slacks, KKT status,
margin and duality gap are attributes of every fitted model.
"""

from . import io, kernels, model_selection, plotting, preprocessing
from ._solver import SolverProgress
from .linear import LinearSVC, PegasosSVC
from .model_selection import SVCGridSearch
from .naive_bayes import CategoricalNB, Explanation, GaussianNB, MixedNB
from .perceptron import KernelPerceptron, Perceptron
from .persistence import ModelFileError, load, save
from .preprocessing import LibsvmScaler
from .svm import (
    SVC,
    SVR,
    BinaryModel,
    DegenerateNuWarning,
    KKTReport,
    NotSeparableError,
    NuBinaryModel,
    NuSVC,
    NuSVR,
    OneClassSVM,
)

__version__ = "0.1.0"

__all__ = [
    "SVC",
    "NuSVC",
    "OneClassSVM",
    "SVR",
    "NuSVR",
    "LinearSVC",
    "PegasosSVC",
    "Perceptron",
    "KernelPerceptron",
    "GaussianNB",
    "CategoricalNB",
    "MixedNB",
    "Explanation",
    "BinaryModel",
    "NuBinaryModel",
    "KKTReport",
    "NotSeparableError",
    "DegenerateNuWarning",
    "SolverProgress",
    "SVCGridSearch",
    "LibsvmScaler",
    "ModelFileError",
    "save",
    "load",
    "kernels",
    "io",
    "model_selection",
    "preprocessing",
    "plotting",
]
