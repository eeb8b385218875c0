"""Kernel functions as objects that compute whole blocks ``K(A, B)``.

Every kernel maps two matrices (dense ``ndarray`` or SciPy CSR, one sample per
row) to the dense block of kernel values, so that solvers ask for many kernel
rows at once and the arithmetic runs in BLAS. Kernels combine with the usual
operators into new kernels that are again valid (Mercer) kernels:

* ``k1 + k2``, ``k1 * k2``, ``c * k`` (c > 0), ``k ** d`` (integer d >= 1),
  :meth:`Kernel.exp`, :class:`KernelPolynomial` (non-negative coefficients),
  :meth:`Kernel.normalized` (``k(x, y) / sqrt(k(x, x) k(y, y))``),
  :class:`FeatureScaledKernel` (``f(x) k(x, y) f(y)``),
  :class:`QuadraticFormKernel` (``x'Ay`` with ``A`` positive semi-definite),
  :class:`ColumnSubsetKernel` (a kernel on some of the columns).

:func:`check_mercer` tells whether the Gram matrix of a sample is positive
semi-definite and reports its smallest eigenvalue.

Examples
--------
>>> import numpy as np
>>> from svmkit.kernels import RBFKernel, LinearKernel
>>> X = np.array([[0.0, 0.0], [1.0, 0.0]])
>>> RBFKernel(sigma=1.0)(X, X).round(4)
array([[1.    , 0.6065],
       [0.6065, 1.    ]])
>>> k = 2 * LinearKernel() + RBFKernel(gamma=0.5)
>>> k(X, X).round(4)
array([[1.    , 0.6065],
       [0.6065, 3.    ]])
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from ._core.kernels import LINEAR, POLYNOMIAL, RBF, SIGMOID, apply_kernel
from ._first_use import notice_compilation
from ._parallel import in_equal_parts

__all__ = [
    "Kernel",
    "LinearKernel",
    "PolynomialKernel",
    "RBFKernel",
    "SigmoidKernel",
    "CallableKernel",
    "SumKernel",
    "ProductKernel",
    "ScaledKernel",
    "PowerKernel",
    "ExpKernel",
    "KernelPolynomial",
    "NormalizedKernel",
    "FeatureScaledKernel",
    "QuadraticFormKernel",
    "ColumnSubsetKernel",
    "MercerCheck",
    "check_mercer",
    "make_kernel",
    "resolve_gamma",
    "KERNEL_NAMES",
]

#: Kernel names accepted wherever scikit-learn accepts a kernel string.
KERNEL_NAMES = ("linear", "poly", "rbf", "sigmoid", "precomputed")

_DIAG_CHUNK = 256


def _result_dtype(A, B):
    both_single = A.dtype == np.float32 and B.dtype == np.float32
    return np.float32 if both_single else np.float64


def _dot_block(A, B):
    """Dense ``A @ B.T`` for dense or CSR operands, in float32 where both are float32."""
    dtype = _result_dtype(A, B)
    if sp.issparse(A) and sp.issparse(B):
        products = (A @ B.T).toarray()
    elif sp.issparse(A):
        products = np.asarray(A @ B.T)
    elif sp.issparse(B):
        products = np.asarray(B @ A.T).T
    else:
        # (NumPy computes ``A @ A.T`` of one buffer by BLAS's syrk and then copies one triangle
        # into the other, column by column: a copy of B, n d values, makes it a plain product)
        products = A @ (B.copy() if np.may_share_memory(A, B) else B).T
    return np.ascontiguousarray(products, dtype=dtype)


def row_sq_norms(A):
    """Squared Euclidean norm of every row of a dense or CSR matrix."""
    if sp.issparse(A):
        return np.asarray(A.multiply(A).sum(axis=1)).ravel().astype(A.dtype, copy=False)
    return np.einsum("ij,ij->i", A, A)


def _check_positive(name, value, allow_zero=False):
    if not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite real number, got {value!r}.")
    if value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be {bound}, got {value!r}.")


class Kernel:
    """Base class: a symmetric function ``k(x, y)`` evaluated on blocks.

    Subclasses implement :meth:`__call__` (the block ``K(A, B)``) and may
    override :meth:`diag` (``k(x, x)`` for every row of ``A``) when it is
    cheaper than the diagonal of the block. A kernel whose values compiled code
    can compute declares it with :meth:`compiled_form`; the solver then computes
    its rows without calling :meth:`__call__`.
    """

    #: Whether the kernel is positive semi-definite for every input.
    is_mercer = True

    def __call__(self, A, B):
        raise NotImplementedError

    def compiled_form(self):
        """``(code, gamma, coef0, degree)`` of the compiled kernel (:mod:`svmkit._core.kernels`)
        whose values equal this kernel's, or None (the default): the solver and predictions
        then call :meth:`__call__` on blocks."""
        return None

    def diag(self, A):
        """Return ``k(x_i, x_i)`` for every row ``x_i`` of ``A``."""
        n = A.shape[0]
        out = np.empty(n, dtype=np.float64)
        for start in range(0, n, _DIAG_CHUNK):
            block = A[start : start + _DIAG_CHUNK]
            out[start : start + _DIAG_CHUNK] = np.diagonal(self(block, block))
        return out

    # -- algebra ---------------------------------------------------------
    def __add__(self, other):
        if not isinstance(other, Kernel):
            return NotImplemented
        return SumKernel(self, other)

    def __mul__(self, other):
        if isinstance(other, Kernel):
            return ProductKernel(self, other)
        if isinstance(other, numbers.Real):
            return ScaledKernel(other, self)
        return NotImplemented

    __rmul__ = __mul__

    def __pow__(self, degree):
        return PowerKernel(self, degree)

    def exp(self):
        """The kernel ``exp(k(x, y))``."""
        return ExpKernel(self)

    def normalized(self):
        """The kernel ``k(x, y) / sqrt(k(x, x) k(y, y))``."""
        return NormalizedKernel(self)

    def on_columns(self, columns):
        """This kernel applied to the given columns of the data only."""
        return ColumnSubsetKernel(self, columns)

    def check_mercer(self, X, tol=1e-8):
        """Check that the Gram matrix of ``X`` is positive semi-definite.

        See :func:`check_mercer`.
        """
        return check_mercer(self, X, tol=tol)

    def __repr__(self):
        params = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({params})"

    def __eq__(self, other):
        return type(self) is type(other) and _params_equal(vars(self), vars(other))

    __hash__ = None


def _params_equal(a, b):
    if a.keys() != b.keys():
        return False
    for key in a:
        x, y = a[key], b[key]
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if not np.array_equal(np.asarray(x), np.asarray(y)):
                return False
        elif x != y:
            return False
    return True


class _CompiledKernel(Kernel):
    """A built-in kernel: a function of ``x'y`` (and, for RBF, the squared norms) that
    compiled code computes (:func:`svmkit._core.kernels.apply_kernel`); blocks are BLAS
    products followed by that function, so a value is the same in the solver's rows, in
    these blocks and in predictions.

    A subclass keeps the compiled form (and the solver's compiled rows) unless it
    overrides :meth:`__call__`; one that overrides it and still computes the same values
    says so by overriding :meth:`compiled_form`.
    """

    _code = None

    def compiled_form(self):
        if type(self).__call__ is not _CompiledKernel.__call__:
            return None
        return (self._code, float(getattr(self, "gamma", 1.0)), float(getattr(self, "coef0", 0.0)),
                float(getattr(self, "degree", 1)))

    def __call__(self, A, B):
        return self.from_products(_dot_block(A, B), _norms_if(self._code, A), _norms_if(self._code, B))

    def from_products(self, products, A_sq_norms=None, B_sq_norms=None):
        """The block ``K(A, B)`` from the dot products ``A B'`` (overwritten where it is a
        C-ordered float array) and, for RBF, the squared norms of the rows of ``A`` and ``B``."""
        code, gamma, coef0, degree = self._code, getattr(self, "gamma", 1.0), getattr(self, "coef0", 0.0), \
            float(getattr(self, "degree", 1))
        K = products
        if K.dtype not in (np.float32, np.float64) or not (K.flags.c_contiguous or K.flags.f_contiguous):
            K = np.ascontiguousarray(K, dtype=np.float64)
        no_norms = np.empty(0, dtype=K.dtype)
        row_norms = no_norms if A_sq_norms is None else np.asarray(A_sq_norms).astype(K.dtype, copy=False)
        col_norms = no_norms if B_sq_norms is None else np.asarray(B_sq_norms).astype(K.dtype, copy=False)
        notice_compilation(apply_kernel)
        if K.flags.c_contiguous:
            apply_kernel_on_cores(K, row_norms, col_norms, (code, gamma, coef0, degree))
        else:  # (F-ordered: the transpose of a product of sparse rows, in place)
            apply_kernel_on_cores(K.T, col_norms, row_norms, (code, gamma, coef0, degree))
        return K

    def diag(self, A):
        if self._code == RBF:
            return np.ones(A.shape[0])
        return self.from_products(row_sq_norms(A).astype(np.float64)[:, np.newaxis].copy())[:, 0]


def apply_kernel_on_cores(products, row_norms, col_norms, form):
    """:func:`svmkit._core.kernels.apply_kernel` of the compiled ``form`` (code, gamma, coef0,
    degree) on a C-ordered block, its rows shared out over the cores where the block is large
    (the compiled loop releases the GIL; each value is computed as on one core).

    Examples
    --------
    >>> import numpy as np
    >>> block = np.array([[1.0, 0.0]])  # (dot products of [1, 0] with [1, 0] and [0, 1])
    >>> apply_kernel_on_cores(block, np.array([1.0]), np.array([1.0, 1.0]), (RBF, 0.5, 0.0, 3.0))
    >>> block.round(4)
    array([[1.    , 0.3679]])
    """
    # (empty norms, of kernels other than RBF, stay empty)
    in_equal_parts(lambda first, last: apply_kernel(products[first:last], row_norms[first:last], col_norms, *form),
                   products.shape[0], products.size)


def _norms_if(code, A):
    """The squared norms of ``A``'s rows where the kernel needs them (RBF)."""
    return row_sq_norms(A) if code == RBF else None


