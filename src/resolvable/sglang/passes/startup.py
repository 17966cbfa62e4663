"""Start-up checks (after ServerArgs): what sglang 0.5.15 refuses when the model runner builds
its attention backends, although ``ServerArgs`` accepted the arguments.

sglang resolves the arguments in ``ServerArgs.__post_init__``; the attention backend objects are
built later, in ``ModelRunner.init_attention_backend`` → ``_get_attention_backend`` →
``_get_attention_backend_from_str`` → the creator registered in
``layers/attention/attention_registry.py`` → the backend's constructor → ``attn_backend_wrapper``.
Those raise (``ValueError``, ``AssertionError``, ``NotImplementedError``) on inputs ServerArgs let
through; each rule here re-implements one of them (file and function in its docstring).

Invariants: these rules run in the ``startup`` check phase, after the ServerArgs stages and the
load-time adjustments; they read the final values and only refuse (they never declare); they
use only facts the pack knows (platform capability, the model config, the arguments). What
sglang's backends check that the pack cannot know is listed in ``docs/fidelity.md``.
"""

from __future__ import annotations

import functools

from ...errors import ConflictError
from ...rules import ArchList, Fix
from .._base import registry
from ..changes import CHANGES, in_release
from ..facts import effective_backends, is_deepseek_dsa, is_mla, kv_head_dims, num_kv_heads_per_rank

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

STAGE = "startup"

#: ``ATTENTION_BACKENDS`` of sglang 0.5.15 (``attention_registry.py``, ``@register_attention_backend``).
REGISTERED_BACKENDS = frozenset(
    {
        "flashinfer",
        "trtllm_mla",
        "tokenspeed_mla",
        "cutedsl_mla",
        "aiter",
        "wave",
        "ascend",
        "dsa",
        "nsa",
        "dsv4",
        "triton",
        "torch_native",
        "flex_attention",
        "flashmla",
        "fa3",
        "fa4",
        "cutlass_mla",
        "trtllm_mha",
        "intel_amx",
        "dual_chunk_flash_attn",
        "intel_xpu",
    }
)
#: ``ATTENTION_BACKENDS`` of sglang 0.5.19: adds ``hpc_ops`` (0.5.16-0.5.18) and the MiniCPM
#: sparse backends ``minicpm_flashattn`` / ``minicpm_flashinfer`` (0.5.19).
#: Backends later releases register, each with the change that added it.
REGISTERED_LATER = (
    ("hpc_ops", CHANGES.HPC_OPS_BACKEND),
    ("minicpm_flashattn", CHANGES.MINICPM_ATTENTION_BACKENDS),
    ("minicpm_flashinfer", CHANGES.MINICPM_ATTENTION_BACKENDS),
)
#: ``configs/model_config.py:is_encoder_decoder_model``.
ENCODER_DECODER_ARCHS = frozenset(
    {"WhisperForConditionalGeneration", "MllamaForConditionalGeneration", "MossVLForConditionalGeneration"}
)
#: Models whose text config is one of the classes of ``ModelRunner.hybrid_gdn_config``
#: (Qwen3Next, Qwen3.5, Qwen3.5-MoE, InternS2Preview, JetNemotron, JetVLM), by architecture.
HYBRID_GDN_ARCHS = frozenset(
    {
        "Qwen3NextForCausalLM",
        "Qwen3_5ForConditionalGeneration",
        "Qwen3_5MoeForConditionalGeneration",
        "InternS2PreviewForConditionalGeneration",
        "JetNemotronForCausalLM",
        "JetVLMForConditionalGeneration",
    }
)
#: Backends ``attn_backend_wrapper`` accepts for hybrid GDN models on Blackwell (from 0.5.10,
#: ``HYBRID_GDN_BLACKWELL_FA4_FLASHINFER``; before it the first two, before 0.5.5.post2,
#: ``HYBRID_GDN_BLACKWELL_TRTLLM_MHA``, triton alone).
HYBRID_GDN_BLACKWELL_BACKENDS = ("triton", "trtllm_mha", "fa4", "flashinfer")
#: Short-conv hybrids of ``attn_backend_wrapper`` (ZAYA1, LFM2, LFM2-MoE, LFM2-VL), by architecture.
SHORT_CONV_ARCHS = frozenset(
    {"ZayaForCausalLM", "Lfm2ForCausalLM", "Lfm2MoeForCausalLM", "Lfm2VlForConditionalGeneration"}
)
#: ``speculative/draft_utils.py:DraftBackendFactory.create_draft_extend_backend`` backend map.
EAGLE_DRAFT_EXTEND_BACKENDS = frozenset(
    {
        "flashinfer",
        "triton",
        "aiter",
        "fa3",
        "flashmla",
        "trtllm_mha",
        "trtllm_mla",
        "cutedsl_mla",
        "tokenspeed_mla",
        "dsa",
        "nsa",
        "ascend",
        "fa4",
        "dsv4",
    }
)
#: 0.5.17 adds ``hpc_ops`` (``create_hpc_ops_backend``).
_EAGLE = ("EAGLE", "EAGLE3", "NEXTN")  # NEXTN becomes EAGLE in ServerArgs (step 22)
_DSV4_ARCHS = frozenset({"DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN"})


