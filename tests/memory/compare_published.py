"""Published two-engine comparisons of the memory corpus, reproduced with ``resolvable compare``.

A pair is two corpus entries (tests/memory/corpus) with the same source page, one per engine:
the same model on the same GPUs, each engine's own logged launch and KV-cache tokens (e.g.
vllm-project/vllm#21348: Qwen3-235B-A22B-FP8 on 4×H100, 178,880 tokens in vLLM and 367,404 in
SGLang). Each entry's command runs through ``compare`` as it was logged (the model path replaced
by the bundled sample); its own side's KV tokens are compared with the log. A logged release
outside the modelled range is replaced by the nearest modelled one, and the report says so.

Run through ``python benchmarks/compare_published.py``; tests/cli/test_compare.py checks it.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
from collections import defaultdict
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).parent / "corpus"


def pairs() -> list[dict[str, dict[str, Any]]]:
    """The entries of each source page that has a log of more than one engine: [{engine: entry}]."""
    by_source: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for path in sorted(CORPUS.glob("*.json")):
        entry = json.loads(path.read_text(encoding="utf-8"))
        by_source[entry["source"]][entry["engine"]] = entry
    return [engines for engines in by_source.values() if len(engines) > 1]


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", version)[:3])


def modelled_release(engine: str, logged: str) -> tuple[str, str]:
    """(the release used, a note when it is not the logged one)."""
    from resolvable import packs

    releases = list(packs.get(engine).releases)
    wanted = re.match(r"[\d.]+", logged)
    version = wanted.group(0).rstrip(".") if wanted else ""
    if version in releases:
        return version, ""
    older = [r for r in releases if _key(r) <= _key(version)] if version else []
    used = older[-1] if older else releases[0]
    where = "older than" if not older else "not"
    return used, f"logged {logged}: {where} a modelled release; used {used}"


def _preset(entry: dict[str, Any]) -> str:
    from resolvable import Platform

    name = entry["gpu"]["device_name"]
    for preset in Platform.presets():
        if Platform.preset(preset).device_name == name:
            return preset
    raise ValueError(f"{entry['id']}: no platform preset is a {name}")


def _command(entry: dict[str, Any]) -> list[str]:
    words = shlex.split(entry["command"])
    bundled = entry["model"]["bundled"]
    return [bundled if w.startswith("/path/to/") else w for w in words]


def reproduce(pair: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per entry: the engine, logged and used releases, logged and predicted KV tokens."""
    from resolvable.cli import main

    used = {e: modelled_release(e, entry["engine_version"]) for e, entry in pair.items()}
    rows = []
    for engine, entry in pair.items():
        argv = ["compare", "--json", "--platform", _preset(entry), "--gpus", str(entry["gpus"])]
        for e, (release, _) in used.items():
            argv += ["--sglang-version" if e == "sglang" else "--vllm-version", release]
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = main([*argv, "--", *_command(entry)])
        doc = json.loads(out.getvalue())
        memory = doc["sides"][engine]["memory"]
        other = next(e for e in doc["sides"] if e != engine)
        other_memory = doc["sides"][other]["memory"]
        logged = entry["observed"]["kv_tokens"]
        predicted = memory.get("kv_tokens")
        rows.append(
            {
                "id": entry["id"],
                "engine": engine,
                "exit_code": code,
                "logged_release": entry["engine_version"],
                "release": used[engine][0],
                "note": used[engine][1],
                "logged_kv_tokens": logged,
                "kv_tokens": predicted,
                "error": None if predicted is None else (predicted - logged) / logged,
                "translated_to": other,
                "translated_kv_tokens": other_memory.get("kv_tokens"),
            }
        )
    return rows


def report() -> str:
    lines = []
    for pair in pairs():
        rows = reproduce(pair)
        lines.append(next(iter(pair.values()))["source"])
        for r in rows:
            err = "n/a" if r["error"] is None else f"{r['error']:+.1%}"
            lines.append(
                f"  {r['engine']:<7} release {r['release']:<7} logged {r['logged_kv_tokens']:>9,} "
                f"predicted {r['kv_tokens'] or 0:>9,} ({err}); the same launch in {r['translated_to']}: "
                f"{r['translated_kv_tokens'] or 0:,}" + (f"  [{r['note']}]" if r["note"] else "")
            )
        logged = {r["engine"]: r["logged_kv_tokens"] for r in rows}
        ours = {r["engine"]: r["kv_tokens"] for r in rows}
        a, b = sorted(logged)
        lines.append(
            f"  ratio {a}/{b}: logged {logged[a] / logged[b]:.2f}, predicted "
            + (f"{ours[a] / ours[b]:.2f}" if ours[a] and ours[b] else "n/a")
        )
    return "\n".join(lines)
