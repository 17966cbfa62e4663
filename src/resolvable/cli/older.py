"""Releases the packs parse but do not resolve: the release listing, the parse-only answer, and
``upgrade --from`` such a release (issue 32 item 2).

Invariants:

* a parse-only release (``Pack.parse_only_releases``: vLLM 0.11.0–0.19.1, sglang
  0.5.1–0.5.6 and, while their steps are modelled elsewhere, 0.5.8–0.5.9) is never resolved:
  ``explain``/``resolve`` of one parses the pasted command
  with that release's own flags and says so plainly, exit code 3 (``EXIT_PARSED_ONLY``: known
  release, command read, nothing resolved; not an error). A flag that release refuses is a usage
  error (2), as for a modelled release;
* ``upgrade --from OLD`` with a parse-only ``OLD`` is split at the oldest resolved release
  (``resolvable.upgrade_across``): the flag tables up to it (every flag of the launch removed or
  renamed, with its replacement; every default the launch relies on that changed, per release;
  what cannot be attributed), then the resolved upgrade after it (``resolvable.upgrade``) of the
  launch with the boundary's replacements; exit code 0, or 2 for an input error (the resolved
  half's is raised after the table half is printed);
* the engine's own knowledge (tables, replacements, the command parser) is the pack's; this module
  only picks the release and prints.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from typing import Any

from .. import packs
from .._text import table
from ..errors import ResolvableError
from ..flag_history import version_key
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


def upgrade_across(pack: Any, args: Any, extra: Sequence[str], pasted: Any, command: Any, old: str) -> int:
    """``upgrade --from OLD`` a parse-only release: the journey split at the oldest resolved release
    (``resolvable.upgrade_across``): the flag tables up to it, the resolved upgrade after it."""
    from ..upgrade import compare
    from ..upgrade_across import cross, rewrite
    from .paste import Pasted
    from .upgrade import comparison_json, launch_on

    to = args.to_version
    new = to.strip().lstrip("vV") if to is not None and _named(pack, to) is not None else pack.release(to)
    if version_key(new) <= version_key(old):
        raise UsageError(
            f"--to {new} is not newer than --from {old}; name the release to upgrade to with --to"
        )
    words = list(command.words) if command is not None and getattr(command, "words", None) else None
    if words is None and args.model is not None:  # the tool's own form: MODEL and engine flags
        words = pack.launch_command(args.model, list(extra))
        extra = []
    crossing = cross(pack, old, new, words)
    cmp, rewritten, notes = None, None, ()
    failed: ResolvableError | None = None
    if crossing.resolved_half and words is not None:
        rewritten, notes = rewrite(pack, crossing, words)
        on = Pasted(pack.name, dict(command.env) if command is not None else {}, rewritten)
        if command is not None:
            on.image, on.tag = command.image, command.tag
        startup = args.startup_check
        try:
            cmp = compare(pack, launch_on(args, extra, pasted, on), crossing.boundary, new, startup=startup)
        except ResolvableError as exc:  # the model cannot be read, ...: the table half still stands
            failed = exc
    derived = _derived(cmp.old.resolution) if cmp is not None and cmp.old.resolution is not None else {}
    if args.json:
        data = {
            "schema": "resolvable.upgrade-across/1",
            "engine": pack.name,
            "from": old,
            "to": new,
            "from_resolved": False,
            "boundary": crossing.boundary,
            "split": crossing.why(),
            "model": crossing.model,
            "launch_flags_removed": [c.to_dict() for c in crossing.launch_removed],
            "flags_removed": [c.to_dict() for c in crossing.removed],
            "tables": crossing.to_dict(),
            "not_attributed": {
                "note": crossing.notes[0],
                "derived_on_boundary": [
                    {"field": k, "value": v, "decided_by": r} for k, (v, r) in derived.items()
                ],
            },
            "rewritten": None if rewritten is None else {"command": rewritten, "notes": list(notes)},
            "resolved": None if cmp is None else comparison_json(cmp),
            "resolved_error": None if failed is None else str(failed),
        }
        print(json.dumps(data, indent=2, default=repr))
    else:
        _print_across(pack, crossing, cmp, rewritten, notes, derived, pasted, words is not None, failed)
    if failed is not None:  # the one error line (exit 2) after the half that was answered
        raise failed
    return 0


def wrap(text: str, indent: str = "  ", first: str | None = None) -> str:
    """``text`` filled to 100 columns, every line indented (the first by ``first`` when given)."""
    import textwrap

    return textwrap.fill(
        text,
        100,
        initial_indent=indent if first is None else first,
        subsequent_indent=indent,
        break_on_hyphens=False,
    )


def _steps(title: str, steps: Sequence[Any]) -> str:
    """The tables that changed one default: ``SGLang 0.5.8's flag table`` (with the value each set
    when there are several)."""
    if len(steps) == 1:
        return f"{title} {steps[0].release}'s flag table"
    return "; ".join(f"{title} {s.release}'s flag table (→ {_show(s.after)})" for s in steps)


def _derived(res: Any) -> dict[str, tuple[Any, str]]:
    """The fields the boundary's rules decided for this launch: {field: (value, rule)}."""
    out = {}
    for name in res:
        rule = res.decided_by(name)[0]
        if rule not in ("user", "default"):
            out[name] = (res[name], rule)
    return out


