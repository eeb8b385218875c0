"""``svmkit toy``: LIBSVM's svm-toy in the browser, with the theory visible.

A local server (Python's standard library, nothing to install) serves one page:
click points of up to three classes (or of one kind, for one-class and
regression), choose a kernel and its parameters or type a LIBSVM option
string, train with svmkit, and see the decision regions, the boundary
``f(x) = 0``, the margins ``f(x) = +1`` and ``-1``, the support vectors ringed by
KKT category, each point's ``alpha``, ``mu = C - alpha``, ``xi`` and ``y f(x)``,
and the margin, objectives, duality gap, support vectors, leave-one-out bound
and fit time of the fitted model.
"""

from __future__ import annotations

import webbrowser

from ._request import RequestError, parse_options, parse_request
from ._server import ToyServer, read_data_file

__all__ = ["RequestError", "ToyServer", "make_server", "parse_options", "parse_request", "read_data_file", "serve"]


def make_server(host="127.0.0.1", port=0):
    """A :class:`ToyServer` listening on ``host:port`` (port 0: a free one), warming up.

    Examples
    --------
    >>> server = make_server()
    >>> server.url.startswith("http://127.0.0.1:")
    True
    >>> server.server_close()
    """
    server = ToyServer((host, port))
    server.warm_up()
    return server


def serve(host="127.0.0.1", port=0, open_browser=True):
    """Serve the toy until interrupted (Ctrl-C), opening it in a browser unless told not to."""
    server = make_server(host, port)
    print(f"svmkit toy: serving on {server.url} (Ctrl-C to stop)", flush=True)
    if open_browser:
        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
