"""Tests of svmkit.io.libsvm_data: LIBSVM data files."""

import gzip
import io
from importlib.resources import files
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.datasets import load_svmlight_file

from svmkit.io import (
    LibsvmFormatError,
    dump_libsvm,
    dump_libsvm_precomputed,
    load_libsvm,
    load_libsvm_precomputed,
)

HEART_SCALE = Path(str(files("svmkit.datasets") / "heart_scale"))
SHARED_DATA = Path(__file__).parents[2] / "shared" / "data"
needs_a9a = pytest.mark.skipif(not (SHARED_DATA / "a9a").exists(), reason="../shared/data/a9a is absent")


#: A comment that makes a file too large for load_libsvm's small-file reader, so that the compiled
#: parser reads it.
LONG_COMMENT = b"\n#" + b" " * 2**19


def load_bytes(text, **options):
    """``load_libsvm`` of ``text``, which both of its readers (small files, compiled parser) must
    read alike: the same bits, or the same error (compressed data, which a comment cannot lengthen,
    only by the small-file reader)."""
    if text.startswith((b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00")):
        return load_libsvm(io.BytesIO(text), **options)
    results = []
    for data in (text, text + LONG_COMMENT):
        try:
            results.append(load_libsvm(io.BytesIO(data), **options))
        except LibsvmFormatError as error:
            results.append(error)
    small, compiled = results
    if isinstance(small, Exception):
        assert isinstance(compiled, LibsvmFormatError) and str(compiled) == str(small)
        raise small
    assert not isinstance(compiled, Exception), compiled
    assert np.array_equal(small[1].view(np.int64), compiled[1].view(np.int64))
    assert small[0].shape == compiled[0].shape and np.array_equal(small[0].indptr, compiled[0].indptr)
    assert np.array_equal(small[0].indices, compiled[0].indices)
    assert small[0].dtype == compiled[0].dtype and small[0].data.tobytes() == compiled[0].data.tobytes()
    return small


def dump_bytes(X, y, **options):
    buffer = io.BytesIO()
    dump_libsvm(X, y, buffer, **options)
    return buffer.getvalue()


def bits(values):
    """The float64 bit patterns, with -0.0 read as an omitted (+0.0) zero."""
    values = np.asarray(values, dtype=np.float64)
    return np.where(values == 0, 0.0, values).view(np.int64)


def awkward_matrix(rng):
    X = rng.standard_normal((30, 7)) * 10.0 ** rng.integers(-310, 300, (30, 7))
    X[rng.random((30, 7)) < 0.4] = 0.0
    X[0, :3] = [5e-324, -1.7976931348623157e308, 0.1]
    X[1] = 0.0  # an empty row
    X[2, 6] = 3.0
    return X


# --- round trips ---------------------------------------------------------------------------------


@pytest.mark.parametrize("as_sparse", [False, True])
def test_round_trip_is_bit_identical(as_sparse):
    rng = np.random.default_rng(0)
    X = awkward_matrix(rng)
    y = np.array([1.0, -1.0, 2.5, -0.0, 1e300] + [float(k) for k in range(25)])
    X_loaded, y_loaded = load_bytes(dump_bytes(sp.csr_matrix(X) if as_sparse else X, y))
    assert X_loaded.shape == (30, 7)
    assert np.array_equal(bits(X_loaded.toarray()), bits(X))
    assert np.array_equal(y_loaded.view(np.int64), y.view(np.int64))
    assert X_loaded.has_canonical_format
    assert X_loaded.nnz == np.count_nonzero(X)


@pytest.mark.parametrize("suffix, magic", [(".gz", b"\x1f\x8b"), (".bz2", b"BZh"), (".xz", b"\xfd7zXZ\x00")])
def test_compressed_round_trip(tmp_path, suffix, magic):
    rng = np.random.default_rng(1)
    X = awkward_matrix(rng)
    y = rng.integers(-1, 2, 30).astype(np.float64)
    path = tmp_path / f"data{suffix}"
    dump_libsvm(X, y, path, comment="compressed")
    assert path.read_bytes().startswith(magic)
    X_loaded, y_loaded = load_libsvm(str(path))
    assert np.array_equal(bits(X_loaded.toarray()), bits(X))
    assert np.array_equal(y_loaded, y)
    # Compression is recognised by content, so a file object works too.
    with open(path, "rb") as file:
        assert np.array_equal(load_libsvm(file)[1], y)


def test_dump_writes_shortest_exact_text():
    X = sp.csr_matrix(np.array([[0.1, 0.0, 2.0], [0.0, 0.0, 0.0], [-1e-300, 123456789012.5, 1e16]]))
    text = dump_bytes(X, np.array([1, -1, 2.5]), comment="two\nlines")
    assert text == b"# two\n# lines\n1 1:0.1 3:2\n-1\n2.5 1:-1e-300 2:123456789012.5 3:1e+16\n"


def test_dump_accepts_integer_and_boolean_data():
    text = dump_bytes(np.array([[True, False], [False, True]]), np.array([3, 4], dtype=np.int8))
    assert text == b"3 1:1\n4 2:1\n"
    assert dump_bytes(np.array([[2**62, 0]]), [0]) == b"0 1:4611686018427387904\n"


def test_dump_does_not_change_a_sparse_input():
    X = sp.csr_matrix((np.array([1.0, 0.0, 2.0]), np.array([1, 0, 1]), np.array([0, 3])), shape=(1, 2))
    assert dump_bytes(X, [1]) == b"1 2:3\n"
    assert X.nnz == 3 and list(X.indices) == [1, 0, 1]


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_dump_refuses_non_finite_values(bad):
    with pytest.raises(ValueError, match="NaN or infinity"):
        dump_bytes(np.array([[1.0, bad]]), [1.0])
    with pytest.raises(ValueError, match="NaN or infinity"):
        dump_bytes(np.array([[1.0]]), [bad])


def test_dump_checks_shapes():
    with pytest.raises(ValueError, match="3 labels"):
        dump_bytes(np.ones((2, 2)), [1, 2, 3])
    with pytest.raises(TypeError, match="real numbers"):
        dump_bytes(np.ones((1, 2), dtype=complex), [1])


def test_path_string_pathlike_and_file_object(tmp_path):
    path = tmp_path / "tiny.txt"
    path.write_bytes(b"2 3:1.5\n")
    for source in (path, str(path), io.BytesIO(b"2 3:1.5\n")):
        X, y = load_libsvm(source)
        assert X.toarray().tolist() == [[0.0, 0.0, 1.5]] and y.tolist() == [2.0]
    with pytest.raises(TypeError, match="binary mode"):
        load_libsvm(io.StringIO("2 3:1.5\n"))


def test_float32_dtype():
    X, y = load_bytes(b"1 1:0.1 2:3\n", dtype=np.float32)
    assert X.dtype == np.float32 and y.dtype == np.float64
    assert X.toarray().tolist() == [[np.float32(0.1), 3.0]]
    with pytest.raises(LibsvmFormatError, match=r"line 2: feature value overflows float32: '1:1e39'"):
        load_bytes(b"1 1:1\n1 1:1e39\n", dtype=np.float32)
    with pytest.raises(TypeError, match="floating dtype"):
        load_bytes(b"1 1:1\n", dtype=np.int64)


# --- agreement with scikit-learn -----------------------------------------------------------------


def assert_same_as_sklearn(X, y, path, **options):
    X_expected, y_expected = load_svmlight_file(str(path), **options)
    assert X.shape == X_expected.shape
    assert np.array_equal(X.indptr, X_expected.indptr)
    assert np.array_equal(X.indices, X_expected.indices)
    assert np.array_equal(X.data.view(np.int64), X_expected.data.view(np.int64))
    assert np.array_equal(y, y_expected)


def test_heart_scale_matches_sklearn():
    X, y = load_libsvm(HEART_SCALE)
    assert X.shape == (270, 13)
    assert (np.count_nonzero(y == 1), np.count_nonzero(y == -1)) == (120, 150)
    assert X[0, 0] == 0.708333 and X[2, 7] == 0.0687023
    assert_same_as_sklearn(X, y, HEART_SCALE)


def test_heart_scale_round_trips_to_the_same_text(tmp_path):
    X, y = load_libsvm(HEART_SCALE)
    dump_libsvm(X, y, tmp_path / "heart.txt")
    original = [line.split() for line in HEART_SCALE.read_text().splitlines()]
    written = [line.split() for line in (tmp_path / "heart.txt").read_text().splitlines()]
    # Same numbers, written the same way except for '+1' becoming '1'.
    assert [[token.lstrip("+") for token in line] for line in original] == written


@needs_a9a
def test_a9a_matches_sklearn():
    X, y = load_libsvm(SHARED_DATA / "a9a")
    assert X.shape == (32561, 123) and X.nnz == 451592
    assert (np.count_nonzero(y == 1), np.count_nonzero(y == -1)) == (7841, 24720)
    assert_same_as_sklearn(X, y, SHARED_DATA / "a9a")


@needs_a9a
def test_a9a_test_split_needs_n_features():
    assert load_libsvm(SHARED_DATA / "a9a.t")[0].shape == (16281, 122)
    X, y = load_libsvm(SHARED_DATA / "a9a.t", n_features=123)
    assert X.shape == (16281, 123)
    assert_same_as_sklearn(X, y, SHARED_DATA / "a9a.t", n_features=123)


def test_n_features_pads_and_limits():
    X, _ = load_bytes(b"1 2:1\n", n_features=5)
    assert X.shape == (1, 5)
    with pytest.raises(LibsvmFormatError, match=r"line 3: feature index is larger than n_features: '6:1'"):
        load_bytes(b"1 2:1\n\n-1 6:1\n", n_features=5)
    with pytest.raises(ValueError, match="non-negative"):
        load_bytes(b"1 2:1\n", n_features=-1)


# --- the format's rules ---------------------------------------------------------------------------


def test_comments_blank_lines_and_whitespace():
    text = b"# header\n\n+1 1:2 # trailing comment\r\n  \t\n-1\t2:.5  3:1.e1 #\n   # indented comment\n3.5 1:-4E-1"
    X, y = load_bytes(text)
    assert y.tolist() == [1.0, -1.0, 3.5]
    assert X.toarray().tolist() == [[2.0, 0.0, 0.0], [0.0, 0.5, 10.0], [-0.4, 0.0, 0.0]]


def test_empty_file_and_label_only_rows():
    X, y = load_bytes(b"")
    assert X.shape == (0, 0) and y.shape == (0,)
    X, y = load_bytes(b"1\n2\n", n_features=3)
    assert X.shape == (2, 3) and X.nnz == 0 and y.tolist() == [1.0, 2.0]


def test_explicit_zeros_are_stored():
    X, _ = load_bytes(b"1 1:0 2:5\n")
    assert X.nnz == 2 and X.toarray().tolist() == [[0.0, 5.0]]


@pytest.mark.parametrize(
    "text, line, message",
    [
        (b"1 3:\n", 1, "feature value is not a finite decimal number: '3:'"),
        (b"1 1:1\n-1 a:1\n", 2, "feature index is not an integer in 0..2147483647: 'a:1'"),
        (b"1 :1\n", 1, "feature index is not an integer in 0..2147483647: ':1'"),
        (b"1 -2:1\n", 1, "feature index is not an integer in 0..2147483647: '-2:1'"),
        (b"1 99999999999:1\n", 1, "not an integer in 0..2147483647: '99999999999:1'"),
        (b"1 1:1\n\n# c\n1 3:1 2:1\n", 4, "feature index is not greater than the one before it: '2:1'"),
        (b"1 2:1 2:1\n", 1, "feature index is not greater than the one before it: '2:1'"),
        (b"1 0:1 2:1\n", 1, "feature indices start at 1: '0:1'"),
        (b"1 1:x\n", 1, "feature value is not a finite decimal number: '1:x'"),
        (b"1 1:1.2.3\n", 1, "feature value is not a finite decimal number: '1:1.2.3'"),
        (b"1 1:1e\n", 1, "feature value is not a finite decimal number: '1:1e'"),
        (b"1 1:0x10\n", 1, "feature value is not a finite decimal number: '1:0x10'"),
        (b"1 1:1_0\n", 1, "feature value is not a finite decimal number: '1:1_0'"),
        (b"1 1:nan\n", 1, "feature value is not a finite decimal number: '1:nan'"),
        (b"1 1:inf\n", 1, "feature value is not a finite decimal number: '1:inf'"),
        (b"1 1:1\n1 1:1e400\n", 2, "feature value overflows float64: '1:1e400'"),
        (b"1 1:1\n2 1:1 3\n", 2, "expected 'index:value': '3'"),
        (b"1 1:1\n1:1 2:1\n", 2, "line does not start with a label: '1:1'"),
        (b"abc 1:1\n", 1, "label is not a finite decimal number: 'abc'"),
        (b"NaN 1:1\n", 1, "label is not a finite decimal number: 'NaN'"),
        (b"1\n-1e999 1:1\n", 2, "label overflows float64: '-1e999'"),
        (b"1 1:\xff\xfe\n", 1, r"feature value is not a finite decimal number: '1:\\xff\\xfe'"),
    ],
)
def test_malformed_lines_name_line_and_token(text, line, message):
    with pytest.raises(LibsvmFormatError) as raised:
        load_bytes(text)
    assert raised.value.line == line
    assert str(raised.value).startswith(f"line {line}: ")
    assert message in str(raised.value)


def test_long_tokens_are_shortened_in_messages():
    with pytest.raises(LibsvmFormatError) as raised:
        load_bytes(b"1 1:" + b"9" * 500 + b"x\n")
    assert len(raised.value.token) == 60 and raised.value.token.endswith("...")


@pytest.mark.parametrize("magic", [b"\x1f\x8b", b"BZh9", b"\xfd7zXZ\x00"])
def test_corrupt_compressed_data_raises_format_error(magic):
    with pytest.raises(LibsvmFormatError, match="cannot decompress"):
        load_bytes(magic + b"not really compressed")


@pytest.mark.parametrize(
    "text",
    [
        "0.1", "1.", ".5", "+1", "-0", "1E5", "4.9e-324", "2.4703282292062327e-324", "2.4703282292062328e-324",
        "2.2250738585072011e-308", "2.2250738585072014e-308", "1.7976931348623157e308", "9007199254740993",
        "0.1000000000000000055511151231257827", "123456789012345678", "1234567890123456789",
        "7.038531e-26", "1e-400", "00000000000000000000000000001.5", "0." + "0" * 400 + "1e400",
        "8.98846567431158e307", "179769313486231580793728971405301e276",
    ],
)
def test_numbers_convert_exactly_as_python_float(text):
    X, y = load_bytes(f"{text} 1:{text}\n".encode(), n_features=1)
    assert y.view(np.int64)[0] == np.float64(float(text)).view(np.int64)
    assert bits(X.toarray()[0])[0] == bits([float(text)])[0]


# --- precomputed kernels --------------------------------------------------------------------------


def test_precomputed_round_trip(tmp_path):
    rng = np.random.default_rng(2)
    A = rng.standard_normal((6, 3))
    K = A @ A.T
    K[0, 5] = K[5, 0] = 0.0
    K[1, 2] = -0.0
    y = np.array([1.0, -1.0, 1.0, 1.0, -1.0, 2.5])
    path = tmp_path / "kernel.txt.gz"
    dump_libsvm_precomputed(K, y, path)
    first_line = gzip.decompress(path.read_bytes()).split(b"\n")[0]
    assert first_line.startswith(b"1 0:1 1:") and first_line.endswith(b" 6:0")
    K_loaded, y_loaded = load_libsvm_precomputed(path)
    assert np.array_equal(K_loaded.view(np.int64), K.view(np.int64))  # -0.0 kept too
    assert np.array_equal(y_loaded, y)


def test_precomputed_rectangular_test_kernel():
    buffer = io.BytesIO()
    dump_libsvm_precomputed(np.array([[1.5, 0.0, 2.0]]), [-1], buffer)
    assert buffer.getvalue() == b"-1 0:1 1:1.5 2:0 3:2\n"
    K, y = load_libsvm_precomputed(io.BytesIO(b"-1 0:7 1:1.5 2:0 3:2\n"), check_serial=False)
    assert K.tolist() == [[1.5, 0.0, 2.0]] and y.tolist() == [-1.0]


def test_precomputed_float32_and_empty():
    K, _ = load_libsvm_precomputed(io.BytesIO(b"1 0:1 1:0.1\n"), dtype=np.float32)
    assert K.dtype == np.float32 and K[0, 0] == np.float32(0.1)
    K, y = load_libsvm_precomputed(io.BytesIO(b"# nothing\n"))
    assert K.shape == (0, 0) and y.shape == (0,)


@pytest.mark.parametrize(
    "text, line, message",
    [
        (b"1 0:1 1:4 2:1\n-1 0:3 1:1 2:9\n", 2, "serial number '0:i' of the i-th row is not i"),
        (b"1 0:1 1:4 2:1\n-1 1:1 2:9\n", 2, "missing the serial number"),
        (b"1 0:1 1:4 2:1\n-1\n", 2, "missing the serial number"),
        (b"1 0:1 1:4 2:1\n-1 0:2 2:9\n", 2, "a kernel column is missing"),
        (b"1 0:1 1:4 2:1\n-1 0:2 1:9\n", 2, "row length differs from the first row's 2 kernel columns"),
        (b"1 0:1 1:4 2:1\n-1 0:2 1:9 1:2\n", 2, "feature index is not greater than the one before it: '1:2'"),
    ],
)
def test_precomputed_malformed_rows(text, line, message):
    with pytest.raises(LibsvmFormatError, match=rf"^line {line}: .*{message}"):
        load_libsvm_precomputed(io.BytesIO(text))


# --- fuzzing --------------------------------------------------------------------------------------

LIBSVM_ALPHABET = st.sampled_from(list("0123456789") + [":", ".", "+", "-", "e", "E", " ", "\t", "\n", "#", "x", "\r"])


def load_or_format_error(data, loader):
    try:
        return loader(data)
    except LibsvmFormatError as error:
        assert error.line is None or error.line >= 1
        return None


@settings(deadline=None, max_examples=300)
@given(st.binary(max_size=200) | st.lists(LIBSVM_ALPHABET, max_size=80).map(lambda chars: "".join(chars).encode()))
def test_arbitrary_bytes_load_or_raise_format_error(data):
    loaded = load_or_format_error(data, load_bytes)
    if loaded is not None:
        X, y = loaded
        assert X.has_canonical_format and X.shape[0] == y.size and np.isfinite(X.data).all()
    load_or_format_error(data, lambda raw: load_libsvm_precomputed(io.BytesIO(raw)))
    for magic in (b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00"):
        load_or_format_error(magic + data, lambda raw: load_libsvm(io.BytesIO(raw)))


finite_floats = st.floats(allow_nan=False, allow_infinity=False)


@settings(deadline=None, max_examples=200)
@given(
    arrays(np.float64, st.tuples(st.integers(0, 6), st.integers(1, 6)), elements=finite_floats | st.just(0.0)),
    st.data(),
)
def test_random_matrices_round_trip_bit_identically(X, data):
    y = np.array(data.draw(st.lists(finite_floats, min_size=X.shape[0], max_size=X.shape[0])), dtype=np.float64)
    X_loaded, y_loaded = load_bytes(dump_bytes(X, y), n_features=X.shape[1])
    assert np.array_equal(bits(X_loaded.toarray()), bits(X))
    assert np.array_equal(y_loaded.view(np.int64), y.view(np.int64))


def decimal_with_point(digits, fraction_digits):
    """``digits / 10**fraction_digits`` written with a decimal point."""
    text = str(digits).zfill(fraction_digits + 1)
    return f"{text[: len(text) - fraction_digits]}.{text[len(text) - fraction_digits :]}"


@settings(deadline=None, max_examples=300)
@given(
    st.one_of(
        finite_floats.flatmap(
            lambda value: st.sampled_from([repr(value), f"{value:.17g}", f"{value:.16g}", f"{value:.18e}", f"{value:.15E}"])
        ),
        st.tuples(st.integers(0, 10**25), st.integers(-400, 400)).map(lambda pair: f"{pair[0]}e{pair[1]}"),
        st.builds(decimal_with_point, st.integers(0, 10**30), st.integers(0, 40)),
    )
)
def test_decimal_text_converts_like_python_float(text):
    expected = float(text)
    if not np.isfinite(expected):
        with pytest.raises(LibsvmFormatError, match="overflows"):
            load_bytes(f"1 1:{text}\n".encode())
        return
    X, y = load_bytes(f"{text} 1:{text}\n".encode(), n_features=1)
    assert y.view(np.int64)[0] == np.float64(expected).view(np.int64)
    assert bits(X.toarray()[0])[0] == bits([expected])[0]

