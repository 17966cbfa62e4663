#!/usr/bin/env python3
"""Write the parse-only flag tables as deltas (``resolvable.flag_history``), from the wheels.

    python tools/flag_history.py vllm /work/wheels 0.11.0 0.11.1 ... 0.29.0
    python tools/flag_history.py sglang /work/wheels 0.5.1 ... 0.5.13.post1
    python tools/flag_history.py --check vllm /work/wheels     # regenerate every delta, compare

``--check`` rebuilds every committed delta from its wheel and fails on any difference (in the
table or in the wheel's sha256): the full check, run where the wheels are; the test suite
regenerates a pinned sample only (``tests/engine/test_flag_history.py``), so CI downloads three
wheels per engine instead of thirty.

Each release's table is extracted from its wheel (``tools/extract_vllm_flags.py`` /
``tools/extract_sglang_flags.py``, the same extractors as the full tables) and stored in
``src/resolvable/<engine>/flags/history/<engine>-<version>.json`` as a delta against the table of
the next newer release (the newest one's base is the oldest committed full table). The delta
records the wheel's file name and sha256, so a test can tell that a table came from that wheel.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "src"))

from resolvable.flag_history import HISTORY_SCHEMA, apply_delta, version_key  # noqa: E402

#: The table keys that are lists diffed item by item (the rest are replaced whole).
LIST_KEYS = ("flags", "environment")


def _ops(old: list, new: list) -> list[list]:
    a = [json.dumps(x, sort_keys=True) for x in old]
    b = [json.dumps(x, sort_keys=True) for x in new]
    ops: list[list] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            ops.append(["=", i2 - i1])
        else:
            if i2 > i1:
                ops.append(["-", i2 - i1])
            if j2 > j1:
                ops.append(["+", new[j1:j2]])
    if ops and ops[-1][0] == "=":
        ops.pop()  # the rest of the base is kept anyway
    return ops


def make_delta(base_release: str, base: dict, new: dict, wheel: str) -> dict:
    delta: dict = {"schema": HISTORY_SCHEMA, "base": base_release}
    with open(wheel, "rb") as fh:
        delta["wheel"] = {"file": os.path.basename(wheel), "sha256": hashlib.sha256(fh.read()).hexdigest()}
    changed = {k: v for k, v in new.items() if k not in LIST_KEYS and base.get(k) != v}
    if changed:
        delta["set"] = changed
    gone = [k for k in base if k not in new]
    if gone:
        delta["unset"] = gone
    lists = {k: _ops(base.get(k, []), new[k]) for k in LIST_KEYS if k in new and new[k] != base.get(k)}
    if lists:
        delta["lists"] = lists
    if apply_delta(base, delta) != new:
        raise SystemExit(f"delta for {new} does not rebuild the table")
    return delta


def dump(delta: dict) -> str:
    """One operation (and one inserted flag) per line: the file diffs well."""
    lines = ["{"]
    head = [(k, v) for k, v in delta.items() if k != "lists"]
    lines += [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in head]
    lists = delta.get("lists", {})
    lines.append('  "lists": {')
    blocks = []
    for key, ops in lists.items():
        rows = []
        for op, arg in ops:
            if op == "+":
                inner = ",\n".join(f"      {json.dumps(x)}" for x in arg)
                rows.append(f'    ["+", [\n{inner}\n    ]]')
            else:
                rows.append(f"    {json.dumps([op, arg])}")
        blocks.append(f"  {json.dumps(key)}: [\n" + ",\n".join(rows) + "\n  ]")
    lines.append(",\n".join(blocks))
    lines += ["  }", "}", ""]
    return "\n".join(lines)


def extract(engine: str, wheel: str) -> dict:
    if engine == "vllm":
        import extract_vllm_flags as ex
    else:
        import extract_sglang_flags as ex
    return json.loads(ex.dump(ex.extract(wheel)))


def wheel_of(engine: str, wheels: str, release: str) -> str:
    found = sorted(n for n in os.listdir(wheels) if n.startswith(f"{engine}-{release}-") and n.endswith(".whl"))
    if not found:
        raise SystemExit(f"no {engine} {release} wheel in {wheels} (pip download --no-deps {engine}=={release})")
    return os.path.join(wheels, found[0])


def check(engine: str, wheels: str) -> int:
    """Regenerate every committed delta of ``engine`` from its wheel; 1 on any difference."""
    from resolvable.flag_history import History

    flags_dir = os.path.join(ROOT, "src", "resolvable", engine, "flags")

    def full(release: str) -> dict:
        with open(os.path.join(flags_dir, f"{engine}-{release}.json"), encoding="utf-8") as fh:
            return json.load(fh)

    history = History(engine, os.path.join(flags_dir, "history"), full)
    bad = 0
    for release in history.releases:
        wheel = wheel_of(engine, wheels, release)
        with open(wheel, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
        same = extract(engine, wheel) == history.table(release)
        ok = same and digest == history.delta(release)["wheel"]["sha256"]
        bad += not ok
        print(f"{engine} {release}: {'ok' if ok else 'DIFFERS' if not same else 'another wheel'}")
    print(f"{len(history.releases) - bad}/{len(history.releases)} tables regenerate from their wheels")
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--check"]:
        return check(argv[1], argv[2])
    engine, wheels, *releases = argv
    flags_dir = os.path.join(ROOT, "src", "resolvable", engine, "flags")
    out_dir = os.path.join(flags_dir, "history")
    os.makedirs(out_dir, exist_ok=True)
    full = sorted(
        (n[len(engine) + 1 : -5] for n in os.listdir(flags_dir) if n.startswith(engine + "-") and n.endswith(".json")),
        key=version_key,
    )
    base_release = full[0]
    with open(os.path.join(flags_dir, f"{engine}-{base_release}.json"), encoding="utf-8") as fh:
        base = json.load(fh)
    for release in sorted(releases, key=version_key, reverse=True):
        if version_key(release) >= version_key(base_release):
            raise SystemExit(f"{release} is not older than {base_release}")
        wheel = wheel_of(engine, wheels, release)
        table = extract(engine, wheel)
        delta = make_delta(base_release, base, table, wheel)
        path = os.path.join(out_dir, f"{engine}-{release}.json")
        with open(path + ".tmp", "w", encoding="utf-8") as fh:
            fh.write(dump(delta))
        os.replace(path + ".tmp", path)
        print(f"{release}: {len(table['flags'])} flags, delta {os.path.getsize(path)} bytes", file=sys.stderr)
        base_release, base = release, table
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
