"""Device stage (spec §2.2 steps 3, 5, 6): device string, CUDA-graph defaults, device handlers.

Invariant: these rules run before any model rule, and what they declare looks like user
input to every later rule (sglang writes these fields imperatively before step 10).
Handlers key off the ``device`` string; model rules key off platform predicates (spec §10 #12).
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix, Force
from .._base import registry
from ..changes import CHANGES

_ALIAS_FIELDS = (
    "attention_backend",
    "prefill_attention_backend",
    "decode_attention_backend",
    "speculative_draft_attention_backend",
)


def _renamed_backends(args, aliases: dict[str, str]) -> dict:
    """The backend fields holding a deprecated name in ``aliases``, renamed (``Force``, since
    the user named the old spelling), with sglang's warning as the reason."""
    return {
        field: Force(
            aliases[args[field]],
            f"--{field.replace('_', '-')}={args[field]} is deprecated; use '{aliases[args[field]]}' instead",
        )
        for field in _ALIAS_FIELDS
        if args[field] in aliases
    }


@registry.rule("device")
def deprecated_backend_aliases(ctx):
    """§2.2 step 2 (since 0.5.23 ``serving_hook._handle_deprecated_args``): ``compressed`` is the
    deprecated name of ``dsv4`` (``nsa`` stays as given). ``TOKENSPEED_MLA_ALIAS`` (0.5.23; the
    ``tokenspeed_mla`` creator is gone from ``attention_registry.py``): ``tokenspeed_mla`` is a
    deprecated name of ``cutedsl_mla``; a prefill side renamed so becomes ``trtllm_mla``
    (cutedsl_mla is decode-only), and a tokenspeed_mla attention or decode backend keeps the FP8
    KV cache it required (``kv_cache_dtype`` := ``fp8_e4m3``)."""
    args = ctx.args
    named = (
        args.attention_backend,
        args.prefill_attention_backend,
        args.decode_attention_backend,
        args.speculative_draft_attention_backend,
    )
    if "tokenspeed_mla" not in named or not ctx.release.has(CHANGES.TOKENSPEED_MLA_ALIAS):
        return _renamed_backends(args, {"compressed": "dsv4"})
    out = _renamed_backends(args, {"compressed": "dsv4", "tokenspeed_mla": "cutedsl_mla"})
    if args.prefill_attention_backend == "tokenspeed_mla":
        out["prefill_attention_backend"] = Force(
            "trtllm_mla",
            "--prefill-attention-backend=tokenspeed_mla is deprecated; cutedsl_mla is decode-only",
        )
    tokenspeed = "tokenspeed_mla" in (args.attention_backend, args.decode_attention_backend)
    if tokenspeed and args.kv_cache_dtype != "fp8_e4m3":
        out["kv_cache_dtype"] = Force(
            "fp8_e4m3", "tokenspeed_mla required FP8 KV; setting --kv-cache-dtype=fp8_e4m3"
        )
    return out


@registry.rule("device")
def device_default(ctx):
    """§2.2 step 3: ``device`` from the platform when unset; ``--quantization unquant`` means None.

    ``CPU_ENGINE_ARM64`` (0.5.8, ``utils/common.is_cpu``): before it the CPU engine was x86-only,
    so on an arm64 CPU host ``get_device`` found no device and refused."""
    out = {}
    if ctx.args.device is None:
        platform = ctx.platform
        if platform.is_cpu and platform.is_arm64_host and not ctx.release.has(CHANGES.CPU_ENGINE_ARM64):
            raise ConflictError(
                "No accelerator (CUDA, XPU, HPU, NPU) is available.",
                fields=("device",),
                fix="sglang's CPU engine runs on arm64 hosts from 0.5.8 on (0.5.7 and older: x86 only)",
                upstream="RuntimeError",
            )
        out["device"] = platform.device
    if ctx.args.quantization == "unquant":
        out["quantization"] = Force(None, "--quantization unquant: keep the checkpoint unquantized")
    return out


