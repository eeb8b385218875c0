"""``svmkit toy`` without a browser: the checks of every request, the HTTP answers, and the
figures the page shows, which must be the fitted model's own."""

import base64
import doctest
import http.client
import json
import socket
import urllib.error
import urllib.request

import numpy as np
import pytest

from svmkit import SVC, OneClassSVM
from svmkit.cli import main
from svmkit.toy import RequestError, parse_options, parse_request
from svmkit.toy._request import MAX_BODY_BYTES, MAX_POINTS

LINE = [[-1, 0, 1], [0, 0, -1], [1, 0, -1]]


def _body(**fields):
    body = {"options": "-t 0 -c inf", "points": LINE, "dim": 1, "view": [-2, 2, -1, 1], "resolution": [9, 2]}
    body.update(fields)
    return body


def _post(toy_server, path, data):
    request = urllib.request.Request(toy_server.url + path.lstrip("/"), data=data, method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def _train(toy_server, body):
    return _post(toy_server, "/api/train", json.dumps(body).encode())


def test_option_strings_are_read_as_svm_train_reads_them():
    assert parse_options("-s 0 -t 1 -d 2 -g 0.5 -r 1 -c 10 -e 0.01 -w1 2") == {
        "svm_type": 0, "kernel_type": 1, "degree": 2, "gamma": 0.5, "coef0": 1.0, "C": 10.0, "tol": 0.01,
        "class_weight": {1.0: 2.0}}
    assert parse_options("-c inf")["C"] == np.inf
    assert parse_options("") == {}


@pytest.mark.parametrize("options, message", [
    ("-t 9", "bad value for -t: 9 (kernel types are 0 to 4)"),
    ("-t 4", "-t 4 (precomputed kernel) takes a kernel matrix"),
    ("-c x", "bad value for -c: 'x' (expected a number)"),
    ("-c -1", "bad value for -c: -1 (C must be > 0)"),
    ("-s 3 -c inf", "-c inf (hard margin) is for C-SVC (-s 0)"),
    ("-g", "option -g needs 1 value"),
    ("-z 1", "unknown option -z"),
    ("-c 1 extra", "unexpected 'extra' in the options"),
    ("-b 1", "-b (probability estimates) is not drawn by the toy"),
    ("-m 5000", "bad value for -m: the toy's cache is at most 1024 MB"),
    ("-n 2", "bad value for -n: 2 (nu must be in (0, 1])"),
    ("--help", "options as svm-train's"),
    ("-c " + "1" * 500, "longer than 400 characters"),
])
def test_bad_option_strings_are_refused_with_the_reason(options, message):
    with pytest.raises(RequestError, match=None) as caught:
        parse_options(options)
    assert message in str(caught.value)


@pytest.mark.parametrize("fields, message", [
    ({"points": []}, "there are no points"),
    ({"points": [[0, 0, 1]] * (MAX_POINTS + 1)}, f"the toy trains on at most {MAX_POINTS}"),
    ({"points": [[0, 0]]}, "point 1 must be a list of 3 numbers"),
    ({"points": [[0, "a", 1]]}, "point 1 must hold finite numbers"),
    ({"points": [[0, 1e400, 1]]}, "point 1 must hold finite numbers"),
    ({"points": [[0, 0, True]]}, "point 1 must hold finite numbers"),
    ({"points": "abc"}, "points must be a list"),
    ({"points": [[0, 0, 1], [1, 0, 1]]}, "classification needs points of two classes"),
    ({"points": [[0, 0, 1], [1, 0, 2], [2, 0, 3], [3, 0, 4]]}, "4 classes: the toy draws at most 3"),
    ({"points": [[0, 0, 1.5], [1, 0, 2]]}, "class labels must be integers"),
    ({"dim": 3}, "dim must be 1"),
    ({"view": [1, -1, 0, 1]}, "xmin < xmax"),
    ({"view": [0, 1]}, "view must be a list of 4 numbers"),
    ({"resolution": [1000, 2]}, "resolution must be [nx, ny], integers from 2 to 300"),
    ({"resolution": [10.0, 2]}, "resolution must be [nx, ny]"),
    ({"options": 3}, "options must be a string"),
    ({"file": "/etc/passwd"}, "unknown request fields: file"),
])
def test_bad_requests_are_refused_with_the_reason(fields, message):
    with pytest.raises(RequestError) as caught:
        parse_request(_body(**fields))
    assert message in str(caught.value)


def test_the_exercise_answers_the_course_hyperplane(toy_server):
    status, answer = _train(toy_server, _body())
    assert status == 200
    problem = answer["problems"][0]
    assert problem["w"] == [pytest.approx(-2.0)] and problem["b"] == pytest.approx(-1.0)
    assert problem["margin"] == pytest.approx(1.0) and problem["gap"] == pytest.approx(0.0, abs=1e-12)
    assert [entry[0]["alpha"] for entry in answer["points"]] == pytest.approx([2.0, 2.0, 0.0])
    assert [entry[0]["mu"] for entry in answer["points"]] == ["inf", "inf", "inf"]  # C = inf
    assert [entry[0]["category"] for entry in answer["points"]] == ["on the margin"] * 2 + ["not a support vector"]
    # f(x) = -2 x - 1 on the grid x = -2, -1.5, ..., 2 (float32)
    f = np.frombuffer(base64.b64decode(answer["f"]), dtype="<f4")
    np.testing.assert_allclose(f, -2 * np.linspace(-2, 2, 9) - 1, atol=1e-6)
    assert answer["grid"] == [9, 1]
    assert answer["loo_bound"] == pytest.approx(2 / 3)


def test_example_1_answers_the_course_numbers(toy_server):
    example = toy_server.presets["example1"]
    status, answer = _train(toy_server, {"options": example["options"], "points": example["points"], "dim": 2,
                                     "view": example["view"], "resolution": [20, 20]})
    assert status == 200
    problem = answer["problems"][0]
    np.testing.assert_allclose(problem["w"], [1.125, 1.131], atol=5e-4)
    assert problem["b"] == pytest.approx(-1.987, abs=1.5e-3)
    assert problem["n_sv"] == 3


def test_the_answer_is_the_fitted_model_s_theory_for_three_classes_and_one_class(toy_server):
    rng = np.random.RandomState(1)
    X = rng.uniform(-1, 1, size=(40, 2))
    y = np.where(X[:, 0] > 0.3, 2, np.where(X[:, 1] > 0, 1, -1))
    points = np.column_stack([X, y]).tolist()
    status, answer = _train(toy_server, _body(options="-t 2 -g 1 -c 10", points=points, dim=2, resolution=[10, 10]))
    model = SVC(kernel="rbf", gamma=1.0, C=10).fit(X, y)
    assert status == 200
    assert [row["dual"] for row in answer["problems"]] == pytest.approx(list(model.dual_objective_), rel=1e-12)
    assert answer["n_sv"] == model.support_.shape[0]
    gx, gy = np.meshgrid(np.linspace(-2, 2, 10), np.linspace(-1, 1, 10))
    predicted = model.predict(np.column_stack([gx.ravel(), gy.ravel()]))
    np.testing.assert_array_equal(model.classes_[answer["label"]], predicted)
    status, answer = _train(toy_server, _body(options="-s 2 -t 2 -g 1 -n 0.3", points=points, dim=2))
    one_class = OneClassSVM(gamma=1.0, nu=0.3).fit(X)
    assert answer["problems"][0]["primal"] == pytest.approx(one_class.primal_objective_, rel=1e-12)
    assert "loo_bound" not in answer and "margin" not in answer["problems"][0]


def test_not_separable_is_an_answer_not_an_error(toy_server):
    status, answer = _train(toy_server, _body(points=[[-1, 0, 1], [0, 0, -1], [1, 0, 1]]))
    assert status == 200
    assert answer["not_separable"].startswith("The data are not separable with the linear kernel")


def test_bad_requests_get_json_errors(toy_server):
    assert _train(toy_server, _body(options="-t 9")) == (400, {"error": "bad value for -t: 9 (kernel types are 0 to 4)"})
    assert _post(toy_server, "/api/train", b"{not json") == (400, {"error": "the request is not JSON"})
    assert _post(toy_server, "/api/elsewhere", b"{}") == (404, {"error": "no such endpoint: /api/elsewhere"})
    # a cross-site form cannot post here: only JSON, which browsers send across sites after a preflight
    request = urllib.request.Request(toy_server.url + "api/train", data=json.dumps(_body()).encode(), method="POST",
                                     headers={"Content-Type": "text/plain"})
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=10)
    assert caught.value.code == 415
    assert json.loads(caught.value.read()) == {"error": "send the request as application/json"}
    # a body announced too long is refused before it is read
    connection = http.client.HTTPConnection(*toy_server.server_address[:2], timeout=10)
    connection.putrequest("POST", "/api/train")
    connection.putheader("Content-Type", "application/json")
    connection.putheader("Content-Length", str(MAX_BODY_BYTES + 1))
    connection.endheaders()
    response = connection.getresponse()
    assert response.status == 413
    assert json.loads(response.read())["error"].startswith(f"the request holds {MAX_BODY_BYTES + 1} bytes")
    connection.close()
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(toy_server.url + "etc/passwd", timeout=10)
    assert caught.value.code == 404 and json.loads(caught.value.read()) == {"error": "no such page: /etc/passwd"}


