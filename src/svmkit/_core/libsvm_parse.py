"""Byte-level parser of LIBSVM data files (``label idx:val idx:val ...``).

:func:`parse_libsvm` reads the raw bytes of a whole file in one pass, checks
the syntax of every token and fills caller-allocated arrays. Decimal numbers
are converted to the correctly rounded float64 (the same bits as Python's
``float``) by two proven fast paths:

* Clinger's: at most 15 significant digits times or divided by a power of
  ten up to 1e22, both exact, so one IEEE operation rounds correctly;
* Eisel and Lemire's (as in Go's ``strconv`` and ``fast_float``): at most 18
  significant digits times a 128-bit truncated power of ten, which either
  gives the correctly rounded result or says it cannot decide.

Every other number (more digits, a subnormal or overflowing result, an
undecided case) is only validated and its byte range handed back, so that
the caller converts it with Python's ``float``. Errors are reported as a
status code plus the line number and byte range of the offending token.
"""

import math

import numpy as np

from ._jit import internal_jit, jit

from svmkit._core.libsvm_status import (  # noqa: F401 (the status codes of parse_libsvm)
    BAD_FEATURE_TOKEN,
    BAD_INDEX,
    BAD_LABEL,
    BAD_VALUE,
    INDEX_ABOVE_LIMIT,
    INDEX_NOT_ASCENDING,
    INDEX_ZERO,
    LARGEST_INDEX,
    MISSING_LABEL,
    OK,
)

_INVALID = 0
_CONVERTED = 1
_NEEDS_FLOAT = 2

_MAX_CLINGER_DIGITS = 15
_MAX_CLINGER_POWER = 22
_EXACT_POWERS_OF_TEN = np.array([float(10**k) for k in range(_MAX_CLINGER_POWER + 1)])
_MAX_DIGITS = 18  # 10**18 < 2**63: the mantissa fits in int64
_EXPONENT_CAP = 100_000

_MIN_EXP10 = -348
_MAX_EXP10 = 347


def _truncated_powers_of_ten():
    """High and low 64-bit words of 10**e for e in [-348, 347], scaled by a
    power of two into [2**127, 2**128) and rounded down."""
    words = np.empty((2, _MAX_EXP10 - _MIN_EXP10 + 1), dtype=np.uint64)
    for position, exp10 in enumerate(range(_MIN_EXP10, _MAX_EXP10 + 1)):
        if exp10 >= 0:
            power = 10**exp10
            shift = power.bit_length() - 128
            scaled = power >> shift if shift >= 0 else power << -shift
        else:
            divisor = 10**-exp10
            scaled = (1 << (divisor.bit_length() + 127)) // divisor
        words[0, position] = scaled >> 64
        words[1, position] = scaled & (2**64 - 1)
    return words


_POWERS_HIGH, _POWERS_LOW = _truncated_powers_of_ten()

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U3 = np.uint64(3)
_U9 = np.uint64(9)
_U32 = np.uint64(32)
_U53 = np.uint64(53)
_U63 = np.uint64(63)
_LOW_32_BITS = np.uint64(0xFFFFFFFF)
_LOW_9_BITS = np.uint64(0x1FF)
_ALL_ONES = np.uint64(2**64 - 1)

_NEWLINE = 10
_HASH = 35
_COLON = 58
_PLUS = 43
_MINUS = 45
_DOT = 46
_ZERO = 48
_NINE = 57


@internal_jit
def _is_blank(byte):
    # space, tab, vertical tab, form feed, carriage return
    return byte == 32 or byte == 9 or byte == 11 or byte == 12 or byte == 13


@internal_jit
def _is_digit(byte):
    return _ZERO <= byte <= _NINE


@internal_jit
def _token_end(buf, pos):
    n = buf.shape[0]
    while pos < n and not _is_blank(buf[pos]) and buf[pos] != _NEWLINE and buf[pos] != _HASH:
        pos += 1
    return pos


@internal_jit
def _multiply_64x64(a, b):
    """High and low 64-bit words of the 128-bit product of two uint64."""
    a_low = a & _LOW_32_BITS
    a_high = a >> _U32
    b_low = b & _LOW_32_BITS
    b_high = b >> _U32
    low_low = a_low * b_low
    high_low = a_high * b_low
    middle = (low_low >> _U32) + (high_low & _LOW_32_BITS) + a_low * b_high
    high = a_high * b_high + (high_low >> _U32) + (middle >> _U32)
    low = (middle << _U32) | (low_low & _LOW_32_BITS)
    return high, low


@internal_jit
def _leading_zeros(x):
    """Number of leading zero bits of a non-zero uint64."""
    count = 0
    for width in (32, 16, 8, 4, 2, 1):
        if x < (_U1 << np.uint64(64 - width)):
            count += width
            x <<= np.uint64(width)
    return count


