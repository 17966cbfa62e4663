"""`resolvable upgrade`: what moving one launch from one sglang release to another changes.

Invariant: both sides resolve the same model, platform, flags and environment; only the release
differs, so every change listed is the upgrade's doing, shown with the rule on each side and the
release range of the rule that decides the new value.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from .._text import table
from ..errors import ConflictError
from ._common import UsageError, _header, _resolve, pack, release_of_rule, side_of, user_flags_for


def _side(args: argparse.Namespace, version: str) -> tuple[Any, ConflictError | None, dict[str, Any]]:
    """(resolution, refusal, user flags) of the launch on ``version``, its flags read with that
    release's flag table: a flag the release does not have is that side's refusal."""
    side, refusal = side_of(args, version)
    if side is None:
        return None, refusal, {}
    user = user_flags_for(side, version)
    try:
        return _resolve(side, side.platform, user, version=version), None, user
    except ConflictError as exc:
        return None, exc, user


def default_versions(from_version: str | None, to_version: str | None) -> tuple[str, str]:
    """(from, to): ``to`` defaults to the newest supported release; ``from`` to the installed
    sglang's release when one is installed and modelled, else the supported release before ``to``."""
    sglang = pack("sglang")
    to = sglang.release(to_version)
    if from_version is not None:
        return sglang.release(from_version), to
    installed = sglang.installed_version()
    if installed is not None:
        return sglang.release(installed), to
    releases = sglang.releases
    earlier = [r for r in releases if releases.index(r) < releases.index(to)]
    return (earlier[-1] if earlier else to), to


def _refusal(exc: ConflictError) -> dict[str, Any]:
    return {"message": exc.message, "fix": exc.fix, "rule": exc.rule, "location": exc.location}


def print_upgrade_json(
    model: str,
    versions: tuple[str, str],
    sides: tuple[Any, Any],
    refusals: tuple[ConflictError | None, ConflictError | None],
    changes: list[dict[str, Any]],
    engine: str | None = None,
) -> int:
    """``upgrade --json`` for either engine (``engine`` is named for packs other than sglang)."""
    data: dict[str, Any] = {"schema": "resolvable.upgrade/1"}
    if engine is not None:
        data["engine"] = engine
    data.update(
        model=model,
        **{"from": versions[0], "to": versions[1]},
        outcome={side: "refused" if res is None else "accepted" for side, res in zip(("from", "to"), sides)},
        refusal={side: _refusal(exc) if exc else None for side, exc in zip(("from", "to"), refusals)},
        changes=changes,
    )
    print(json.dumps(data, indent=2, default=repr))
    return 0


def cmd_upgrade(args: argparse.Namespace, ignored: list[str]) -> int:
    if getattr(args, "sglang_version", None) is not None:
        raise UsageError("upgrade takes --from VERSION and --to VERSION, not --sglang-version")
    old_version, new_version = default_versions(args.from_version, args.to_version)
    if old_version == new_version:
        raise UsageError(
            f"--from and --to are both sglang {new_version}; name the release you run now with --from"
        )
    old, old_refusal, old_user = _side(args, old_version)
    new, new_refusal, new_user = _side(args, new_version)
    user = new_user if new is not None else old_user
    changes = []
    if old is not None and new is not None:
        for c in old.diff(new):
            rule, location = new.decided_by(c.field)
            changes.append({**c.to_dict(), "since": release_of_rule(rule, location or "", new)})
    if args.json:
        return print_upgrade_json(
            args.model, (old_version, new_version), (old, new), (old_refusal, new_refusal), changes
        )
    shown = new or old
    if shown is not None:
        shown_args, _ = side_of(args, new_version if new is not None else old_version)
        header = _header(shown, shown_args or args, user)
        print("\n".join(line for line in header if not line.startswith("rules ")))
    print(f"upgrade   sglang {old_version} → {new_version}")
    print()
    print(_verdict(new_version, old_refusal, new_refusal, changes))
    if len(changes) > 1:
        rows = [
            [
                c["field"],
                repr(c["before"]),
                repr(c["after"]),
                c["decided_after"],
                c["since"] or "all releases",
            ]
            for c in changes
        ]
        print()
        print(
            table(["field", old_version, new_version, f"decided on {new_version} by", "rule applies"], rows)
        )
    return 0


def _verdict(
    new_version: str,
    old_refusal: ConflictError | None,
    new_refusal: ConflictError | None,
    changes: list[dict[str, Any]],
    engine: str = "sglang",
) -> str:
    lead = f"your launch on {new_version}:"
    if old_refusal is None and new_refusal is None:
        if not changes:
            return f"{lead} nothing changes; still accepted"
        if len(changes) == 1:
            c = changes[0]
            since = f", {engine} {c['since']}" if c["since"] else ""
            return (
                f"{lead} {c['field']} {c['before']!r} → {c['after']!r} (rule {c['decided_after']}{since}); "
                "still accepted"
            )
        return f"{lead} {len(changes)} fields change (below); still accepted"
    if new_refusal is not None and old_refusal is None:
        fix = f"\n  fix: {new_refusal.fix}" if new_refusal.fix else ""
        return f"{lead} REFUSED by {new_refusal.rule} ({new_refusal.location}):\n  {new_refusal.message}{fix}"
    if new_refusal is None:
        return f"{lead} accepted (it was refused before: {old_refusal.message if old_refusal else ''})"
    if old_refusal is not None and new_refusal.message != old_refusal.message:
        return f"{lead} still refused, for another reason: {new_refusal.message} (was: {old_refusal.message})"
    return f"{lead} still refused: {new_refusal.message}"
