"""The ``svmkit`` command line."""

import argparse
import sys

from .demo import run_demo


def _demo(args):
    print(run_demo(C=args.C, random_state=args.seed))
    return 0


def build_parser():
    """The argument parser of the ``svmkit`` command."""
    parser = argparse.ArgumentParser(prog="svmkit", description="Support vector machines that show their theory.")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="train an RBF SVM on the bundled heart_scale data and report on it")
    demo.add_argument("-c", dest="C", type=float, default=1.0, help="the penalty C (default 1)")
    demo.add_argument("--seed", type=int, default=0, help="seed of the train/test split (default 0)")
    demo.set_defaults(handler=_demo)
    return parser


def main(argv=None):
    """Entry point of the ``svmkit`` console script."""
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except (ValueError, OSError) as error:
        print(f"svmkit: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
