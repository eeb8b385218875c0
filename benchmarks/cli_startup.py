"""Start-up of the command line: ``svmkit --help``, ``svmkit scale`` and ``svmkit train`` against LIBSVM.

Each command runs as a fresh process (as a shell script or grid.py runs it), several times;
the median wall time is reported. ``svmkit train`` and ``svm-train`` train the default RBF
C-SVC on heart_scale (the copy shipped with svmkit) and write the model to a temporary
folder; one untimed run first fills numba's cache, so the times are warm. The targets of
issue 64: ``svmkit --help`` at most 0.3 s, ``svmkit train`` at most twice ``svm-train``'s
time plus 0.3 s. ``svm-train`` and ``svm-scale`` (Debian's libsvm-tools) are skipped where
they are not installed. The imports that any ``svmkit train`` needs (Python with NumPy, numba,
scikit-learn's ``sklearn.base``, on which every estimator is built) are timed alone as the
floor under ``svmkit train``.

Usage::

    python benchmarks/cli_startup.py [--runs 7] [--json benchmarks/results/cli_startup.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.resources import files
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import library_versions, source_commit  # noqa: E402

HEART_SCALE = str(files("svmkit.datasets") / "heart_scale")


def _wall_times(command, runs, folder):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, cwd=folder, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs of each command (default 7)")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args()
    svmkit = [sys.executable, "-m", "svmkit.cli"]
    commands = {
        "svmkit --help": [*svmkit, "--help"],
        "svmkit train -q heart_scale": [*svmkit, "train", "-q", HEART_SCALE, "svmkit.model"],
        "svmkit scale heart_scale": [*svmkit, "scale", HEART_SCALE],
        "python -c 'import numpy'": [sys.executable, "-c", "import numpy"],
        "python -c 'import numba'": [sys.executable, "-c", "import numba"],
        "python -c 'import sklearn.base'": [sys.executable, "-c", "import sklearn.base"],
    }
    if shutil.which("svm-train"):
        commands["svm-train -q heart_scale"] = ["svm-train", "-q", HEART_SCALE, "libsvm.model"]
    if shutil.which("svm-scale"):
        commands["svm-scale heart_scale"] = ["svm-scale", HEART_SCALE]
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(commands["svmkit train -q heart_scale"], cwd=folder, check=True)  # (fills numba's cache)
        for name, command in commands.items():
            times = _wall_times(command, args.runs, folder)
            results[name] = {"median_s": statistics.median(times), "min_s": min(times), "runs": args.runs}
            print(f"{name:32s} median {results[name]['median_s']:.3f} s  (min {results[name]['min_s']:.3f} s)")
    targets = {"svmkit --help <= 0.3 s": results["svmkit --help"]["median_s"] <= 0.3}
    if "svm-train -q heart_scale" in results:
        limit = 2 * results["svm-train -q heart_scale"]["median_s"] + 0.3
        targets[f"svmkit train <= 2 x svm-train + 0.3 s = {limit:.3f} s"] = (
            results["svmkit train -q heart_scale"]["median_s"] <= limit)
        targets[f"import sklearn.base alone <= {limit:.3f} s"] = (
            results["python -c 'import sklearn.base'"]["median_s"] <= limit)
    for target, met in targets.items():
        print(f"{target}: {'met' if met else 'NOT met'}")
    if args.json:
        record = {
            "benchmark": "cli_startup",
            "command": "python benchmarks/cli_startup.py " + " ".join(sys.argv[1:]),
            "date": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "machine": f"{platform.processor() or platform.machine()}; os.cpu_count()={os.cpu_count()}; "
                       f"load average {os.getloadavg()[0]:.2f}; Python {platform.python_version()}",
            "versions": library_versions(),
            "commit": source_commit(Path(__file__).parent),
            "results": results,
            "targets": targets,
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
