"""Kernel support vector machines on one shared dual solver.

Each name is imported when first asked for (PEP 562), so that ``svmkit train -s 3`` loads
the regressors and not the classifiers.
"""

import importlib

_HOMES = {
    "._binary": ["BinaryModel", "KKTReport"],
    "._nu_svc": ["DegenerateNuWarning", "NuBinaryModel", "NuSVC"],
    "._one_class": ["OneClassSVM"],
    "._separability": ["NotSeparableError"],
    "._svc": ["SVC"],
    "._svr": ["SVR", "NuSVR"],
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

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


def __getattr__(name):
    if name not in _HOME_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOME_OF[name], __name__), name)
    globals()[name] = value  # (asked for once)
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