class LinearKernel(_CompiledKernel):
    """``k(x, y) = x'y``.

    Examples
    --------
    >>> import numpy as np
    >>> LinearKernel()(np.array([[1.0, 2.0]]), np.array([[3.0, 4.0]]))
    array([[11.]])
    """

    _code = LINEAR


class PolynomialKernel(_CompiledKernel):
    """``k(x, y) = (gamma x'y + coef0) ** degree``.

    Parameters
    ----------
    degree : int >= 1
    gamma : float > 0
    coef0 : float

    Examples
    --------
    >>> import numpy as np
    >>> PolynomialKernel(degree=2, gamma=0.5, coef0=1.0)(np.array([[2.0]]), np.array([[1.0], [-1.0]]))
    array([[4., 0.]])
    """

    _code = POLYNOMIAL

    def __init__(self, degree=3, gamma=1.0, coef0=0.0):
        if not isinstance(degree, numbers.Integral) or degree < 1:
            raise ValueError(f"degree must be an integer >= 1, got {degree!r}.")
        _check_positive("gamma", gamma)
        if not isinstance(coef0, numbers.Real) or not np.isfinite(coef0):
            raise ValueError(f"coef0 must be a finite real number, got {coef0!r}.")
        self.degree = int(degree)
        self.gamma = float(gamma)
        self.coef0 = float(coef0)


