"""Checked fixes for the SGLang pack: a refusal's ``fix`` is tried by resolving again.

Invariant: the same inputs the refusal saw (config, platform, env, user flags), changed only
by what the fix names; SGLang's flag aliases (``--tp``, ``--mamba-scheduler-strategy`` …) are
understood in fix texts. See ``resolvable._fixes`` for the search.
"""

from __future__ import annotations

from collections.abc import Mapping

from .._fixes import FixCheck, check_fix
from .._platform import Platform
from .._schema import schema_of
from ..errors import ConflictError
from .api import resolve_server_args
from .args import ALIASES, ServerArgs

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any


def check_refusal(
    exc: ConflictError,
    hf: Any,
    platform: Platform,
    env: Mapping[str, str] | None = None,
    user: Mapping[str, Any] | None = None,
) -> FixCheck:
    """Check ``exc.fix`` for the inputs ``exc`` refused (``user``: the flags as field → value)."""
    model_path = (user or {}).get("model_path")
    user = {k: v for k, v in (user or {}).items() if k != "model_path"}

    def attempt(u: Mapping[str, Any], e: Mapping[str, str]) -> Any:
        return resolve_server_args(hf, platform, e, model_path, **u)

    return check_fix(exc, attempt, user, env, schema_of(ServerArgs), aliases=ALIASES)


def with_checked_fix(
    exc: ConflictError,
    hf: Any,
    platform: Platform,
    env: Mapping[str, str] | None = None,
    user: Mapping[str, Any] | None = None,
) -> ConflictError:
    """``exc`` with ``fix`` replaced by the checked fix and ``fix_check`` set (returned for ``raise``)."""
    if exc.fix_check is None:
        check = check_refusal(exc, hf, platform, env, user)
        exc.fix_check = check
        exc.fix = check.text
    return exc