def constructed_backends(args: Any) -> tuple[str | None, ...]:
    """The backend names ``ModelRunner._get_attention_backend`` builds, in build order.

    Different effective prefill/decode backends give a ``HybridAttnBackend``, whose decode
    backend is built first; otherwise one backend is built from ``attention_backend`` itself
    (not from the effective name: ``P == D`` with another ``A`` builds ``A``).
    """
    prefill, decode = effective_backends(args)
    if prefill != decode:
        return (decode, prefill)
    return (args.attention_backend,)


def _refuse(message: str, fix: str | Fix, upstream: str, fields: tuple[str, ...] = ("attention_backend",)):
    return ConflictError(message, fields=fields, fix=fix, upstream=upstream)


def _backend_fields(args: Any, name: str) -> tuple[str, ...]:
    """The flags that chose backend ``name`` (for "the values involved")."""
    fields = [
        f
        for f in ("attention_backend", "prefill_attention_backend", "decode_attention_backend")
        if args[f] == name
    ]
    return tuple(fields) or ("attention_backend",)


def _text_int(hf: Any, key: str) -> int | None:
    return hf.text_config.get_typed(key, int)


def _attn_tp_size(args: Any) -> int:
    """``compute_dp_attention_world_info``: tp // (dp with DP attention, else 1) // attn_cp."""
    dp = args.dp_size if args.enable_dp_attention else 1
    return max(1, args.tp_size // max(1, dp or 1) // max(1, args.attn_cp_size or 1))


@registry.rule(STAGE)
def cuda_min_capability(ctx):
    """model_runner.py ``ModelRunner.load_model``: on CUDA, compute capability below 8 with minor
    below 5 is refused ("SGLang only supports sm75 and above")."""
    cap = ctx.platform.capability
    if ctx.args.device == "cuda" and ctx.platform.is_cuda and cap and cap[0] < 8 and cap[1] < 5:
        raise _refuse(
            f"SGLang only supports sm75 and above (this GPU is sm{cap[0]}{cap[1]}).",
            "use a GPU with compute capability 7.5 or newer",
            "RuntimeError",
            ("device",),
        )
    return {}


@functools.cache
def implemented_architectures() -> dict[str, frozenset[str]]:
    """release → the architectures its ``ModelRegistry`` implements (``architectures.json``,
    extracted from each wheel's ``srt/models/*.py`` ``EntryClass`` by tools/extract_sglang_archs.py)."""
    import json
    import os

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "architectures.json")
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    return {release: frozenset(names) for release, names in data["releases"].items()}


#: The oldest release in architectures.json; it also stands for the releases before it.
OLDEST_ARCHITECTURE_LIST = "0.5.5"


@functools.cache
def implemented_list() -> ArchList:
    """``implemented_architectures()`` as one upstream list with a release range per member (the
    data has no gaps: a member arrives once and leaves at most once), so that a rule asks
    ``ctx.release.holds(implemented_list(), arch)`` and explain sees the member's range; a member
    of the oldest list is in every release before it too."""
    per_release = implemented_architectures()
    releases = list(per_release)
    entries: list[Any] = []
    for name in sorted(set().union(*per_release.values())):
        held = [r for r in releases if name in per_release[r]]
        first, after = releases.index(held[0]), releases.index(held[-1]) + 1
        since = None if first == 0 else releases[first]
        until = releases[after] if after < len(releases) else None
        entries.append(name if since is None and until is None else (name, since, until))
    return ArchList(*entries, what="the model registry")


@registry.rule(STAGE)
def architecture_implemented(ctx) -> dict:
    """model_loader/utils.py ``get_model_architecture``: an architecture the release's
    ``ModelRegistry`` lacks goes to ``resolve_transformers_arch``, which serves it through the
    Transformers backend only when transformers implements it compatibly; for an architecture that
    is not a decoder-only ``*ForCausalLM`` (T5's encoder-decoder, …) and has no ``auto_map``
    AutoModel, sglang refuses it (``ValueError``: "has no SGlang implementation and the
    Transformers implementation is not compatible with SGLang"). The registry list is data per
    release (``architectures.json``, ``tools/extract_sglang_archs.py``), not a rule per release."""
    arch = ctx.arch
    if not arch or ctx.release.holds(implemented_list(), arch):
        return {}
    release = str(ctx.release)
    auto_map = ctx.hf.get("auto_map")
    if arch.endswith("ForCausalLM") or (hasattr(auto_map, "get") and auto_map.get("AutoModel")):
        return {}  # the Transformers fallback (model_impl auto) may serve it: not refused here
    raise _refuse(
        f"{arch} has no SGlang implementation and the Transformers implementation is not compatible with "
        f"SGLang. (sglang {release}'s model registry has no {arch}; the Transformers fallback serves "
        "decoder-only models)",
        f"use a checkpoint of an architecture sglang {release} implements (`resolvable models` lists bundled ones)",
        "ValueError",
        (),
    )


