"""Compilation mode, ``-O`` level, ``cudagraph_mode`` and the CUDA-graph capture sizes
(vllm-config-spec.md §3.10-§3.12).

``VllmConfig.__post_init__`` (``config/vllm.py`` 1510; stage "vllm_config"): ``--enforce-eager``
(1766), ``TORCH_COMPILE_DISABLE`` (1786), breakable CUDA graphs (``_maybe_enable_breakable_cudagraph``
842), the mode default (1827), the level table ``OPTIMIZATION_LEVEL_00…03`` (255-318), the piecewise
normalisation (``_normalize_piecewise_cudagraph_mode`` 1129), the static-graph platform overrides
and ``_set_cudagraph_sizes`` (2398). The mode found here is provisional: the platform hook
(``resolvable.vllm.config.platform``) and the attention backends' CUDA-graph support (stage
"cudagraph", ``resolvable.vllm.rules.cudagraph``) may lower it. Invariant: a value vLLM overrides
over the user's ``-cc`` setting is a ``Force`` with vLLM's log line as the reason.
"""

from __future__ import annotations

import bisect
import functools
import math

from ...errors import ConflictError
from ...rules import Fix, Force
from .._base import registry
from ..changes import CHANGES
from .facts import env_flag

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: ``OPTIMIZATION_LEVEL_0x["compilation_config"]["cudagraph_mode"]``.
LEVEL_CUDAGRAPH = {0: "NONE", 1: "PIECEWISE", 2: "FULL_AND_PIECEWISE", 3: "FULL_AND_PIECEWISE"}
#: ``CUDAGraphMode.without_piecewise``.
WITHOUT_PIECEWISE = {"PIECEWISE": "NONE", "FULL_AND_PIECEWISE": "FULL_DECODE_ONLY"}
#: ``DEFAULT_BREAKABLE_CUDAGRAPH_ARCHITECTURES`` (``config/vllm.py`` 76; not ROCm).
BREAKABLE_ARCHS = frozenset(
    {
        "AliceAIForCausalLM",
        "BeamForCausalLM",
        "DeepseekV32MTPModel",
        "DeepseekV32ForCausalLM",
        "DeepseekV4ForCausalLM",
        "DeepseekV4ForConditionalGeneration",
        "DeepSeekV4MTPModel",
        "DeepseekV41ForCausalLM",
        "Dots3NoteForCausalLM",
        "Dots3NoteMTPModel",
        "Glm5NextForCausalLM",
        "Glm5NextForConditionalGeneration",
        "Glm5NextMTPModel",
        "GlmMoeDsaForCausalLM",
        "HYV4ForCausalLM",
        "HYV4MTPModel",
        "InklingForCausalLM",
        "InklingForConditionalGeneration",
        "KimiK3ForConditionalGeneration",
        "KimiK3MTPModel",
        "KimiLinearForCausalLM",
        "MiniMaxM3SparseForCausalLM",
        "MiniMaxM3SparseForConditionalGeneration",
        "MuseSpark1xForCausalLM",
        "MuseSparkForConditionalGeneration",
        "Qwen4ExpForCausalLM",
        "Qwen4ExpForConditionalGeneration",
        "Qwen4ExpMTP",
        "Step5ForCausalLM",
        "Step5ForConditionalGeneration",
    }
)
#: ROCm's ``default_breakable_cudagraph_architectures``.
ROCM_BREAKABLE_ARCHS = frozenset({"DeepseekV41ForCausalLM"})
#: Platforms with static graphs (``Platform.support_static_graph_mode``).
STATIC_GRAPH_VENDORS = frozenset({"cuda", "hip", "xpu"})


#: ``_QWEN3_5_ARCHITECTURES`` (0.34: breakable by default on CUDA).
QWEN3_5_ARCHS = frozenset(
    {
        "Qwen3_5ForCausalLM",
        "Qwen3_5ForConditionalGeneration",
        "Qwen3_5MTP",
        "Qwen3_5MoeForCausalLM",
        "Qwen3_5MoeForConditionalGeneration",
        "Qwen3_5MoeMTP",
    }
)


