"""Kernel support vector machines on one shared dual solver."""

from ._binary import BinaryModel, KKTReport
from ._separability import NotSeparableError
from ._svc import SVC

__all__ = ["SVC", "BinaryModel", "KKTReport", "NotSeparableError"]
