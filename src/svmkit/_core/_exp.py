"""The exponential of non-positive numbers in arithmetic that vectorises.

A call to the C library's ``exp`` per value keeps compiled loops from using SIMD
instructions; RBF kernel values are mostly exponentials. ``x = k ln 2 + r`` with
``|r| <= ln(2) / 2``; ``exp(r)`` by its Taylor polynomial in Estrin's scheme, ``2^k``
written straight into a float's exponent bits. The single-precision form computes in float32,
eight values to an AVX2 instruction instead of four.
"""

import math

import numba
import numpy as np
from numba.core import types
from numba.extending import intrinsic

from ._jit import contracting_jit

_LOG2_E = 1.4426950408889634
_LN2_HIGH = 6.93147180369123816490e-01  # ln 2 in two parts (fdlibm): k * _LN2_HIGH is exact
_LN2_LOW = 1.90821492927058770002e-10
_EXP_MIN = -708.0  # exp(x) of smaller x is taken as 0 (below 3.3e-308)
# k = round(x / ln 2) as the float x log2(e) + 1.5 2^52, whose low bits are k: 2^k without a
# float-to-integer conversion, which AVX2 lacks for four float64 at once
_ROUNDING_SHIFT = 6755399441055744.0
_TAYLOR = tuple(1.0 / math.factorial(i) for i in range(14))  # exp(r) to degree 13
# the same in float32: exp(x) of x below -87.33 is taken as 0 (below float32's smallest normal
# 1.18e-38), k in the low bits of x log2(e) + 1.5 2^23, ln 2 split so that k * high is exact
_SINGLE = np.float32
_EXP_MIN_SINGLE = _SINGLE(-87.33)
_LOG2_E_SINGLE = _SINGLE(_LOG2_E)
_ROUNDING_SHIFT_SINGLE = _SINGLE(12582912.0)
_LN2_HIGH_SINGLE = _SINGLE(0.693145751953125)
_LN2_LOW_SINGLE = _SINGLE(1.428606765330187e-06)
_TAYLOR_SINGLE = tuple(_SINGLE(c) for c in _TAYLOR[:8])  # degree 7: 5e-9 at |r| = ln(2) / 2


if numba.config.DISABLE_JIT:
    import struct

    def float_bits(value):
        return struct.unpack("<q", struct.pack("<d", value))[0]

    def bits_float(bits):
        # (the low 64 bits, as an int64 shifted in compiled code keeps them)
        return struct.unpack("<d", struct.pack("<Q", int(bits) & 0xFFFFFFFFFFFFFFFF))[0]

    def single_bits(value):
        return struct.unpack("<i", struct.pack("<f", value))[0]

    def bits_single(bits):
        return np.float32(struct.unpack("<f", struct.pack("<I", int(bits) & 0xFFFFFFFF))[0])
else:
    from llvmlite import ir

    def _bit_cast(source, target, target_ir, doc):
        """An intrinsic that reads the bits of a ``source`` value as a ``target`` one (an int64
        source narrowed to its low 32 bits first for a 32-bit target)."""

        def cast(typingctx, value):
            if value != source:
                return None

            def codegen(context, builder, signature, args):
                bits = args[0]
                if source.bitwidth > target.bitwidth:
                    bits = builder.trunc(bits, ir.IntType(target.bitwidth))
                return builder.bitcast(bits, target_ir)

            return target(source), codegen

        cast.__doc__ = doc
        return intrinsic(cast)

    float_bits = _bit_cast(types.float64, types.int64, ir.IntType(64), "The bits of a float64 as an int64.")
    bits_float = _bit_cast(types.int64, types.float64, ir.DoubleType(), "The float64 of the given bits.")
    single_bits = _bit_cast(types.float32, types.int32, ir.IntType(32), "The bits of a float32 as an int32.")
    bits_single = _bit_cast(types.int64, types.float32, ir.FloatType(), "The float32 of the low 32 given bits.")


@contracting_jit
def _range_reduction(x):
    """``(shifted, r)`` with ``max(x, _EXP_MIN) = k ln 2 + r``, ``|r| <= ln(2) / 2``, ``k`` held
    in the low bits of the float ``shifted``."""
    x = max(x, _EXP_MIN)
    shifted = x * _LOG2_E + _ROUNDING_SHIFT
    k = shifted - _ROUNDING_SHIFT
    return shifted, (x - k * _LN2_HIGH) - k * _LN2_LOW


@contracting_jit
def _power_of_two(shifted):
    """``2^k`` from the bits of ``shifted`` (:func:`_range_reduction`)."""
    return bits_float((float_bits(shifted) + 1023) << 52)


@contracting_jit
def exp_nonpositive(x):
    """``exp(x)`` for ``x <= 0``, within two units in the last place.

    Examples
    --------
    >>> import math
    >>> abs(exp_nonpositive(-1.5) - math.exp(-1.5)) < 1e-15
    True
    >>> exp_nonpositive(-1000.0)
    0.0
    """
    c = _TAYLOR
    shifted, r = _range_reduction(x)
    r2 = r * r
    r4 = r2 * r2
    low = ((c[0] + c[1] * r) + (c[2] + c[3] * r) * r2) + ((c[4] + c[5] * r) + (c[6] + c[7] * r) * r2) * r4
    high = ((c[8] + c[9] * r) + (c[10] + c[11] * r) * r2) + (c[12] + c[13] * r) * r4
    return (low + high * (r4 * r4)) * _power_of_two(shifted) if x >= _EXP_MIN else 0.0


@contracting_jit
def exp_nonpositive_single(x):
    """``exp(x)`` of a float32 ``x <= 0`` in float32 arithmetic, within 1.4 units in float32's
    last place (Taylor degree 7), for values stored as float32.

    Examples
    --------
    >>> import math
    >>> import numpy as np
    >>> bool(abs(exp_nonpositive_single(np.float32(-1.5)) / math.exp(-1.5) - 1) < 2e-7)
    True
    >>> float(exp_nonpositive_single(np.float32(-100.0)))
    0.0
    """
    c = _TAYLOR_SINGLE
    y = x if x > _EXP_MIN_SINGLE else _EXP_MIN_SINGLE
    shifted = y * _LOG2_E_SINGLE + _ROUNDING_SHIFT_SINGLE
    k = shifted - _ROUNDING_SHIFT_SINGLE
    r = (y - k * _LN2_HIGH_SINGLE) - k * _LN2_LOW_SINGLE
    r2 = r * r
    low = (c[0] + c[1] * r) + (c[2] + c[3] * r) * r2
    high = (c[4] + c[5] * r) + (c[6] + c[7] * r) * r2
    # (2^k from the low bits of shifted, as _power_of_two)
    power = bits_single((np.int64(single_bits(shifted)) + 127) << 23)
    return (low + high * (r2 * r2)) * power if x > _EXP_MIN_SINGLE else _SINGLE(0.0)
