"""svmkit.save / svmkit.load of scikit-learn's ColumnTransformer, as a Pipeline's step and alone:
identical predictions after loading, on arrays and on DataFrames; selectors that are functions
refused; crafted files refused with the field named."""

import io
import json
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.compose import ColumnTransformer, make_column_selector
from sklearn.datasets import load_breast_cancer
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, MinMaxScaler, OneHotEncoder, StandardScaler

import svmkit
from svmkit import SVC, ModelFileError
from model_file_parts import assemble, file_parts, round_trip, saved_bytes

TAX_EVASION = Path(__file__).parent / "data" / "tax_evasion.csv"
TEXTURES = np.array(["smooth", "medium", "coarse"])


def cancer_table():
    """150 rows of the breast cancer data: mean radius, mean texture cut into three grades
    (0, 1, 2: a category), mean smoothness and mean concavity."""
    data, y = load_breast_cancer(return_X_y=True)
    data, y = data[:150], y[:150]
    grade = np.digitize(data[:, 1], np.quantile(data[:, 1], [1 / 3, 2 / 3]))
    return np.column_stack([data[:, 0], grade, data[:, 4], data[:, 6]]), y


def assert_same_predictions(loaded, pipeline, X):
    np.testing.assert_array_equal(loaded.predict(X), pipeline.predict(X))
    np.testing.assert_array_equal(loaded.decision_function(X), pipeline.decision_function(X))
    assert loaded[0].output_indices_ == pipeline[0].output_indices_
    np.testing.assert_array_equal(loaded[0].get_feature_names_out(), pipeline[0].get_feature_names_out())


@pytest.mark.parametrize(
    "numeric, remainder",
    [([0, 2], "drop"), (np.array([0, 2]), "passthrough"), ([True, False, True, False], MinMaxScaler()),
     (slice(0, 1), "passthrough"), ([-4, -1], "drop")],
    ids=["list-drop", "array-passthrough", "mask-scaled", "slice-passthrough", "negative-drop"],
)
def test_pipeline_on_an_array_predicts_the_same_after_loading(numeric, remainder):
    X, y = cancer_table()
    pipeline = make_pipeline(
        ColumnTransformer([("num", StandardScaler(), numeric), ("cat", OneHotEncoder(), [1]), ("none", "passthrough", [])],
                          remainder=remainder),
        SVC(C=10.0),
    ).fit(X, y)
    loaded = round_trip(pipeline)
    assert_same_predictions(loaded, pipeline, X)
    assert [(name, type(step)) for name, step, _ in loaded[0].transformers_] == [
        (name, type(step)) for name, step, _ in pipeline[0].transformers_]
    assert loaded[0].transformers_[-1][2] == pipeline[0].transformers_[-1][2]
    np.testing.assert_array_equal(loaded[0].named_transformers_["cat"].categories_[0], [0.0, 1.0, 2.0])


def test_pipeline_on_a_dataframe_selects_columns_by_name_after_loading():
    pd = pytest.importorskip("pandas")
    X, y = cancer_table()
    table = pd.DataFrame({"radius": X[:, 0], "texture": TEXTURES[X[:, 1].astype(int)], "smoothness": X[:, 2],
                          "concavity": X[:, 3]})
    table.loc[::7, "smoothness"] = np.nan
    pipeline = make_pipeline(
        ColumnTransformer([("num", make_pipeline(SimpleImputer(), StandardScaler()), ["radius", "smoothness"]),
                           ("cat", OneHotEncoder(handle_unknown="ignore"), ["texture"])], remainder="passthrough"),
        SVC(C=10.0),
    ).fit(table, y)
    loaded = round_trip(pipeline)
    assert_same_predictions(loaded, pipeline, table)
    assert loaded[0].feature_names_in_.tolist() == ["radius", "texture", "smoothness", "concavity"]
    assert loaded[0].transformers_[-1][2] == ["concavity"]
    # By name: columns in another order, and one more, select the same.
    shuffled = table[["concavity", "texture", "radius", "smoothness"]].assign(extra=1.0)
    np.testing.assert_array_equal(loaded.decision_function(shuffled), pipeline.decision_function(table))
    with pytest.raises(ValueError, match="columns are missing: {'smoothness'}"):
        loaded.decision_function(table.drop(columns="smoothness"))


def test_tax_evasion_table_with_a_named_slice():
    pd = pytest.importorskip("pandas")
    table = pd.read_csv(TAX_EVASION, index_col="Tid")
    X, y = table[["Refund", "Marital Status", "Taxable Income"]], table["Evade"]
    pipeline = make_pipeline(
        ColumnTransformer([("cat", OneHotEncoder(drop="if_binary"), slice("Refund", "Marital Status")),
                           ("income", StandardScaler(), ["Taxable Income"])]),
        SVC(kernel="linear", C=10.0),
    ).fit(X, y)
    loaded = round_trip(pipeline)
    assert_same_predictions(loaded, pipeline, X)
    assert loaded[0].output_indices_ == {"cat": slice(0, 4), "income": slice(4, 5), "remainder": slice(0, 0)}
    assert loaded[0].transformers_[0][2] == slice("Refund", "Marital Status")