#: The classes ``VllmConfig.__post_init__`` of 0.27-0.28 turns breakable CUDA graphs on for (every
#: platform; 0.26 without the Kimi classes, ``BREAKABLE_GRAPHS_KIMI``); ``BREAKABLE_GRAPHS_DSA_MODELS``
#: (0.29) adds DeepSeek-V3.2, GLM-MoE-DSA, Dots3, HY-V4.
FIRST_BREAKABLE_ARCHS = frozenset(
    {
        *(
            "DeepseekV4ForCausalLM",
            "DeepSeekV4MTPModel",
            "InklingForCausalLM",
            "InklingForConditionalGeneration",
        ),
        *("KimiK3ForConditionalGeneration", "KimiK3MTPModel", "KimiLinearForCausalLM"),
        *("MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration"),
    }
)


def _default_breakable(ctx: Any) -> frozenset[str]:
    """``default_breakable_cudagraph_architectures`` of this platform and release."""
    if not ctx.release.has(CHANGES.BREAKABLE_GRAPHS_KIMI):  # 0.26: no Kimi-K3 / Kimi-Linear
        out = FIRST_BREAKABLE_ARCHS - {
            "KimiK3ForConditionalGeneration",
            "KimiK3MTPModel",
            "KimiLinearForCausalLM",
        }
        if not ctx.release.has(CHANGES.BREAKABLE_GRAPHS_INKLING):  # 0.25: no Inkling either
            out -= {"InklingForCausalLM", "InklingForConditionalGeneration"}
        if not ctx.release.has(CHANGES.BREAKABLE_GRAPHS_MINIMAX_M3):  # 0.23: DeepSeek-V4 only
            out -= {"MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration"}
        if not ctx.release.has(CHANGES.BREAKABLE_GRAPHS_DEEPSEEK_V4):  # 0.22: none
            out -= {"DeepseekV4ForCausalLM", "DeepSeekV4MTPModel"}
        return out
    if not ctx.release.has(CHANGES.BREAKABLE_GRAPHS_DSA_MODELS):
        return FIRST_BREAKABLE_ARCHS
    if ctx.platform.vendor == "hip" and not ctx.release.has(CHANGES.ROCM_BREAKABLE_GRAPHS_DSV41_ONLY):
        return BREAKABLE_ARCHS - {"DeepseekV32ForCausalLM", "DeepseekV32MTPModel"}
    qwen = ctx.release.has(CHANGES.BREAKABLE_GRAPHS_QWEN3_5)
    if ctx.platform.vendor == "hip":
        return ROCM_BREAKABLE_ARCHS | ({"HYV4ForCausalLM", "HYV4MTPModel"} if qwen else set())
    if ctx.platform.vendor == "cuda" and qwen:
        return BREAKABLE_ARCHS | QWEN3_5_ARCHS
    return BREAKABLE_ARCHS


def _tuned_family(capability: Any) -> str | None:
    """``batch_invariant_configs._get_tuned_matmul_arch_family``."""
    if capability is None:
        return None
    major, minor = capability
    return {12: "sm120", 10: "blackwell", 9: "hopper"}.get(major) or (
        "ada" if (major, minor) == (8, 9) else None
    )


def tuned_shapes(release: Any, family: str) -> frozenset[tuple[int, int]]:
    """The (N, K) shapes ``release`` tuned for ``family``: ``batch_invariant_shapes.TUNED_SHAPES``
    plus each ``TUNED_SHAPE_CHANGES`` entry of that family whose change the release has (only the
    family's changes are asked, so the range explain shows follows this family's table)."""
    from .batch_invariant_shapes import TUNED_SHAPE_CHANGES, TUNED_SHAPES

    shapes = TUNED_SHAPES.get(family, frozenset())
    for change, of, added in TUNED_SHAPE_CHANGES:
        if of == family and release.has(change):
            shapes = shapes | added
    return shapes


