"""The size of svmkit's compiled code: numba-compiled functions, their modules, the longest signatures.

Usage::

    python benchmarks/code_size.py [src/svmkit]
"""

import ast
import pathlib
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[1] / "src" / "svmkit")
funcs = []
for path in sorted(root.rglob("*.py")):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            names = []
            for d in node.decorator_list:
                f = d.func if isinstance(d, ast.Call) else d
                names.append(ast.unparse(f))
            if any("jit" in n or n.endswith("njit") or "vectorize" in n for n in names):
                a = node.args
                n_params = len(a.args) + len(a.kwonlyargs) + len(a.posonlyargs)
                funcs.append((str(path.relative_to(root)), node.name, n_params))
mods = {f[0] for f in funcs}
print(len(funcs), "compiled functions in", len(mods), "modules")
longest = sorted(funcs, key=lambda f: -f[2])[:5]
print("longest signatures:", longest)
print("functions with >= 15 parameters:", sum(f[2] >= 15 for f in funcs))
