"""LIBSVM's cross-validation folds (``svm_cross_validation``), drawn with the C library's ``rand()``.

svm-train never seeds ``rand()``, so every run of it draws the same sequence: glibc's from seed
1. :class:`CRand` is that generator, so that ``svmkit train -v`` and ``-b 1`` for regression
split the data into the very folds of Debian's svm-train (and of any LIBSVM built on glibc,
in a process that had not called ``rand()`` before). LIBSVM built on another C library (the
Windows binaries, macOS) draws other numbers, and so other folds.
"""

from collections import deque


class CRand:
    """glibc's ``rand()`` (its additive feedback generator, ``TYPE_3``) from ``srand(seed)``.

    Examples
    --------
    >>> rand = CRand()
    >>> [rand() for _ in range(3)]
    [1804289383, 846930886, 1681692777]
    """

    def __init__(self, seed=1):
        state = [seed]
        for _ in range(30):
            high, low = divmod(state[-1], 127773)
            word = 16807 * low - 2836 * high
            state.append(word + 2147483647 if word < 0 else word)
        state += state[:3]
        self._state = deque(state, maxlen=34)
        for _ in range(310):  # (glibc discards the first 310 outputs)
            self()

    def __call__(self):
        state = self._state
        word = (state[-31] + state[-3]) & 0xFFFFFFFF
        state.append(word)
        return word >> 1


def libsvm_folds(y, n_folds, stratified, rand):
    """The ``(train, test)`` row indices of each fold, as LIBSVM's ``svm_cross_validation``
    forms them: stratified folds shuffle each class (in LIBSVM's label order) and deal out
    ``count * i // n_folds`` rows of it to fold ``i``; others shuffle all rows and cut them
    into ``n * i // n_folds`` blocks. The training rows come in LIBSVM's order too.

    Examples
    --------
    >>> [test.tolist() for _, test in libsvm_folds([1, 1, 2, 2], 2, True, CRand())]
    [[1, 3], [0, 2]]
    """
    import numpy as np

    y = np.asarray(y)
    n = y.shape[0]
    if stratified:
        from ..io.libsvm_model import libsvm_label_order

        groups = [np.flatnonzero(y == label).tolist() for label in libsvm_label_order(y)]
        for group in groups:
            for i in range(len(group)):
                j = i + rand() % (len(group) - i)
                group[i], group[j] = group[j], group[i]
        folds = [[] for _ in range(n_folds)]
        for group in groups:
            count = len(group)
            for i in range(n_folds):
                folds[i] += group[i * count // n_folds : (i + 1) * count // n_folds]
        perm = [index for fold in folds for index in fold]
        starts = np.cumsum([0] + [len(fold) for fold in folds]).tolist()
    else:
        perm = list(range(n))
        for i in range(n):
            j = i + rand() % (n - i)
            perm[i], perm[j] = perm[j], perm[i]
        starts = [i * n // n_folds for i in range(n_folds + 1)]
    perm = np.array(perm, dtype=np.intp)
    return [
        (np.concatenate([perm[: starts[i]], perm[starts[i + 1] :]]), perm[starts[i] : starts[i + 1]])
        for i in range(n_folds)
    ]
