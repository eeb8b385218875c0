"""The toy's HTTP server: the page, its presets, training and reading a LIBSVM data file.

The standard library's threading HTTP server: nothing to install, and a page
with one user needs no more. It reads no file but its own page; the data files
a user loads come in the request body from the browser's file picker.
"""

from __future__ import annotations

import io
import ipaddress
import json
import logging
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.resources import files

import numpy as np

from ._answer import FIT_LOCK, answer
from ._presets import presets
from ._request import MAX_BODY_BYTES, MAX_POINTS, RequestError, parse_request

logger = logging.getLogger("svmkit")

_STATIC = {"/": ("index.html", "text/html; charset=utf-8"), "/toy.js": ("toy.js", "text/javascript; charset=utf-8")}
_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'",
}


def read_data_file(body):
    """The points of a LIBSVM data file's text (``{"text": ...}``): rows of at most two
    features and their labels, through :func:`svmkit.io.load_libsvm`'s checks.

    Examples
    --------
    >>> read_data_file({"text": "+1 1:0.5 2:-1\\n-1 1:2\\n"})
    {'X': [[0.5, -1.0], [2.0, 0.0]], 'labels': [1.0, -1.0]}
    """
    from ..io import load_libsvm

    text = body.get("text") if isinstance(body, dict) else None
    if not isinstance(text, str):
        raise RequestError("send the file's text as {\"text\": ...}")
    try:
        X, y = load_libsvm(io.BytesIO(text.encode("utf-8")), max_features=2)
    except ValueError as error:
        raise RequestError(f"not a LIBSVM data file of one or two features: {error}") from None
    if X.shape[0] > MAX_POINTS:
        raise RequestError(f"the file holds {X.shape[0]} points: the toy draws at most {MAX_POINTS}")
    if X.shape[0] == 0:
        raise RequestError("the file holds no points")
    dense = X.toarray()
    if not np.all(np.isfinite(dense)) or not np.all(np.isfinite(y)):
        raise RequestError("the file holds values that are not finite")
    return {"X": dense.tolist(), "labels": y.tolist()}


class ToyHandler(BaseHTTPRequestHandler):
    """Serves the page and answers its JSON requests; every error is a JSON ``{"error": ...}``."""

    server_version = "svmkit-toy"
    _posts = {"/api/train": lambda body: answer(parse_request(body)), "/api/parse": read_data_file}

    def log_message(self, format, *args):
        logger.debug("toy: " + format, *args)

    def _send(self, status, payload, content_type="application/json"):
        data = payload if isinstance(payload, bytes) else json.dumps(payload, allow_nan=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in _HEADERS.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status, message):
        self._send(status, {"error": message})

    def _host_allowed(self):
        """Whether the request names this server as its host: on a loopback address, only
        ``localhost`` or the loopback address itself (a page of another site whose name was
        made to resolve to 127.0.0.1, DNS rebinding, names its own host and is refused); on
        an address the user chose with ``--host``, any."""
        host, port = self.server.server_address[:2]
        if not ipaddress.ip_address(host).is_loopback:
            return True
        names = {f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}", f"{host}:{port}", f"[{host}]:{port}"}
        if self.headers.get("Host", "").lower() in names:
            return True
        self._error(HTTPStatus.FORBIDDEN, "the request's Host header does not name this server (open the address "
                                          "svmkit toy printed)")
        return False

    def do_GET(self):
        if not self._host_allowed():
            return
        path = self.path.split("?", 1)[0]
        if path in _STATIC:
            name, content_type = _STATIC[path]
            self._send(HTTPStatus.OK, files(__package__).joinpath(name).read_bytes(), content_type)
        elif path == "/api/presets":
            self._send(HTTPStatus.OK, self.server.presets)
        elif path == "/favicon.ico":  # (none: said without an error in the browser's console)
            self.send_response(HTTPStatus.NO_CONTENT)
            self.end_headers()
        else:
            self._error(HTTPStatus.NOT_FOUND, f"no such page: {path[:100]}")

    def do_POST(self):
        if not self._host_allowed():
            self.close_connection = True  # (the body is not read)
            return
        route = self._posts.get(self.path)
        if route is None:
            self._error(HTTPStatus.NOT_FOUND, f"no such endpoint: {self.path[:100]}")
            return
        if self.headers.get_content_type() != "application/json":
            # (other sites' pages cannot send JSON here without a CORS preflight, which fails)
            self._error(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send the request as application/json")
            return
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self._error(HTTPStatus.LENGTH_REQUIRED, "the request needs a Content-Length")
            return
        if not 0 <= length <= MAX_BODY_BYTES:
            self.close_connection = True  # (the body is not read)
            self._error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                        f"the request holds {length} bytes: the toy takes at most {MAX_BODY_BYTES}")
            return
        try:
            body = json.loads(self.rfile.read(length))
        except (ValueError, UnicodeDecodeError):
            self._error(HTTPStatus.BAD_REQUEST, "the request is not JSON")
            return
        try:
            self._send(HTTPStatus.OK, route(body))
        except (RequestError, ValueError) as error:
            self._error(HTTPStatus.BAD_REQUEST, str(error))
        except Exception as error:  # (a defect: answered, and logged with its traceback here)
            logger.exception("toy: %s failed", self.path)
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"internal error ({type(error).__name__}: {error})")


def _warm_up():
    """Compile (or load from numba's cache) what a first click would otherwise wait for:
    every svm type and kernel on a small problem, and three classes (nothing to do when
    ``NUMBA_DISABLE_JIT=1`` runs the solver as Python)."""
    import numba

    if numba.config.DISABLE_JIT:
        return

    rng = np.random.RandomState(0)
    X = rng.uniform(-1, 1, size=(60, 2))
    labels = np.where(X[:, 0] > 0, 1, -1)
    two = [[a, b, int(c)] for (a, b), c in zip(X.tolist(), labels)]
    three = [[a, b, int(c) if a < 0.5 else 2] for a, b, c in two]
    view = {"view": [-1, 1, -1, 1], "resolution": [20, 20], "dim": 2}
    for svm_type in range(5):
        for kernel in range(4):
            answer(parse_request({"options": f"-s {svm_type} -t {kernel}", "points": two, **view}))
    answer(parse_request({"options": "-t 2", "points": three, **view}))
    answer(parse_request({"options": "-t 0 -c inf", "points": two, **view}))


class ToyServer(ThreadingHTTPServer):
    """The toy's server; :meth:`warm_up` compiles the solver in a thread while the page loads
    (a fit waits for it)."""

    daemon_threads = True

    def __init__(self, address):
        super().__init__(address, ToyHandler)
        self.presets = presets()

    @property
    def url(self):
        host, port = self.server_address[:2]
        return f"http://{'[' + host + ']' if ':' in host else host}:{port}/"

    def warm_up(self):
        """Start the warm-up; returns its thread."""
        ready = threading.Event()

        def run():
            with FIT_LOCK:
                ready.set()
                _warm_up()

        thread = threading.Thread(target=run, name="svmkit-toy-warm-up", daemon=True)
        thread.start()
        ready.wait()
        return thread
