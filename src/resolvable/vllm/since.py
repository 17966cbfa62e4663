"""What made a resolved field change between two vLLM releases, for ``resolvable upgrade``.

Invariant: a field's change is attributed to a named change (``resolvable.vllm.changes``) only
when the rule that decided the new value read it (a traced ``release:`` input that was present)
and the change arrived after the old release and by the new one; otherwise nothing is claimed.
Every such change the deciding rule read is named, oldest first (across a long upgrade several
can gate one value: 0.20.0 -> 0.34.0 capture sizes read changes of 0.20.1 and 0.31.0).
The release-gated reads are those of vLLM's own code paths that ``vllm/changes.py`` cites.
"""

from __future__ import annotations

import re
from typing import Any


def change_since(res: Any, field: str, old: str, new: str) -> str | None:
    """``"0.34.0 (NAME)"``: the named change behind ``field``'s value in ``res`` (resolved with
    ``trace=True`` on release ``new``) that arrived after ``old``; None when none is known."""
    from ..rules import release_key
    from .changes import CHANGES

    steps = res.explain(field).steps
    if not steps:
        return None
    found = []
    for key, present in steps[-1].inputs:
        match = re.search(r"\((\w+),", str(key)) if str(key).startswith("release: ") else None
        if match and present and match.group(1) in CHANGES:
            change = CHANGES.get(match.group(1))
            if release_key(old) < release_key(change.since) <= release_key(new) and change not in found:
                found.append(change)
    found.sort(key=lambda c: release_key(c.since))
    return "; ".join(f"{c.since} ({c.name})" for c in found) or None