def test_the_page_and_presets_are_served(toy_server):
    with urllib.request.urlopen(toy_server.url, timeout=10) as response:
        assert response.headers["Content-Type"] == "text/html; charset=utf-8"
        assert b'<canvas id="plot"' in response.read()
    with urllib.request.urlopen(toy_server.url + "api/presets", timeout=10) as response:
        presets = json.loads(response.read())
    assert set(presets) == {"example1", "exercise-separable", "exercise-not-separable", "xor", "moons", "circles"}
    assert presets["exercise-not-separable"]["points"] == [[-1.0, 0.0, 1.0], [0.0, 0.0, -1.0], [1.0, 0.0, 1.0]]


def test_data_files_are_read_by_svmkit_io(toy_server):
    status, answer = _post(toy_server, "/api/parse", json.dumps({"text": "+1 1:0.5 2:-1\n-1 2:3\n"}).encode())
    assert (status, answer) == (200, {"X": [[0.5, -1.0], [0.0, 3.0]], "labels": [1.0, -1.0]})
    status, answer = _post(toy_server, "/api/parse", json.dumps({"text": "+1 1:0.5 3:2\n"}).encode())
    assert status == 400 and answer["error"].startswith("not a LIBSVM data file of one or two features")
    status, answer = _post(toy_server, "/api/parse", json.dumps({"text": "+1 1:abc\n"}).encode())
    assert status == 400 and "line 1" in answer["error"]


def test_the_command_refuses_a_busy_port(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["toy", "--no-browser", "--port", str(port)]) == 1
    assert "Address already in use" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["toy", "--port", "70000"])
    assert "expected a port number from 0 to 65535, got '70000'" in capsys.readouterr().err


def test_docstring_examples():
    import svmkit.toy
    from svmkit.toy import _presets, _request, _server

    for module in (svmkit.toy, _request, _presets, _server):
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.attempted > 0 and result.failed == 0, module.__name__


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_request_naming_another_host_is_refused(toy_server, method):
    # (a page of another site whose name resolves to 127.0.0.1, DNS rebinding, names its own host)
    port = toy_server.server_address[1]
    for host, expected in ((f"attacker.example:{port}", 403), (f"localhost:{port}", 200)):
        connection = http.client.HTTPConnection(*toy_server.server_address[:2], timeout=60)
        body = json.dumps(_body()).encode() if method == "POST" else None
        connection.request(method, "/api/train" if method == "POST" else "/", body=body,
                           headers={"Host": host, "Content-Type": "application/json"})
        response = connection.getresponse()
        assert response.status == expected, host
        if expected == 403:
            assert json.loads(response.read())["error"].startswith("the request's Host header does not name")
        connection.close()