@registry.rule(STAGE, since="0.5.16")
def kv_cache_dtype_deprecated(ctx):
    """Since 0.5.16 (``mem_cache/kv_cache_dtype.py:configure_kv_cache_dtype``, run by the model
    runner): ``--kv-cache-dtype fp4_e2m1`` is still accepted by ServerArgs but refused at start-up
    as deprecated, in favour of ``fp4_mx_block16``."""
    if ctx.args.kv_cache_dtype == "fp4_e2m1":
        raise _refuse(
            "--kv-cache-dtype=fp4_e2m1 is deprecated. Use --kv-cache-dtype=fp4_mx_block16.",
            Fix(set={"kv_cache_dtype": "fp4_mx_block16"}),
            "ValueError",
            fields=("kv_cache_dtype",),
        )
    return {}


@registry.rule(STAGE)
def backend_is_registered(ctx):
    """model_runner.py ``_get_attention_backend_from_str``: the name must be one of the
    ``ATTENTION_BACKENDS`` registered in attention_registry.py ("Invalid attention backend"):
    ``REGISTERED_BACKENDS``, ``hpc_ops`` since 0.5.17 and the two MiniCPM backends since 0.5.19."""
    for name in constructed_backends(ctx.args):
        if name not in REGISTERED_BACKENDS and name not in in_release(ctx.release, REGISTERED_LATER):
            raise _refuse(
                f"Invalid attention backend: {name}",
                "pass --attention-backend too (with --prefill-attention-backend and "
                "--decode-attention-backend equal, sglang builds the --attention-backend one)"
                if name is None
                else "choose a backend registered in sglang's attention registry",
                "ValueError",
            )
    return {}


#: Backends built only on one platform family: their module imports that family's kernels.
#: ascend: hardware_backend/npu/attention/ascend_backend.py ``import torch_npu``; intel_xpu:
#: layers/attention/xpu_backend.py imports sgl-kernel-xpu's ``flash_mla_decode``; intel_amx:
#: layers/attention/intel_amx_backend.py ``IntelAMXAttnBackend.__init__`` binds
#: ``torch.ops.sgl_kernel.decode_attention_cpu`` (the CPU build of sgl-kernel).
PLATFORM_BACKENDS = {
    "ascend": ("npu", "ModuleNotFoundError", "No module named 'torch_npu'"),
    "intel_xpu": ("xpu", "ImportError", "cannot import name 'flash_mla_decode' from 'sgl_kernel'"),
    "intel_amx": (
        "cpu",
        "AttributeError",
        "'_OpNamespace' 'sgl_kernel' object has no attribute 'decode_attention_cpu'",
    ),
}
#: The backend a checked fix names on each platform family (one that family builds).
FAMILY_BACKEND = {"npu": "ascend", "xpu": "intel_xpu", "cpu": "intel_amx"}


@registry.rule(STAGE)
def backend_platform_family(ctx):
    """attention_registry.py creators (``create_ascend_backend``, ``create_intel_xpu_backend``,
    ``create_intel_amx_backend``): a backend of another platform family fails when sglang builds
    it, on the import of that family's kernels (``PLATFORM_BACKENDS``)."""
    device = ctx.platform.device
    for name in constructed_backends(ctx.args):
        family = PLATFORM_BACKENDS.get(name or "")
        if family is None or family[0] == device:
            continue
        wanted, upstream, message = family
        here = FAMILY_BACKEND.get(device, "triton")
        raise _refuse(
            f"{message} (the {name} attention backend runs only on {wanted.upper()}; this platform is {device})",
            Fix(set={"attention_backend": here}),
            upstream,
            _backend_fields(ctx.args, name or ""),
        )
    return {}


@registry.rule(STAGE)
def mla_only_backends(ctx):
    """attention_registry.py ``create_trtllm_mla_backend``, ``create_tokenspeed_mla_backend``,
    ``create_cutedsl_mla_backend``: these backends can only be used with MLA models."""
    if is_mla(ctx.hf, ctx.release):
        return {}
    for name in constructed_backends(ctx.args):
        if name in ("trtllm_mla", "tokenspeed_mla", "cutedsl_mla"):
            raise _refuse(
                f"{name} backend can only be used with MLA models.",
                "choose an MHA backend (e.g. --attention-backend flashinfer, or trtllm_mha on Blackwell)",
                "ValueError",
                _backend_fields(ctx.args, name),
            )
    return {}


