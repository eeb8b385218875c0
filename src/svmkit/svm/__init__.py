"""Kernel support vector machines on one shared dual solver."""

from ._binary import BinaryModel, KKTReport
from ._nu_svc import DegenerateNuWarning, NuBinaryModel, NuSVC
from ._one_class import OneClassSVM
from ._separability import NotSeparableError
from ._svc import SVC
from ._svr import SVR, NuSVR

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
