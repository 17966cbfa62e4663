"""Differential check of the rule gates (``only_if_set=``): every case resolved twice in one
process, on the pruned plan (what ``resolve`` runs) and on the whole plan (``Plan.pruned``
answering "nothing left out"), and compared: values, declarations (rule, stage, writes, reads),
asked changes, notes, or the refusal's class, text, rule and fields. Also counts how many
resolutions switched to the whole plan (a rule declared a field a left-out rule waits on).

Usage: ``python tools/release_parity/gates.py [--quick]``: every bundled sglang model × h100,
b200, mi300x (``--quick``: h100) × every resolved release × the argument sets below (no
arguments, then each gate field set to a value that makes its rules work). Exit 1 on a difference.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Iterator
from typing import Any

PLATFORMS = ("h100", "b200", "mi300x")

#: One set of user arguments per line: the gate fields of the sglang pack, set so that the gated
#: rules do something (declare or refuse), alone and with their usual partners.
ARG_SETS: tuple[dict[str, Any], ...] = (
    {},
    {"pp_size": 2},
    {"moe_a2a_backend": "deepep"},
    {"moe_a2a_backend": "megamoe"},
    {"moe_a2a_backend": "ascend_tp"},
    {"enable_dp_attention": True, "dp_size": 2, "tp_size": 2},
    {"enable_dp_attention": True, "dp_size": 2, "tp_size": 2, "chunked_prefill_size": 4096},
    {"enable_dp_lm_head": True},
    {"attn_cp_size": 2, "tp_size": 2},
    {"moe_runner_backend": "megamoe"},
    {"moe_runner_backend": "flashinfer_cutedsl"},
    {"moe_runner_backend": "lora_triton"},
    {"speculative_moe_runner_backend": "megamoe"},
    {"dcp_size": 2, "tp_size": 2},
    {"dcp_size": 2, "tp_size": 2, "enable_prefill_cp": True},
    {"dcp_size": 2, "tp_size": 2, "enable_hierarchical_cache": True},
    {"mamba_radix_cache_strategy": "extra_buffer"},
    {"kv_cache_dtype": "nvfp4"},
    {"kv_cache_dtype": "fp8_e5m2", "attention_backend": "fa3"},
    {"enable_lmcache": True},
    {"mamba_backend": "flashinfer"},
    {"context_length": 10_000_000},
    {"enable_hierarchical_cache": True},
)


@contextlib.contextmanager
def whole_plan() -> Iterator[None]:
    """Resolve on the whole plan: ``Plan.pruned`` leaves nothing out."""
    from resolvable._registry import Plan

    saved = Plan.pruned
    Plan.pruned = lambda self, explicit: (self.groups, None)  # type: ignore[method-assign]
    try:
        yield
    finally:
        Plan.pruned = saved  # type: ignore[method-assign]


def outcome(fn: Any) -> Any:
    """A comparable summary of one resolution or its refusal."""
    from resolvable.errors import ResolvableError

    try:
        res = fn()
    except ResolvableError as exc:
        return (
            "refused",
            type(exc).__name__,
            str(exc),
            getattr(exc, "rule", None),
            getattr(exc, "fields", None),
        )
    return (
        "resolved",
        dict(res._values),
        tuple((d.seq, d.rule, d.stage, d.writes, d.inputs) for d in res.declarations),
        dict(res._asked),
        res.notes,
    )


def count_switches() -> list[int]:
    """Patch ``_resolve._Switch`` to count its instances; the returned list's length is the count."""
    from resolvable import _resolve

    seen: list[int] = []
    original = _resolve._Switch.__init__

    def init(self: Any, *args: Any) -> None:
        seen.append(1)
        original(self, *args)

    _resolve._Switch.__init__ = init  # type: ignore[method-assign]
    return seen


def compare(
    models: list[str], platforms: tuple[str, ...], releases: tuple[str, ...]
) -> tuple[int, list[str]]:
    import resolvable.sglang as pack
    from resolvable import Platform
    from resolvable.sglang.models import bundled

    n, diffs = 0, []
    for model in models:
        hf = bundled(model)
        for name in platforms:
            plat = Platform.preset(name)
            for release in releases:
                for args in ARG_SETS:
                    for trace in (False, True) if not args else (False,):
                        call = functools.partial(
                            pack.resolve_server_args, hf, plat, sglang_version=release, trace=trace, **args
                        )
                        pruned = outcome(call)
                        with whole_plan():
                            whole = outcome(call)
                        n += 1
                        if pruned != whole:
                            diffs.append(f"{model} {name} {release} {args} trace={trace}")
    return n, diffs


def main() -> int:
    import resolvable.sglang as pack
    from resolvable.sglang import models

    quick = "--quick" in sys.argv
    switches = count_switches()
    n, diffs = compare(
        sorted(models.catalog()), PLATFORMS[:1] if quick else PLATFORMS, tuple(pack.SGLANG_RELEASES)
    )
    for line in diffs[:20]:
        print("DIFFERS:", line)
    print(f"{n} cases, {len(diffs)} differ; {len(switches)} resolutions switched to the whole plan")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