@internal_jit
def _eisel_lemire(mantissa, exp10):
    """Return ``(True, mantissa * 10**exp10)`` correctly rounded to a normal
    float64, or ``(False, 0.0)`` when the algorithm cannot decide or the
    result is subnormal or overflows. ``mantissa`` is a non-zero uint64."""
    if exp10 < _MIN_EXP10 or exp10 > _MAX_EXP10:
        return False, 0.0
    zeros = _leading_zeros(mantissa)
    mantissa <<= np.uint64(zeros)
    exp2 = ((217706 * exp10) >> 16) + 64 + 1023 - zeros
    power_high = _POWERS_HIGH[exp10 - _MIN_EXP10]
    high, low = _multiply_64x64(mantissa, power_high)
    if (high & _LOW_9_BITS) == _LOW_9_BITS and low + mantissa < mantissa:
        extra_high, extra_low = _multiply_64x64(mantissa, _POWERS_LOW[exp10 - _MIN_EXP10])
        merged_high = high
        merged_low = low + extra_high
        if merged_low < low:
            merged_high += _U1
        if (merged_high & _LOW_9_BITS) == _LOW_9_BITS and merged_low == _ALL_ONES and extra_low + mantissa < mantissa:
            return False, 0.0
        high = merged_high
        low = merged_low
    top_bit = high >> _U63
    result = high >> (top_bit + _U9)
    if top_bit == _U0:
        exp2 -= 1
    if low == _U0 and (high & _LOW_9_BITS) == _U0 and (result & _U3) == _U1:
        return False, 0.0  # exactly halfway: needs the full decimal
    result += result & _U1
    result >>= _U1
    if (result >> _U53) > _U0:
        result >>= _U1
        exp2 += 1
    if exp2 <= 0 or exp2 >= 0x7FF:
        return False, 0.0
    return True, math.ldexp(float(result), exp2 - 1075)


@internal_jit
def _parse_decimal(buf, start, end):
    """Return ``(kind, value)`` for the number in ``buf[start:end]``.

    The grammar is ``[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?``.
    ``kind`` is ``_INVALID``, ``_CONVERTED`` (``value`` is the correctly
    rounded float64) or ``_NEEDS_FLOAT`` (valid, but not converted here).
    """
    pos = start
    negative = False
    if pos < end and (buf[pos] == _PLUS or buf[pos] == _MINUS):
        negative = buf[pos] == _MINUS
        pos += 1
    mantissa = 0
    significant_digits = 0
    digits = 0
    fraction_digits = 0
    in_fraction = False
    while pos < end:
        byte = int(buf[pos])  # (a Python int without the JIT: no uint8 arithmetic)
        if _is_digit(byte):
            digit = byte - _ZERO
            if significant_digits > 0 or digit != 0:
                significant_digits += 1
                if significant_digits <= _MAX_DIGITS:
                    mantissa = mantissa * 10 + digit
            digits += 1
            if in_fraction:
                fraction_digits += 1
        elif byte == _DOT and not in_fraction:
            in_fraction = True
        else:
            break
        pos += 1
    if digits == 0:
        return _INVALID, 0.0
    exponent = 0
    if pos < end and (buf[pos] == 101 or buf[pos] == 69):  # 'e' or 'E'
        pos += 1
        exponent_negative = False
        if pos < end and (buf[pos] == _PLUS or buf[pos] == _MINUS):
            exponent_negative = buf[pos] == _MINUS
            pos += 1
        exponent_digits = 0
        while pos < end and _is_digit(buf[pos]):
            if exponent < _EXPONENT_CAP:
                exponent = exponent * 10 + (int(buf[pos]) - _ZERO)
            exponent_digits += 1
            pos += 1
        if exponent_digits == 0:
            return _INVALID, 0.0
        if exponent_negative:
            exponent = -exponent
    if pos != end:
        return _INVALID, 0.0
    if significant_digits == 0:
        return _CONVERTED, -0.0 if negative else 0.0
    if significant_digits > _MAX_DIGITS or abs(exponent) >= _EXPONENT_CAP:
        return _NEEDS_FLOAT, 0.0
    scale = exponent - fraction_digits
    if significant_digits <= _MAX_CLINGER_DIGITS and 0 <= scale <= _MAX_CLINGER_POWER:
        value = float(mantissa) * _EXACT_POWERS_OF_TEN[scale]
    elif significant_digits <= _MAX_CLINGER_DIGITS and -_MAX_CLINGER_POWER <= scale < 0:
        value = float(mantissa) / _EXACT_POWERS_OF_TEN[-scale]
    else:
        decided, value = _eisel_lemire(np.uint64(mantissa), scale)
        if not decided:
            return _NEEDS_FLOAT, 0.0
    return _CONVERTED, -value if negative else value


