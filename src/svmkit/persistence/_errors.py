"""The error that :func:`svmkit.persistence.load` raises, and the place in a file it names."""


class ModelFileError(ValueError):
    """A file that :func:`load` cannot read as an svmkit model.

    Raised for files that are truncated or corrupted, that are not in the
    ``svmkit-model`` format, that come from a newer svmkit (a format version this one does
    not know), that name a class which is not a saveable svmkit estimator, that would
    decompress to more than allowed, or whose values fail a check (the message names the
    field and the problem).

    Examples
    --------
    >>> import io
    >>> from svmkit.persistence import load
    >>> try:
    ...     load(io.BytesIO(b"not a model"))
    ... except ModelFileError as error:
    ...     print(error)
    not an svmkit model file: not a ZIP archive
    """

    # Named (in tracebacks, reprs and pickles) where it is public.
    __module__ = "svmkit.persistence"


def _fail(where, problem):
    raise ModelFileError(f"{where}: {problem}" if where else problem)


def _join(path, name):
    return f"{path}.{name}" if path else str(name)
