"""Docstring examples of numba-compiled functions, which ``doctest.testmod`` does not find."""

import doctest
import sys


def run_docstring_examples(function):
    """Run the examples of a compiled function's docstring with its module's names;
    ``(tries, failures)``."""
    runner = doctest.DocTestRunner()
    python_function = getattr(function, "py_func", function)  # (NUMBA_DISABLE_JIT: the function itself)
    module = sys.modules[python_function.__module__]
    for test in doctest.DocTestFinder().find(python_function, globs=dict(vars(module))):
        runner.run(test)
    return runner.tries, runner.failures