@internal_jit
def _parse_index(buf, start, end):
    """Return the feature index in ``buf[start:end]``, or -1 if it is not
    a plain run of digits at most :data:`LARGEST_INDEX`."""
    if start == end:
        return -1
    index = 0
    for pos in range(start, end):
        if not _is_digit(buf[pos]):
            return -1
        index = index * 10 + (int(buf[pos]) - _ZERO)
        if index > LARGEST_INDEX:
            return -1
    return index


@jit
def parse_libsvm(
    buf,
    first_index,
    max_index,
    labels,
    row_lines,
    indptr,
    columns,
    values,
    deferred_starts,
    deferred_ends,
    deferred_targets,
):
    """Parse the LIBSVM text in ``buf`` (uint8) into CSR arrays.

    Lines that are blank or hold only a comment (from ``#`` to the end of
    the line) are skipped. Feature index ``i`` goes to column
    ``i - first_index``; indices below ``first_index`` or above
    ``max_index`` (when ``max_index >= 0``) are errors.

    Parameters
    ----------
    buf : ndarray of uint8
        The whole file.
    first_index : int
        1 for ordinary files, 0 for precomputed-kernel files.
    max_index : int
        Largest feature index allowed, or -1 for no limit.
    labels, row_lines : ndarray, shape (>= n_rows,)
        Filled with each row's label (float64) and its 1-based line number.
    indptr : ndarray of int64, shape (>= n_rows + 1,)
    columns, values : ndarray, shape (>= n_stored,)
        Column numbers (int32) and values (float64) of the stored entries.
    deferred_starts, deferred_ends, deferred_targets : ndarray of int64
        Byte ranges of the numbers left to the caller to convert, and where
        each goes: ``k >= 0`` is ``values[k]``, ``k < 0`` is
        ``labels[-k - 1]``. Room for ``n_stored + n_rows`` entries suffices.

    Returns
    -------
    status, line, token_start, token_end, n_rows, n_stored, n_deferred : int
        ``status`` is ``OK`` or an error code; on error ``line`` (1-based)
        and ``buf[token_start:token_end]`` locate the offending token.
    """
    n = buf.shape[0]
    pos = 0
    line = 0
    n_rows = 0
    n_stored = 0
    n_deferred = 0
    indptr[0] = 0
    while pos < n:
        line += 1
        while pos < n and _is_blank(buf[pos]):
            pos += 1
        if pos < n and buf[pos] != _NEWLINE and buf[pos] != _HASH:
            end = _token_end(buf, pos)
            for k in range(pos, end):
                if buf[k] == _COLON:
                    return MISSING_LABEL, line, pos, end, n_rows, n_stored, n_deferred
            kind, label = _parse_decimal(buf, pos, end)
            if kind == _INVALID:
                return BAD_LABEL, line, pos, end, n_rows, n_stored, n_deferred
            if kind == _NEEDS_FLOAT:
                deferred_starts[n_deferred] = pos
                deferred_ends[n_deferred] = end
                deferred_targets[n_deferred] = -(n_rows + 1)
                n_deferred += 1
            labels[n_rows] = label
            row_lines[n_rows] = line
            previous_index = -1
            pos = end
            while True:
                while pos < n and _is_blank(buf[pos]):
                    pos += 1
                if pos >= n or buf[pos] == _NEWLINE or buf[pos] == _HASH:
                    break
                end = _token_end(buf, pos)
                colon = pos
                while colon < end and buf[colon] != _COLON:
                    colon += 1
                if colon == end:
                    return BAD_FEATURE_TOKEN, line, pos, end, n_rows, n_stored, n_deferred
                index = _parse_index(buf, pos, colon)
                if index < 0:
                    return BAD_INDEX, line, pos, end, n_rows, n_stored, n_deferred
                if index < first_index:
                    return INDEX_ZERO, line, pos, end, n_rows, n_stored, n_deferred
                if index <= previous_index:
                    return INDEX_NOT_ASCENDING, line, pos, end, n_rows, n_stored, n_deferred
                if max_index >= 0 and index > max_index:
                    return INDEX_ABOVE_LIMIT, line, pos, end, n_rows, n_stored, n_deferred
                kind, value = _parse_decimal(buf, colon + 1, end)
                if kind == _INVALID:
                    return BAD_VALUE, line, pos, end, n_rows, n_stored, n_deferred
                if kind == _NEEDS_FLOAT:
                    deferred_starts[n_deferred] = colon + 1
                    deferred_ends[n_deferred] = end
                    deferred_targets[n_deferred] = n_stored
                    n_deferred += 1
                columns[n_stored] = index - first_index
                values[n_stored] = value
                n_stored += 1
                previous_index = index
                pos = end
            n_rows += 1
            indptr[n_rows] = n_stored
        while pos < n and buf[pos] != _NEWLINE:
            pos += 1
        pos += 1
    return OK, line, 0, 0, n_rows, n_stored, n_deferred
