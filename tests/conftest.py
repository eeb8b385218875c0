import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture
def shared_data():
    """The folder of real datasets beside the repository; skips the test when absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA


@pytest.fixture(scope="module")
def toy_server():
    """An ``svmkit toy`` server on 127.0.0.1 and a free port, serving on a thread."""
    from svmkit.toy import make_server

    server = make_server()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


_SLOW_WITHOUT_JIT = frozenset(
    line.strip() for line in (Path(__file__).parent / "slow_without_jit.txt").read_text().splitlines()
    if line.strip() and not line.startswith("#")
)


def pytest_collection_modifyitems(config, items):
    """Mark ``slow`` the tests listed in ``slow_without_jit.txt``."""
    for item in items:
        if item.nodeid in _SLOW_WITHOUT_JIT:
            item.add_marker(pytest.mark.slow)
