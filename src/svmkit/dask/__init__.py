"""svmkit on a Dask cluster: scoring Dask arrays and dataframes block by block
(:class:`BlockwiseModel`) and the exact C-SVC of data split over workers
(:class:`CascadeSVC`). Grid searches run on a cluster through joblib's Dask backend
(``joblib.parallel_config(backend="dask")``); see the README.

Needs the extra ``svmkit[dask]`` (dask and distributed).
"""

try:
    import dask  # noqa: F401
    import dask.array  # noqa: F401
    import dask.dataframe  # noqa: F401
    import distributed  # noqa: F401
except ImportError as error:
    raise ImportError(
        f"svmkit.dask needs dask[array,dataframe] and distributed ({error}): pip install svmkit[dask]"
    ) from error

from ._blocks import BlockwiseModel
from ._cascade import CascadeSVC

__all__ = ["BlockwiseModel", "CascadeSVC"]
