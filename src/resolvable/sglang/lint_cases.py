"""The cases ``resolvable lint`` resolves for the SGLang pack (``Pack.lint_attempts``).

For one release: the grid (bundled models × presets × flag variants, ``grid.grid_cases``), each
resolved with the start-up checks run too (a check that crashes is a finding; a start-up refusal
is not: the ServerArgs resolution is what lint inspects), and the explicit-choice sweep: every
field a rule declared in a default cell, set by the user to another valid value (a rule that
declares over it without ``Force`` is a silent override). Invariants: standard library only; an
attempt is a ``(label, thunk)`` pair that resolves when called, never before.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from ..errors import ConflictError


def lint_attempts(pack: Any, release: str) -> list[tuple[str, Callable[[], Any]]]:
    """``(label, thunk)`` of every case of ``release`` (label ``model@preset:variant@release``)."""
    check_startup, resolve_server_args = pack.check_startup, pack.resolve_server_args

    def with_startup(res: Any, hf: Any) -> Any:
        with contextlib.suppress(ConflictError):
            check_startup(res, hf)
        return res

    attempts: list[tuple[str, Callable[[], Any]]] = [
        (
            f"{m}@{p}:{v}@{release}",
            (
                lambda hf=hf, pl=pl, fl=fl, r=release: with_startup(
                    resolve_server_args(hf, pl, sglang_version=r, **fl), hf
                )
            ),
        )
        for m, p, v, hf, pl, fl in pack.grid_cases()
    ]
    for m, p, _, hf, pl, _ in pack.grid_cases(variants={"default": {}}):
        try:
            base = resolve_server_args(hf, pl, load_time=False, sglang_version=release)
        except ConflictError:
            continue
        for user in pack.explicit_variants(base):
            label = f"{m}@{p}:" + ",".join(f"{k}={v}" for k, v in user.items() if k != "model_path")
            attempts.append(
                (
                    f"{label}@{release}",
                    lambda hf=hf, pl=pl, user=user, r=release: resolve_server_args(
                        hf, pl, sglang_version=r, **user
                    ),
                )
            )
    return attempts


def lint_architectures(pack: Any) -> list[str]:
    """The architectures a rule predicate may name: the grid models' and the registry's own."""
    return sorted(
        {a for m in pack.grid_models() for a in pack.bundled(m).architectures} | pack.registry.architectures()
    )
