"""svmkit.save / svmkit.load of scikit-learn Pipelines: svmkit estimators after scikit-learn's
common preprocessing steps, without pickle; callbacks dropped with a warning; crafted files
refused."""

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, MaxAbsScaler, MinMaxScaler, OneHotEncoder, StandardScaler

import svmkit
from svmkit import SVC, CategoricalNB, LinearSVC, ModelFileError, PegasosSVC
from model_file_parts import assemble, file_parts, round_trip

TAX_EVASION = Path(__file__).parent / "data" / "tax_evasion.csv"


def cancer_with_gaps():
    """Ten columns of 120 rows of the breast cancer data, one value in 13 missing."""
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:120, :10].copy()
    X.ravel()[::13] = np.nan
    return X, y[:120]


@pytest.mark.parametrize(
    "steps",
    [
        [SimpleImputer(), StandardScaler(), SVC(C=10.0)],
        [SimpleImputer(strategy="median"), MinMaxScaler(), LinearSVC(C=0.5)],
        [SimpleImputer(strategy="most_frequent"), MaxAbsScaler(), SVC(kernel="poly", degree=2, probability=True,
                                                                      random_state=0)],
        [SimpleImputer(strategy="constant", fill_value=0.0), StandardScaler(), PegasosSVC(random_state=0)],
    ],
    ids=["mean-standard-svc", "median-minmax-linear", "frequent-maxabs-proba", "constant-pegasos"],
)
def test_numeric_pipelines_predict_the_same_after_loading(steps):
    X, y = cancer_with_gaps()
    pipeline = make_pipeline(*steps).fit(X, y)
    loaded = round_trip(pipeline)
    assert [type(step) for _, step in loaded.steps] == [type(step) for step in steps]
    for method in ("predict", "decision_function", "predict_proba"):
        if hasattr(pipeline, method):
            np.testing.assert_array_equal(getattr(loaded, method)(X), getattr(pipeline, method)(X), err_msg=method)
    np.testing.assert_array_equal(loaded[0].statistics_, pipeline[0].statistics_)


def test_one_hot_pipeline_on_a_dataframe_predicts_the_same_after_loading():
    table = pd.read_csv(TAX_EVASION, index_col="Tid")
    X, y = table[["Refund", "Marital Status"]], table["Evade"]
    for encoder in (OneHotEncoder(), OneHotEncoder(drop="first"), OneHotEncoder(drop="if_binary", sparse_output=False,
                                                                                handle_unknown="ignore")):
        pipeline = make_pipeline(encoder, SVC(kernel="linear", C=10.0)).fit(X, y)
        loaded = round_trip(pipeline)
        np.testing.assert_array_equal(loaded.decision_function(X), pipeline.decision_function(X))
        assert loaded[0].feature_names_in_.tolist() == ["Refund", "Marital Status"]
        assert [c.tolist() for c in loaded[0].categories_] == [["No", "Yes"], ["Divorced", "Married", "Single"]]
        assert loaded.get_params()["onehotencoder__drop"] == encoder.drop
    unknown = pd.DataFrame({"Refund": ["No"], "Marital Status": ["Widowed"]})
    with pytest.warns(UserWarning, match="unknown categories"):  # (handle_unknown='ignore', as saved)
        np.testing.assert_array_equal(loaded.decision_function(unknown), pipeline.decision_function(unknown))


def test_imputer_of_strings_before_naive_bayes():
    table = pd.read_csv(TAX_EVASION, index_col="Tid")
    X = table[["Refund", "Marital Status"]].astype(object).to_numpy()
    X[[1, 4], 1] = None
    pipeline = make_pipeline(SimpleImputer(strategy="most_frequent", missing_values=None), CategoricalNB())
    pipeline.fit(X, table["Evade"])
    loaded = round_trip(pipeline)
    np.testing.assert_array_equal(loaded.predict_proba(X), pipeline.predict_proba(X))
    assert loaded[0].statistics_.tolist() == ["No", "Single"]