def test_column_transformer_alone_keeps_its_sparse_output():
    X, y = cancer_table()
    transformer = ColumnTransformer(
        [("cat", OneHotEncoder(), [1]), ("scaled", make_pipeline(SimpleImputer(), MinMaxScaler()), [0, 3])],
        sparse_threshold=1.0, transformer_weights={"scaled": 2.0},
    ).fit(X)
    loaded = round_trip(transformer)
    assert loaded.sparse_output_ and sp.issparse(loaded.transform(X))
    assert (loaded.transform(X) != transformer.transform(X)).nnz == 0
    assert loaded.get_params()["transformer_weights"] == {"scaled": 2.0}
    unfitted = round_trip(ColumnTransformer([("num", StandardScaler(), [0])], remainder="passthrough"))
    assert unfitted.transformers[0][2] == [0] and not hasattr(unfitted, "transformers_")


def test_a_nested_column_transformer_predicts_the_same():
    X, y = cancer_table()
    inner = ColumnTransformer([("cat", OneHotEncoder(), [1])], remainder=StandardScaler())
    pipeline = make_pipeline(ColumnTransformer([("inner", inner, [0, 1, 2])]), SVC()).fit(X, y)
    assert_same_predictions(round_trip(pipeline), pipeline, X)


def test_selectors_code_and_changed_parameters_are_refused():
    pd = pytest.importorskip("pandas")
    X, y = cancer_table()
    table = pd.DataFrame(X, columns=["radius", "grade", "smoothness", "concavity"])
    selector = ColumnTransformer([("num", StandardScaler(), make_column_selector(pattern="^r"))]).fit(table)
    with pytest.raises(TypeError, match=r"columns of 'num' are chosen by a function \(make_column_selector\)"):
        svmkit.save(make_pipeline(selector, SVC()), io.BytesIO())
    function = ColumnTransformer([("num", StandardScaler(), lambda frame: ["radius"])])
    with pytest.raises(TypeError, match=r"columns of 'num' are chosen by a function \(<lambda>\)"):
        svmkit.save(function, io.BytesIO())
    code = ColumnTransformer([("log", FunctionTransformer(np.log1p), [0])]).fit(X)
    with pytest.raises(TypeError, match=r"ColumnTransformer\.transformers\[0\]\[1\]: FunctionTransformer is not"):
        svmkit.save(code, io.BytesIO())
    changed = ColumnTransformer([("num", StandardScaler(), [0, 2])]).fit(X)
    changed.transformers = [("num", StandardScaler(), [0])]
    with pytest.raises(TypeError, match=r"disagrees with its parameters .* Fit it again"):
        svmkit.save(changed, io.BytesIO())


@pytest.fixture(scope="module")
def saved_pipeline():
    X, y = cancer_table()
    pipeline = make_pipeline(
        ColumnTransformer([("num", StandardScaler(), np.array([0, 2])), ("cat", OneHotEncoder(), [1])],
                          remainder="passthrough"),
        SVC(),
    ).fit(X, y)
    return saved_bytes(pipeline)


def column_transformer(metadata):
    return metadata["params"]["steps"][0]["items"][1]


def edit_params_columns(columns):
    def edit(metadata, arrays):
        column_transformer(metadata)["params"]["transformers"][1]["items"][2] = columns
    return edit


def edit_fitted(i, part, value):
    def edit(metadata, arrays):
        column_transformer(metadata)["fields"]["transformers_"][i]["items"][part] = value
    return edit


def transpose_columns(metadata, arrays):
    name = column_transformer(metadata)["fields"]["transformers_"][0]["items"][2]["array"]
    arrays[name] = np.stack([arrays[name], arrays[name]], axis=1)


def drop_remainder(metadata, arrays):
    column_transformer(metadata)["fields"]["transformers_"].pop()


def shift_output(metadata, arrays):
    items = column_transformer(metadata)["fields"]["output_indices_"]["items"]
    items[0][1]["stop"] = 3


def set_field(name, value):
    def edit(metadata, arrays):
        column_transformer(metadata)["fields"][name] = value
    return edit


def set_param(name, value):
    def edit(metadata, arrays):
        column_transformer(metadata)["params"][name] = value
    return edit