def _cuda_graph_defaults(args, prefill_default: str) -> dict:
    """Step 5: ``--disable-cuda-graph`` disables both phases (and refuses a per-phase backend
    beside it); decode defaults to ``full``; prefill to ``prefill_default``."""
    if args.disable_cuda_graph:
        for phase in ("prefill", "decode"):
            chosen = args[f"cuda_graph_backend_{phase}"]
            if chosen not in (None, "disabled"):
                raise ConflictError(
                    f"--disable-cuda-graph conflicts with --cuda-graph-backend-{phase}={chosen}",
                    fields=("disable_cuda_graph", f"cuda_graph_backend_{phase}"),
                    fix=Fix(
                        set={f"cuda_graph_backend_{phase}": "disabled"},
                        text=f"pass only one of them (--cuda-graph-backend-{phase}=disabled is the per-phase form)",
                    ),
                )
        return {"cuda_graph_backend_prefill": "disabled", "cuda_graph_backend_decode": "disabled"}
    out = {}
    # ``_parse_cuda_graph_config``: a per-phase off-switch (--disable-{decode,prefill}-cuda-graph)
    # sits below the per-phase backend flag and above the default.
    if args.cuda_graph_backend_decode is None:
        out["cuda_graph_backend_decode"] = "disabled" if args.disable_decode_cuda_graph else "full"
    if args.cuda_graph_backend_prefill is None:
        out["cuda_graph_backend_prefill"] = "disabled" if args.disable_prefill_cuda_graph else prefill_default
    elif args.cuda_graph_backend_prefill == "full":
        raise ConflictError(
            "--cuda-graph-backend-prefill=full is not allowed: full is decode-only",
            fields=("cuda_graph_backend_prefill",),
            fix="use breakable, tc_piecewise or disabled",
        )
    return out


_INKLING = ("InklingForConditionalGeneration", "InklingForConditionalGenerationMTP")


@registry.rule("device")
def cuda_graph_defaults(ctx):
    """§2.2 step 5 (spec §9 #4): decode graph ``full``; prefill ``tc_piecewise``, ``breakable`` on
    CUDA since 0.5.15 (``BREAKABLE_PREFILL_GRAPH``); ``--disable-cuda-graph`` disables both
    phases. ``INKLING_FULL_PREFILL_GRAPH`` (0.5.16): Inkling's prefill graph is ``full`` unless the
    prefill backend was given (written before the config is parsed, so it also wins over
    ``--disable-cuda-graph``); ``PD_ROLE_CUDA_GRAPHS`` (0.5.16): a PD prefill server disables the
    decode graph and a decode server the prefill graph unless that phase is locked."""
    args, has = ctx.args, ctx.release.has
    # (asked only when it matters: an unset prefill graph on CUDA)
    breakable = (
        ctx.platform.is_cuda
        and args.cuda_graph_backend_prefill is None
        and has(CHANGES.BREAKABLE_PREFILL_GRAPH)
    )
    out = _cuda_graph_defaults(args, "breakable" if breakable else "tc_piecewise")
    locked = {phase for phase in ("prefill", "decode") if args[f"cuda_graph_backend_{phase}"] is not None}
    if args.disable_cuda_graph:
        locked = {"prefill", "decode"}
    if (
        ctx.arch in _INKLING
        and args.cuda_graph_backend_prefill is None
        and has(CHANGES.INKLING_FULL_PREFILL_GRAPH)
    ):
        out["cuda_graph_backend_prefill"] = "full"
        locked.add("prefill")
    role = {"prefill": "decode", "decode": "prefill"}.get(args.disaggregation_mode)
    if role is not None and role not in locked and has(CHANGES.PD_ROLE_CUDA_GRAPHS):
        out[f"cuda_graph_backend_{role}"] = "disabled"
    return out


