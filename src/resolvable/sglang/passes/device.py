"""Device stage (spec §2.2 steps 3, 5, 6): device string, CUDA-graph defaults, device handlers.

Invariant: these rules run before any model rule, and what they declare looks like user
input to every later rule (sglang writes these fields imperatively before step 10).
Handlers key off the ``device`` string; model rules key off platform predicates (spec §10 #12).
"""

from __future__ import annotations

from ..._declaration import Force
from ...errors import ConflictError
from .._base import registry

_ALIAS_FIELDS = (
    "attention_backend",
    "prefill_attention_backend",
    "decode_attention_backend",
    "speculative_draft_attention_backend",
)


@registry.rule("device")
def deprecated_backend_aliases(ctx):
    """§2.2 step 2: ``compressed`` is the deprecated name of ``dsv4`` (``nsa`` stays as given)."""
    args = ctx.args
    if "compressed" not in (
        args.attention_backend,
        args.prefill_attention_backend,
        args.decode_attention_backend,
        args.speculative_draft_attention_backend,
    ):
        return {}
    return {
        field: Force("dsv4", f"--{field.replace('_', '-')}=compressed is deprecated; use 'dsv4' instead")
        for field in _ALIAS_FIELDS
        if ctx.args[field] == "compressed"
    }


@registry.rule("device")
def device_default(ctx):
    """§2.2 step 3: ``device`` from the platform when unset; ``--quantization unquant`` means None."""
    out = {}
    if ctx.args.device is None:
        out["device"] = ctx.platform.device
    if ctx.args.quantization == "unquant":
        out["quantization"] = Force(None, "--quantization unquant: keep the checkpoint unquantized")
    return out


@registry.rule("device")
def cuda_graph_defaults(ctx):
    """§2.2 step 5: decode graph ``full``; prefill ``breakable`` on CUDA, ``tc_piecewise`` elsewhere;
    ``--disable-cuda-graph`` disables both phases."""
    args = ctx.args
    if args.disable_cuda_graph:
        for phase in ("prefill", "decode"):
            chosen = args[f"cuda_graph_backend_{phase}"]
            if chosen not in (None, "disabled"):
                raise ConflictError(
                    f"--disable-cuda-graph conflicts with --cuda-graph-backend-{phase}={chosen}",
                    fields=("disable_cuda_graph", f"cuda_graph_backend_{phase}"),
                    fix=f"pass only one of them (--cuda-graph-backend-{phase}=disabled is the per-phase form)",
                )
        return {"cuda_graph_backend_prefill": "disabled", "cuda_graph_backend_decode": "disabled"}
    out = {}
    if args.cuda_graph_backend_decode is None:
        out["cuda_graph_backend_decode"] = "full"
    if args.cuda_graph_backend_prefill is None:
        out["cuda_graph_backend_prefill"] = "breakable" if ctx.platform.is_cuda else "tc_piecewise"
    elif args.cuda_graph_backend_prefill == "full":
        raise ConflictError(
            "--cuda-graph-backend-prefill=full is not allowed: full is decode-only",
            fields=("cuda_graph_backend_prefill",),
            fix="use breakable, tc_piecewise or disabled",
        )
    return out


@registry.rule("device")
def device_handlers(ctx):
    """§2.2 step 6: per-device writes (HPU, CPU, NPU, MPS, XPU) that later rules see as input."""
    args, device = ctx.args, ctx.args.device
    if device == "hpu":
        return {
            "attention_backend": Force("torch_native", "HPU runs only torch_native attention"),
            "sampling_backend": Force("pytorch", "HPU samples with pytorch"),
        }
    if device == "cpu":
        out = {"sampling_backend": Force("pytorch", "the CPU engine samples with pytorch")}
        if args.attention_backend is None:
            out["attention_backend"] = "torch_native" if ctx.platform.is_arm64_host else "intel_amx"
        return out
    if device == "npu":
        reason = "Ascend NPUs run the ascend attention backend"
        out = {
            "attention_backend": Force("ascend", reason),
            "prefill_attention_backend": Force("ascend", reason),
            "decode_attention_backend": Force("ascend", reason),
        }
        if args.page_size is None:
            out["page_size"] = 128
        if not args.disable_custom_all_reduce:
            out["disable_custom_all_reduce"] = True  # Ascend has no custom all-reduce kernels
        return out
    if device == "mps":
        if str(ctx.env.get("SGLANG_USE_MLX", "")).lower() not in ("1", "true", "yes", "y"):
            return {"disable_overlap_schedule": True}
        return {}
    if device == "xpu":
        out = {}
        decode = args.cuda_graph_backend_decode
        if decode != "disabled" and not (ctx.user_set("cuda_graph_backend_decode") and decode == "full"):
            out["cuda_graph_backend_decode"] = Force(
                "disabled", "XPU decode graphs are disabled unless locked to full"
            )
        if args.cuda_graph_backend_prefill not in ("tc_piecewise", "disabled"):
            out["cuda_graph_backend_prefill"] = Force(
                "disabled", "XPU prefill graphs support only tc_piecewise"
            )
        return out
    return {}
