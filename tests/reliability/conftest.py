"""Shared setup of the reliability suite.

The helper module ``reliability_strategies`` lives next to the tests; it is put on
``sys.path`` here so the suite imports it under any pytest import mode.
"""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
