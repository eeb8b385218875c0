"""svmkit: support vector machines, kernel methods and naive Bayes.

Fast solvers that show their theory: multipliers, slacks, KKT status,
margin and duality gap are attributes of every fitted model.
"""

from ._lazy import lazy_names

# Public submodules and names, each imported when first asked for (PEP 562): ``from svmkit
# import SVC`` loads the SVMs, not model selection, file formats or persistence (less memory
# and a shorter import).
_SUBMODULES = ("io", "kernels", "model_selection", "plotting", "preprocessing")
_HOMES = {
    "._solver": ["SolverProgress"],
    ".linear": ["LinearSVC", "PegasosSVC"],
    ".model_selection": ["SVCGridSearch"],
    ".naive_bayes": ["CategoricalNB", "Explanation", "GaussianNB", "MixedNB"],
    ".perceptron": ["KernelPerceptron", "Perceptron"],
    ".persistence": ["ModelFileError", "load", "save"],
    ".preprocessing": ["LibsvmScaler"],
    ".svm": ["SVC", "SVR", "BinaryModel", "DegenerateNuWarning", "KKTReport", "NotSeparableError", "NuBinaryModel",
             "NuSVC", "NuSVR", "OneClassSVM"],
}


__getattr__, __dir__ = lazy_names(__name__, _HOMES, _SUBMODULES)


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
