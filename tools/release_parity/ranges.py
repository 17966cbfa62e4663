"""The releases that share one declaration (``Resolution.releases_of``: the basis of the ranges
explain, upgrade and matrix show), from whichever
``resolvable`` is first on ``sys.path`` (run it with ``PYTHONPATH=<other checkout>/src``).

Usage: ``python tools/release_parity/ranges.py``. The cases are ones where a side mechanism
(a per-release table read by version) used to hide a release dependence: the range shown was
wider than the releases that really declare the same (issue 32 item 0, docs/adding-a-release.md).
"""

from __future__ import annotations

from resolvable import Platform, packs
from resolvable.vllm import resolve_vllm_args
from resolvable.vllm.models import bundled

CASES = (
    # (model, platform, env, flags, release, field)
    (
        "llama-3.1-8b",
        "h100",
        {"VLLM_BATCH_INVARIANT": "1"},
        {"dtype": "bfloat16"},
        "0.33.0",
        "compilation_mode",
    ),
    (
        "falcon-h1-7b",
        "rtxpro6000",
        {"VLLM_BATCH_INVARIANT": "1"},
        {"dtype": "bfloat16"},
        "0.32.0",
        "compilation_mode",
    ),
)


def main() -> None:
    pack = packs.get("vllm")
    for model, plat, env, flags, release, field in CASES:
        res = resolve_vllm_args(bundled(model), Platform.preset(plat), env, vllm_version=release, **flags)
        for decl in res.declarations:
            if field in decl.fields:
                shown = res.releases_of(decl.rule, decl.location)  # what the asked changes allow
                words = "all releases" if shown is None else shown.describe(pack.releases)
                print(f"{model} {plat} {release} {field}={res[field]!r} by {decl.rule}: {words}")


if __name__ == "__main__":
    main()