def replace_scaler(value):
    """The fitted StandardScaler replaced by ``value``, its arrays removed."""
    def edit(metadata, arrays):
        column_transformer(metadata)["fields"]["transformers_"][0]["items"][1] = value
        for name in [name for name in arrays if name.startswith("steps[0][1].transformers_[0][1].")]:
            del arrays[name]
    return edit


@pytest.mark.parametrize(
    "edit, message",
    [
        (edit_params_columns([1, 7]), r"Pipeline\.steps\[0\]\[1\]\.transformers\[1\]\[2\]: column 7 is not one of the "
                                      r"4 features"),
        (edit_fitted(1, 2, [3]), r"transformers_\[1\]\[2\]: the columns \[3\] differ from those of the parameter"),
        (transpose_columns, r"transformers_\[0\]\[2\]: an array of columns is 1-D, got shape \(2, 2\)"),
        (drop_remainder, r"transformers_: names \['num', 'cat'\], but the transformers \(and a remainder of 1 "
                         r"columns\) are \['num', 'cat', 'remainder'\]"),
        (shift_output, r"output_indices_\['num'\]: is slice\(0, 3, None\), but the transformers' outputs give "
                       r"slice\(0, 2, None\)"),
        (set_field("sparse_output_", 1), r"sparse_output_: expected true or false"),
        (replace_scaler("drop"), r"transformers_\[0\]\[1\]: 'drop' is not the fitted StandardScaler of the "
                                 r"parameters"),
        (replace_scaler({"type": "estimator", "class": "svmkit.GaussianNB", "params": {}, "fields": {}}),
         r"transformers_\[0\]\[1\]: GaussianNB is not a transformer \(an estimator with transform"),
        (set_field("n_features_in_", 2**40), r"n_features_in_: is 1099511627776, more than the 1048576 columns"),
        (set_param("verbose_feature_names_out", "{feature_name.__class__}"),
         r"verbose_feature_names_out True, False or a format string of the fields \['transformer_name', "
         r"'feature_name'\]"),
        (edit_params_columns({"type": "slice", "start": 0, "stop": 2, "step": 0}),
         r"Pipeline\.steps\[0\]\[1\]: a parameter is not valid: transformer 'cat': a slice's step is a nonzero int"),
    ],
    ids=["index out of range", "columns differ", "transposed", "no remainder", "output", "sparse", "drop",
         "classifier", "features", "name format", "slice step"],
)
def test_crafted_files_are_refused(saved_pipeline, edit, message):
    metadata, arrays = file_parts(saved_pipeline)
    edit(metadata, arrays)
    with pytest.raises(ModelFileError, match=message):
        svmkit.load(io.BytesIO(assemble(metadata, arrays)))


def test_a_transformer_fitted_on_other_columns_is_refused(saved_pipeline):
    metadata, arrays = file_parts(saved_pipeline)
    name = column_transformer(metadata)["params"]["transformers"][0]["items"][2]["array"]
    arrays[name] = np.array([0])
    fitted = column_transformer(metadata)["fields"]["transformers_"][0]["items"][2]["array"]
    arrays[fitted] = np.array([0])
    with pytest.raises(ModelFileError, match=r"transformers_\[0\]\[1\]: was fitted on 2 features, but its columns are 1"):
        svmkit.load(io.BytesIO(assemble(metadata, arrays)))


def leaves(value, path=()):
    """The paths of the JSON leaves (numbers, strings, null) of ``value``, not into the
    parameters and fields of the estimators inside (their own schemas check those)."""
    if isinstance(value, dict) and value.get("type") == "estimator" and path:
        yield (*path, "class")
        return
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else None
    if items is None:
        yield path
        return
    for key, item in items:
        yield from leaves(item, (*path, key))


def test_every_changed_value_of_a_column_transformer_is_refused_or_loads_a_finite_model():
    X, _ = cancer_table()
    transformer = ColumnTransformer([("num", StandardScaler(), np.array([0, 2])), ("cat", OneHotEncoder(), [1])],
                                    remainder="passthrough").fit(X)
    metadata, arrays = file_parts(saved_bytes(transformer))
    outcomes = {"refused": 0, "loaded": 0}
    for path in leaves(metadata):
        for value in (None, -1, 3, 2**40, "remainder", [0, 1]):
            changed = json.loads(json.dumps(metadata))
            entry = changed
            for key in path[:-1]:
                entry = entry[key]
            entry[path[-1]] = value
            try:
                loaded = svmkit.load(io.BytesIO(assemble(changed, arrays)))
            except ModelFileError:
                outcomes["refused"] += 1
                continue
            outcomes["loaded"] += 1
            loaded.n_jobs = None  # (a changed n_jobs starts worker processes: seconds, the same output)
            assert np.isfinite(loaded.transform(X)).all()
    assert outcomes["refused"] > 5 * outcomes["loaded"] > 0, outcomes
