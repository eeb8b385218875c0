"""``svmkit grid``: LIBSVM's tools/grid.py, its points cross-validated by ``svmkit train``'s
code in this process or by an external svm-train."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

from ._options import UsageError, _integer, _number, _parse
from ._train import (
    _SVM_OPTIONS,
    _check_labels,
    _check_svm_options,
    _cross_validated,
    _drop_unknown_weights,
    _estimator,
    _read_training_set,
)

GRID_USAGE = """\
Usage: svmkit grid [grid_options] [svm_options] dataset
grid_options (those of LIBSVM's tools/grid.py):
-log2c {begin,end,step | "null"} : set the range of c (default -5,15,2)
    begin,end,step -- c_range = 2^{begin,...,begin+k*step,...,end}
    "null"         -- do not grid with c
-log2g {begin,end,step | "null"} : set the range of g (default 3,-15,-2)
    begin,end,step -- g_range = 2^{begin,...,begin+k*step,...,end}
    "null"         -- do not grid with g
-v n : n-fold cross validation (default 5)
-svmtrain pathname : run this svm-train for each point (default: svmkit's own, in this process)
-gnuplot {pathname | "null"} : accepted; svmkit grid draws no contour
-out {pathname | "null"} : (default dataset.out)
    pathname -- set output file path and name
    "null"   -- do not output file
-png pathname : accepted; svmkit grid draws no contour
-resume [pathname] : resume the grid task using an existing output file (default pathname is dataset.out)
svm_options : additional options for svmkit train (not -c, -g or -v)
Prints each point as it finishes ("[local] log2c log2g rate (best c=..., g=..., rate=...)"),
then "C gamma rate" of the best point (rate: cross-validation accuracy in %).
"""

#: svm-train's options that grid.py passes through (it sets -c, -g and -v itself).
_GRID_SVM_OPTIONS = {name: option for name, option in _SVM_OPTIONS.items() if name not in ("c", "g")}


@dataclass
class _GridSettings:
    """grid.py's options (``GridOption``): None for a range set to "null"."""

    dataset: str
    log2c: tuple | None = (-5.0, 15.0, 2.0)
    log2g: tuple | None = (3.0, -15.0, -2.0)
    fold: int = 5
    svmtrain: str | None = None
    out: str | None = None
    resume: str | None = None
    passed: tuple = ()


def _grid_range(text, name):
    if text == "null":
        return None
    parts = text.split(",")
    try:
        if len(parts) != 3:
            raise ValueError("expected begin,end,step")
        begin, end, step = (_number(part) for part in parts)
    except ValueError as error:
        raise UsageError(f"bad value for {name}: {text!r} ({error})") from None
    if step == 0:
        raise UsageError(f"bad value for {name}: {text!r} (the step must not be 0)")
    return begin, end, step


def _grid_settings(args):
    """grid.py's command line: the dataset last, grid options anywhere before it, the other
    options passed to svm-train. Returns None after printing the usage for ``--help``."""
    if not args or args[0] in ("--help", "-?"):
        if not args:
            raise UsageError("svmkit grid takes a dataset (see svmkit grid --help)")
        print(GRID_USAGE, end="")
        return None
    dataset, options = args[-1], args[:-1]
    settings = _GridSettings(dataset, out=os.path.basename(dataset) + ".out")
    passed, i = [], 0

    def value_of(name):
        if i + 1 >= len(options):
            raise UsageError(f"option {name} needs a value (see svmkit grid --help)")
        return options[i + 1]

    while i < len(options):
        name = options[i]
        if name in ("-log2c", "-log2g"):
            setattr(settings, name[1:], _grid_range(value_of(name), name))
            i += 1
        elif name == "-v":
            try:
                settings.fold = _integer(value_of(name))
            except ValueError as error:
                raise UsageError(f"bad value for -v: {options[i + 1]!r} ({error})") from None
            if settings.fold < 2:
                raise UsageError("n-fold cross validation: n must be >= 2")
            i += 1
        elif name in ("-c", "-g"):
            raise UsageError(f"svmkit grid sets {name} itself: use -log2c and -log2g (as grid.py)")
        elif name == "-svmtrain":
            settings.svmtrain = value_of(name)
            i += 1
        elif name in ("-gnuplot", "-png"):
            value = value_of(name)
            if not (name == "-gnuplot" and value == "null"):
                print(f"svmkit grid: note: {name} {value} ignored: svmkit grid draws no gnuplot contour",
                      file=sys.stderr)
            i += 1
        elif name == "-out":
            value = value_of(name)
            settings.out = None if value == "null" else value
            i += 1
        elif name == "-resume":
            if i == len(options) - 1 or options[i + 1].startswith("-"):
                settings.resume = os.path.basename(dataset) + ".out"
            else:
                settings.resume = options[i + 1]
                i += 1
        else:
            passed.append(name)
        i += 1
    settings.passed = tuple(passed)
    if settings.log2c is None and settings.log2g is None:
        raise UsageError("-log2c and -log2g should not be null simultaneously")
    if settings.svmtrain is not None and not os.path.exists(settings.svmtrain):
        raise ValueError(f"svm-train executable not found: {settings.svmtrain}")
    if not os.path.exists(dataset):
        raise ValueError(f"can't open file {dataset}: dataset not found")
    if settings.resume is not None and not os.path.exists(settings.resume):
        raise ValueError(f"can't open file {settings.resume}: file for resumption not found")
    return settings


def _grid_sequence(begin, end, step):
    """grid.py's ``range_f`` (the end included when the steps reach it), in grid.py's order
    (``permute_sequence``: the middle first, then the middles of the halves, ...)."""
    values = []
    while not (step > 0 and begin > end) and not (step < 0 and begin < end):
        values.append(begin)
        begin += step

    def permuted(seq):
        if len(seq) <= 1:
            return list(seq)
        middle = len(seq) // 2
        left, right = permuted(seq[:middle]), permuted(seq[middle + 1 :])
        order = [seq[middle]]
        while left or right:
            if left:
                order.append(left.pop(0))
            if right:
                order.append(right.pop(0))
        return order

    return permuted(values)


def _grid_jobs(c_values, g_values):
    """grid.py's ``calculate_jobs``: the points, coarse first, C and gamma refined in turn."""
    n_c, n_g = float(len(c_values)), float(len(g_values))
    i = j = 0
    jobs = []
    while i < n_c or j < n_g:
        if i / n_c < j / n_g:
            jobs += [(c_values[i], g_values[k]) for k in range(j)]
            i += 1
        else:
            jobs += [(c_values[k], g_values[j]) for k in range(i)]
            j += 1
    return jobs


def _resumed_points(path):
    """The rates that a grid.py ``.out`` file holds, by (log2c, log2g)."""
    import re

    points = {}
    with open(path, encoding="ascii") as file:
        for line in file:
            rate = re.findall(r"rate=([0-9.]+)", line)
            if not rate:
                continue
            c = re.findall(r"log2c=([0-9.-]+)", line)
            g = re.findall(r"log2g=([0-9.-]+)", line)
            points[(float(c[0]) if c else None, float(g[0]) if g else None)] = float(rate[0])
    return points


def _external_rate(settings, c, g):
    """The rate that ``settings.svmtrain -v`` prints for the point, as grid.py reads it."""
    import subprocess

    command = [settings.svmtrain]
    if c is not None:
        command += ["-c", str(2.0**c)]
    if g is not None:
        command += ["-g", str(2.0**g)]
    command += ["-v", str(settings.fold), *settings.passed, settings.dataset]
    result = subprocess.run(command, capture_output=True, text=True)
    for line in result.stdout.splitlines():
        if "Cross" in line:
            return float(line.split()[-1][:-1])
    raise ValueError(f"{settings.svmtrain} printed no cross-validation rate for {' '.join(command[1:])}: "
                     f"{result.stderr.strip() or 'no output'}")


def _grid_edges(settings, best_c, best_g):
    """Warnings for a best point on the grid's edge (a wider grid may do better)."""
    warnings = []
    for name, spec, best in (("log2c", settings.log2c, best_c), ("log2g", settings.log2g, best_g)):
        if spec is None or best is None:
            continue
        values = _grid_sequence(*spec)
        if len(values) > 1 and best in (min(values), max(values)):
            warnings.append(
                f"svmkit grid: warning: the best {name} = {best:g} lies on the edge of the grid "
                f"({min(values):g} to {max(values):g}); a wider -{name} range may find a better point"
            )
    return warnings


def grid(args):
    """``svmkit grid``: LIBSVM's tools/grid.py. Returns the exit status."""
    settings = _grid_settings(args)
    if settings is None:
        return 0
    from .._progress import ProgressBar

    train_options, _ = _parse("grid", [*settings.passed, settings.dataset], _GRID_SVM_OPTIONS, (1, 1), GRID_USAGE)
    if train_options is None:
        return 0
    c_values = [None] if settings.log2c is None else _grid_sequence(*settings.log2c)
    g_values = [None] if settings.log2g is None else _grid_sequence(*settings.log2g)
    if settings.svmtrain is None:
        svm_type, kernel_type = _check_svm_options(train_options)
        if svm_type not in (0, 1, 2):
            raise UsageError(f"svmkit grid maximises a cross-validation accuracy: use -s 0, 1 or 2, not -s {svm_type}")
        X, y = _read_training_set(settings.dataset, kernel_type)
        _check_labels(y, settings.dataset, svm_type)

        def rate_of(c, g):
            point = dict(train_options)
            if c is not None:
                point["C"] = 2.0**c
            if g is not None:
                point["gamma"] = 2.0**g
            estimator = _estimator(point, X.shape[1])
            _drop_unknown_weights(estimator, y)
            predicted, _ = _cross_validated(estimator, X, y, settings.fold, settings.dataset, report=False,
                                            fold_bar=False)
            return float(f"{100.0 * (predicted == y).mean():g}")
    else:

        def rate_of(c, g):
            return _external_rate(settings, c, g)

    resumed = _resumed_points(settings.resume) if settings.resume else {}
    out = None
    if settings.out is not None:
        out = open(settings.out, "a" if settings.resume else "w", encoding="ascii")
    best_c = best_g = None
    best_rate = -1.0
    try:
        points = [(point, resumed[point], "resumed") for point in resumed]
        points += [((c, g), None, "local") for c, g in _grid_jobs(c_values, g_values) if (c, g) not in resumed]
        bar = ProgressBar(len(points), "grid", " points")
        for (c, g), rate, worker in points:
            if rate is None:
                rate = rate_of(c, g)
            if rate > best_rate or (rate == best_rate and g == best_g and c < best_c):
                best_rate, best_c, best_g = rate, c, g
            shown = " ".join(str(value) for value in (c, g) if value is not None)
            best = "".join(
                f"{name}={2.0**value}, " for name, value, spec in (("c", best_c, c), ("g", best_g, g)) if spec is not None
            )
            bar.print(f"[{worker}] {shown} {rate} (best {best}rate={best_rate})")
            bar.update(1, " ".join(f"log2{name}={value}" for name, value in (("c", c), ("g", g)) if value is not None))
            if out is not None and worker != "resumed":
                given = "".join(f"{name}={value} " for name, value in (("log2c", c), ("log2g", g)) if value is not None)
                out.write(f"{given}rate={rate}\n")
                out.flush()
        bar.close()
    finally:
        if out is not None:
            out.close()
    for warning in _grid_edges(settings, best_c, best_g):
        print(warning, file=sys.stderr)
    best_values = [2.0**value for value in (best_c, best_g) if value is not None]
    print(f"{' '.join(map(str, best_values))} {best_rate}")
    return 0
