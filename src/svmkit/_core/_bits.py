"""Reinterpret the bits of a float64 as an int64 and back (no conversion), inside compiled loops."""

from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic


@intrinsic
def float_bits(typingctx, value):
    """The IEEE-754 bits of a float64 as an int64."""
    if value != types.float64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return types.int64(types.float64), codegen


@intrinsic
def bits_float(typingctx, bits):
    """The float64 with the given IEEE-754 bits."""
    if bits != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.int64), codegen
