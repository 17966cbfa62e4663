"""Checked fixes for the SGLang pack: a refusal's ``fix`` is tried by resolving again.

Invariant: the same inputs the refusal saw (config, platform, env, user flags), changed only
by what the fix names; SGLang's flag aliases (``--tp``, ``--mamba-scheduler-strategy`` …) are
understood in fix texts. See ``resolvable._fixes`` for the search.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import ConflictError
from ..rules import FixCheck, Platform, check_fix, schema_of
from .api import resolve_server_args
from .args import ServerArgs

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any


def flag_aliases() -> dict[str, tuple[str, ...]]:
    """Every option string of each modelled field (``--tp-size``, ``--tensor-parallel-size`` …),
    from the release's flag table: one source, no second hand-kept list."""
    from .flags import load_table, modelled_dests

    modelled = modelled_dests()
    out: dict[str, tuple[str, ...]] = {}
    for flag in load_table():
        if flag.dest in modelled:
            out[flag.dest] = (*out.get(flag.dest, ()), *flag.options)
    return out


def check_refusal(
    exc: ConflictError,
    hf: Any,
    platform: Platform,
    env: Mapping[str, str] | None = None,
    user: Mapping[str, Any] | None = None,
    *,
    sglang_version: str | None = None,
) -> FixCheck:
    """Check ``exc.fix`` for the inputs ``exc`` refused (``user``: the flags as field → value),
    in the same sglang release, with the start-up checks on: a fix that ServerArgs accepts but
    sglang refuses when it builds the backends (an ``ascend`` backend on a B200) is not proposed."""
    model_path = (user or {}).get("model_path")
    user = {k: v for k, v in (user or {}).items() if k != "model_path"}

    def attempt(u: Mapping[str, Any], e: Mapping[str, str]) -> Any:
        return resolve_server_args(
            hf, platform, e, model_path, startup=True, sglang_version=sglang_version, **u
        )

    return check_fix(exc, attempt, user, env, schema_of(ServerArgs), aliases=flag_aliases())


def with_checked_fix(
    exc: ConflictError,
    hf: Any,
    platform: Platform,
    env: Mapping[str, str] | None = None,
    user: Mapping[str, Any] | None = None,
    *,
    sglang_version: str | None = None,
) -> ConflictError:
    """``exc`` with ``fix`` replaced by the checked fix and ``fix_check`` set (returned for ``raise``)."""
    if exc.fix_check is None:
        check = check_refusal(exc, hf, platform, env, user, sglang_version=sglang_version)
        exc.fix_check = check
        exc.fix = check.text
    return exc
