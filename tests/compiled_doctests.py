"""Docstring examples of numba-compiled functions, which ``doctest.testmod`` does not find."""

import doctest
import sys


def run_docstring_examples(function):
    """Run the examples of a compiled function's docstring with its module's names;
    ``(tries, failures)``."""
    runner = doctest.DocTestRunner()
    module = sys.modules[function.py_func.__module__]
    for test in doctest.DocTestFinder().find(function.py_func, globs=dict(vars(module))):
        runner.run(test)
    return runner.tries, runner.failures