class RBFKernel(_CompiledKernel):
    """``k(x, y) = exp(-gamma ||x - y||^2)``, also written with ``sigma``.

    Give either ``gamma`` or ``sigma``; ``gamma = 1 / (2 sigma^2)``.

    Examples
    --------
    >>> RBFKernel(sigma=2.0).gamma
    0.125
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0]])
    >>> RBFKernel(gamma=0.5)(X, X).round(4)
    array([[1.    , 0.6065],
           [0.6065, 1.    ]])
    """

    _code = RBF

    def __init__(self, gamma=None, sigma=None):
        if (gamma is None) == (sigma is None):
            raise ValueError("Give exactly one of gamma or sigma for the RBF kernel.")
        if sigma is not None:
            _check_positive("sigma", sigma)
            gamma = 1.0 / (2.0 * float(sigma) ** 2)
        _check_positive("gamma", gamma)
        self.gamma = float(gamma)

    @property
    def sigma(self):
        """The width ``sqrt(1 / (2 gamma))``."""
        return float(np.sqrt(0.5 / self.gamma))


class SigmoidKernel(_CompiledKernel):
    """``k(x, y) = tanh(gamma x'y + coef0)``.

    This kernel is **not positive semi-definite in general** (it is not a
    Mercer kernel for most ``gamma, coef0``): the dual problem may then be
    non-convex, and solvers return a stationary point. It is kept because it
    links SVMs with two-layer neural networks and LIBSVM offers it.
    """

    is_mercer = False
    _code = SIGMOID

    def __init__(self, gamma=1.0, coef0=0.0):
        _check_positive("gamma", gamma)
        if not isinstance(coef0, numbers.Real) or not np.isfinite(coef0):
            raise ValueError(f"coef0 must be a finite real number, got {coef0!r}.")
        self.gamma = float(gamma)
        self.coef0 = float(coef0)


