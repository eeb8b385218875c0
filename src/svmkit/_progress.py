"""Progress that says where it is.

* The iterative fits that do not go through the SMO solver (LinearSVC, PegasosSVC, the
  perceptrons): ``verbose=True`` logs, to the ``svmkit`` logger, a line about once a second
  and one at the end of each problem, each naming the estimator and the problem ("class 2
  vs rest").
* :class:`ProgressBar`: a tqdm bar on stderr for grid searches and the command line, drawn
  only where stderr is a terminal unless asked for. tqdm (a small pure-Python package
  without dependencies) is imported only when a bar is made.
"""

from __future__ import annotations

import logging
import sys
import time

from ._solver.driver import PROGRESS_INTERVAL_S

logger = logging.getLogger("svmkit")


def enable_logging():
    """Show the ``svmkit`` logger's INFO lines on stderr when nothing else handles them."""
    if not logger.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("[svmkit] %(message)s"))
        logger.addHandler(handler)
    if logger.getEffectiveLevel() > logging.INFO:
        logger.setLevel(logging.INFO)


def check_verbose(verbose):
    """``verbose`` is a bool or an integer >= 0 (scikit-learn's convention; any positive value logs)."""
    if isinstance(verbose, bool) or (isinstance(verbose, int) and verbose >= 0):
        return bool(verbose)
    raise ValueError(f"verbose must be True, False or an integer >= 0, got {verbose!r}.")


class IterationLog:
    """Logs the progress of the problems of one fit when ``verbose``."""

    def __init__(self, estimator, classes, n_problems):
        self.on = check_verbose(estimator.verbose)
        self.name = type(estimator).__name__
        self.classes = classes
        self.n_problems = n_problems
        self.start = self.last = time.perf_counter()
        if self.on:
            enable_logging()

    def problem_name(self, k):
        if self.n_problems == 1:
            return f"classes {self.classes[0]} and {self.classes[1]}"
        return f"class {self.classes[k]} vs rest"

    def report(self, k, text, done=False):
        """Log ``text`` about problem ``k``: at the end of the problem (``done``), or when a
        second has passed since the last line."""
        if not self.on:
            return
        now = time.perf_counter()
        if not done and now - self.last < PROGRESS_INTERVAL_S:
            return
        self.last = now
        ending = ", done" if done else ""
        logger.info("%s %s: %s%s  %8.2f s", self.name, self.problem_name(k), text, ending, now - self.start)


class ProgressBar:
    """A tqdm bar on stderr of ``total`` steps (None: a counter without an end).

    ``enabled``: True draws it, False never, None only where stderr is a terminal (so that
    logs and pipes get no carriage returns). Lines printed through :meth:`print` go to
    stdout above the bar."""

    def __init__(self, total, description, unit, enabled=None):
        from tqdm import tqdm

        disable = None if enabled is None else not enabled
        self.bar = tqdm(total=total, desc=description, unit=unit, disable=disable, file=sys.stderr,
                        dynamic_ncols=True)

    @property
    def shown(self):
        return not self.bar.disable

    def update(self, done=1, note=None):
        """``done`` more steps; ``note`` replaces the text after the bar."""
        if note is not None:
            self.bar.set_postfix_str(note, refresh=False)
        self.bar.update(done)

    def set(self, count, note=None):
        """The count reached (for counters fed by totals, such as the solver's steps)."""
        if note is not None:
            self.bar.set_postfix_str(note, refresh=False)
        self.bar.update(count - self.bar.n)

    def print(self, text):
        if self.shown:
            self.bar.write(text, file=sys.stdout)
        else:
            print(text, flush=True)

    def close(self):
        self.bar.close()


class SolverBar:
    """A :class:`ProgressBar` of the solver's steps, fed as an estimator's ``callback`` with
    each :class:`svmkit.SolverProgress` (the problem and its KKT gap after the bar)."""

    def __init__(self, description, enabled=None):
        self.bar = ProgressBar(None, description, " steps", enabled)

    def __call__(self, info):
        where = f"{info.problem}, " if info.problem else ""
        self.bar.set(info.n_iter, f"{where}gap {info.gap:.2e}")

    def close(self):
        self.bar.close()