@registry.rule(STAGE)
def trtllm_mha_needs_mha(ctx):
    """attention_registry.py ``create_trtllm_mha_backend``: trtllm_mha can only be used with
    non-MLA models."""
    if is_mla(ctx.hf, ctx.release) and "trtllm_mha" in constructed_backends(ctx.args):
        raise _refuse(
            "trtllm_mha backend can only be used with non-MLA models.",
            "choose an MLA backend (e.g. --attention-backend trtllm_mla or flashinfer)",
            "ValueError",
            _backend_fields(ctx.args, "trtllm_mha"),
        )
    return {}


@registry.rule(STAGE)
def triton_no_cross_attention(ctx):
    """attention_registry.py ``create_triton_backend``: no cross attention (encoder-decoder
    models, ``is_encoder_decoder_model``) with triton."""
    if set(ctx.hf.architectures) & ENCODER_DECODER_ARCHS and "triton" in constructed_backends(ctx.args):
        raise _refuse(
            "Cross attention is not supported in the triton attention backend. "
            "Please use `--attention-backend flashinfer`.",
            Fix(set={"attention_backend": "flashinfer"}),
            "AssertionError",
            _backend_fields(ctx.args, "triton"),
        )
    return {}


@registry.rule(STAGE)
def fa3_capability(ctx):
    """attention_registry.py ``create_flashattention_v3_backend``: FlashAttention 3 needs compute
    capability major 9, or major 8 for non-MLA models (``get_device_capability``; no capability
    on XPU/NPU/CPU); on MUSA it needs MP 3.1 or newer."""
    if "fa3" not in constructed_backends(ctx.args):
        return {}
    platform = ctx.platform
    major, minor = platform.capability or (None, None)
    fields = _backend_fields(ctx.args, "fa3")
    if platform.vendor == "musa":
        if not (major == 3 and (minor or 0) >= 1):
            raise _refuse(
                "FlashAttention v3 Backend requires MP>=31. Please use `--attention-backend triton`.",
                Fix(set={"attention_backend": "triton"}),
                "AssertionError",
                fields,
            )
        return {}
    if not ((major == 8 and not is_mla(ctx.hf, ctx.release)) or major == 9):
        shown = f"sm{major}{minor}" if major is not None else "no CUDA compute capability"
        mla = " (SM80 only for non-MLA models)" if major == 8 else ""
        raise _refuse(
            "FlashAttention v3 Backend requires SM>=80 and SM<=90. "
            f"Please use `--attention-backend flashinfer`. (this platform: {shown}{mla})",
            Fix.any_of(
                Fix(set={"attention_backend": "triton"}),
                Fix(set={"attention_backend": "flashinfer"}),
                text="pass --attention-backend triton (or flashinfer)",
            ),
            "AssertionError",
            fields,
        )
    return {}


@registry.rule(STAGE)
def tokenspeed_mla_page_size(ctx):
    """tokenspeed_mla_backend.py ``TokenspeedMLABackend.__init__``: page size 32 or 64 (ServerArgs
    only snaps it when tokenspeed_mla is the attention or decode backend, not prefill-only)."""
    args = ctx.args
    if "tokenspeed_mla" in constructed_backends(args) and args.page_size not in (32, 64):
        raise _refuse(
            f"tokenspeed_mla backend requires page_size in {{32, 64}}, got page_size={args.page_size}.",
            Fix(set={"page_size": 64}),
            "ValueError",
            ("page_size", *_backend_fields(args, "tokenspeed_mla")),
        )
    return {}


@registry.rule(STAGE)
def aiter_mla_head_count(ctx):
    """aiter_backend.py ``AiterAttnBackend.__init__``: for MLA the attention heads per
    attention-TP rank must be 4, 8 or a multiple of 16 in [16, 128]."""
    args = ctx.args
    if "aiter" not in constructed_backends(args) or not is_mla(ctx.hf, ctx.release):
        return {}
    heads = _text_int(ctx.hf, "num_attention_heads")
    if heads is None:
        return {}
    per_rank = heads // _attn_tp_size(args)
    if not (per_rank in (4, 8) or (per_rank % 16 == 0 and 16 <= per_rank <= 128)):
        raise _refuse(
            f"Aiter MLA supports num_head of 4, 8, or multiples of 16 in [16, 128]. Provided {per_rank} "
            f"number of heads ({heads} heads / attention TP {_attn_tp_size(args)}). "
            "Try adjusting tensor_parallel_size value.",
            "choose --tp-size so that the heads per rank are 4, 8 or a multiple of 16 up to 128",
            "AssertionError",
            ("tp_size", *_backend_fields(args, "aiter")),
        )
    return {}


