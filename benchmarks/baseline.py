"""A hand-written *procedural* baseline for the SGLang pack, for benchmarks only.

It resolves the same server arguments as ``resolvable.sglang.resolve_server_args`` for three
architectures, the way sglang 0.5.14 did it: one function, plain ``if``/``else`` over a plain
``dict`` of arguments that it mutates in place. It was written from the specification
(``sglang-attention-spec.md`` §2.2, §3.1 (b)/(c), §3.3, §4.1-§4.7, §11.1), not by calling
the rule pack, and records nothing (no provenance, no declarations): it is the lower bound of
what a resolution can cost in pure Python, against which ``benchmarks/run.py`` measures the pack.

Scope:

* architectures ``GptOssForCausalLM``, ``LlamaForCausalLM`` and ``DeepseekV3ForCausalLM`` without
  DSA (no ``index_topk``); anything else raises ``NotImplementedError`` (not a refusal);
* every platform preset (``Platform`` is read through its predicates only);
* a refused configuration raises ``ValueError`` where the pack raises ``ConflictError``.

The argument defaults are read from the ``ServerArgs`` dataclass (the argument object, not the
rules), so the result has every field and can be compared field by field with the pack's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

GPT_OSS = "GptOssForCausalLM"
LLAMA = "LlamaForCausalLM"
DEEPSEEK_V3 = "DeepseekV3ForCausalLM"
ARCHS = (GPT_OSS, LLAMA, DEEPSEEK_V3)

# §3.3: sink-capable backends GPT-OSS accepts.
_GPT_OSS_BACKENDS = ("triton", "trtllm_mha", "fa3", "fa4", "ascend", "intel_amx", "intel_xpu", "aiter")
# §4.3 constants.
_DETERMINISTIC = ("flashinfer", "fa3", "triton", "ascend")
_DETERMINISTIC_RADIX = ("fa3", "triton", "ascend")
_DETERMINISTIC_DEEPSEEK = ("fa3", "triton")
# §3.21: the MLA architectures that can appear in these three models' ``architectures``.
_MLA_ARCHS = frozenset(
    {
        "DeepseekV2ForCausalLM",
        "DeepseekV32ForCausalLM",
        "DeepseekV3ForCausalLM",
        "DeepseekV3ForCausalLMNextN",
    }
)
_KV_HEAD_KEYS = (
    "n_head_kv",
    "num_kv_heads",
    "num_key_value_heads",
    "multi_query_group_num",
    "num_attention_groups",
)
_EAGLE_FAMILY = ("EAGLE", "EAGLE3", "NEXTN")

#: Fields on which this baseline follows the specification where the rule pack, when this was
#: written, did not. ``run.py`` lists the cases that differ only in these fields instead of
#: failing on them (and says so in the report); any other difference fails the parity assertion.
#: Remove an entry as soon as the pack agrees (``run.py`` then says the entry is stale).
KNOWN_DIVERGENCES: dict[str, str] = {}
_DFLASH_DRAFT_OK = ("flashinfer", "fa3", "fa4", "triton", "ascend")


def defaults_of(args_class: type) -> dict[str, Any]:
    """Field defaults of an argument dataclass (``ServerArgs``), as a plain dict."""
    out = {}
    for f in dataclasses.fields(args_class):
        if f.default is not dataclasses.MISSING:
            out[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = f.default_factory()
        else:
            out[f.name] = None
    return out


def _env_bool(env: Mapping[str, str], name: str) -> bool:
    """sglang EnvBool: true/1/yes/y, false/0/no/n (default False)."""
    raw = env.get(name)
    if raw is None:
        return False
    value = str(raw).strip().lower()
    if value in ("true", "1", "yes", "y"):
        return True
    if value in ("false", "0", "no", "n"):
        return False
    raise ValueError(f"environment variable {name}={raw!r} is not a boolean")


def _is_int4_thinking(qc: Mapping[str, Any] | None) -> bool:
    """§3.1 (c): Kimi-K2 thinking int4 (compressed-tensors, group_0 4-bit int groups of 32)."""
    if not qc or qc.get("quant_method") != "compressed-tensors":
        return False
    weights = ((qc.get("config_groups") or {}).get("group_0") or {}).get("weights")
    return (
        bool(weights)
        and weights.get("num_bits") == 4
        and weights.get("group_size") == 32
        and (weights.get("strategy") == "group" and weights.get("type") == "int")
    )


def resolve(
    flags: Mapping[str, Any],
    hf: Mapping[str, Any],
    platform: Any,
    env: Mapping[str, str] | None = None,
    *,
    defaults: Mapping[str, Any],
) -> dict[str, Any]:
    """Resolve the server arguments for ``hf`` (a plain config.json dict) on ``platform``.

    ``flags`` are what the user passed; ``defaults`` are the argument defaults (``defaults_of``).
    Returns every argument; raises ``ValueError`` where sglang refuses the configuration.
    """
    a = dict(defaults)
    a.update(flags)
    user_set = {k for k, v in flags.items() if v != defaults[k]}
    env = env or {}
    archs = hf.get("architectures") or ()
    arch = archs[0] if archs else None
    if arch not in ARCHS:
        raise NotImplementedError(f"the baseline covers {ARCHS}, not {arch}")
    text = hf.get("text_config") or hf.get("llm_config") or hf
    if arch == DEEPSEEK_V3 and text.get("index_topk") is not None:
        raise NotImplementedError("the baseline does not cover DeepSeek DSA")
    gpt_oss = arch == GPT_OSS
    deepseek = arch == DEEPSEEK_V3
    mla = any(x in _MLA_ARCHS for x in archs)  # §3.21
    sinks = GPT_OSS in archs  # §3.21 attention sinks
    qc = hf.get("quantization_config")
    quant_method = qc.get("quant_method") if qc else None
    fi_env = str(env.get("SGLANG_IS_FLASHINFER_AVAILABLE", "true")).strip().lower() in ("true", "1")
    flashinfer = fi_env and platform.is_cuda and "flashinfer" in platform.kernels  # §1
    is_sm90, is_sm100, is_sm120, is_hip = (
        platform.is_sm90,
        platform.is_sm100,
        platform.is_sm120,
        platform.is_hip,
    )

    # -- §2.2 step 2: deprecated backend alias ("nsa" stays as given) ------------------------------------
    for field in (
        "attention_backend",
        "prefill_attention_backend",
        "decode_attention_backend",
        "speculative_draft_attention_backend",
    ):
        if a[field] == "compressed":
            a[field] = "dsv4"

    # -- step 3: device, --quantization unquant ---------------------------------------------------------
    if a["device"] is None:
        a["device"] = platform.device
    quant_unset = False
    if a["quantization"] == "unquant":
        a["quantization"] = None
        quant_unset = True

    # -- step 5: CUDA-graph defaults --------------------------------------------------------------
    if a["disable_cuda_graph"]:
        for phase in ("prefill", "decode"):
            if a["cuda_graph_backend_" + phase] not in (None, "disabled"):
                raise ValueError(f"--disable-cuda-graph conflicts with --cuda-graph-backend-{phase}")
        a["cuda_graph_backend_prefill"] = a["cuda_graph_backend_decode"] = "disabled"
    else:
        if a["cuda_graph_backend_decode"] is None:
            a["cuda_graph_backend_decode"] = "full"
        if a["cuda_graph_backend_prefill"] is None:
            a["cuda_graph_backend_prefill"] = "breakable" if platform.is_cuda else "tc_piecewise"
        elif a["cuda_graph_backend_prefill"] == "full":
            raise ValueError("--cuda-graph-backend-prefill=full is not allowed")

    # -- step 6: device handlers ----------------------------------------------------------------------
    device = a["device"]
    if device == "hpu":
        a["attention_backend"] = "torch_native"
        a["sampling_backend"] = "pytorch"
    elif device == "cpu":
        a["sampling_backend"] = "pytorch"
        if a["attention_backend"] is None:
            a["attention_backend"] = "torch_native" if platform.is_arm64_host else "intel_amx"
    elif device == "npu":
        a["attention_backend"] = a["prefill_attention_backend"] = a["decode_attention_backend"] = "ascend"
        if a["page_size"] is None:
            a["page_size"] = 128
        a["disable_custom_all_reduce"] = True  # "plus … disable custom all-reduce" (§2.2 step 6)
    elif device == "mps":
        if str(env.get("SGLANG_USE_MLX", "")).lower() not in ("1", "true", "yes", "y"):
            a["disable_overlap_schedule"] = True
    elif device == "xpu":
        decode = a["cuda_graph_backend_decode"]
        if decode != "disabled" and not ("cuda_graph_backend_decode" in user_set and decode == "full"):
            a["cuda_graph_backend_decode"] = "disabled"
        if a["cuda_graph_backend_prefill"] not in ("tc_piecewise", "disabled"):
            a["cuda_graph_backend_prefill"] = "disabled"

    # -- after the device handlers: GPU-memory defaults (server_args._handle_gpu_memory_settings) -------
    if a["chunked_prefill_size"] is None:
        gib = None if device == "mps" else platform.memory_gib
        if gib is None:
            a["chunked_prefill_size"] = 4096  # no memory figure: sglang's fallback branch
        elif gib < 35:
            a["chunked_prefill_size"] = 2048
        elif gib < 60:
            a["chunked_prefill_size"] = 4096
        elif gib < 160:
            a["chunked_prefill_size"] = 8192
        else:
            a["chunked_prefill_size"] = 16384

    # -- §11.1: mxfp4 is registered only on CUDA, the CPU engine and gfx95 ROCm ----------------------
    if (a["quantization"] or quant_method) == "mxfp4" and not (
        platform.is_cuda or platform.is_cpu or platform.is_gfx95
    ):
        raise ValueError("Unknown quantization method: mxfp4")

    # -- step 10: model-specific adjustments (§3.3, §3.1 b/c) -------------------------------------------
    not_set = (
        a["attention_backend"] is None
        and a["prefill_attention_backend"] is None
        and (a["decode_attention_backend"] is None)
    )
    if gpt_oss:
        if not_set:
            if is_sm100:
                a["attention_backend"] = "trtllm_mha"
            elif is_sm90:
                a["attention_backend"] = "fa3"
            elif platform.is_cpu and platform.has_amx:
                a["attention_backend"] = "intel_amx"
            elif platform.is_xpu:
                a["attention_backend"] = "intel_xpu"
            elif is_hip:
                a["attention_backend"] = "aiter"
            else:
                a["attention_backend"] = "triton"
        if platform.is_xpu and a["dtype"] not in ("auto", "bfloat16"):
            raise ValueError("GptOssForCausalLM on Intel XPU only supports bfloat16 dtype")
        if quant_method == "mxfp4":
            a["dtype"] = "bfloat16"
        backend = a["attention_backend"]
        prefill = a["prefill_attention_backend"] or backend
        decode = a["decode_attention_backend"] or backend
        if prefill not in _GPT_OSS_BACKENDS or decode not in _GPT_OSS_BACKENDS:
            raise ValueError(f"GptOssForCausalLM requires one of {list(_GPT_OSS_BACKENDS)} attention backend")
        if a["moe_runner_backend"] == "auto":
            mxfp4 = quant_method == "mxfp4" or a["quantization"] == "mxfp4"
            if is_sm100 and mxfp4:
                a["moe_runner_backend"] = "flashinfer_mxfp4"
            elif is_sm120 and mxfp4:
                a["moe_runner_backend"] = "marlin"
            elif is_hip and _env_bool(env, "SGLANG_USE_AITER"):
                if not mxfp4:
                    a["moe_runner_backend"] = "triton"
            elif platform.is_musa and _env_bool(env, "SGLANG_DEEPEP_BF16_DISPATCH"):
                a["moe_runner_backend"] = "deep_gemm"
            elif (
                a["ep_size"] == 1
                and "triton_kernels" in platform.kernels
                and a["quantization"] is None
                and not (platform.is_cpu and platform.has_amx)
            ):
                driver = platform.driver_version
                new_driver = driver is not None and driver[0] >= 595
                a["moe_runner_backend"] = (
                    "triton" if platform.is_blackwell and new_driver else "triton_kernel"
                )
        if a["moe_runner_backend"] == "triton_kernel" and a["ep_size"] != 1:
            raise ValueError("the triton_kernel MoE runner requires --ep-size 1")
    elif deepseek:
        if is_sm100 and not_set:
            a["attention_backend"] = "trtllm_mla"
        if a["enable_prefill_cp"] and mla:
            tp = a["tp_size"]
            a["enable_dp_attention"] = True
            a["moe_dense_tp_size"] = 1
            a["attn_cp_size"] = tp // a["dp_size"]
            a["cuda_graph_backend_prefill"] = "disabled"
            a["moe_a2a_backend"] = "deepep"
            a["ep_size"] = tp
        if is_sm100:  # §3.1 (c)
            quantization = a["quantization"]
            if quantization is None and not quant_unset:
                quantization = quant_method
                if quantization is not None:
                    a["quantization"] = quantization
            fits = quantization in (None, "fp8", "modelopt_fp8", "modelopt_fp4", "modelopt_mixed") or (
                _is_int4_thinking(qc)
            )
            if a["moe_a2a_backend"] == "none" and a["moe_runner_backend"] == "auto" and fits:
                a["moe_runner_backend"] = "flashinfer_trtllm"
        if (
            is_hip
            and a["quantization"] == "modelopt_fp4"
            and a["speculative_algorithm"] == "EAGLE"
            and a["speculative_moe_runner_backend"] is None
            and a["speculative_moe_a2a_backend"] is None
        ):
            if _env_bool(env, "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE"):
                if a["ep_size"] == 1:
                    raise ValueError("SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE needs expert parallelism")
                a["speculative_moe_runner_backend"], a["speculative_moe_a2a_backend"] = "deep_gemm", "deepep"
            else:
                a["speculative_moe_runner_backend"], a["speculative_moe_a2a_backend"] = "triton", "none"
    # step 10i
    if env.get("SGLANG_EMBEDDINGS_SPARSE_HEAD") is not None:
        a["disable_overlap_schedule"] = True

    # -- step 11: sampling backend ---------------------------------------------------------------------
    if a["sampling_backend"] is None:
        a["sampling_backend"] = "flashinfer" if flashinfer else "pytorch"

    # -- step 12: deterministic inference (§4.3) ----------------------------------------------------------
    if a["rl_on_policy_target"] is not None:
        a["enable_deterministic_inference"] = True
    if a["enable_deterministic_inference"]:
        a["enforce_disable_flashinfer_allreduce_fusion"] = True
        a["enable_aiter_allreduce_fusion"] = False
        a["flashinfer_allreduce_fusion_backend"] = None
        if a["sampling_backend"] not in ("ascend", "pytorch"):
            a["sampling_backend"] = "pytorch"
        backend = a["attention_backend"]
        if backend is None:
            if is_sm100 or is_sm120:
                backend = "triton" if deepseek else "flashinfer"
            else:
                backend = "fa3"
            a["attention_backend"] = backend
        elif backend not in _DETERMINISTIC:
            raise ValueError(f"deterministic inference does not support the {backend!r} attention backend")
        if deepseek and backend not in _DETERMINISTIC_DEEPSEEK:
            raise ValueError(f"deterministic inference with DeepSeek models does not support {backend!r}")
        if backend not in _DETERMINISTIC_RADIX:
            a["disable_radix_cache"] = True
        if a["tp_size"] > 1 and not is_hip:
            a["disable_custom_all_reduce"] = True

    # -- step 13: default backend (§4.1) ---------------------------------------------------------------
    prefill, decode = a["prefill_attention_backend"], a["decode_attention_backend"]
    if prefill is not None and prefill == decode:
        a["attention_backend"] = prefill
    elif a["attention_backend"] is None:
        topk = a["speculative_eagle_topk"]
        no_spec_or_topk_one = topk is None or (topk == 1 and a["page_size"] in (1, None))
        if not mla:
            if is_sm90 and no_spec_or_topk_one:
                backend = "fa3"
            elif (
                is_sm100 and no_spec_or_topk_one and (a["speculative_algorithm"] is None or topk is not None)
            ):
                backend = "trtllm_mha"
            elif is_hip:
                backend = "aiter"
            elif platform.is_mps:
                backend = "torch_native"
            elif flashinfer and not sinks:
                backend = "flashinfer"
            else:
                backend = "triton"
        elif is_sm90:
            backend = "fa3"
        elif is_sm100:
            backend = "flashinfer"
        elif is_hip:
            total = None
            for key in _KV_HEAD_KEYS:
                total = text.get(key)
                if total is not None:
                    break
            if total is None:
                total = text.get("num_attention_heads")
            heads = max(1, total // max(1, a["tp_size"]))
            backend = "aiter" if heads in (16, 128) else "triton"
        elif platform.is_mps:
            backend = "torch_native"
        else:
            backend = "triton"
        a["attention_backend"] = backend

    # -- §4.2 compatibility: C1/C2, C15, C17, C18/C19, C22/C23 -----------------------------------------------
    A = a["attention_backend"]
    if A == "torch_native" or A == "flex_attention":
        if A == "flex_attention" and a["speculative_algorithm"] is not None:
            raise ValueError("Speculative decoding is currently not supported with Flex Attention backend")
        a["cuda_graph_backend_prefill"] = a["cuda_graph_backend_decode"] = "disabled"
    if A == "fa3" and a["kv_cache_dtype"] == "fp8_e5m2":
        A = a["attention_backend"] = "triton"
    if A == "aiter" and a["mem_fraction_static"] is not None:  # C17 (scales a given fraction)
        lengths = [
            text.get(k)
            for k in (
                "max_position_embeddings",
                "n_positions",
                "max_seq_len",
                "seq_length",
                "max_sequence_length",
            )
        ]
        if max((n for n in lengths if n is not None), default=2048) > 8192:
            a["mem_fraction_static"] = round(a["mem_fraction_static"] * 0.85, 6)
    if A == "intel_amx" and device == "cpu" and not platform.has_amx:
        A = a["attention_backend"] = "torch_native"
    elif A == "intel_xpu" and device == "xpu" and not platform.has_xmx:
        A = a["attention_backend"] = "triton"
    if text.get("dual_chunk_attention_config") is not None:
        if A is None:
            A = a["attention_backend"] = "dual_chunk_flash_attn"
        elif A != "dual_chunk_flash_attn":
            raise ValueError("Dual chunk attention is enabled; set --attention-backend dual_chunk_flash_attn")
    if A == "dual_chunk_flash_attn":
        a["enable_mixed_chunk"] = False
        a["disable_radix_cache"] = True

    # -- C4-C9 (running page), C16, C21 --------------------------------------------------------------------
    P, D = a["prefill_attention_backend"], a["decode_attention_backend"]
    page = a["page_size"]
    if "flashmla" in (A, D) and page != 64:
        page = 64
    if "cutlass_mla" in (A, D) and page != 128:
        page = 128
    if ("trtllm_mla" in (A, D) or "tokenspeed_mla" in (A, D)) and page not in (32, 64):
        page = 64
    if "cutedsl_mla" in (A, D, P) and page not in (32, 64):
        page = 64
    if "trtllm_mha" in (A, D, P) and page not in (16, 32, 64):
        page = 64
    if (
        "fa4" in (A, D, P)
        and not mla
        and is_sm100
        and (a["speculative_eagle_topk"] or 0) <= 1
        and page != 128
    ):
        page = 128
    eff_prefill, eff_decode = P or A, D or A
    if eff_decode == "intel_xpu" and page not in ((16, 32, 64, 128) if mla else (64, 128)):
        page = 128
    a["page_size"] = page

    # -- C10-C14, C20 ------------------------------------------------------------------------------------------
    kv = a["kv_cache_dtype"]
    if "trtllm_mla" in (A, D):
        if not platform.is_blackwell:
            raise ValueError("TRTLLM MLA backend is only supported on Blackwell GPUs (SM100/SM12x)")
        if kv not in ("fp8_e4m3", "fp4_e2m1", "bf16", "auto"):
            raise ValueError(
                "TensorRT-LLM MLA backend only supports kv-cache-dtype fp8_e4m3, fp4_e2m1, bf16, auto"
            )
    if "tokenspeed_mla" in (A, D):
        if not platform.is_blackwell:
            raise ValueError("tokenspeed_mla backend is only supported on Blackwell GPUs (SM100/SM12x)")
        if kv != "fp8_e4m3":
            raise ValueError("tokenspeed_mla backend requires kv-cache-dtype=fp8_e4m3")
    if "cutedsl_mla" in (A, D, P):
        if P == "cutedsl_mla":
            raise ValueError("CuteDSL MLA only supports decoding for now")
        if not is_sm100:
            raise ValueError("CuteDSL MLA backend is only supported on Blackwell GPUs (SM100)")
        if kv not in ("fp8_e4m3", "bf16", "bfloat16", "auto"):
            raise ValueError(f"CuteDSL MLA backend does not support kv-cache-dtype {kv}")
        if P is None:
            P = a["prefill_attention_backend"] = "trtllm_mla"
            eff_prefill = P
    if eff_prefill == "trtllm_mha" and not is_sm100:
        raise ValueError("TRTLLM MHA backend for prefill is only supported on Blackwell GPUs (SM100)")
    if eff_decode == "trtllm_mha" and not (is_sm90 or is_sm100 or is_sm120):
        raise ValueError("TRTLLM MHA backend for decode is only supported on SM90, SM100 and SM120")
    if mla and eff_prefill == "intel_xpu":
        raise ValueError("intel_xpu backend is only supported on decode for MLA models")

    # -- C24 (step 14) -----------------------------------------------------------------------------------------
    if (
        "cuda_graph_backend_prefill" not in user_set
        and a["cuda_graph_backend_prefill"] != "disabled"
        and DEEPSEEK_V3 in archs
        and eff_prefill == "trtllm_mla"
    ):
        a["cuda_graph_backend_prefill"] = "disabled"

    # -- step 16: FP4 KV cache (§4.6) ------------------------------------------------------------------------
    if kv == "fp4_e2m1":
        if not platform.is_cuda:
            raise ValueError("KV4 is not tested on non-CUDA platforms.")
        if eff_prefill == "fa4":
            allowed = (
                ("cutlass_mla", "flashinfer", "trtllm_mla")
                if mla
                else ("triton", "torch_native", "flex_attention")
            )
            if eff_decode not in allowed:
                raise ValueError("FP4 KV cache with fa4 prefill needs another decode backend")
        elif eff_prefill == eff_decode:
            allowed = (
                ("cutlass_mla", "flashinfer", "trtllm_mla", "flashmla")
                if mla
                else ("triton", "torch_native", "flex_attention", "trtllm_mha")
            )
            if A not in allowed:
                raise ValueError("FP4 KV cache needs another attention backend")

    # -- step 17: page-size default (§4.5) ---------------------------------------------------------------------
    if a["page_size"] is None:
        layout = str(env.get("SGLANG_AITER_KV_CACHE_LAYOUT", "nhd")).lower()
        if is_hip and layout == "vectorized_5d":
            a["page_size"] = 64
        else:
            a["page_size"] = 64 if platform.is_musa else 1
    page = a["page_size"]

    # -- steps 19-23 (§4.7) ----------------------------------------------------------------------------------------
    if a["enable_mis"]:
        if (eff_prefill, eff_decode) != ("flashinfer", "flashinfer"):
            raise ValueError("Multi-item scoring requires the flashinfer attention backend")
        a["cuda_graph_backend_prefill"] = a["cuda_graph_backend_decode"] = "disabled"
        a["disable_radix_cache"] = True
        a["chunked_prefill_size"] = -1
    if a["prefill_only_disable_kv_cache"] and eff_prefill not in ("fa3", "fa4"):
        raise ValueError("--prefill-only-disable-kv-cache requires the FA prefill backend (fa3 or fa4)")
    if a["dp_size"] == 1:
        a["enable_dp_attention"] = False
        a["enable_dp_lm_head"] = False
    # _moe_runner_fusion_disable: the TRT-LLM / CuteDSL MoE runners disable shared-experts fusion.
    if a["moe_runner_backend"] in (
        "flashinfer_cutedsl",
        "flashinfer_trtllm",
        "experimental_sgl_trtllm",
        "flashinfer_trtllm_routed",
    ):
        a["disable_shared_experts_fusion"] = True
    algo, topk = a["speculative_algorithm"], a["speculative_eagle_topk"]
    if algo is not None:
        # speculative_hook.py: draft MoE runner default, EAGLE-family parameters and writes.
        if a["speculative_moe_runner_backend"] is None:
            a["speculative_moe_runner_backend"] = a["moe_runner_backend"]
        if algo in _EAGLE_FAMILY:
            if a["max_running_requests"] is None:
                a["max_running_requests"] = 48
            a["enable_mixed_chunk"] = False
            if a["speculative_num_steps"] is None:
                if topk is not None or a["speculative_num_draft_tokens"] is not None:
                    raise ValueError("--speculative-eagle-topk needs --speculative-num-steps")
                steps_topk_draft = (5, 4, 8) if arch == "LlamaForCausalLM" else (3, 1, 4)
                a["speculative_num_steps"], topk, a["speculative_num_draft_tokens"] = steps_topk_draft
                a["speculative_eagle_topk"] = topk
            if topk == 1:
                a["speculative_num_draft_tokens"] = a["speculative_num_steps"] + 1
        topk_many = topk is not None and topk > 1
        if topk_many and "trtllm_mha" in (eff_prefill, eff_decode):
            raise ValueError("trtllm_mha backend only supports topk = 1 for speculative decoding.")
        if topk_many and page is not None and page > 1:
            if algo in _EAGLE_FAMILY and A not in ("flashinfer", "fa3", "triton"):
                raise ValueError(
                    "speculative decoding with topk > 1 and page_size > 1 needs flashinfer/fa3/triton"
                )
            if algo == "NGRAM" and A != "flashinfer":
                raise ValueError(
                    "NGRAM speculative decoding with topk > 1 and page_size > 1 needs flashinfer"
                )
        if algo == "DFLASH":
            chosen = a["speculative_draft_attention_backend"] or eff_prefill
            if chosen is None or chosen == "trtllm_mha" or chosen not in _DFLASH_DRAFT_OK:
                chosen = "triton" if is_hip else "flashinfer"
            a["speculative_draft_attention_backend"] = chosen
    if a["enable_unified_memory"] and not {b for b in (eff_prefill, eff_decode) if b is not None} <= {
        "triton"
    }:
        raise ValueError("--enable-unified-memory supports only the triton attention backend")

    # -- step 24: diffusion LLMs (§4.4): none of these architectures has a dLLM block size ----------------------
    if a["dllm_algorithm"] is not None:
        raise ValueError(f"Unknown diffusion LLM: {arch}")

    # -- check_server_args ----------------------------------------------------------------------------------------
    chunk = a["chunked_prefill_size"]
    if chunk is not None and chunk > 0 and page and a["disaggregation_mode"] != "decode" and chunk % page:
        raise ValueError(f"chunked_prefill_size ({chunk}) must be a multiple of page_size ({page}).")
    return a
