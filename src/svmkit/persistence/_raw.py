"""Values between the metadata and the checks: what a file gives, before anything is built.

Decoding a file's metadata (of either version) gives these values; the checks of the
fields and the building of estimators and kernels take them. Nothing here is instantiated
from a name in the file.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class _RawCSR(NamedTuple):
    """A CSR matrix as the file gives it, not yet checked."""

    format: str
    shape: object
    data: object
    indices: object
    indptr: object


class _RawRandomState(NamedTuple):
    """A ``numpy.random.RandomState`` as the file gives it (Mersenne Twister state)."""

    keys: object
    pos: object
    has_gauss: object
    cached_gaussian: object


class _RawKernel(NamedTuple):
    """A kernel as the file gives it: its class name and constructor arguments."""

    name: str
    params: dict


class _RawEstimator(NamedTuple):
    """An estimator as the file gives it: its class name, parameters and fields, and (from a
    version-1 file) private values to compare with those rebuilt."""

    name: str
    params: dict
    fields: dict
    private: dict


class _V1Object(NamedTuple):
    """An object of a version-1 file (``object`` or ``namedtuple``): its class path and its
    attributes (a dict) or items (a list). Never instantiated from the path."""

    path: str
    content: object


def _describe(value):
    if isinstance(value, np.ndarray):
        return f"an array of dtype {value.dtype} and shape {value.shape}"
    if isinstance(value, (_RawKernel, _RawEstimator)):
        return f"{type(value).__name__[4:].lower()} {value.name!r}"
    if isinstance(value, _V1Object):
        return f"an object of class {value.path!r}"
    return f"{type(value).__name__} {value!r}"[:120]
