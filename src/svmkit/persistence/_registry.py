"""The estimator classes that model files hold: their schemas, looked up by the name a file
gives or by an estimator's class."""

from __future__ import annotations

from ._compose_schemas import _ColumnTransformerSchema
from ._dask_schemas import _CascadeSVCSchema
from ._errors import ModelFileError
from ._kernel_svm_schemas import _NuSVCSchema, _NuSVRSchema, _OneClassSVMSchema, _SVCSchema, _SVRSchema
from ._linear_schemas import _KernelPerceptronSchema, _LinearSVCSchema, _PegasosSVCSchema, _PerceptronSchema
from ._naive_bayes_schemas import _CategoricalNBSchema, _GaussianNBSchema, _MixedNBSchema
from ._preprocessing_schemas import (
    _MaxAbsScalerSchema,
    _MinMaxScalerSchema,
    _OneHotEncoderSchema,
    _SimpleImputerSchema,
)
from ._selection_schemas import _LibsvmScalerSchema, _PipelineSchema, _StandardScalerSchema, _SVCGridSearchSchema

_SCHEMAS = (
    _SVCSchema(),
    _NuSVCSchema(),
    _OneClassSVMSchema(),
    _SVRSchema(),
    _NuSVRSchema(),
    _LinearSVCSchema(),
    _PegasosSVCSchema(),
    _PerceptronSchema(),
    _KernelPerceptronSchema(),
    _GaussianNBSchema(),
    _CategoricalNBSchema(),
    _MixedNBSchema(),
    _LibsvmScalerSchema(),
    _SVCGridSearchSchema(),
    _CascadeSVCSchema(),
    _PipelineSchema(),
    _ColumnTransformerSchema(),
    _StandardScalerSchema(),
    _MinMaxScalerSchema(),
    _MaxAbsScalerSchema(),
    _SimpleImputerSchema(),
    _OneHotEncoderSchema(),
)


def _schema_named(name, nested):
    """The schema a file names (by its name or, from version 1, an alias); None if the
    class is not one that files hold (at the top of a file: svmkit's, Pipeline and ColumnTransformer)."""
    for schema in _SCHEMAS:
        if name == schema.name or name in schema.aliases:
            return schema if nested or not schema.nested_only else None
    return None


def _schema_of_instance(estimator, nested):
    for schema in _SCHEMAS:
        if type(estimator).__name__ == schema.class_name and (nested or not schema.nested_only):
            if type(estimator) is schema.estimator_class():
                return schema
    return None


def _refuse_class(name, where, nested):
    known = ", ".join(schema.name for schema in _SCHEMAS if nested or not schema.nested_only)
    at = f" (at {where})" if where else ""
    raise ModelFileError(
        f"refusing to load {name!r}{at}: it is not an estimator class that svmkit model files hold ({known})"
    )
