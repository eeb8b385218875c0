"""LIBSVM's command-line convention: options (``-x value``) first, then the files."""

from __future__ import annotations

import math
from dataclasses import dataclass


class UsageError(ValueError):
    """A command line that the command cannot run."""


def _number(text):
    try:
        value = float(text)
    except ValueError:
        raise ValueError("expected a number") from None
    if not math.isfinite(value):
        raise ValueError("expected a finite number")
    return value


def _integer(text):
    try:
        return int(text)
    except ValueError:
        raise ValueError("expected an integer") from None


def _binary(text):
    if text not in ("0", "1"):
        raise ValueError("expected 0 or 1")
    return int(text)


@dataclass(frozen=True)
class _Option:
    """One LIBSVM-style option: its destination, value converter and number of values."""

    dest: str
    convert: object = _number
    n_values: int = 1


def _parse(command, args, table, positional, usage):
    """LIBSVM's command-line convention: options (``-x value``) first, then the files.

    ``-w<label> weight`` sets a class weight where the table has ``w``.
    Returns the options as a dict (``class_weight`` a dict of label -> weight)
    and the positional arguments, whose count must lie in ``positional``.
    """
    options, weights = {}, {}
    i = 0
    while i < len(args) and args[i].startswith("-") and len(args[i]) > 1:
        name = args[i][1:]
        if name in ("-help", "?"):
            print(usage, end="")
            return None, None
        is_weight = name.startswith("w") and len(name) > 1 and "w" in table
        option = _Option("class_weight") if is_weight else table.get(name)
        if option is None:
            raise UsageError(f"unknown option -{name} for svmkit {command} (see svmkit {command} --help)")
        values = args[i + 1 : i + 1 + option.n_values]
        if len(values) < option.n_values:
            raise UsageError(f"option -{name} needs {option.n_values} value{'s' if option.n_values > 1 else ''}")
        try:
            converted = [option.convert(value) for value in values]
        except ValueError as error:
            raise UsageError(f"bad value for -{name}: {' '.join(values)!r} ({error})") from None
        if is_weight:
            weights[_label(name[1:])] = converted[0]
        elif option.n_values == 0:
            options[option.dest] = True
        else:
            options[option.dest] = converted[0] if option.n_values == 1 else converted
        i += 1 + option.n_values
    files = args[i:]
    if not positional[0] <= len(files) <= positional[1]:
        expected = " or ".join(str(n) for n in sorted(set(positional)))
        raise UsageError(
            f"svmkit {command} takes {expected} file names, got {len(files)} (see svmkit {command} --help)"
        )
    if weights:
        options["class_weight"] = weights
    return options, files


def _label(text):
    try:
        return float(int(text))
    except ValueError:
        raise UsageError(f"bad class label in -w{text}: expected an integer") from None
