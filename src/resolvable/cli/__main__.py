"""``python -m resolvable.cli``: the same entry point as the ``resolvable`` command."""

import sys

from . import main

sys.exit(main())
