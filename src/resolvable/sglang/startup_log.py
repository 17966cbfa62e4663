"""SGLang's start-up log, read for ``resolvable check-log`` (the pack's half of
``resolvable.startup_log``).

What sglang prints (0.4–0.5 logs): the ``server_args=ServerArgs(...)`` line (every argument),
``Load weight begin/end ... avail mem=X GB, mem usage=Y GB``, ``KV Cache is allocated. #tokens:
N``, ``max_total_num_tokens=N, ..., max_running_requests=M, context_len=C``, ``Capture cuda graph
bs [...]`` and ``Capture cuda graph end ... mem usage=X GB``, and the failures ("Not enough
memory", "Loaded weights leave no GPU memory", torch's "CUDA out of memory").

Invariants: standard library only; a fact the log does not state stays None.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..startup_log import (
    DEVICE_NAME,
    LineRecorder,
    LogFacts,
    command_flags,
    first,
    last,
    literal_args,
    outcome_of,
)

__all__ = ["launch", "read", "recognises"]

_NUM = r"([0-9]+(?:\.[0-9]+)?)"


def recognises(text: str) -> bool:
    return bool(
        re.search(
            r"server_args=ServerArgs\(|sglang\.launch_server|sglang serve|KV Cache is allocated|Load weight end",
            text,
        )
    )


def _server_args(text: str) -> dict[str, Any]:
    m = re.search(r"server_args=ServerArgs\((.*?)\)\s*(?:\n\S|\n?$)", text, re.S)
    if m is None:
        return {}
    return literal_args(m.group(1).replace("\n", ""))


def read(text: str) -> LogFacts:
    cmd_model, cmd_flags = command_flags(
        text,
        ("sglang.launch_server", "sglang serve"),
        {
            "tp": "tp_size",
            "tensor-parallel-size": "tp_size",
            "dp": "dp_size",
            "data-parallel-size": "dp_size",
            "model": "model_path",
        },
    )
    args = _server_args(text)
    flags = {**cmd_flags, **{k: v for k, v in args.items() if v is not None and k != "model_path"}}
    if cmd_model and not isinstance(args.get("model_path"), str):
        args["model_path"] = cmd_model

    log = LineRecorder(text)
    take = log.take
    version = log.value(
        "version", first(r"sglang(?:==| version:? | v)(\d+\.\d+\.\d+[\w.]*)", text, re.I), str
    )
    weights = log.value(
        "weights_gib", first(r"Load weight end\..*?mem usage=" + _NUM + r"\s*GB", text), float
    )
    pre = log.value(
        "pre_load_free_gib", first(r"Load weight begin\..*?avail mem=" + _NUM + r"\s*GB", text), float
    )
    kv = None
    m = take(
        "kv_tokens", first(r"KV Cache is allocated\.\s*(?:dtype: [\w.]+,\s*)?#tokens:\s*([0-9,]+)", text)
    )
    if m is None:
        m = take("kv_tokens", first(r"max_total_num_tokens=([0-9]+)", text))
    if m:
        kv = int(m.group(1).replace(",", ""))
    running = log.value("max_running_requests", last(r"max_running_requests=([0-9]+)", text), int)
    m = first(r"context_len=([0-9]+)", text)
    ctx = int(m.group(1)) if m else None
    sizes: tuple[int, ...] = ()
    m = take("cuda_graph_sizes", first(r"Capture cuda graph bs \[([0-9, ]+)\]", text))
    if m:
        sizes = tuple(int(x) for x in m.group(1).replace(" ", "").split(",") if x)
    graph_gib = log.value(
        "cuda_graph_gib", first(r"Capture cuda graph end\..*?mem usage=" + _NUM + r"\s*GB", text), float
    )
    mfs = args.get("mem_fraction_static")
    m = take("mem_fraction_static", first(r"mem_fraction_static[ =:]+" + _NUM, text))
    if m and not isinstance(mfs, (int, float)):
        mfs = float(m.group(1))
    total = log.value("device_total_gib", first(r"total capacity of " + _NUM + r"\s*GiB", text), float)
    device = log.value("device_name", first(DEVICE_NAME, text), str.strip)
    outcome, oline = outcome_of(
        text,
        (
            ("out-of-memory", r"OutOfMemoryError|CUDA out of memory|HIP out of memory"),
            (
                "refused",
                r"Not enough memory\. Please try to increase|Loaded weights leave no GPU memory|"
                r"Memory pool size is too small",
            ),
            ("starts", r"The server is fired up|KV Cache is allocated|max_total_num_tokens=\d+"),
        ),
    )
    return LogFacts(
        engine="sglang",
        version=version,
        model=args.get("model_path") if isinstance(args.get("model_path"), str) else None,
        device_name=device,
        device_total_gib=total,
        flags=flags,
        weights_gib=weights,
        kv_tokens=kv,
        max_running_requests=running,
        context_length=ctx,
        backend=str(args["attention_backend"]) if args.get("attention_backend") else None,
        cuda_graph_sizes=sizes,
        cuda_graph_gib=graph_gib,
        pre_load_free_gib=pre,
        mem_fraction_static=float(mfs) if isinstance(mfs, (int, float)) else None,
        outcome=outcome,
        outcome_line=oline,
        lines=log.lines,
    )


#: The arguments the resolution takes from a log (the rest of ``server_args`` overlays the
#: resolved values as they are).
_RESOLVED = ("tp_size", "mem_fraction_static", "kv_cache_dtype")
_OVERLAY = (
    "dp_size",
    "enable_dp_attention",
    "attention_backend",
    "context_length",
    "chunked_prefill_size",
    "page_size",
    "max_running_requests",
    "disable_cuda_graph",
    "quantization",
    "dtype",
    "pp_size",
    "speculative_algorithm",
    "speculative_eagle_topk",
    "speculative_num_draft_tokens",
    "enable_symm_mem",
    "moe_runner_backend",
    "disable_radix_cache",
)


def launch(
    facts: LogFacts, hf: Any, platform: Any, release: str | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(values for ``sglang.memory.capacity``, its keyword arguments) rebuilt from the log."""
    from . import resolve_server_args

    flags: Mapping[str, Any] = facts.flags
    asked = {k: flags[k] for k in _RESOLVED if flags.get(k) is not None}
    res = resolve_server_args(hf, platform, {}, **asked)
    values = {k: res[k] for k in res}
    values.update({k: flags[k] for k in _OVERLAY if flags.get(k) is not None})
    extra: dict[str, Any] = {}
    for key in ("max_total_tokens", "cuda_graph_max_bs", "max_mamba_cache_size", "mamba_ssm_dtype"):
        if flags.get(key) is not None:
            extra[key] = flags[key]
    # compared at the log's own release where it is known (--sglang-version, else the version
    # line): the capacity model is 0.5.23's plus the release differences it knows
    return values, {"extra": extra, "version": release or facts.version}
