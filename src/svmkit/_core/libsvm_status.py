"""The status codes of the LIBSVM data parser (:mod:`svmkit._core.libsvm_parse`), readable without
loading numba."""

OK = 0
BAD_LABEL = 1
MISSING_LABEL = 2
BAD_FEATURE_TOKEN = 3
BAD_INDEX = 4
BAD_VALUE = 5
INDEX_NOT_ASCENDING = 6
INDEX_ZERO = 7
INDEX_ABOVE_LIMIT = 8

#: Largest feature index accepted, so that column numbers fit in int32.
LARGEST_INDEX = 2**31 - 1