def _print_across(
    pack: Any,
    crossing: Any,
    cmp: Any,
    rewritten: list[str] | None,
    notes: Sequence[str],
    derived: dict[str, tuple[Any, str]],
    pasted: Any,
    have_command: bool,
    failed: Exception | None,
) -> None:
    from .upgrade import print_comparison

    old, b, new, title = crossing.old, crossing.boundary, crossing.new, crossing.title
    split = f", split at {b}" if crossing.resolved_half else ""
    print(f"upgrade   {title} {old} → {new}{split}")
    print(wrap(crossing.why(), indent="  "))
    print()
    print(f"── {old} → {b}: flag tables ({old} is parse-only) ──")
    if have_command:
        yours = crossing.removed_by_boundary()
        if yours:
            print(f"flags of your launch removed or renamed by {b} ({len(yours)}):")
            print(_rows(yours))
        else:
            print(f"none of your launch's flags was removed or renamed between {old} and {b}")
    print()
    if crossing.defaults:
        print(
            f"defaults your launch relies on (flags it does not set) that changed by {b} ({len(crossing.defaults)}):"
        )
        rows = [
            [d.option, _show(d.before), _show(d.after), _steps(title, d.steps)] for d in crossing.defaults
        ]
        print(table(["flag", old, b, "changed by"], rows))
    else:
        print(f"no default of a flag your launch does not set changed between {old} and {b}")
    if crossing.added:
        print()
        print(
            f"{len(crossing.added)} flags of {b} are new since {old}; their defaults apply (--json lists them)"
        )
    print()
    print(wrap(f"not attributed: {crossing.notes[0]}.", indent="  ").lstrip())
    if derived:
        shown = ", ".join(f"{k}={v!r}" for k, (v, _r) in derived.items())
        print(wrap(f"on {b} the rules derive, for this launch: {shown}", indent="  "))
    if cmp is not None:
        print()
        print(f"── {b} → {new}: resolved ──")
        if notes:
            print(f"the launch on {b}, with the flags {b} no longer has replaced:")
            for note in notes:
                print(wrap(note, indent="    ", first="  - "))
        print_comparison(
            pack, cmp, shlex.split(shlex.join(rewritten)) if pasted is not None and rewritten else None
        )
        later = [c for c in crossing.launch_removed if c not in crossing.removed_by_boundary()]
        if later:
            print()
            print(f"flags of your launch removed or renamed between {b} and {new} ({len(later)}):")
            print(_rows(later))
    elif failed is not None:
        print()
        print(f"── {b} → {new}: not resolved (the error below) ──")
    elif crossing.resolved_half:
        print()
        print(f"{b} → {new}: paste the launch command after `--` to have it resolved on both")
    used = {c.option for c in crossing.launch_removed}
    others = [c for c in crossing.removed if c.option not in used]
    if others:
        print()
        print(
            f"{len(others)} other flags of {old} are not flags of {new} (--json lists them, with replacements)"
        )


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
        patches = {r: pack.release(r) for r in pack.flag_releases() if r not in pack.releases}
        data[name] = {
            "resolved": list(pack.releases),
            "resolved_as_base": patches,
            "parse_only": list(pack.parse_only_releases()),
        }
    if args.json:
        print(json.dumps({"schema": "resolvable.releases/1", "engines": data}, indent=2))
        return 0
    for name, kinds in data.items():
        title = packs.get(name).title or name
        print(f"{title}")
        print(f"  resolved ({len(kinds['resolved'])}):    {', '.join(kinds['resolved'])}")
        if kinds["resolved_as_base"]:
            shown = ", ".join(f"{r} (as {base})" for r, base in kinds["resolved_as_base"].items())
            print(f"    and their patch releases, resolved as their base release: {shown}")
        if kinds["parse_only"]:
            print(f"  parse-only ({len(kinds['parse_only'])}): {', '.join(kinds['parse_only'])}")
            print(
                "    (their launch commands are read with their own flags; upgrade --from names what changed)"
            )
    return 0
