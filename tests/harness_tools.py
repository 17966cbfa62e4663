"""Loading an agreement harness script (``tools/agreement*/…``) into a test, by file path.

Both harnesses name their sibling modules alike (``compare``, ``generate``, ``pack_adapter``,
``stand_ins``, ``real_launches``) and import them by bare name, so a test that loads one harness
must not leave those names in ``sys.modules`` for a test that loads the other. Invariant: after
``load_tool`` returns, ``sys.modules`` holds exactly the sibling entries it held before.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]

#: module names both agreement harnesses use for their own siblings (compare.py, generate.py …)
_SIBLINGS = ("compare", "generate", "pack_adapter", "stand_ins", "real_launches")


def load_tool(name: str, relative_path: str) -> ModuleType:
    """The script at ``ROOT / relative_path`` as module ``name``, its siblings imported fresh and
    then taken out of ``sys.modules`` again."""
    saved = {n: sys.modules.pop(n) for n in _SIBLINGS if n in sys.modules}
    spec = importlib.util.spec_from_file_location(name, ROOT / relative_path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {relative_path}")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    finally:
        for n in _SIBLINGS:
            sys.modules.pop(n, None)
        sys.modules.update(saved)
    return module
