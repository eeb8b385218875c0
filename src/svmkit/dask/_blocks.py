"""Scoring Dask arrays and dataframes block by block with a fitted estimator."""

from __future__ import annotations

import functools
import io

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd

from ..persistence import load, save

TRANSPORTS = ("pickle", "svmkit")


class BlockwiseModel:
    """A fitted estimator that scores Dask arrays and dataframes block by block.

    :meth:`predict`, :meth:`decision_function` and :meth:`predict_proba` return Dask
    collections of the estimator's results on every block (a Dask array for a Dask array;
    a Dask Series or DataFrame with the partitions' index for a Dask DataFrame), computed on
    whatever scheduler computes them (a ``dask.distributed`` cluster, threads, processes).
    The estimator is one task of the graph: each worker receives it once and every block
    task on that worker uses it. Results are those of the estimator on the NumPy blocks.

    Parameters
    ----------
    estimator : fitted estimator
        Any fitted svmkit (or scikit-learn) estimator.
    transport : {'pickle', 'svmkit'}, default='pickle'
        How the model travels to the workers: pickled by Dask, or as the bytes of an svmkit
        model file (:func:`svmkit.save`), which the workers read with :func:`svmkit.load`
        (no unpickling of the model; each worker reads it once).

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from svmkit import SVC
    >>> from svmkit.dask import BlockwiseModel
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    >>> model = SVC(kernel="linear").fit(X, [0, 1, 0, 1])
    >>> labels = BlockwiseModel(model, transport="svmkit").predict(da.from_array(X, chunks=2))
    >>> labels
    dask.array<svmkit_predict, shape=(4,), dtype=int64, chunksize=(2,), chunktype=numpy.ndarray>
    >>> labels.compute(scheduler="threads")
    array([0, 1, 0, 1])
    """

    def __init__(self, estimator, transport="pickle"):
        self.estimator = estimator
        self.transport = transport

    def predict(self, X):
        """Labels of every row, block by block (:meth:`estimator.predict`)."""
        return self._score("predict", X)

    def decision_function(self, X):
        """Decision values of every row, block by block."""
        return self._score("decision_function", X)

    def predict_proba(self, X):
        """Class probabilities of every row, block by block (columns: ``classes_``)."""
        return self._score("predict_proba", X)

    def _score(self, method, X):
        if self.transport not in TRANSPORTS:
            raise ValueError(f"transport must be one of {TRANSPORTS}, got {self.transport!r}.")
        getattr(self.estimator, method)  # (AttributeError where the estimator has no such method)
        if isinstance(X, dd.DataFrame):
            return self._score_frame(method, X)
        if not isinstance(X, da.Array) or X.ndim != 2:
            raise TypeError(
                f"BlockwiseModel scores 2-D Dask arrays and Dask DataFrames, got {type(X).__name__}; "
                "call the estimator itself on NumPy or pandas data."
            )
        if X.numblocks[1] > 1:
            X = X.rechunk({1: -1})
        example = getattr(self.estimator, method)(np.zeros((1, X.shape[1]), dtype=X.dtype))
        shipped, from_file = self._shipped()
        if example.ndim == 1:
            return X.map_blocks(_score_block, shipped, method, from_file, drop_axis=1, dtype=example.dtype,
                                meta=example[:0], token=f"svmkit_{method}")
        return X.map_blocks(_score_block, shipped, method, from_file, chunks=(X.chunks[0], example.shape[1:]),
                            dtype=example.dtype, meta=example[:0], token=f"svmkit_{method}")

    def _score_frame(self, method, X):
        example_rows = X._meta_nonempty.iloc[:1]
        example = _as_frame(getattr(self.estimator, method)(example_rows), example_rows.index, method,
                            self.estimator)
        shipped, from_file = self._shipped()
        return X.map_partitions(_score_partition, shipped, method, from_file, meta=example.iloc[:0],
                                token=f"svmkit_{method}")

    def _shipped(self):
        """The estimator as one task of the graph (itself, or its model file's bytes)."""
        if self.transport == "pickle":
            return dask.delayed(self.estimator, name=f"svmkit-model-{dask.base.tokenize(self.estimator)}"), False
        buffer = io.BytesIO()
        save(self.estimator, buffer)
        data = buffer.getvalue()
        return dask.delayed(data, name=f"svmkit-model-file-{dask.base.tokenize(data)}"), True


@functools.lru_cache(maxsize=4)
def _loaded(data):
    """An estimator read from model-file bytes, read once per worker process."""
    return load(io.BytesIO(data))


def _score_block(block, shipped, method, from_file):
    estimator = _loaded(shipped) if from_file else shipped
    return getattr(estimator, method)(block)


def _score_partition(partition, shipped, method, from_file):
    estimator = _loaded(shipped) if from_file else shipped
    return _as_frame(getattr(estimator, method)(partition), partition.index, method, estimator)


def _as_frame(values, index, method, estimator):
    """A method's result on a pandas partition as a Series (1-D) or a DataFrame (columns:
    the classes for probabilities, else 0, 1, ...)."""
    if values.ndim == 1:
        return pd.Series(values, index=index, name=method)
    columns = list(estimator.classes_) if method == "predict_proba" else list(range(values.shape[1]))
    return pd.DataFrame(values, index=index, columns=columns)
