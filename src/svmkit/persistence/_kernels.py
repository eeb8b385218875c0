"""The kernels of :mod:`svmkit.kernels` that model files hold: their arguments, how they are
built from a file, and how a fitted ``kernel_`` is checked against the ``kernel`` parameter."""

from __future__ import annotations

from .. import kernels as kernel_module
from ._errors import _fail
from ._kinds import _Floats, _Integers, _Int, _Kind, _Real
from ._raw import _describe, _RawKernel

#: Kernel arguments that are kernels themselves.
_KERNEL = object()
#: The kernels of :mod:`svmkit.kernels` that files hold: the arguments of each constructor,
#: read from the attributes of the same names.
_KERNELS = {
    "LinearKernel": {},
    "PolynomialKernel": {"degree": _Int(low=1), "gamma": _Real(), "coef0": _Real()},
    "RBFKernel": {"gamma": _Real()},
    "SigmoidKernel": {"gamma": _Real(), "coef0": _Real()},
    "SumKernel": {"k1": _KERNEL, "k2": _KERNEL},
    "ProductKernel": {"k1": _KERNEL, "k2": _KERNEL},
    "ScaledKernel": {"c": _Real(), "kernel": _KERNEL},
    "PowerKernel": {"kernel": _KERNEL, "degree": _Int(low=1)},
    "ExpKernel": {"kernel": _KERNEL},
    "KernelPolynomial": {"kernel": _KERNEL, "coefficients": _Floats(1)},
    "NormalizedKernel": {"kernel": _KERNEL},
    "QuadraticFormKernel": {"matrix": _Floats(2)},
    "ColumnSubsetKernel": {"kernel": _KERNEL, "columns": _Integers(1, low=0)},
}
#: Kernels that hold a user function, which files cannot.
_FUNCTION_KERNELS = ("CallableKernel", "FeatureScaledKernel")
#: The kernel class of each kernel name of scikit-learn.
_NAMED_KERNELS = {"linear": "LinearKernel", "poly": "PolynomialKernel", "rbf": "RBFKernel", "sigmoid": "SigmoidKernel"}


def _build_kernel(raw, where):
    if not isinstance(raw, _RawKernel):
        _fail(where, f"expected a kernel, got {_describe(raw)}")
    arguments = _KERNELS.get(raw.name)
    if arguments is None:
        _fail(where, f"refusing kernel class {raw.name!r}: files hold the kernels {sorted(_KERNELS)} of svmkit.kernels")
    if set(raw.params) != set(arguments):
        _fail(where, f"{raw.name} takes {sorted(arguments)}, the file gives {sorted(raw.params)}")
    values = {}
    for argument, kind in arguments.items():
        value = raw.params[argument]
        path = f"{where}.{argument}"
        values[argument] = _build_kernel(value, path) if kind is _KERNEL else kind.check(value, path)
    try:
        return getattr(kernel_module, raw.name)(**values)
    except (ValueError, TypeError) as error:
        _fail(where, f"{raw.name}: {error}")


class _KernelKind(_Kind):
    """A kernel of :mod:`svmkit.kernels`; with ``allow_none``, null (kernel='precomputed')."""

    def __init__(self, allow_none):
        self.allow_none = allow_none
        self.description = "kernel (null with kernel='precomputed')" if allow_none else "kernel"

    def check(self, raw, where):
        if raw is None and self.allow_none:
            return None
        return _build_kernel(raw, where)


def _check_fitted_kernel(estimator, kernel, where):
    """``kernel_`` against the ``kernel`` parameter: the object itself for a Kernel parameter
    (which the fit uses as it is), None with 'precomputed', else the named kernel's class."""
    parameter = estimator.kernel
    if isinstance(parameter, kernel_module.Kernel):
        if kernel != parameter:
            _fail(where, "differs from the kernel parameter, which the fit uses as it is")
        return parameter
    if isinstance(parameter, str) and parameter == "precomputed":
        if kernel is not None:
            _fail(where, "must be null with kernel='precomputed'")
        return None
    expected = _NAMED_KERNELS.get(parameter) if isinstance(parameter, str) else None
    if expected is None:
        _fail(where, f"the kernel parameter {parameter!r} is not a kernel name or a kernel")
    if type(kernel).__name__ != expected:
        _fail(where, f"expected a {expected} for kernel={parameter!r}, got {_describe(kernel)}")
    return kernel