def test_a_callback_is_dropped_with_a_warning():
    X, y = cancer_with_gaps()
    calls = []
    pipeline = make_pipeline(SimpleImputer(), StandardScaler(), SVC(callback=calls.append)).fit(X, y)
    with pytest.warns(UserWarning, match=r"Pipeline\.steps\[2\]\[1\]\.callback is not saved"):
        loaded = round_trip(pipeline)
    assert loaded[-1].callback is None and pipeline[-1].callback is not None
    np.testing.assert_array_equal(loaded.decision_function(X), pipeline.decision_function(X))
    with pytest.warns(UserWarning, match=r"SVC\.callback is not saved"):
        assert round_trip(pipeline[-1]).callback is None


def test_steps_that_run_code_are_refused():
    X, y = cancer_with_gaps()
    pipeline = make_pipeline(SimpleImputer(), FunctionTransformer(np.log1p), SVC()).fit(X, y)
    with pytest.raises(TypeError, match=r"Pipeline\.steps\[1\]\[1\]: FunctionTransformer is not an estimator class "
                                        r"that svmkit model files hold .* steps that run functions"):
        svmkit.save(pipeline, io.BytesIO())
    with pytest.raises(TypeError, match=r"add_indicator=True"):
        svmkit.save(make_pipeline(SimpleImputer(add_indicator=True), SVC()).fit(X, y), io.BytesIO())


@pytest.fixture(scope="module")
def saved_pipeline():
    X, y = cancer_with_gaps()
    buffer = io.BytesIO()
    svmkit.save(make_pipeline(SimpleImputer(), StandardScaler(), SVC()).fit(X, y), buffer)
    return buffer.getvalue()


def set_step_class(name):
    def edit(metadata, arrays):
        metadata["params"]["steps"][1]["items"][1]["class"] = name
    return edit


def set_imputer_field(name, value):
    def edit(metadata, arrays):
        metadata["params"]["steps"][0]["items"][1]["fields"][name] = value
    return edit


def shorten_statistics(metadata, arrays):
    name = metadata["params"]["steps"][0]["items"][1]["fields"]["statistics_"]["array"]
    arrays[name] = arrays[name][:3]


@pytest.mark.parametrize(
    "edit, message",
    [
        (set_step_class("sklearn.preprocessing.FunctionTransformer"),
         r"refusing to load 'sklearn.preprocessing.FunctionTransformer' \(at Pipeline.steps\[1\]\[1\]\)"),
        (set_step_class("builtins.eval"), r"refusing to load 'builtins.eval'"),
        (set_imputer_field("training.dtype", "|V8"), r"steps\[0\]\[1\]\.training\.dtype: must be one of"),
        (shorten_statistics, r"steps\[0\]\[1\]\.statistics_: expected shape \(10,\) \(one per feature\), got \(3,\)"),
        (set_imputer_field("_fit_dtype", "|O"), r"unknown fields \['_fit_dtype'\] for SimpleImputer"),
    ],
    ids=["code step", "builtin", "dtype", "statistics", "private field"],
)
def test_crafted_pipeline_files_are_refused(saved_pipeline, edit, message):
    metadata, arrays = file_parts(saved_pipeline)
    edit(metadata, arrays)
    with pytest.raises(ModelFileError, match=message):
        svmkit.load(io.BytesIO(assemble(metadata, arrays)))


@pytest.mark.parametrize("step, name, value", [(1, "with_mean", None), (1, "with_std", "yes"), (0, "strategy", "mode")])
def test_invalid_parameters_of_scikit_learn_steps_are_refused(step, name, value):
    # (with_mean=None would load and skip the centering: predictions change without an error)
    X, y = cancer_with_gaps()
    buffer = io.BytesIO()
    svmkit.save(make_pipeline(SimpleImputer(), StandardScaler(), SVC()).fit(X, y), buffer)
    metadata, arrays = file_parts(buffer.getvalue())
    metadata["params"]["steps"][step]["items"][1]["params"][name] = value
    with pytest.raises(ModelFileError, match=rf"steps\[{step}\]\[1\]: a parameter is not valid: The '{name}' "
                                             r"parameter of \w+ must be"):
        svmkit.load(io.BytesIO(assemble(metadata, arrays)))
