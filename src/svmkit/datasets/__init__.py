"""Small real datasets shipped with svmkit.

``heart_scale``: the Statlog (Heart) data, 270 samples x 13 features scaled to
[-1, 1], labels +1/-1, as distributed with LIBSVM (see LICENSE-heart_scale.txt).
"""

from importlib import resources

from ..io import load_libsvm


def heart_scale_path():
    """Path of the bundled ``heart_scale`` LIBSVM file."""
    return resources.files(__package__) / "heart_scale"


def load_heart_scale():
    """Load ``heart_scale``: X as a dense (270, 13) array and y in {-1, +1}.

    Examples
    --------
    >>> X, y = load_heart_scale()
    >>> X.shape, int((y == 1).sum())
    ((270, 13), 120)
    """
    X, y = load_libsvm(heart_scale_path(), n_features=13)
    return X.toarray(), y
