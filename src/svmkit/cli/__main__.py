"""``python -m svmkit.cli``: the ``svmkit`` command."""

import sys

from . import main

sys.exit(main())
