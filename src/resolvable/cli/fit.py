"""`resolvable fit MODEL --platform P [engine flags]`: will it fit, how many KV tokens, and the
smallest TP that fits, for SGLang (default) or vLLM (``--engine vllm``).

Invariants: the verdict is the memory model's (``resolvable.sglang.memory`` /
``resolvable.vllm.memory``) for the resolved launch; a launch that cannot fit exits 2 with the
engine's own message and a fix that was checked by computing the capacity again with it; every
profiling-only figure is printed as an estimate with its range; ``--json`` prints
``resolvable.fit/1``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import InvalidArgumentError
from ._common import EXIT_USAGE, _Parser, pack

TP_CANDIDATES = (1, 2, 4, 8, 16)


def _index_size(model: str) -> int | None:
    """``metadata.total_size`` of the checkpoint index next to a local model, if any."""
    from ..memory import checkpoint_total_size

    return checkpoint_total_size(model)


def _smallest_tp(report_for: Callable[[int], Any], start: int, limit: int) -> tuple[int | None, Any]:
    from ..errors import ConflictError

    for tp in TP_CANDIDATES:
        if tp < start or tp > limit:
            continue
        try:
            rep = report_for(tp)
        except ConflictError:  # a TP the other flags refuse (e.g. below --dp-size with DP attention)
            continue
        if rep.fits and rep.concurrency_at_context >= 1.0:
            return tp, rep
    return None, None


def _print(
    rep: Any, header: list[str], fixes: list[str], smallest: int | None, as_json: bool, extra: dict[str, Any]
) -> int:
    if as_json:
        data = {
            "schema": "resolvable.fit/1",
            **extra,
            "memory": rep.to_dict(),
            "fixes": fixes,
            "smallest_tp": smallest,
        }
        print(json.dumps(data, indent=2, default=repr))
    else:
        print("\n".join(header + rep.lines()))
        est = rep.estimates
        for name, e in est.items():
            if hasattr(e, "why"):
                print(
                    f"estimate  {name}: {e.value / (1 << 30):.2f} GiB (range {e.low / (1 << 30):.2f}–{e.high / (1 << 30):.2f}): {e.why}"
                )
        print(f"smallest TP that fits one full-context request: {smallest if smallest else 'none up to 16'}")
        for f in fixes:
            print(f"fix       {f}")
    if rep.fits:
        return 0
    sys.stdout.flush()
    fix = f" Fix: {fixes[0]}" if fixes else (f" Fix: {rep.fix}" if getattr(rep, "fix", None) else "")
    what = "may not fit (memory)" if rep.refusal is None else "refused at start-up (memory)"
    print(f"error: {what}: {rep.message}{fix}", file=sys.stderr)
    return EXIT_USAGE


def _sglang(argv: list[str]) -> int:
    from . import _add_model_inputs, _split_pasted, _take_model
    from ._common import _platform, _resolve, _user_flags, model_config

    argv, pasted = _split_pasted(argv)
    p = _Parser(prog="resolvable fit", description=__doc__.split("\n\n")[0])
    _add_model_inputs(p, platform_default="h100")
    _add_used_gib(p)
    args, extra = p.parse_known_args(argv)
    if extra:
        raise InvalidArgumentError(f"unrecognized arguments: {' '.join(extra)}")
    _take_model(args, pasted)
    user = _user_flags(args)
    capacity = pack("sglang").memory_capacity
    platform = _platform(args.platform)
    hf = model_config(args, user)  # --config stands in for a launch's absent local model path
    not_modelled = dict(getattr(args, "not_modelled_values", {}))
    if args.used_gib:
        not_modelled["used_bytes"] = args.used_gib * (1 << 30)
    index = _index_size(args.model)

    def report_for(tp: int | None = None, **changes: Any) -> Any:
        flags = {**user, **({"tp_size": tp} if tp else {}), **changes}
        res = _resolve(args, args.platform, flags)
        values = {k: res[k] for k in res}
        values.update({k: v for k, v in changes.items() if k not in values})
        return capacity(
            values,
            hf,
            device_name=platform.device_name,
            memory_gib=platform.memory_gib,
            extra={**not_modelled, **{k: v for k, v in changes.items() if k in ("context_length",)}},
            index_total_size=index,
        )

    rep = report_for()
    tp_now = int(user.get("tp_size") or 1)
    smallest, _ = _smallest_tp(report_for, 1, 16)
    fixes: list[str] = []
    if not rep.fits or rep.concurrency_at_context < 1.0:
        if smallest and smallest > tp_now:
            fixes.append(f"--tp-size {smallest} (checked: {report_for(smallest).kv_tokens:,} KV tokens)")
        if str(user.get("kv_cache_dtype") or "auto") == "auto":
            trial = report_for(kv_cache_dtype="fp8_e4m3")
            if trial.fits and trial.kv_tokens > rep.kv_tokens:
                fixes.append(f"--kv-cache-dtype fp8_e4m3 (checked: {trial.kv_tokens:,} KV tokens)")
        mfs = float(rep.inputs["mem_fraction_static"])
        for higher in (0.85, 0.88, 0.9, 0.93, 0.95):
            if higher > mfs:
                trial = report_for(mem_fraction_static=higher)
                if trial.fits:
                    fixes.append(
                        f"--mem-fraction-static {higher} (checked: {trial.kv_tokens:,} KV tokens; less room for activations)"
                    )
                    break
        if rep.fits and rep.kv_tokens:
            fixes.append(
                f"--context-length {rep.kv_tokens // 1024 * 1024} (one request of the full context fits)"
            )
    header = [
        f"model     {args.model}  [{hf.architecture}]",
        f"platform  {platform.name}: {platform.describe()}",
        f"engine    sglang {args.sglang_version or 'default release'}",
    ]
    return _print(
        rep,
        header,
        fixes,
        smallest,
        args.json,
        {"engine": "sglang", "model": args.model, "platform": platform.name},
    )


def _vllm_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="resolvable fit --engine vllm")
    p.add_argument("model")
    p.add_argument("--engine", default="vllm")
    p.add_argument("--platform", default="h100")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--vllm-version", help="vLLM release (default: the newest modelled; auto: the installed one)"
    )
    p.add_argument("--tensor-parallel-size", "-tp", type=int, dest="tensor_parallel_size")
    p.add_argument("--pipeline-parallel-size", "-pp", type=int, dest="pipeline_parallel_size")
    p.add_argument("--data-parallel-size", "-dp", type=int, dest="data_parallel_size")
    p.add_argument("--enable-expert-parallel", action="store_true")
    p.add_argument("--gpu-memory-utilization", type=float)
    p.add_argument("--max-model-len")
    p.add_argument("--kv-cache-dtype", default="auto")
    p.add_argument("--block-size", type=int)
    p.add_argument("--max-num-batched-tokens", type=int)
    p.add_argument("--max-num-seqs", type=int)
    p.add_argument("--dtype", default="auto")
    p.add_argument("--quantization")
    p.add_argument("--kv-cache-memory-bytes", type=int)
    p.add_argument("--mamba-ssm-cache-dtype")
    _add_used_gib(p)
    return p


def _add_used_gib(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--used-gib",
        type=float,
        default=0.0,
        help="device memory other processes already hold on each GPU (a shared GPU), in GiB",
    )


def _vllm(argv: list[str]) -> int:
    from ._common import _platform

    vllm = pack("vllm")
    capacity = vllm.memory_capacity
    args = _vllm_parser().parse_args(argv)
    args.vllm_version = vllm.release(args.vllm_version)
    platform = _platform(args.platform)
    hf = pack("sglang").load_model(args.model)  # the sglang pack's reader, as fit has always used
    values = {
        k: v
        for k, v in vars(args).items()
        if k not in ("model", "engine", "platform", "json", "vllm_version", "used_gib")
    }
    values["used_bytes"] = args.used_gib * (1 << 30)
    # the switch determine_available_memory reads (v1/worker/gpu_worker.py)
    values["memory_profiler_estimate_cudagraphs"] = os.environ.get("VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS")
    # The KV dtype and block size come from the vLLM pack's resolution for the release (its rules:
    # model hooks such as GLM-5's fp8 KV on SM10x, the backends' preferred block sizes, 0.34's
    # default of 64), not the flags.
    asked = {k: values[k] for k in ("tensor_parallel_size", "kv_cache_dtype", "block_size", "dtype")}
    res = vllm.resolve(
        hf,
        platform,
        release=args.vllm_version,
        **{k: v for k, v in asked.items() if v not in (None, "auto")},
    )
    if asked["kv_cache_dtype"] in (None, "auto"):
        values["kv_cache_dtype"] = res["kv_cache_dtype"]
    if asked["block_size"] is None:
        values["block_size"] = int(res["block_size"] or 16)
    index = _index_size(args.model)

    def report_for(tp: int | None = None, **changes: Any) -> Any:
        v = {**values, **({"tensor_parallel_size": tp} if tp else {}), **changes}
        return capacity(
            v,
            hf,
            device_name=platform.device_name,
            memory_gib=platform.memory_gib,
            version=args.vllm_version,
            index_total_size=index,
        )

    rep = report_for()
    tp_now = int(values.get("tensor_parallel_size") or 1)
    smallest, _ = _smallest_tp(report_for, 1, 16)
    fixes: list[str] = []
    if not rep.fits:
        if smallest and smallest > tp_now:
            fixes.append(
                f"--tensor-parallel-size {smallest} (checked: {report_for(smallest).kv_tokens:,} KV tokens)"
            )
        if values.get("kv_cache_dtype") == "auto":
            trial = report_for(kv_cache_dtype="fp8")
            if trial.fits:
                fixes.append(f"--kv-cache-dtype fp8 (checked: {trial.kv_tokens:,} KV tokens)")
        trial = report_for(max_model_len="-1")
        if trial.fits and trial.context_length:
            fixes.append(
                f"--max-model-len {trial.context_length} (checked: the estimated maximum model length)"
            )
    header = [
        f"model     {args.model}  [{hf.architecture}]",
        f"platform  {platform.name}: {platform.describe()}",
        f"engine    vllm {args.vllm_version}",
    ]
    return _print(
        rep,
        header,
        fixes,
        smallest,
        args.json,
        {"engine": "vllm", "model": args.model, "platform": platform.name},
    )


def main(argv: Sequence[str]) -> int:
    """``argv`` after ``fit``."""
    from ._common import engine_named

    argv = list(argv)
    return _vllm(argv) if engine_named(argv) == "vllm" else _sglang(argv)


def memory_section(args: argparse.Namespace, res: Any) -> tuple[list[str], dict[str, Any]]:
    """The memory section of ``explain``: a short text and the ``memory`` object of ``--json``
    (an ``error`` entry when the model or the platform is outside the memory model)."""
    from ._common import model_config

    return _memory_summary(
        lambda: pack("sglang").memory_capacity(
            {k: res[k] for k in res},
            model_config(args),  # the config the resolution read (--config, --revision)
            device_name=res.platform.device_name,
            memory_gib=res.platform.memory_gib,
            extra=dict(getattr(args, "not_modelled_values", {})),
            index_total_size=_index_size(args.model),
        ),
        context="context",
        fit_command="resolvable fit",
    )


def vllm_memory_section(args: argparse.Namespace, res: Any) -> tuple[list[str], dict[str, Any]]:
    """The memory section of ``explain --engine vllm``: weights per rank, KV tokens, concurrency
    at ``max_model_len``, from the resolved engine arguments of the release (the KV dtype, the
    block size, the utilization), like SGLang's (``memory_section``)."""
    vllm = pack("vllm")
    return _memory_summary(
        lambda: vllm.memory_capacity(
            {k: res[k] for k in res},
            vllm.load_model(args.model),
            device_name=res.platform.device_name,
            memory_gib=res.platform.memory_gib,
            version=getattr(args, "release", None),
            index_total_size=_index_size(args.model),
        ),
        context="max_model_len",
        fit_command="resolvable fit --engine vllm",
    )


def _memory_summary(
    capacity: Callable[[], Any], *, context: str, fit_command: str
) -> tuple[list[str], dict[str, Any]]:
    """One line and the ``memory`` object for ``explain``, whichever engine's capacity report."""
    from ..memory import MemoryModelError

    try:
        rep = capacity()
    except MemoryModelError as exc:
        return [f"memory    not modelled here: {exc}"], {"error": str(exc)}
    if not rep.fits:
        return [f"memory    would not fit: {rep.message} (`{fit_command}` for a checked fix)"], rep.to_dict()
    est = " (estimate)" if rep.weights_estimated else ""
    line = (
        f"memory    weights {rep.weights_bytes / (1 << 30):.1f} GiB/rank{est}, KV cache {rep.kv_tokens:,} tokens, "
        f"{rep.concurrency_at_context:.2f}× the {rep.context_length:,}-token {context} (`{fit_command}` for details)"
    )
    return [line], rep.to_dict()
