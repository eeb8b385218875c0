"""The ``svmkit`` command line.

``svmkit train``, ``predict``, ``scale`` and ``grid`` take the options of
LIBSVM's ``svm-train``, ``svm-predict``, ``svm-scale`` and ``tools/grid.py``
and read and write the same files, so ``svm-train -c 4 -g 0.5 data model``
becomes ``svmkit train -c 4 -g 0.5 data model``. Where LIBSVM's semantics
differ from scikit-learn's, the commands follow LIBSVM: model files list the
labels in the order of their first appearance in the training data,
``predict -b 1`` gives two classes the Platt sigmoid itself, ``train -b 1``
fits the probability models of one-class SVMs and regressions, and ``train
-v`` forms LIBSVM's folds with glibc's ``rand()`` as svm-train draws it. ``svmkit demo``
trains on the bundled heart_scale data and reports the theory of the fitted
model; ``svmkit toy`` serves LIBSVM's svm-toy as a local web page.

Errors (a missing file, a malformed line, a bad option value) end the
command with exit status 1 and one line ``svmkit: error: ...`` on stderr,
naming the file and line where there is one. The command imports NumPy,
the solver and scikit-learn only when a command needs them, so ``--help``
and a bad command line answer at once.
"""

import sys

from ._grid import GRID_USAGE, grid
from ._options import UsageError
from ._predict import PREDICT_USAGE, predict
from ._scale import SCALE_USAGE, scale
from ._train import KERNELS, SVM_TYPES, TRAIN_USAGE, train

__all__ = [
    "GRID_USAGE",
    "KERNELS",
    "LIBSVM_COMMANDS",
    "PREDICT_USAGE",
    "SCALE_USAGE",
    "SVM_TYPES",
    "TRAIN_USAGE",
    "UsageError",
    "build_parser",
    "grid",
    "main",
    "predict",
    "scale",
    "train",
]

#: The commands with LIBSVM's option syntax (``-h`` is svm-train's shrinking,
#: ``-w-1`` a weight), parsed by :func:`._options._parse` rather than argparse.
LIBSVM_COMMANDS = {
    "train": (train, "train an SVM on a LIBSVM data file (LIBSVM's svm-train)"),
    "predict": (predict, "predict a LIBSVM data file with a model file (LIBSVM's svm-predict)"),
    "scale": (scale, "scale a LIBSVM data file to [-1, 1] (LIBSVM's svm-scale)"),
    "grid": (grid, "choose C and gamma by cross-validation (LIBSVM's tools/grid.py)"),
}


def _demo(args):
    from ..demo import run_demo

    print(run_demo(C=args.C, random_state=args.seed))
    return 0


def _port(text):
    """A TCP port number, 0 (a free one) to 65535."""
    import argparse

    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number from 0 to 65535, got {text!r}")
    return port


def _toy(args):
    from ..toy import serve

    return serve(args.host, args.port, open_browser=not args.no_browser)


def build_parser():
    """The argument parser of the ``svmkit`` command.

    It runs ``demo`` and lists every command in ``svmkit --help``; ``main``
    hands the LIBSVM-style commands to their own parser.
    """
    import argparse

    parser = argparse.ArgumentParser(prog="svmkit", description="Support vector machines that show their theory.")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, (_, summary) in LIBSVM_COMMANDS.items():
        commands.add_parser(name, help=f"{summary}; see svmkit {name} --help", add_help=False)
    demo = commands.add_parser("demo", help="train an RBF SVM on the bundled heart_scale data and report on it")
    demo.add_argument("-c", dest="C", type=float, default=1.0, help="the penalty C (default 1)")
    demo.add_argument("--seed", type=int, default=0, help="seed of the train/test split (default 0)")
    demo.set_defaults(handler=_demo)
    toy = commands.add_parser("toy", help="LIBSVM's svm-toy in the browser, with the theory visible")
    toy.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1, this machine only)")
    toy.add_argument("--port", type=_port, default=0, help="port to listen on (default: a free one)")
    toy.add_argument("--no-browser", action="store_true", help="print the address without opening a browser")
    toy.set_defaults(handler=_toy)
    return parser


def _message(error):
    if isinstance(error, OSError) and error.filename is not None:
        return f"can't open file {error.filename}: {error.strerror}"
    return str(error).replace("\n", " ")


def main(argv=None):
    """Entry point of the ``svmkit`` console script.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name; ``sys.argv[1:]`` by default.

    Returns
    -------
    int
        The exit status: 0 on success, 1 on an error.

    Examples
    --------
    Five-fold cross-validation of an RBF C-SVC (``svm-train -v 5 -q``) on the
    bundled heart_scale data:

    >>> from importlib.resources import files
    >>> from svmkit.cli import main
    >>> main(["train", "-q", "-v", "5", str(files("svmkit.datasets") / "heart_scale")])
    Cross Validation Accuracy = 82.963%
    0
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in LIBSVM_COMMANDS:
        command = LIBSVM_COMMANDS[argv[0]][0]
        try:
            return command(argv[1:])
        except (ValueError, OSError) as error:
            print(f"svmkit: error: {_message(error)}", file=sys.stderr)
            return 1
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except (ValueError, OSError) as error:
        print(f"svmkit: error: {error}", file=sys.stderr)
        return 1