#: platforms whose ``support_static_graph_mode()`` is True (``platforms/cuda.py``, ``rocm.py``, ``xpu.py``)
STATIC_GRAPH_VENDORS = frozenset({"cuda", "hip", "xpu"})


def eager(ctx: Any) -> bool:
    """``--enforce-eager``, or what ``ModelConfig._verify_cuda_graph`` (``config/model.py``,
    0.30-0.34) turns into it: an encoder-decoder model (Whisper) on ROCm, where CUDA graphs are
    not supported for it yet (vLLM warns and falls back to eager mode); before
    ``CHANGES.BITSANDBYTES_REMOVED`` (0.27.1) also ``ModelConfig._verify_bnb_config``'s 8-bit
    bitsandbytes checkpoint ("CUDA graph is not supported on BitsAndBytes 8bit yet")."""
    a = ctx.args
    if a.enforce_eager or (ctx.platform.vendor == "hip" and a.attn_type == "encoder_decoder"):
        return True
    if a.quantization != "bitsandbytes" or ctx.release.has(CHANGES.BITSANDBYTES_REMOVED):
        return False
    quant = ctx.hf.get("quantization_config") or ctx.hf.text_config.get("quantization_config")
    return bool(quant is not None and quant.get("load_in_8bit", False))


def batch_invariance_breakable(ctx: Any) -> bool:
    """``VllmConfig._uses_breakable_cudagraph_for_batch_invariance`` (0.31+): ``VLLM_BATCH_INVARIANT``,
    not eager, bf16, unquantized, CUDA, and a per-rank qkv/o/gate_up/down shape of the model in the
    family's tuned table (``batch_invariant_shapes``)."""
    a = ctx.args
    if (
        not env_flag(ctx.env, "VLLM_BATCH_INVARIANT")
        or not ctx.release.has(CHANGES.BATCH_INVARIANT_BREAKABLE_GRAPHS)
        or eager(ctx)
        or a.dtype != "bfloat16"
        or a.quantization is not None
        or ctx.platform.vendor != "cuda"
    ):
        return False
    from ..layers import head_size
    from .facts import num_heads, num_kv_heads

    table = tuned_shapes(ctx.release, _tuned_family(ctx.platform.capability) or "")
    if not table:
        return False
    t = ctx.hf.text_config
    tp = max(1, a.tensor_parallel_size)
    hidden = int(t.get("hidden_size") or 0)
    head = head_size(ctx.hf, bool(a.use_mla))
    heads = num_heads(ctx.hf) // tp
    kv_heads = max(1, num_kv_heads(ctx.hf) // tp)
    shapes = [((heads + 2 * kv_heads) * head, hidden), (hidden, heads * head)]
    intermediate = t.get("intermediate_size")
    if isinstance(intermediate, int) and not isinstance(intermediate, bool):
        shapes += [(2 * intermediate // tp, hidden), (hidden, intermediate // tp)]
    return any(shape in table for shape in shapes)


def breakable_cudagraph(ctx: Any) -> bool:
    """``_maybe_enable_breakable_cudagraph`` (``config/vllm.py`` 842): ``VLLM_USE_BREAKABLE_CUDAGRAPH``
    when set, else the platform's default architecture list, else batch invariance with tuned shapes."""
    if "VLLM_USE_BREAKABLE_CUDAGRAPH" in ctx.env:
        return env_flag(ctx.env, "VLLM_USE_BREAKABLE_CUDAGRAPH")
    if ctx.platform.vendor in ("cuda", "hip") and bool(
        set(ctx.hf.architectures or ()) & _default_breakable(ctx)
    ):
        return True
    return batch_invariance_breakable(ctx)


def _set(ctx: Any, field: str, value: Any, reason: str) -> dict[str, Any]:
    """A declaration that respects the user's value: equal → nothing; user-set → Force(reason)."""
    if ctx.args[field] == value:
        return {}
    return {field: Force(value, reason) if ctx.user_set(field) else value}


@registry.rule("vllm_config")
def compilation_mode(ctx: Any) -> dict[str, Any]:
    """§3.10 rules 1-5: ``--enforce-eager`` → NONE; ``TORCH_COMPILE_DISABLE=1`` → NONE; breakable CUDA
    graphs (DeepSeek-V3.2/V4, GLM-MoE-DSA, Kimi-Linear … on CUDA) → NONE; unset → VLLM_COMPILE for
    ``-O1`` and above, NONE for ``-O0``."""
    a = ctx.args
    if eager(ctx):
        return _set(
            ctx, "compilation_mode", "NONE", "Enforce eager set, disabling torch.compile and CUDAGraphs"
        )
    if ctx.env.get("TORCH_COMPILE_DISABLE") == "1":
        return _set(ctx, "compilation_mode", "NONE", "TORCH_COMPILE_DISABLE is set, disabling torch.compile")
    if breakable_cudagraph(ctx):
        return _set(
            ctx, "compilation_mode", "NONE", "breakable CUDA graphs replace torch.compile for this model"
        )
    if a.compilation_mode is None:
        return {"compilation_mode": "VLLM_COMPILE" if a.optimization_level > 0 else "NONE"}
    return {}


@registry.rule("vllm_config")
def cudagraph_mode_default(ctx: Any) -> dict[str, Any]:
    """§3.10 rules 1, 7, 9, 10: ``--enforce-eager`` → NONE; unset → the ``-O`` level's mode (O0 NONE,
    O1 PIECEWISE, O2/O3 FULL_AND_PIECEWISE); piecewise modes without VLLM_COMPILE (and without
    breakable graphs) lose the piecewise part; static-graph platforms: pooling models FULL →
    PIECEWISE, encoder-decoder → FULL_DECODE_ONLY; other platforms (CPU) → NONE."""
    a = ctx.args
    if eager(ctx):
        return _set(
            ctx, "cudagraph_mode", "NONE", "Enforce eager set, disabling torch.compile and CUDAGraphs"
        )
    mode = a.cudagraph_mode or LEVEL_CUDAGRAPH[a.optimization_level]
    reason = f"-O{a.optimization_level} default"
    if mode in WITHOUT_PIECEWISE and a.compilation_mode != "VLLM_COMPILE" and not breakable_cudagraph(ctx):
        # 0.29: "Overriding to NONE"; 0.30+: CUDAGraphMode.without_piecewise
        mode = (
            WITHOUT_PIECEWISE[mode]
            if ctx.release.has(CHANGES.PIECEWISE_FALLBACK_WITHOUT_PIECEWISE)
            else "NONE"
        )
        reason = f"piecewise CUDA graphs need VLLM_COMPILE (compilation mode {a.compilation_mode})"
    if ctx.platform.vendor in STATIC_GRAPH_VENDORS:
        if a.runner_type == "pooling" and mode in ("FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE"):
            mode, reason = "PIECEWISE", "pooling models run piecewise CUDA graphs"
        elif a.attn_type == "encoder_decoder" and mode not in ("NONE", "FULL_DECODE_ONLY"):
            mode, reason = "FULL_DECODE_ONLY", "encoder-decoder models capture decode-only CUDA graphs"
    else:
        mode, reason = "NONE", f"no static CUDA graphs on {ctx.platform.vendor}"
    if mode == a.cudagraph_mode:
        return {}
    return {"cudagraph_mode": Force(mode, reason) if ctx.user_set("cudagraph_mode") else mode}


@functools.lru_cache(maxsize=1024)  # a pure function of ints: the same few grids recur
def _default_sizes(
    max_size: int, tokens: int, interactivity: bool, uniform: tuple[int, ...], with_budget: bool = True
) -> tuple[int, ...]:
    """``with_budget``: the token budget joins the grid when it fits (0.20.1+,
    CHANGES.CAPTURE_SIZES_INCLUDE_TOKEN_BUDGET)."""
    first = list(range(1, min(max_size, 32) + 1)) if interactivity else [1, 2, 4]
    sizes = capture_grid(max_size, tokens if with_budget else max_size + 1, first)
    return tuple(sorted(set(sizes + [s for s in uniform if s <= tokens])))


def capture_grid(max_size: int, max_tokens: int, first: list[int]) -> list[int]:
    """``_set_cudagraph_sizes``: ``first`` (1, 2, 4 or 1…32) + every 8 below 256 + every 16 from 256,
    up to ``max_size``; ``max_num_batched_tokens`` when it fits."""
    sizes = [i for i in first if i <= max_size]
    if max_size >= 8:
        sizes += list(range(8, min(max_size + 1, 256), 8))
    if max_size >= 256:
        sizes += list(range(256, max_size + 1, 16))
    if max_tokens <= max_size and max_tokens not in sizes:
        sizes.append(max_tokens)
    return sizes


def _request_counts(max_reqs: int, ceiling: int) -> list[int]:
    max_reqs = min(max_reqs, ceiling)
    counts = [n for n in (1, 2, 4) if n <= max_reqs]
    counts += list(range(8, min(max_reqs + 1, 256), 8))
    counts += list(range(256, max_reqs + 1, 16))
    return sorted({*counts, max_reqs})


@registry.rule("vllm_config")
def cudagraph_capture_sizes(ctx: Any) -> dict[str, Any]:
    """§3.11: ``VllmConfig._set_cudagraph_sizes`` (``config/vllm.py`` 2398). Without graphs: none.
    Else the largest size is ``min(max_num_seqs × q × 2, 1024 on the SM10x family (0.28+) / 512)`` (q = 1 +
    speculative tokens) capped by ``max_num_batched_tokens``; sizes 1, 2, 4, every 8 to 248, every 16
    from 256; plus the token budget and the uniform-decode sizes (``max_num_seqs``, or ``n·q`` for
    speculative decoding) that fit. A user list is deduplicated and cut at the token budget.

    Only on platforms with static graphs (``support_static_graph_mode``: CUDA, ROCm, XPU, 0.30-0.34):
    elsewhere (CPU) ``VllmConfig.__post_init__`` sets the mode NONE and leaves both values as the
    user gave them (``max_cudagraph_capture_size`` stays unset; the CPU hook empties the sizes)."""
    a = ctx.args
    if ctx.platform.vendor not in STATIC_GRAPH_VENDORS:
        return {}
    if eager(ctx) or a.cudagraph_mode == "NONE":
        out = _set(ctx, "cudagraph_capture_sizes", [], "no CUDA graphs in use")
        out.update(_set(ctx, "max_cudagraph_capture_size", 0, "no CUDA graphs in use"))
        return out
    tokens, seqs = a.max_num_batched_tokens, a.max_num_seqs
    q = 1 + max(0, int(a.num_speculative_tokens or 0))
    cap = ctx.platform.capability
    sm10x = ctx.platform.vendor == "cuda" and cap is not None and cap[0] == 10
    ceiling = 1024 if sm10x and ctx.release.has(CHANGES.CAPTURE_SIZE_1024_SM10X) else 512
    user_max = a.max_cudagraph_capture_size
    uniform: list[int] = []
    if user_max is None:
        max_size = min(seqs * q * 2, ceiling)
        if q > 1 and ctx.release.has(CHANGES.SPEC_DECODE_CAPTURE_SIZES):
            uniform = sorted({n * q for n in _request_counts(seqs, ceiling) if n * q <= max_size})
        elif seqs <= max_size and ctx.release.has(CHANGES.CAPTURE_SIZES_INCLUDE_MAX_NUM_SEQS):
            uniform = [seqs]
    else:
        max_size = user_max
    max_size = min(tokens, max_size)
    if a.cudagraph_capture_sizes is not None:
        sizes = sorted(i for i in set(a.cudagraph_capture_sizes) if i <= tokens)
    else:
        with_budget = tokens > max_size or ctx.release.has(CHANGES.CAPTURE_SIZES_INCLUDE_TOKEN_BUDGET)
        interactive = a.performance_mode == "interactivity"
        sizes = list(_default_sizes(max_size, tokens, interactive, tuple(uniform), with_budget))
    if ctx.release.has(CHANGES.SPLIT_CUDAGRAPH_CAPTURE_SIZES):
        legacy = ctx.user_set("cudagraph_capture_sizes") or ctx.user_set("max_cudagraph_capture_size")
        sizes = split_capture_sizes(ctx, sizes, legacy, q)
    largest = sizes[-1] if sizes else 0
    if user_max is not None and user_max != largest and a.cudagraph_capture_sizes is not None:
        raise ConflictError(
            f"customized max_cudagraph_capture_size(={user_max}) should be consistent with the max value "
            f"of cudagraph_capture_sizes(={largest})",
            fields=("max_cudagraph_capture_size", "cudagraph_capture_sizes"),
            fix=Fix(drop=("max_cudagraph_capture_size",)),
        )
    out = _set(ctx, "cudagraph_capture_sizes", sizes, "vLLM keeps the sizes within max_num_batched_tokens")
    out.update(
        _set(
            ctx, "max_cudagraph_capture_size", largest, f"Truncating max_cudagraph_capture_size to {largest}"
        )
    )
    return out


def _walk_grid(limit: int, step: Any) -> list[int]:
    """``config/compilation.py : _walk_grid`` (0.34): 1, … ``limit``, each size the next multiple of
    the largest power of two not above ``step(size)``."""
    grid, size = [], 1
    while size < limit:
        grid.append(size)
        stride = 1 << max(0, math.floor(math.log2(max(1.0, step(size)))))
        size = (size // stride + 1) * stride
    return [*grid, limit] if limit else []


def prefill_grid(max_tokens: int) -> list[int]:
    """``prefill_cudagraph_capture_grid`` (0.34): 54 sizes at 8192."""
    return list(_prefill_grid(max_tokens))


def decode_grid(max_requests: int) -> list[int]:
    """``decode_cudagraph_capture_grid`` (0.34): 64 sizes at 1024."""
    return list(_decode_grid(max_requests))


@functools.lru_cache(maxsize=256)  # a pure function of one int: the same few limits recur
def _prefill_grid(max_tokens: int) -> tuple[int, ...]:
    return tuple(_walk_grid(max_tokens, lambda t: min(t, max(8, t / 4), 0.07 * max(t, 4096))))


@functools.lru_cache(maxsize=256)
def _decode_grid(max_requests: int) -> tuple[int, ...]:
    return tuple(_walk_grid(max_requests, lambda n: 0.65 * n ** (2 / 3)))


def split_capture_sizes(ctx: Any, shared: list[int], legacy: bool, q: int) -> list[int]:
    """§3.11 (0.34): ``VllmConfig._split_cudagraph_capture_sizes`` (``config/vllm.py`` 2558). On the
    SM10x family without the deprecated fields: prefill token grid up to ``min(8192,
    max_num_batched_tokens)``, decode request grid up to ``max_num_seqs`` within 8192 decode tokens;
    elsewhere both derive from the shared sizes, unless set (``-cc.prefill_cudagraph_capture_token_sizes``,
    ``-cc.max_decode_cudagraph_capture_requests``, or a model hook such as GPT-OSS's). The recorded sizes are the decode token counts plus
    the prefill sizes (decode only when the mixed mode is NONE)."""
    a = ctx.args
    # read in the order vLLM's code does (explain lists the inputs in reading order)
    tokens, seqs = a.max_num_batched_tokens, a.max_num_seqs
    cap = ctx.platform.capability
    wide = not legacy and ctx.platform.vendor == "cuda" and cap is not None and cap[0] == 10
    user_prefill = a.prefill_cudagraph_capture_token_sizes
    max_requests = a.max_decode_cudagraph_capture_requests
    with_prefill = legacy or a.cudagraph_mode not in ("NONE", "FULL_DECODE_ONLY")
    prefill = tuple(user_prefill) if user_prefill is not None else None
    dense = a.performance_mode == "interactivity"
    draft = draft_decode_steps(ctx, q - 1)
    return list(
        _split_sizes(tuple(shared), tokens, seqs, q, wide, prefill, max_requests, with_prefill, dense, draft)
    )


#: ``VllmConfig.get_draft_decode_cudagraph_request_sizes`` (0.34): methods whose draft steps after
#: the first run one token per request.
DRAFT_DECODE_METHODS = ("eagle", "eagle3", "mtp", "draft_model")
#: architectures whose MTP draft vLLM builds with one module whatever the config says
#: (``model_executor/models/mimo_v2_mtp.py : _MIMO_V2_FLASH_NUM_MTP_LAYERS``).
SINGLE_MTP_LAYER_ARCHS = frozenset({"MiMoV2FlashForCausalLM"})


def draft_decode_steps(ctx: Any, k: int) -> bool:
    """Whether the draft's one-token decode steps get their own FULL graphs (0.34,
    ``config/vllm.py : get_draft_decode_cudagraph_request_sizes``): eagle, eagle3, single-module
    MTP (the target's ``num_nextn_predict_layers`` ≤ 1, or ``index_share_for_mtp_iteration``) and
    draft models, with at least 2 speculative tokens; ngram, suffix and k = 1 have none."""
    method = ctx.args.speculative_method
    if k < 2 or method not in DRAFT_DECODE_METHODS:
        return False
    if method == "mtp":
        t = ctx.hf.text_config
        # SpeculativeConfig.hf_config_override: the draft's n_predict is the target's
        # num_nextn_predict_layers, except MiMo-V2-Flash (_MIMO_V2_FLASH_NUM_MTP_LAYERS = 1)
        modules = int(t.get("num_nextn_predict_layers") or 1)
        if ctx.hf.architecture in SINGLE_MTP_LAYER_ARCHS:
            modules = 1
        if min(modules, k) > 1 and not t.get("index_share_for_mtp_iteration"):
            return False  # use_multi_module_mtp: the modules run as one graph per step
    return True


@functools.lru_cache(maxsize=1024)  # a pure function of ints: the same few splits recur
def _split_sizes(
    shared: tuple[int, ...],
    tokens: int,
    seqs: int,
    q: int,
    wide: bool,
    user_prefill: tuple[int, ...] | None,
    max_requests: int | None,
    with_prefill: bool,
    dense: bool = False,
    draft: bool = False,
) -> tuple[int, ...]:
    if user_prefill is not None:
        prefill = sorted({t for t in user_prefill if 1 <= t <= tokens})
    elif wide:
        prefill = list(_prefill_grid(min(8192, tokens)))
        if dense:  # prefill_cudagraph_capture_grid(dense_head=interactivity): every count to 32
            limit_p = min(8192, tokens)
            prefill = sorted({*prefill, *(t for t in range(1, 33) if t < limit_p)})
    else:
        prefill = list(shared)
    if max_requests is not None or wide:
        decode = list(_decode_grid(seqs if max_requests is None else min(max_requests, seqs)))
    else:
        shared_max = shared[-1] if shared else 0
        decode = sorted({min(-(-s // q), seqs) for s in shared if -(-s // q) * q <= shared_max})
    decode_max = min(tokens, 8192) if wide else tokens
    limit = min(seqs, decode_max // q)
    reachable = decode[: bisect.bisect_left(decode, limit) + 1] if limit >= 1 else []
    out = {min(n, limit) * q for n in reachable}
    if draft and decode:  # draft steps: one token per request, the request grid to max_num_seqs
        grid = _decode_grid(seqs)
        one = min(seqs, decode_max)
        out.update(min(n, one) for n in grid[: bisect.bisect_left(grid, one) + 1] if one >= 1)
    if with_prefill:
        out.update(prefill)
    return tuple(sorted(out))