class CallableKernel(Kernel):
    """A user function ``func(A, B) -> ndarray`` of shape ``(len(A), len(B))``.

    The function receives two matrices, never single pairs. Its result is
    checked for shape and finiteness. Whether it is a Mercer kernel is the
    user's claim (``is_mercer``); :func:`check_mercer` tests it on data.
    """

    def __init__(self, func, is_mercer=True):
        if not callable(func):
            raise TypeError(f"CallableKernel needs a callable, got {type(func).__name__}.")
        self.func = func
        self.is_mercer = bool(is_mercer)

    def __call__(self, A, B):
        K = np.asarray(self.func(A, B))
        expected = (A.shape[0], B.shape[0])
        if K.shape != expected:
            raise ValueError(
                f"The kernel function returned a block of shape {K.shape}; expected {expected} "
                "(one row per sample of the first argument, one column per sample of the second)."
            )
        if not np.all(np.isfinite(K)):
            raise ValueError("The kernel function returned NaN or infinite values.")
        if K.dtype not in (np.float32, np.float64):
            K = K.astype(np.float64)
        return K


class SumKernel(Kernel):
    """``k1(x, y) + k2(x, y)``."""

    def __init__(self, k1, k2):
        self.k1, self.k2 = k1, k2
        self.is_mercer = k1.is_mercer and k2.is_mercer

    def __call__(self, A, B):
        return self.k1(A, B) + self.k2(A, B)

    def diag(self, A):
        return self.k1.diag(A) + self.k2.diag(A)


class ProductKernel(Kernel):
    """``k1(x, y) * k2(x, y)`` (Schur product theorem keeps it PSD)."""

    def __init__(self, k1, k2):
        self.k1, self.k2 = k1, k2
        self.is_mercer = k1.is_mercer and k2.is_mercer

    def __call__(self, A, B):
        return self.k1(A, B) * self.k2(A, B)

    def diag(self, A):
        return self.k1.diag(A) * self.k2.diag(A)


class ScaledKernel(Kernel):
    """``c * k(x, y)`` with ``c > 0``."""

    def __init__(self, c, kernel):
        _check_positive("The scale factor of a kernel", c)
        self.c = float(c)
        self.kernel = kernel
        self.is_mercer = kernel.is_mercer

    def __call__(self, A, B):
        return self.c * self.kernel(A, B)

    def diag(self, A):
        return self.c * self.kernel.diag(A)


