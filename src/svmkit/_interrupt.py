"""A fit stopped by Ctrl-C leaves its estimator unfitted.

The compiled loops of every fit return to Python at bounded intervals (``STEPS_PER_CALL``,
``LINEAR_VALUES_PER_CALL`` in :mod:`svmkit._plan`), where Python raises the
``KeyboardInterrupt`` of a pending SIGINT. By then the fit has set some attributes and not
others; :func:`unfitted_on_interrupt` removes them, so that the estimator is not taken for a
fitted one.
"""

import functools


def unfitted_on_interrupt(fit):
    """Decorate a ``fit`` (or ``partial_fit``) method so that a ``KeyboardInterrupt`` raised
    in it leaves the estimator as it was before the call, less every fitted attribute (names
    ending in ``_``): unfitted, its parameters unchanged.

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> from sklearn.utils.validation import check_is_fitted
    >>> class Slow(BaseEstimator):
    ...     @unfitted_on_interrupt
    ...     def fit(self, X):
    ...         self.classes_ = [0, 1]
    ...         raise KeyboardInterrupt
    >>> model = Slow()
    >>> try:
    ...     model.fit(None)
    ... except KeyboardInterrupt:
    ...     "classes_" in vars(model)
    False
    """

    @functools.wraps(fit)
    def interruptible_fit(self, *args, **kwargs):
        before = dict(vars(self))
        try:
            return fit(self, *args, **kwargs)
        except KeyboardInterrupt:
            vars(self).clear()
            vars(self).update((name, value) for name, value in before.items() if not name.endswith("_"))
            raise

    return interruptible_fit
