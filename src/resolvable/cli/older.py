"""Releases the packs parse but do not resolve: the release listing, the parse-only answer, and
``upgrade --from`` such a release (issue 32 item 2).

Invariants:

* a parse-only release (``Pack.parse_only_releases``: vLLM 0.11.0–0.20.2, sglang
  0.5.1–0.5.9) is never resolved: ``explain``/``resolve`` of one parses the pasted command
  with that release's own flags and says so plainly, exit code 3 (``EXIT_PARSED_ONLY``: known
  release, command read, nothing resolved; not an error). A flag that release refuses is a usage
  error (2), as for a modelled release;
* ``upgrade --from OLD`` with a parse-only ``OLD`` lists every flag of the launch that was
  removed or renamed on the way to ``--to``, with its replacement and where that is named
  (``Pack.removed_between``), then every other flag removed on the way; exit code 0;
* the engine's own knowledge (tables, replacements, the command parser) is the pack's; this module
  only picks the release and prints.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .. import packs
from .._text import table
from ._common import UsageError

#: Exit code of explain/resolve on a parse-only release: the command was read with that release's
#: flags, and nothing was resolved.
EXIT_PARSED_ONLY = 3

_LAUNCH = ("explain", "resolve")


def _option(argv: Sequence[str], name: str) -> str | None:
    for i, token in enumerate(argv):
        key, eq, value = token.partition("=")
        if key == name:
            return value if eq else (argv[i + 1] if i + 1 < len(argv) else None)
    return None


def _named(pack: Any, text: str | None) -> str | None:
    """The parse-only release ``text`` names (``v`` prefix allowed), or None."""
    if text is None:
        return None
    text = text.strip().lstrip("vV")
    return text if text in pack.parse_only_releases() else None


def tag_release(pack: Any, tag: str | None) -> str | None:
    """The parse-only release a docker image tag names (``v0.5.5.post3-cu126`` → 0.5.5.post3)."""
    if tag is None or tag == "latest":
        return None
    from ..flag_history import release_of_tag

    return _named(pack, release_of_tag(tag))


def hook(pack: Any, argv: Sequence[str], command: Any) -> int | None:
    """Answer ``argv`` when it names a parse-only release of ``pack`` (``--<engine>-version``, the
    pasted image's tag, or ``upgrade --from``); None otherwise (the usual front-end runs)."""
    words = list(argv)
    if words[:1] == ["--engine"]:  # `resolvable --engine vllm explain ...`
        words = words[2:]
    elif words[:1] and words[0].startswith("--engine="):
        words = words[1:]
    if not words:
        return None
    sub = words[0]
    if sub == "upgrade":
        old = _named(pack, _option(argv, "--from"))
        if old is None:
            return None
        return upgrade(pack, old, _option(argv, "--to"), command, "--json" in argv)
    if sub not in _LAUNCH:
        for option in (pack.release_option, "--vs-" + pack.release_option[2:]):
            named = _named(pack, _option(argv, option))
            if named is not None:
                raise UsageError(
                    f"{pack.title} {named} is parse-only (its flags are known, no rule resolves it): "
                    f"`{sub}` needs a resolved one (supported releases: {', '.join(pack.releases)}); "
                    f"`explain` reads a pasted {named} command, `upgrade --from {named}` names its "
                    "removed flags"
                )
        return None
    release = _named(pack, _option(argv, pack.release_option)) or tag_release(
        pack, getattr(command, "tag", None)
    )
    if release is None:
        return None
    return parsed_only(pack, release, command, "--json" in argv)


def _words(pack: Any, release: str, command: Any) -> list[str]:
    if command is None or not getattr(command, "words", None):
        raise UsageError(
            f"{pack.title} {release} is parse-only (its flags are known, its launch is not resolved): "
            f"paste its launch command after `--` to have it read with {release}'s own flags"
        )
    return list(command.words)


def _show(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def parsed_only(pack: Any, release: str, command: Any, as_json: bool) -> int:
    """explain/resolve on a parse-only release: the flags read, and that nothing was resolved."""
    model, passed = pack.read_release_flags(_words(pack, release, command), release)
    resolved = pack.releases
    if as_json:
        print(
            json.dumps(
                {
                    "schema": "resolvable.parse-only/1",
                    "engine": pack.name,
                    "release": release,
                    "resolved": False,
                    "model": model,
                    "flags": [{"option": o, "dest": d, "value": v} for o, d, v in passed],
                    "resolved_releases": list(resolved),
                },
                indent=2,
                default=repr,
            )
        )
        return EXIT_PARSED_ONLY
    print(f"{pack.title} {release}: parsed, not resolved")
    print(
        f"  resolvable reads {release}'s own flags (its flag table from the wheel) but resolves "
        f"{pack.title} {resolved[0]} … {resolved[-1]} only."
    )
    print(f"  model   {model or '(none named)'}")
    for option, _dest, value in passed:
        print(f"  flag    {option}" + ("" if value is True else f" {_show(value)}"))
    print(
        f"  next    resolvable upgrade --from {release} --to {resolved[-1]} -- <command>: the flags "
        "removed or renamed on the way, and the launch on a resolved release"
    )
    return EXIT_PARSED_ONLY


def upgrade(pack: Any, old: str, to: str | None, command: Any, as_json: bool) -> int:
    """``upgrade --from OLD`` a parse-only release: the flags removed or renamed on the way."""
    new = pack.release(to)
    changes = pack.removed_between(old, new)
    used: set[str] = set()
    model = None
    if command is not None and getattr(command, "words", None):
        model, passed = pack.read_release_flags(list(command.words), old)
        used = {option.split("=", 1)[0] for option, _, _ in passed}
    yours = [c for c in changes if c.option in used]
    if as_json:
        print(
            json.dumps(
                {
                    "schema": "resolvable.upgrade-flags/1",
                    "engine": pack.name,
                    "from": old,
                    "to": new,
                    "from_resolved": False,
                    "model": model,
                    "launch_flags_removed": [c.to_dict() for c in yours],
                    "flags_removed": [c.to_dict() for c in changes],
                },
                indent=2,
            )
        )
        return 0
    print(f"upgrade   {pack.title} {old} → {new}")
    print(
        f"  {old} is parse-only: its flags are read, its launch is not resolved, so no value change "
        "can be attributed; the flags are."
    )
    if command is not None and getattr(command, "words", None):
        print()
        if yours:
            print(f"flags of your launch removed or renamed on the way ({len(yours)}):")
            print(_rows(yours))
        else:
            print(f"none of your launch's flags was removed or renamed between {old} and {new}")
    others = [c for c in changes if c.option not in used]
    print()
    print(f"every other flag of {old} that {new} does not accept ({len(others)}):")
    print(_rows(others) if others else "  (none)")
    print()
    print(f"next: resolvable explain {pack.release_option} {new} -- <the command with the replacements>")
    return 0


def _rows(changes: Sequence[Any]) -> str:
    rows = [[c.option, c.removed_in, c.replacement or "(none named: drop it)", c.source] for c in changes]
    return table(["flag", "removed in", "replacement", "named by"], rows)


def cmd_releases(argv: Sequence[str]) -> int:
    """``resolvable releases [--engine NAME] [--json]``: every release each pack knows."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="resolvable releases", description="the releases each engine pack resolves or parses"
    )
    parser.add_argument("--engine", choices=packs.names(), help="one engine (default: every pack)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(list(argv))
    names = [args.engine] if args.engine else list(packs.names())
    data = {}
    for name in names:
        pack = packs.get(name)
        data[name] = {"resolved": list(pack.releases), "parse_only": list(pack.parse_only_releases())}
    if args.json:
        print(json.dumps({"schema": "resolvable.releases/1", "engines": data}, indent=2))
        return 0
    for name, kinds in data.items():
        title = packs.get(name).title or name
        print(f"{title}")
        print(f"  resolved ({len(kinds['resolved'])}):    {', '.join(kinds['resolved'])}")
        if kinds["parse_only"]:
            print(f"  parse-only ({len(kinds['parse_only'])}): {', '.join(kinds['parse_only'])}")
            print(
                "    (their launch commands are read with their own flags; upgrade --from names what changed)"
            )
    return 0