class PowerKernel(Kernel):
    """``k(x, y) ** degree`` for an integer ``degree >= 1``."""

    def __init__(self, kernel, degree):
        if not isinstance(degree, numbers.Integral) or degree < 1:
            raise ValueError(f"A kernel power needs an integer degree >= 1, got {degree!r}.")
        self.kernel = kernel
        self.degree = int(degree)
        self.is_mercer = kernel.is_mercer

    def __call__(self, A, B):
        return self.kernel(A, B) ** self.degree

    def diag(self, A):
        return self.kernel.diag(A) ** self.degree


class ExpKernel(Kernel):
    """``exp(k(x, y))`` (a limit of polynomials with positive coefficients)."""

    def __init__(self, kernel):
        self.kernel = kernel
        self.is_mercer = kernel.is_mercer

    def __call__(self, A, B):
        return np.exp(self.kernel(A, B))

    def diag(self, A):
        return np.exp(self.kernel.diag(A))


class KernelPolynomial(Kernel):
    """``sum_i coefficients[i] * k(x, y) ** i`` with non-negative coefficients.

    Examples
    --------
    >>> import numpy as np
    >>> k = KernelPolynomial(LinearKernel(), [1.0, 2.0, 1.0])   # (x'y + 1)^2
    >>> float(k(np.array([[1.0, 2.0]]), np.array([[3.0, 1.0]]))[0, 0])
    36.0
    """

    def __init__(self, kernel, coefficients):
        coefficients = np.asarray(coefficients, dtype=np.float64)
        if coefficients.ndim != 1 or coefficients.size == 0:
            raise ValueError("coefficients must be a non-empty 1-D sequence.")
        if np.any(coefficients < 0) or not np.all(np.isfinite(coefficients)):
            raise ValueError("A polynomial of a kernel needs finite, non-negative coefficients.")
        self.kernel = kernel
        self.coefficients = coefficients
        self.is_mercer = kernel.is_mercer

    def _evaluate(self, K):
        out = np.full_like(K, self.coefficients[-1])
        for c in self.coefficients[-2::-1]:  # Horner's scheme
            out *= K
            out += c
        return out

    def __call__(self, A, B):
        return self._evaluate(self.kernel(A, B))

    def diag(self, A):
        return self._evaluate(self.kernel.diag(A))


class NormalizedKernel(Kernel):
    """``k(x, y) / sqrt(k(x, x) k(y, y))``: every sample gets unit norm."""

    def __init__(self, kernel):
        self.kernel = kernel
        self.is_mercer = kernel.is_mercer

    def __call__(self, A, B):
        da, db = self.kernel.diag(A), self.kernel.diag(B)
        if np.any(da <= 0) or np.any(db <= 0):
            raise ValueError("Cannot normalise a kernel where k(x, x) <= 0 (for example x = 0).")
        K = self.kernel(A, B)
        return K / np.sqrt(np.outer(da, db)).astype(K.dtype, copy=False)

    def diag(self, A):
        return np.ones(A.shape[0])


class FeatureScaledKernel(Kernel):
    """``f(x) k(x, y) f(y)`` for a function ``f`` of the rows.

    ``f`` takes a matrix and returns one real number per row.
    """

    def __init__(self, func, kernel):
        if not callable(func):
            raise TypeError("FeatureScaledKernel needs a callable f(X) -> one value per row.")
        self.func = func
        self.kernel = kernel
        self.is_mercer = kernel.is_mercer

    def _weights(self, A):
        w = np.asarray(self.func(A), dtype=np.float64).ravel()
        if w.shape[0] != A.shape[0]:
            raise ValueError(f"f returned {w.shape[0]} values for {A.shape[0]} rows.")
        return w

    def __call__(self, A, B):
        K = self.kernel(A, B)
        wa, wb = self._weights(A), self._weights(B)
        return K * np.outer(wa, wb).astype(K.dtype, copy=False)

    def diag(self, A):
        return self._weights(A) ** 2 * self.kernel.diag(A)


