"""Kernel support vector machines on one shared dual solver.

Each name is imported when first asked for (PEP 562), so that ``svmkit train -s 3`` loads
the regressors and not the classifiers.
"""

from .._lazy import lazy_names

_HOMES = {
    "._binary": ["BinaryModel", "KKTReport"],
    "._nu_svc": ["DegenerateNuWarning", "NuBinaryModel", "NuSVC"],
    "._one_class": ["OneClassSVM"],
    "._separability": ["NotSeparableError"],
    "._svc": ["SVC"],
    "._svr": ["SVR", "NuSVR"],
}

__all__ = [
    "SVC",
    "NuSVC",
    "OneClassSVM",
    "SVR",
    "NuSVR",
    "BinaryModel",
    "NuBinaryModel",
    "DegenerateNuWarning",
    "KKTReport",
    "NotSeparableError",
]


__getattr__, __dir__ = lazy_names(__name__, _HOMES)
