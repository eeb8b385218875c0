"""The README's Python examples run as doctests: every ```python block of README.md, in order,
in one namespace (a block without ``>>>`` prompts is run as a script)."""

import doctest
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", README.read_text(), flags=re.MULTILINE | re.DOTALL)


def test_the_readme_has_python_examples():
    assert len(BLOCKS) >= 2 and sum(">>> " in block for block in BLOCKS) >= 2


def test_readme_examples_run():
    namespace = {}
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    parser = doctest.DocTestParser()
    for number, block in enumerate(BLOCKS, 1):
        if ">>> " not in block:
            block = "".join(f">>> {line}\n" if not line.startswith((" ", "\t")) or not line.strip() else f"... {line}\n"
                            for line in block.splitlines())
        test = parser.get_doctest(block, namespace, f"README.md python block {number}", str(README), 0)
        runner.run(test, clear_globs=False)
        namespace.update(test.globs)  # (a DocTest runs on a copy of the names it is given)
    assert runner.failures == 0 and runner.tries > 0, f"{runner.failures} of {runner.tries} README examples failed"