@registry.rule("device", since="0.5.19", only_if_set=("pp_size",))
def pp_breakable_prefill_graph(ctx):
    """§2.2 step 5 (since 0.5.19, ``arg_groups/cuda_graph_hook.py:apply_cuda_graph_compatibility``):
    with pipeline parallelism the default breakable prefill graph is disabled (opt in with
    ``--cuda-graph-backend-prefill breakable``)."""
    args = ctx.args
    if (
        args.pp_size > 1
        and args.cuda_graph_backend_prefill == "breakable"
        and not ctx.user_set("cuda_graph_backend_prefill")
    ):
        return {"cuda_graph_backend_prefill": "disabled"}
    return {}


@registry.rule("device")
def device_handlers(ctx):
    """§2.2 step 6: per-device writes (HPU, CPU, NPU, MPS) that later rules see as input; the XPU
    handler, which changed in 0.5.15, is its own rule (``xpu_cuda_graphs``). An arm64 CPU host
    defaults to torch_native since 0.5.12 (``CPU_ARM64_TORCH_NATIVE``; 0.5.11: intel_amx). The
    NPU arm is ``_handle_npu_backends`` since 0.5.6.post1 (``NPU_DEFAULT_SERVER_ARGS``); before
    it, nothing is written here on Ascend (``default_backend`` and ``ascend_page_size``)."""
    args, device = ctx.args, ctx.args.device
    if device == "hpu":
        return {
            "attention_backend": Force("torch_native", "HPU runs only torch_native attention"),
            "sampling_backend": Force("pytorch", "HPU samples with pytorch"),
        }
    if device == "cpu":
        out = {"sampling_backend": Force("pytorch", "the CPU engine samples with pytorch")}
        if args.attention_backend is None:
            arm64 = ctx.platform.is_arm64_host and ctx.release.has(CHANGES.CPU_ARM64_TORCH_NATIVE)
            out["attention_backend"] = "torch_native" if arm64 else "intel_amx"
        return out
    if device == "npu":
        if not ctx.release.has(CHANGES.NPU_DEFAULT_SERVER_ARGS):
            return {}  # before 0.5.6.post1: ascend is the unset default (default_backend), pages later
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
    return {}


@registry.rule("device")
def xpu_cuda_graphs(ctx):
    """§2.2 step 6, XPU (``server_args._handle_xpu_backends``, spec §9 #5): prefill graphs are
    always disabled, decode graphs stay as they are. ``XPU_DECODE_GRAPHS_OFF`` (0.5.15): decode
    graphs are disabled unless the user locked them to ``full``, and prefill graphs keep only
    ``tc_piecewise`` — until ``XPU_PREFILL_ANY_GRAPH`` (0.5.17) drops that restriction."""
    args, has = ctx.args, ctx.release.has
    if args.device != "xpu":
        return {}
    if not has(CHANGES.XPU_DECODE_GRAPHS_OFF):
        if args.cuda_graph_backend_prefill != "disabled":
            return {
                "cuda_graph_backend_prefill": Force("disabled", "XPU does not support prefill CUDA graphs")
            }
        return {}
    out = {}
    decode = args.cuda_graph_backend_decode
    if decode != "disabled" and not (ctx.user_set("cuda_graph_backend_decode") and decode == "full"):
        out["cuda_graph_backend_decode"] = Force(
            "disabled", "XPU decode graphs are disabled unless locked to full"
        )
    if args.cuda_graph_backend_prefill not in ("tc_piecewise", "disabled") and not has(
        CHANGES.XPU_PREFILL_ANY_GRAPH
    ):
        out["cuda_graph_backend_prefill"] = Force("disabled", "XPU prefill graphs support only tc_piecewise")
    return out


@registry.rule("device", since="0.5.21")
def xpu_sampling_backend(ctx):
    """Since 0.5.21 (``arg_groups/platform_hook.handle_xpu_backends``): on XPU an unset
    ``--sampling-backend`` becomes ``intel_xpu`` (before the generic default, which only fills
    an unset value)."""
    if ctx.args.device == "xpu" and ctx.args.sampling_backend is None:
        return {"sampling_backend": "intel_xpu"}
    return {}
