"""The platforms' ``check_and_update_config`` (vllm-config-spec.md §4); stage "platform_config".

Each rule is one platform's hook, restricted to what changes a derived value of §3. The CUDA hook
(``platforms/cuda.py`` 326) changes none of them (worker class, WSL warning, multimodal
prefix-LM chunked input), so it has no rule. Invariant: a hook's override of the user's value is a
``Force`` with the hook's own log line as the reason.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix, Force
from .._base import registry
from ..changes import CHANGES
from ..choices import is_quantized_kv
from .facts import derived_fact, env_flag, is_hybrid

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Piecewise modes and what they become without piecewise compilation.
_WITHOUT_PIECEWISE = {"PIECEWISE": "NONE", "FULL_AND_PIECEWISE": "FULL_DECODE_ONLY"}


def _force(ctx: Any, field: str, value: Any, reason: str) -> dict[str, Any]:
    if ctx.args[field] == value:
        return {}
    return {field: Force(value, reason) if ctx.user_set(field) else value}


#: model types whose Mamba layers are gated delta nets (the CPU's GDN backend keeps fp16/bf16 state)
GDN_MODEL_TYPES = frozenset({"qwen3_next", "qwen3_5", "qwen3_5_moe", "qwen3_5_text", "qwen3_5_moe_text"})


#: hybrid model types whose layer kinds (transformers 5.20's ``layers_block_type`` / ``layer_types``,
#: MiniMax's ``attn_type_list``) include linear attention, as ``ModelConfig.get_num_layers_by_block_type``
#: counts them (Zamba2 counts every layer); Jamba ("mamba"), Falcon-H1 ("hybrid") and LFM2 ("conv")
#: count none
LINEAR_ATTENTION_HYBRID_TYPES = frozenset(
    {
        *("bamba", "granitemoehybrid", "nemotron_h", "zamba2", "kimi_linear", "minimax", "qwen3_next"),
        *("qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text"),
    }
)


def has_linear_attention_layers(hf: Any) -> bool:
    """Whether vLLM counts linear-attention layers in the model (a hybrid model of
    ``LINEAR_ATTENTION_HYBRID_TYPES``)."""
    model_type = str(hf.text_config.get("model_type") or hf.get("model_type") or "")
    return model_type in LINEAR_ATTENTION_HYBRID_TYPES and derived_fact(hf, "vllm.is_hybrid", is_hybrid)


@registry.rule("platform_config")
def cpu_platform_hook(ctx: Any) -> dict[str, Any]:
    """§4 CPU: ``CpuPlatform.check_and_update_config`` (``platforms/cpu.py`` 234): async scheduling
    off; the ``uni`` executor becomes ``mp`` (V1 multiprocessing); no capture sizes; VLLM_COMPILE →
    DYNAMO_TRACE_ONCE; 0.22-0.24 on AMX: prefix caching and chunked prefill off for linear-attention
    models (``CHANGES.CPU_AMX_LINEAR_ATTENTION_OFF`` .. ``CHANGES.CPU_AMX_LINEAR_ATTENTION_CACHING``);
    0.26+ on AMX: the SSM cache dtype float32 (``CHANGES.CPU_AMX_SSM_FLOAT32``); MLA without AMX (the reference CPU_MLA kernel) turns chunked prefill and
    prefix caching off and sets ``max_num_batched_tokens = max(max_model_len, 2048)``. 0.20 refuses a
    quantized KV cache with chunked prefill or prefix caching, else falls back to auto
    (``CHANGES.CPU_QUANTIZED_KV_CACHE``)."""
    if ctx.platform.vendor != "cpu":
        return {}
    a = ctx.args
    out: dict[str, Any] = {}
    out.update(_force(ctx, "async_scheduling", False, "async scheduling is not supported on CPU"))
    if a.distributed_executor_backend == "uni" and (
        ctx.env.get("VLLM_ENABLE_V1_MULTIPROCESSING", "1") == "1"
        or not ctx.release.has(CHANGES.CPU_UNI_EXECUTOR_ENV_GATED)  # 0.22: whatever the variable
    ):
        out.update(_force(ctx, "distributed_executor_backend", "mp", "V1 multiprocessing on CPU"))
    out.update(_force(ctx, "cudagraph_capture_sizes", [], "no CUDA graphs on CPU"))
    if is_quantized_kv(a.kv_cache_dtype) and not ctx.release.has(CHANGES.CPU_QUANTIZED_KV_CACHE):
        if a.enable_chunked_prefill or a.enable_prefix_caching:  # 0.20
            raise ConflictError(
                "Chunked-prefill and prefix-cache on the CPU backend is not compatible with FP8 KV cache.",
                fields=("kv_cache_dtype", "enable_chunked_prefill", "enable_prefix_caching"),
                fix=Fix(set={"kv_cache_dtype": "auto"}),
                upstream="RuntimeError",
            )
        out.update(_force(ctx, "kv_cache_dtype", "auto", "CPU backend doesn't support KV cache quantization"))
    if a.compilation_mode == "VLLM_COMPILE":
        out.update(
            _force(ctx, "compilation_mode", "DYNAMO_TRACE_ONCE", "CPU compiles with DYNAMO_TRACE_ONCE")
        )
    if a.enable_lora:  # platforms/cpu.py: a LoRA config turns compilation off (0.30-0.34)
        out.update(_force(ctx, "compilation_mode", "NONE", "LoRA on CPU runs without torch.compile"))
    model_type = str(ctx.hf.text_config.get("model_type") or ctx.hf.get("model_type") or "")
    half_kept = a.mamba_ssm_cache_dtype in ("float16", "bfloat16") and model_type in GDN_MODEL_TYPES
    if (
        ctx.platform.cpu_amx
        and a.mamba_ssm_cache_dtype != "float32"
        and not half_kept
        and ctx.release.has(CHANGES.CPU_AMX_SSM_FLOAT32)  # 0.26; 0.21-0.25 keep the SSM dtype
    ):
        # AVX-512 BF16 CPUs (SPR): "Reset SSM cache type to float32 for accelerated GDN mamba
        # backend" — every model (fp16/bf16 is kept only for the gated-delta-net backend)
        out.update(_force(ctx, "mamba_ssm_cache_dtype", "float32", "the CPU's accelerated mamba backend"))
    if (
        ctx.platform.cpu_amx
        and not ctx.release.has(CHANGES.CPU_AMX_LINEAR_ATTENTION_CACHING)
        and ctx.release.has(CHANGES.CPU_AMX_LINEAR_ATTENTION_OFF)  # 0.21 keeps both
        and has_linear_attention_layers(ctx.hf)
    ):  # 0.22-0.24: ModelConfig.get_num_layers_by_block_type(..., "linear_attention") > 0
        if a.enable_prefix_caching and a.mamba_block_size not in (None, a.max_model_len):
            # the Mamba hook already set mamba_block_size for prefix caching; VllmConfig's
            # validate_mamba_block_size (after __post_init__) then refuses (operators-8002-00114)
            raise ConflictError(
                "--mamba-block-size can only be set with --enable-prefix-caching",
                fields=("enable_prefix_caching",),
                fix="pass --no-enable-prefix-caching (vLLM 0.24 turns it off on AMX CPUs for "
                "linear-attention models)",
                upstream="ValueError",
            )
        reason = "Disabled unsupported prefix caching and chunked prefill for linear attention on AMX CPU platforms."
        out.update(_force(ctx, "enable_prefix_caching", False, reason))
        out.update(_force(ctx, "enable_chunked_prefill", False, reason))
    is_v4 = ctx.hf.text_config.get("model_type") == "deepseek_v4" or ctx.hf.get("model_type") == "deepseek_v4"
    amx = ctx.platform.cpu_amx and ctx.platform.cpu_arch == "x86_64" and ctx.release.has(CHANGES.CPU_AMX_MLA)
    amx_mla = a.use_mla and not is_v4 and amx and a.attention_backend != "CPU_MLA"
    if a.use_mla and not (amx_mla or (is_v4 and amx)):
        reason = (
            "MLA is enabled on a non-GPU platform; forcing chunked prefill and prefix caching to be disabled."
        )
        out.update(_force(ctx, "enable_chunked_prefill", False, reason))
        out.update(_force(ctx, "enable_prefix_caching", False, reason))
        out.update(_force(ctx, "max_num_batched_tokens", max(a.max_model_len, 2048), reason))
    return out


@registry.rule("platform_config")
def rocm_platform_hook(ctx: Any) -> dict[str, Any]:
    """§4 ROCm: ``RocmPlatform.check_and_update_config`` (``platforms/rocm.py`` 1169): prefill context
    parallelism with FULL CUDA graphs falls back to PIECEWISE."""
    a = ctx.args
    if ctx.platform.vendor != "hip" or a.prefill_context_parallel_size <= 1:
        return {}
    if a.cudagraph_mode in ("FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE"):
        return _force(ctx, "cudagraph_mode", "PIECEWISE", "ROCm runs PCP with piecewise CUDA graphs")
    return {}


#: The worker class each platform's ``check_and_update_config`` sets for ``worker_cls="auto"``.
WORKER_CLASSES = {
    "cuda": "vllm.v1.worker.gpu_worker.Worker",
    "hip": "vllm.v1.worker.gpu_worker.Worker",
    "cpu": "vllm.v1.worker.cpu_worker.CPUWorker",
    "xpu": "vllm.v1.worker.xpu_worker.XPUWorker",
}


@registry.rule("platform_config")
def worker_class(ctx: Any) -> dict[str, Any]:
    """§3.20, §4: the platforms' ``check_and_update_config`` (``platforms/cuda.py`` 330,
    ``rocm.py`` 1187, ``cpu.py`` 360, ``xpu.py`` 450; 0.30-0.34): ``worker_cls="auto"`` becomes the
    platform's worker class; a user's class is kept."""
    cls = WORKER_CLASSES.get(ctx.platform.vendor)
    if ctx.args.worker_cls != "auto" or cls is None:
        return {}
    return {"worker_cls": cls}


@registry.rule("platform_config")
def chunked_mm_input(ctx: Any) -> dict[str, Any]:
    """§3.20: ``disable_chunked_mm_input`` is forced on for encoder-decoder models
    (``SchedulerConfig.__post_init__``) and, on CUDA/ROCm, for multimodal prefix-LM models (the
    platforms' ``check_and_update_config``: "Forcing --disable_chunked_mm_input for models with
    multimodal-bidirectional attention."; text-only serving has no prefix-LM attention)."""
    from ..layers import mm_prefix

    a = ctx.args
    if a.attn_type == "encoder_decoder":
        return _force(ctx, "disable_chunked_mm_input", True, "encoder-decoder models schedule whole items")
    if ctx.platform.vendor in ("cuda", "hip") and mm_prefix(ctx.hf, a.disable_multimodal):
        return _force(
            ctx,
            "disable_chunked_mm_input",
            True,
            "Forcing --disable_chunked_mm_input for models with multimodal-bidirectional attention.",
        )
    return {}


@registry.rule("platform_config")
def xpu_graphs(ctx: Any) -> dict[str, Any]:
    """§3.10 rule 11 (XPU): ``XPUPlatform.check_and_update_config`` (``platforms/xpu.py`` 293, 0.30):
    XPU graphs are off unless ``VLLM_XPU_ENABLE_XPU_GRAPH=1``; 0.31+ need no variable. (Assumed: a
    PyTorch with XPU graphs, ``supports_xpu_graph``, 2.11+, which vLLM's XPU wheels require.) The
    capture sizes, set earlier, are left as they are."""
    if (
        ctx.platform.vendor != "xpu"
        or ctx.args.cudagraph_mode == "NONE"
        or ctx.release.has(CHANGES.XPU_GRAPHS_WITHOUT_ENV)
        or env_flag(ctx.env, "VLLM_XPU_ENABLE_XPU_GRAPH")
    ):
        return {}
    return _force(
        ctx,
        "cudagraph_mode",
        "NONE",
        "XPU Graph is disabled by environment variable, please set VLLM_XPU_ENABLE_XPU_GRAPH=1 to enable it.",
    )


@registry.rule("platform_config")
def xpu_batch_invariance(ctx: Any) -> dict[str, Any]:
    """§4 XPU: ``XPUPlatform.check_and_update_config`` (``platforms/xpu.py`` 357, 0.31+): with
    ``VLLM_BATCH_INVARIANT`` only unquantized models and unquantized KV caches (``auto``,
    ``float16``, ``bfloat16``) are accepted; the model is checked first."""
    if (
        ctx.platform.vendor != "xpu"
        or not env_flag(ctx.env, "VLLM_BATCH_INVARIANT")
        or not ctx.release.has(CHANGES.XPU_BATCH_INVARIANT_REFUSALS)
    ):
        return {}
    quant = ctx.args.quantization
    if quant is not None:
        raise ConflictError(
            "XPU batch invariance currently supports only unquantized models; "
            f"got quantization={quant!r}. Use an unquantized model or disable VLLM_BATCH_INVARIANT.",
            fields=("quantization",),
            fix=Fix(env={"VLLM_BATCH_INVARIANT": "0"}),
        )
    cache = ctx.args.kv_cache_dtype
    if cache not in ("auto", "float16", "bfloat16"):
        raise ConflictError(
            "XPU batch invariance currently does not support quantized KV caches; "
            f"got kv_cache_dtype={cache!r}. Use an unquantized KV cache dtype or disable VLLM_BATCH_INVARIANT.",
            fields=("kv_cache_dtype",),
            fix=Fix(set={"kv_cache_dtype": "auto"}),
        )
    return {}


@registry.rule("platform_config")
def piecewise_normalisation(ctx: Any) -> dict[str, Any]:
    """§3.10 rule 12: after the platform hook, ``_normalize_piecewise_cudagraph_mode`` again (piecewise
    modes need VLLM_COMPILE or breakable graphs), and stock torch.compile on the V2 runner runs
    without CUDA graphs (0.32+)."""
    from .compilation import breakable_cudagraph

    a = ctx.args
    mode = a.cudagraph_mode
    if mode in _WITHOUT_PIECEWISE and a.compilation_mode != "VLLM_COMPILE" and not breakable_cudagraph(ctx):
        out = _force(
            ctx, "cudagraph_mode", _WITHOUT_PIECEWISE[mode], "piecewise CUDA graphs need VLLM_COMPILE"
        )
        if _WITHOUT_PIECEWISE[mode] == "NONE":
            out.update(_force(ctx, "cudagraph_capture_sizes", [], "no CUDA graphs in use"))
            out.update(_force(ctx, "max_cudagraph_capture_size", 0, "no CUDA graphs in use"))
        return out
    if (
        a.compilation_mode == "STOCK_TORCH_COMPILE"
        and a.use_v2_model_runner
        and mode != "NONE"
        and ctx.release.has(CHANGES.STOCK_COMPILE_V2_NO_GRAPHS)
    ):
        reason = "CUDA graphs are not supported with stock torch.compile in Model Runner V2"
        out = _force(ctx, "cudagraph_mode", "NONE", reason)
        out.update(_force(ctx, "cudagraph_capture_sizes", [], reason))
        out.update(_force(ctx, "max_cudagraph_capture_size", 0, reason))
        return out
    return {}


@registry.rule("platform_config")
def deepep_high_throughput_no_graphs(ctx: Any) -> dict[str, Any]:
    """§3.10 rule 14: ``CompilationConfig.set_splitting_ops_for_v1`` (``config/compilation.py`` 1242,
    called at the end of ``VllmConfig.__post_init__``, 0.30-0.34): with VLLM_COMPILE, the DeepEP
    high-throughput all-to-all backend and data parallelism above 1 (counted for MoE models only)
    turn CUDA graphs off. The capture sizes, set earlier, are left as they are."""
    from .facts import derived_fact, is_moe

    a = ctx.args
    if (
        a.compilation_mode != "VLLM_COMPILE"
        or a.all2all_backend != "deepep_high_throughput"
        or a.cudagraph_mode == "NONE"
        or a.data_parallel_size <= 1
        or not derived_fact(ctx.hf, "vllm.is_moe", is_moe)
    ):
        return {}
    return _force(
        ctx,
        "cudagraph_mode",
        "NONE",
        "DeepEP: Disabling CUDA Graphs since DeepEP high-throughput kernels are optimized for prefill "
        "and are incompatible with CUDA Graphs.",
    )


@registry.rule("platform_config")
def config_time_values(ctx: Any) -> dict[str, Any]:
    """§3.4, §3.10: what ``create_engine_config`` returns before the model is built: the block size
    (the user's, else ``CacheConfig.DEFAULT_BLOCK_SIZE`` — 16, 64 from 0.34 — except the CPU hook's:
    16 for the reference CPU MLA kernel, 256 for DeepSeek-V4, 128 when not user-set before 0.33)
    and the provisional CUDA-graph mode (the attention backends may lower both at engine start)."""
    a = ctx.args
    user = a.block_size if ctx.user_set("block_size") else None
    block = user if user is not None else (64 if ctx.release.has(CHANGES.DEFAULT_BLOCK_SIZE_64) else 16)
    if ctx.platform.vendor == "cpu":
        is_v4 = "deepseek_v4" in (ctx.hf.get("model_type"), ctx.hf.text_config.get("model_type"))
        amx = (
            ctx.platform.cpu_amx
            and ctx.platform.cpu_arch == "x86_64"
            and ctx.release.has(CHANGES.CPU_AMX_MLA)
        )
        if a.use_mla and not is_v4 and not (amx and a.attention_backend != "CPU_MLA"):
            block = 16
        elif is_v4:
            block = 256
        elif user is None and not ctx.release.has(CHANGES.CPU_BLOCK_SIZE_AT_SELECTION):
            block = 128
    return {"block_size_config": block, "cudagraph_mode_config": a.cudagraph_mode}