@registry.rule(STAGE)
def intel_xpu_head_split(ctx):
    """xpu_backend.py ``XPUAttentionBackend.__init__``: the attention heads must divide evenly
    over ``tp_size``."""
    args = ctx.args
    if "intel_xpu" not in constructed_backends(args):
        return {}
    heads = _text_int(ctx.hf, "num_attention_heads")
    if heads is not None and heads % max(1, args.tp_size) != 0:
        raise _refuse(
            f"intel_xpu backend: num_attention_heads ({heads}) is not divisible by tp_size ({args.tp_size}).",
            "choose a --tp-size that divides the number of attention heads",
            "AssertionError",
            ("tp_size", *_backend_fields(args, "intel_xpu")),
        )
    return {}


@registry.rule(STAGE)
def dual_chunk_model(ctx):
    """dual_chunk_flashattention_backend.py ``DualChunkFlashAttentionBackend.__init__``: the
    model config needs ``dual_chunk_attention_config``, and heads per rank must be a multiple
    of the KV heads per rank."""
    args = ctx.args
    if "dual_chunk_flash_attn" not in constructed_backends(args):
        return {}
    fields = _backend_fields(args, "dual_chunk_flash_attn")
    if ctx.hf.get("dual_chunk_attention_config") is None:
        raise _refuse(
            "dual_chunk_flash_attn needs a model with dual_chunk_attention_config in its config "
            "(e.g. Qwen2.5-1M); this model has none.",
            Fix(another=("attention_backend",)),
            "AssertionError",
            fields,
        )
    tp = max(1, args.tp_size)
    heads = _text_int(ctx.hf, "num_attention_heads")
    kv = _text_int(ctx.hf, "num_key_value_heads") or heads
    if heads is not None and kv:
        per_rank, kv_per_rank = max(1, heads // tp), max(1, kv // tp)
        if per_rank % kv_per_rank != 0:
            raise _refuse(
                f"dual_chunk_flash_attn: {per_rank} attention heads per rank are not a multiple of "
                f"{kv_per_rank} KV heads per rank (tp_size {tp}).",
                "choose another --tp-size",
                "AssertionError",
                ("tp_size", *fields),
            )
    return {}


@registry.rule(STAGE)
def dsv4_backend_model(ctx):
    """deepseek_v4_backend.py / deepseek_v4_backend_hip_radix.py ``__init__`` (CUDA and HIP): dsv4
    needs a DeepSeek-V4 model (MQA head_dim 512, its KV pool), page size 256 and EAGLE topk 0/1."""
    args = ctx.args
    if "dsv4" not in constructed_backends(args) or ctx.platform.is_npu:
        return {}  # on NPU sglang builds the Ascend DSV4 backend, not modelled (docs/fidelity.md)
    fields = _backend_fields(args, "dsv4")
    archs = set(ctx.hf.architectures)
    # model_config.py: for DeepSeek-V4, head_dim = the config's head_dim; a config without one
    # gets the DeepseekV4Config defaults (qk_nope_head_dim 448 + qk_rope_head_dim 64).
    head_dim = _text_int(ctx.hf, "head_dim")
    if head_dim is None:
        head_dim = (_text_int(ctx.hf, "qk_nope_head_dim") or 448) + (
            _text_int(ctx.hf, "qk_rope_head_dim") or 64
        )
    if not archs & _DSV4_ARCHS or head_dim != 512:
        raise _refuse(
            "the dsv4 backend only runs DeepSeek-V4 models: DSV4 MQA head_dim = qk_nope_head_dim(448) + "
            "qk_rope_head_dim(64) = 512, and a DeepSeek-V4 KV pool.",
            Fix(another=("attention_backend",)),
            "AssertionError",
            fields,
        )
    if args.page_size != 256:
        raise _refuse(
            f"dsv4 backend: the system hardcodes page_size=256 (got {args.page_size}).",
            Fix(set={"page_size": 256}, text="pass --page-size 256 (or leave it unset)"),
            "AssertionError",
            ("page_size", *fields),
        )
    if (args.speculative_eagle_topk or 0) not in (0, 1):
        raise _refuse(
            "MTP Topk > 1 not supported for DeepSeek V4",
            Fix(set={"speculative_eagle_topk": 1}),
            "AssertionError",
            ("speculative_eagle_topk",),
        )
    return {}


@registry.rule(STAGE)
def dsa_backend_model(ctx):
    """dsa_backend.py ``DeepseekSparseAttnBackend.__init__``: dsa (and its alias nsa) only
    supports DeepSeek DSA models (``is_deepseek_dsa``: a DSA architecture with ``index_topk``)."""
    args = ctx.args
    for name in ("dsa", "nsa"):
        if name in constructed_backends(args) and not is_deepseek_dsa(ctx.hf, ctx.release):
            raise _refuse(
                "DSA backend only supports DeepSeek DSA",
                Fix(another=("attention_backend",)),
                "AssertionError",
                _backend_fields(args, name),
            )
    return {}


@registry.rule(STAGE)
def hybrid_gdn_backend(ctx):
    """attention_registry.py ``attn_backend_wrapper``: hybrid GDN models (Qwen3-Next, Qwen3.5, ...)
    on Blackwell need ``--attention-backend`` triton, trtllm_mha, fa4 or flashinfer (triton and
    trtllm_mha before 0.5.10, triton alone before 0.5.5.post2: ``_hybrid_gdn_blackwell``), and on
    NPU ascend (it reads ``attention_backend`` itself, not the prefill/decode backends).
    ``HYBRID_GDN_PD_BACKENDS`` (0.5.18): the effective prefill and decode backends are checked
    (always both): on SM120 triton, trtllm_mha or flashinfer, on other Blackwell triton,
    trtllm_mha or fa4 (flashinfer too since 0.5.21, ``HYBRID_GDN_BLACKWELL_FLASHINFER``); on NPU
    both must be ascend."""
    if not set(ctx.hf.architectures) & HYBRID_GDN_ARCHS:
        return {}
    if ctx.release.has(CHANGES.HYBRID_GDN_PD_BACKENDS):
        return _hybrid_gdn_pd(ctx)
    backend = ctx.args.attention_backend
    platform = ctx.platform
    allowed, text = _hybrid_gdn_blackwell(ctx.release.has)
    if platform.is_blackwell and backend not in allowed:
        raise _refuse(
            text,
            Fix.any_of(
                *(Fix(set={"attention_backend": b}) for b in allowed),
                text=f"pass --attention-backend {allowed[0]}"
                + (f" (or {', '.join(allowed[1:])})" if len(allowed) > 1 else ""),
            ),
            "AssertionError",
        )
    if platform.is_npu and backend != "ascend":
        raise _refuse(
            "ascend backend is the only supported backend on NPU for hybrid GDN models, use "
            "--attention-backend ascend to specify the backend.",
            Fix(set={"attention_backend": "ascend"}),
            "AssertionError",
        )
    return {}


def _hybrid_gdn_blackwell(has) -> tuple[tuple[str, ...], str]:
    """The Blackwell backends of ``attn_backend_wrapper`` before ``HYBRID_GDN_PD_BACKENDS``, with
    the assertion's text of that release."""
    if has(CHANGES.HYBRID_GDN_BLACKWELL_FA4_FLASHINFER):
        return HYBRID_GDN_BLACKWELL_BACKENDS, (
            "triton, trtllm_mha, fa4, or flashinfer backend are the only supported backends on Blackwell "
            "GPUs for hybrid GDN models, use --attention-backend to specify the backend."
        )
    if has(CHANGES.HYBRID_GDN_BLACKWELL_TRTLLM_MHA):
        return HYBRID_GDN_BLACKWELL_BACKENDS[:2], (
            "triton or trtllm_mha backend are the only supported backends on Blackwell GPUs for hybrid "
            "GDN models, use --attention-backend triton or --attention-backend trtllm_mha to specify the "
            "backend."
        )
    return HYBRID_GDN_BLACKWELL_BACKENDS[:1], (
        "triton backend is the only supported backend on Blackwell GPUs for hybrid GDN models, use "
        "--attention-backend triton to specify the backend."
    )


def _hybrid_gdn_pd(ctx) -> dict:
    """The effective prefill/decode check of ``HYBRID_GDN_PD_BACKENDS``."""
    blackwell: tuple[str, ...] = ("triton", "trtllm_mha", "fa4")
    if ctx.release.has(CHANGES.HYBRID_GDN_BLACKWELL_FLASHINFER):
        blackwell = (*blackwell, "flashinfer")
    prefill, decode = effective_backends(ctx.args)
    platform = ctx.platform
    if platform.is_blackwell:
        allowed = ("triton", "trtllm_mha", "flashinfer") if platform.is_sm120 else blackwell
        if prefill not in allowed or decode not in allowed:
            shown = "{" + ", ".join(repr(b) for b in allowed) + "}"
            raise _refuse(
                f"Only {shown} backends are supported on Blackwell GPUs for hybrid GDN models. "
                f"Got prefill={prefill}, decode={decode}.",
                Fix.any_of(
                    *(Fix(set={"attention_backend": b}) for b in allowed),
                    text=f"pass --attention-backend {allowed[0]} (or {', '.join(allowed[1:])})",
                ),
                "AssertionError",
                ("attention_backend", "prefill_attention_backend", "decode_attention_backend"),
            )
    if platform.is_npu and not (prefill == "ascend" and decode == "ascend"):
        raise _refuse(
            "ascend backend is the only supported backend on NPU for hybrid GDN models, use "
            "--attention-backend ascend to specify the backend.",
            Fix(set={"attention_backend": "ascend"}),
            "AssertionError",
            ("attention_backend", "prefill_attention_backend", "decode_attention_backend"),
        )
    return {}


@registry.rule(STAGE)
def short_conv_hybrid_on_npu(ctx):
    """attention_registry.py ``attn_backend_wrapper``: short-conv hybrids (ZAYA1, LFM2, LFM2-MoE,
    LFM2-VL) are not supported on NPU (no Ascend conv-state backend)."""
    if ctx.platform.is_npu and set(ctx.hf.architectures) & SHORT_CONV_ARCHS:
        raise _refuse(
            "Short-conv hybrid models (ZAYA1 CCA, LFM2 / LFM2-MoE) are not yet supported on NPU: the "
            "conv-state sidecar has no Ascend implementation.",
            "run this model on another platform",
            "NotImplementedError",
            ("device",),
        )
    return {}


@registry.rule(STAGE)
def eagle_draft_extend_backend(ctx):
    """speculative/draft_utils.py ``DraftBackendFactory.create_draft_extend_backend`` (EAGLE worker
    start-up): the draft-extend backend (``--speculative-draft-attention-backend``, else the
    prefill backend, else ``--attention-backend``) must be one EAGLE supports."""
    args = ctx.args
    if args.speculative_algorithm not in _EAGLE:
        return {}
    backend = args.speculative_draft_attention_backend or args.prefill_attention_backend
    if backend is None:
        backend = args.attention_backend
    if backend not in EAGLE_DRAFT_EXTEND_BACKENDS:
        field = (
            "speculative_draft_attention_backend"
            if args.speculative_draft_attention_backend
            else "prefill_attention_backend"
            if args.prefill_attention_backend
            else "attention_backend"
        )
        raise _refuse(
            f"EAGLE is not supported in attention backend {backend}",
            "choose an EAGLE-capable backend (flashinfer, triton, fa3, fa4, trtllm_mha, ...) or "
            "--speculative-draft-attention-backend",
            "ValueError",
            (field, "speculative_algorithm"),
        )
    return {}


@registry.rule(STAGE, since="0.5.17")
def trtllm_mla_dcp_speculative(ctx):
    """0.5.17 attention_registry.py ``create_trtllm_mla_backend``: with decode context
    parallelism and speculative decoding, trtllm_mla cannot be the decode backend (it does not
    forward the cyclic DCP metadata nor return the rank-local LSE)."""
    args = ctx.args
    if (
        "trtllm_mla" in constructed_backends(args)
        and args.dcp_size > 1
        and args.speculative_algorithm is not None
        and effective_backends(args)[1] == "trtllm_mla"
    ):
        raise _refuse(
            "trtllm_mla cannot serve decode context parallelism with speculative decoding: it does not "
            "forward the cyclic DCP metadata to its decode kernel and returns no rank-local LSE for the "
            "cross-rank merge. Select cutedsl_mla or tokenspeed_mla.",
            Fix.any_of(
                Fix(set={"decode_attention_backend": "cutedsl_mla"}),
                Fix(set={"decode_attention_backend": "tokenspeed_mla"}),
                text="pass --decode-attention-backend cutedsl_mla (or tokenspeed_mla)",
            ),
            "ValueError",
            ("decode_attention_backend", "dcp_size", "speculative_algorithm"),
        )
    return {}


def _kv_is_bf16_or_fp8_e4m3(ctx) -> bool:
    """The KV dtype HPC-Ops accepts (bf16 or fp8_e4m3); ``auto`` follows the model dtype
    (``--dtype``, else the config's ``torch_dtype``, bfloat16 when absent)."""
    args, hf = ctx.args, ctx.hf
    kv = args.kv_cache_dtype
    if kv in ("bf16", "bfloat16", "fp8_e4m3"):
        return True
    if kv != "auto":
        return False
    dtype = args.dtype
    if dtype == "auto":
        dtype = hf.text_config.get("torch_dtype") or hf.get("torch_dtype") or "bfloat16"
    return dtype in ("bfloat16", "bf16")


@registry.rule(STAGE, since="0.5.17")
def hpc_ops_backend(ctx):
    """0.5.17 attention_registry.py ``create_hpc_ops_backend`` and hpc_ops_backend.py
    ``HPCOpsAttnBackend.__init__``: non-MLA, no cross attention, no speculative decoding, an SM90
    GPU, 64-token pages, a bf16 or fp8_e4m3 KV cache, head_dim 128 with a GQA group of 4 or 8,
    and for fp8 per-rank (q, kv) heads of (8, 1) or (64, 8). (The ``hpc`` package is assumed
    installed.)"""
    args, hf, platform = ctx.args, ctx.hf, ctx.platform
    if "hpc_ops" not in constructed_backends(args):
        return {}
    fields = _backend_fields(args, "hpc_ops")
    if is_mla(hf, ctx.release):
        raise _refuse(
            "hpc_ops backend can only be used with non-MLA models.",
            "choose an MLA backend",
            "ValueError",
            fields,
        )
    if set(hf.architectures) & ENCODER_DECODER_ARCHS:
        raise _refuse(
            "Cross attention is not supported in the hpc_ops attention backend.",
            Fix(set={"attention_backend": "flashinfer"}),
            "ValueError",
            fields,
        )
    if args.speculative_algorithm is not None:
        raise _refuse(
            "hpc_ops backend does not support speculative decoding for now.",
            "drop --speculative-algorithm or choose another backend",
            "ValueError",
            (*fields, "speculative_algorithm"),
        )
    major, minor = platform.capability or (None, None)
    if major != 9:
        shown = f"sm{major}{minor}" if major is not None else "no CUDA compute capability"
        raise _refuse(
            f"The hpc_ops attention backend requires an SM90 (Hopper) GPU (the HPC-Ops kernels ship sm90a "
            f"only), got {shown}.",
            "run on Hopper (SM90) or choose another backend",
            "ValueError",
            fields,
        )
    if args.page_size != 64:
        raise _refuse(
            f"The hpc_ops attention backend requires --page-size 64, got {args.page_size}.",
            Fix(set={"page_size": 64}),
            "ValueError",
            ("page_size", *fields),
        )
    if not _kv_is_bf16_or_fp8_e4m3(ctx):
        raise _refuse(
            f"The hpc_ops attention backend only supports bf16 or fp8_e4m3 KV cache, got {args.kv_cache_dtype}.",
            Fix.any_of(
                Fix(set={"kv_cache_dtype": "bfloat16"}),
                Fix(set={"kv_cache_dtype": "fp8_e4m3"}),
                text="pass --kv-cache-dtype bfloat16 (or fp8_e4m3)",
            ),
            "ValueError",
            ("kv_cache_dtype", *fields),
        )
    tp = max(1, args.tp_size)
    heads = _text_int(hf, "num_attention_heads") or 1
    q_heads = heads // tp
    kv_heads = num_kv_heads_per_rank(hf, tp)
    if args.kv_cache_dtype == "fp8_e4m3" and (q_heads, kv_heads) not in ((8, 1), (64, 8)):
        raise _refuse(
            "The hpc_ops FP8 KV cache path requires per-rank (num_q_heads, num_kv_heads) in ((8, 1), (64, 8)) "
            f"(the fused RoPE+quant kernel is specialized per shape), got {(q_heads, kv_heads)}. Adjust --tp "
            "accordingly or use --kv-cache-dtype bfloat16.",
            "pass --kv-cache-dtype bfloat16 or another --tp",
            "ValueError",
            ("kv_cache_dtype", "tp_size", *fields),
        )
    head_dim = _text_int(hf, "head_dim")
    if head_dim is None and _text_int(hf, "hidden_size"):
        head_dim = _text_int(hf, "hidden_size") // heads
    group = q_heads // kv_heads if kv_heads else 0
    if head_dim != 128 or group not in (4, 8):
        raise _refuse(
            "The hpc_ops attention backend requires head_dim == 128 and num_q_heads // num_kv_heads in (4, 8), "
            f"got head_dim={head_dim}, num_q_heads={q_heads}, num_kv_heads={kv_heads}.",
            "choose another backend (or another --tp)",
            "ValueError",
            (*fields, "tp_size"),
        )
    return {}


@registry.rule(STAGE, since="0.5.17")
def trtllm_mha_page_128(ctx):
    """0.5.17 trtllm_mha_backend.py ``TRTLLMHAAttnBackend.__init__``: off XQA (SM90/SM120), pages
    of 128+ tokens use trtllm-gen's dynamic tokens-per-page kernels, which need GQA (more than one
    q head per KV head on the attention-TP rank), equal QK/V head dims and a power-of-2 page."""
    args, hf, platform = ctx.args, ctx.hf, ctx.platform
    page = args.page_size or 1
    if "trtllm_mha" not in constructed_backends(args) or page < 128 or platform.is_sm90 or platform.is_sm120:
        return {}
    attn_tp = _attn_tp_size(args)
    q_heads = (_text_int(hf, "num_attention_heads") or 1) // attn_tp
    kv_heads = num_kv_heads_per_rank(hf, attn_tp)
    head, v_head, _, _ = kv_head_dims(hf)
    if q_heads // kv_heads <= 1 or head != v_head or page & (page - 1):
        raise _refuse(
            f"trtllm_mha with page_size={page} requires trtllm-gen's dynamic tokens-per-page kernels, which "
            f"only support GQA (q heads per kv head > 1, got {q_heads}/{kv_heads}) with equal QK/V head dims "
            f"(got {head}/{v_head}) and a power-of-2 page size. Use --page-size 64 instead.",
            Fix(set={"page_size": 64}),
            "ValueError",
            ("page_size", *_backend_fields(args, "trtllm_mha")),
        )
    return {}