class QuadraticFormKernel(Kernel):
    """``k(x, y) = x' A y`` for a symmetric positive semi-definite matrix ``A``.

    Raises ``ValueError`` when ``A`` is not symmetric or has a negative
    eigenvalue (beyond a relative tolerance of 1e-10).
    """

    def __init__(self, matrix):
        matrix = np.asarray(matrix, dtype=np.float64)
        if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
            raise ValueError(f"The matrix of x'Ay must be square, got shape {matrix.shape}.")
        if not np.allclose(matrix, matrix.T, rtol=1e-10, atol=1e-12):
            raise ValueError("The matrix of x'Ay must be symmetric.")
        eigenvalues = scipy.linalg.eigvalsh(matrix)
        scale = max(1.0, float(np.abs(eigenvalues).max()))
        if eigenvalues[0] < -1e-10 * scale:
            raise ValueError(
                f"The matrix of x'Ay is not positive semi-definite: smallest eigenvalue {eigenvalues[0]:.3g}."
            )
        self.matrix = matrix

    def __call__(self, A, B):
        AM = np.asarray(A @ self.matrix) if sp.issparse(A) else A @ self.matrix
        return _dot_block(AM, B)

    def diag(self, A):
        AM = np.asarray(A @ self.matrix) if sp.issparse(A) else A @ self.matrix
        if sp.issparse(A):
            return np.asarray(A.multiply(AM).sum(axis=1)).ravel()
        return np.einsum("ij,ij->i", AM, A)


class ColumnSubsetKernel(Kernel):
    """A kernel evaluated on a subset of the columns.

    Combine several with ``+`` or ``*`` to build kernels for data whose
    column groups need different kernels.

    Examples
    --------
    >>> import numpy as np
    >>> k = ColumnSubsetKernel(LinearKernel(), [0]) + ColumnSubsetKernel(RBFKernel(gamma=1.0), [1])
    >>> X = np.array([[1.0, 0.0], [2.0, 1.0]])
    >>> k(X, X).round(4)
    array([[2.    , 2.3679],
           [2.3679, 5.    ]])
    """

    def __init__(self, kernel, columns):
        columns = np.asarray(columns)
        if columns.ndim != 1 or columns.size == 0:
            raise ValueError("columns must be a non-empty 1-D list of column indices.")
        if columns.dtype == bool:
            columns = np.flatnonzero(columns)
        if not np.issubdtype(columns.dtype, np.integer) or np.any(columns < 0):
            raise ValueError("columns must hold non-negative integer column indices.")
        self.kernel = kernel
        self.columns = columns
        self.is_mercer = kernel.is_mercer

    def _select(self, A):
        if self.columns.max() >= A.shape[1]:
            raise ValueError(
                f"The kernel uses column {int(self.columns.max())} but the data have {A.shape[1]} columns."
            )
        return A[:, self.columns]

    def __call__(self, A, B):
        return self.kernel(self._select(A), self._select(B))

    def diag(self, A):
        return self.kernel.diag(self._select(A))


@dataclass(frozen=True)
class MercerCheck:
    """Result of :func:`check_mercer`.

    Attributes
    ----------
    is_psd : bool
        Whether the smallest eigenvalue is above ``-tolerance``.
    min_eigenvalue : float
        The smallest eigenvalue of the symmetrised Gram matrix.
    tolerance : float
        The absolute tolerance used: ``tol`` times the largest absolute eigenvalue.
    """

    is_psd: bool
    min_eigenvalue: float
    tolerance: float

    def __bool__(self):
        return self.is_psd


def check_mercer(kernel, X, tol=1e-8):
    """Test whether the Gram matrix ``K(X, X)`` is positive semi-definite.

    Parameters
    ----------
    kernel : Kernel or callable
        The kernel to test (a callable is wrapped in :class:`CallableKernel`).
    X : array-like or CSR matrix of shape (n_samples, n_features)
        The sample. Keep it to a few thousand rows: the test forms the full
        Gram matrix and its eigenvalues.
    tol : float
        Relative tolerance: eigenvalues above ``-tol * max |eigenvalue|`` count
        as non-negative (round-off).

    Returns
    -------
    MercerCheck

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> check_mercer(RBFKernel(gamma=1.0), X).is_psd
    True
    >>> check_mercer(SigmoidKernel(gamma=1.0, coef0=-1.0), X).is_psd
    False
    """
    if not isinstance(kernel, Kernel):
        kernel = CallableKernel(kernel)
    if not sp.issparse(X):
        X = np.asarray(X, dtype=np.float64)
    K = np.asarray(kernel(X, X), dtype=np.float64)
    K = 0.5 * (K + K.T)
    eigenvalues = scipy.linalg.eigvalsh(K)
    tolerance = tol * max(float(np.abs(eigenvalues).max()), np.finfo(float).tiny)
    smallest = float(eigenvalues[0])
    return MercerCheck(is_psd=smallest >= -tolerance, min_eigenvalue=smallest, tolerance=tolerance)


def _variance(X):
    """``X.var()`` of a dense float32 or float64 array, with NumPy's sums in NumPy's order (the
    same bits), without its generic machinery.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(12.0).reshape(4, 3) ** 1.5
    >>> bool(_variance(X) == X.var())
    True
    """
    deviations = X - X.sum() / X.size
    np.multiply(deviations, deviations, out=deviations)
    return deviations.sum() / X.size


def resolve_gamma(gamma, X):
    """The number behind scikit-learn's ``gamma``: ``'scale'`` is
    ``1 / (n_features * X.var())`` (1.0 when the variance is 0), ``'auto'`` is
    ``1 / n_features``, and a positive number is returned as it is.

    Examples
    --------
    >>> import numpy as np
    >>> resolve_gamma("auto", np.zeros((3, 4)))
    0.25
    """
    n_features = X.shape[1]
    if isinstance(gamma, str):
        if gamma == "auto":
            return 1.0 / n_features
        if gamma == "scale":
            if sp.issparse(X):
                variance = X.multiply(X).mean() - X.mean() ** 2
            else:
                variance = _variance(X) if X.dtype in (np.float32, np.float64) else X.var()
            if not np.isfinite(variance):
                raise ValueError(
                    "gamma='scale' is 1 / (n_features * X.var()), and the variance of X overflows float64: "
                    "scale the data or give gamma a number."
                )
            return 1.0 / (n_features * variance) if variance != 0 else 1.0
        raise ValueError(f"gamma must be 'scale', 'auto' or a positive number, got {gamma!r}.")
    if not isinstance(gamma, numbers.Real) or isinstance(gamma, bool) or not np.isfinite(gamma) or gamma <= 0:
        raise ValueError(f"gamma must be 'scale', 'auto' or a positive number, got {gamma!r}.")
    return float(gamma)


def make_kernel(kernel, *, degree=3, gamma=1.0, coef0=0.0):
    """Turn a scikit-learn style kernel specification into a :class:`Kernel`.

    Parameters
    ----------
    kernel : {'linear', 'poly', 'rbf', 'sigmoid'}, Kernel or callable
        A name, a kernel object (returned as is) or a function of two matrices.
    degree, gamma, coef0 :
        Parameters of the named kernels (``gamma`` already a number).

    Returns
    -------
    Kernel

    Examples
    --------
    >>> make_kernel("poly", degree=2, gamma=1.0, coef0=1.0)
    PolynomialKernel(degree=2, gamma=1.0, coef0=1.0)
    """
    if isinstance(kernel, Kernel):
        return kernel
    if callable(kernel):
        return CallableKernel(kernel)
    if kernel == "linear":
        return LinearKernel()
    if kernel == "poly":
        return PolynomialKernel(degree=degree, gamma=gamma, coef0=coef0)
    if kernel == "rbf":
        return RBFKernel(gamma=gamma)
    if kernel == "sigmoid":
        return SigmoidKernel(gamma=gamma, coef0=coef0)
    raise ValueError(
        f"Unknown kernel {kernel!r}: use one of {KERNEL_NAMES}, a svmkit.kernels.Kernel or a callable."
    )
