"""Default attention backend when nothing was chosen (spec §4.1, step 13 first action).

Invariant: ``default_attention_backend`` is a pure function of the rule context; families
that need "what would the default be" (Qwen3.5 hybrid, spec §3.12) call it with their view.
"""

from __future__ import annotations

from ...rules import ArchList, Force
from .._base import registry
from ..changes import CHANGES
from ..facts import (
    flashinfer_available,
    has_asymmetric_kv,
    has_attention_sinks,
    is_mla,
    num_kv_heads_per_rank,
)


def _no_spec_or_topk_one(args) -> bool:
    """``is_no_spec_infer_or_topk_one``: no EAGLE topk, or topk 1 with page size 1/unset."""
    topk = args.speculative_eagle_topk
    return topk is None or (topk == 1 and args.page_size in (1, None))


#: ``utils/common.is_fa3_default_architecture``: the MHA models that Hopper defaulted to fa3 before
#: 0.5.8 (``HOPPER_MHA_FA3_EVERY_MODEL``), read from the config's first architecture; Qwen3-VL,
#: Qwen3-VL-MoE and GLM-4V joined the list in 0.5.6.post1 (checked against the 0.5.6, 0.5.6.post1
#: and 0.5.7 wheels).
FA3_DEFAULT_ARCHITECTURES = ArchList(
    "Llama4ForConditionalGeneration",
    "LlamaForCausalLM",
    "Olmo2ForCausalLM",
    "Gemma2ForCausalLM",
    "Gemma3ForConditionalGeneration",
    "Qwen2ForCausalLM",
    "Qwen3ForCausalLM",
    "Qwen3MoeForCausalLM",
    ("Qwen3VLForConditionalGeneration", "0.5.6.post1"),
    ("Qwen3VLMoeForConditionalGeneration", "0.5.6.post1"),
    "Glm4MoeForCausalLM",
    ("Glm4vForConditionalGeneration", "0.5.6.post1"),
    "Glm4vMoeForConditionalGeneration",
    "Step3VLForConditionalGeneration",
    what="fa3 default architectures",
)


def _hopper_fa3_model(ctx) -> bool:
    """Whether Hopper's MHA arm applies to this model: every model since 0.5.8, before it only the
    ``FA3_DEFAULT_ARCHITECTURES`` (the first entry of ``architectures``)."""
    if ctx.release.has(CHANGES.HOPPER_MHA_FA3_EVERY_MODEL):
        return True
    archs = ctx.hf.architectures
    return bool(archs) and ctx.release.holds(FA3_DEFAULT_ARCHITECTURES, archs[0])


def default_attention_backend(ctx) -> str:
    """``_get_default_attn_backend`` (spec §4.1 table: Whisper, MHA-a..f, MLA-a..f).

    ``ASYMMETRIC_KV_FA4`` (0.5.17): on the SM100 MHA arm, a model whose K and V rows differ in
    width gets ``fa4`` instead of ``trtllm_mha``. ``ATTENTION_SINKS_NOT_FLASHINFER`` (0.5.11,
    ``ModelConfig._detect_attention_sinks``): the flashinfer-else-triton arm skips flashinfer for
    a model with attention sinks (before: flashinfer wherever it is available). Before 0.5.10 the
    tree sat inline in ``_handle_attention_backend_compatibility``, without the Whisper arm
    (``WHISPER_ARMS``) and the MPS arms (``MPS_TORCH_NATIVE_DEFAULT``).
    ``HOPPER_MHA_FA3_EVERY_MODEL`` (0.5.8): the Hopper MHA arm takes every model (0.5.7: only
    ``is_fa3_default_architecture``'s list; another model falls through to the later arms).
    ``TRTLLM_MHA_DEFAULT_SM100_ONLY`` (0.5.7): the trtllm_mha arm needs SM100 and, with speculation,
    an explicit EAGLE topk; before, any Blackwell (capability 10 or 12, ``is_blackwell()``) took
    it, and SM120 was then refused by the trtllm_mha check.
    ``BLACKWELL_MHA_TRTLLM_DEFAULT`` (0.5.6.post1): the Blackwell MHA arm (before: none, so
    flashinfer/triton). Before ``NPU_DEFAULT_SERVER_ARGS`` (0.5.6.post1) an unset backend on
    Ascend is ``ascend`` here (MHA after the HIP arm, MLA after HIP); since then the device
    handler forces it."""
    args, platform, hf = ctx.args, ctx.platform, ctx.hf
    if "WhisperForConditionalGeneration" in hf.architectures and ctx.release.has(CHANGES.WHISPER_ARMS):
        return "flashinfer"
    if not is_mla(hf, ctx.release):
        if platform.is_sm90 and _no_spec_or_topk_one(args) and _hopper_fa3_model(ctx):
            return "fa3"
        if not ctx.release.has(CHANGES.BLACKWELL_MHA_TRTLLM_DEFAULT):
            trtllm = False  # 0.5.6: no Blackwell arm
        elif ctx.release.has(CHANGES.TRTLLM_MHA_DEFAULT_SM100_ONLY):
            trtllm = platform.is_sm100 and (
                args.speculative_algorithm is None or args.speculative_eagle_topk is not None
            )
        else:
            trtllm = platform.is_blackwell_cc
        if trtllm and _no_spec_or_topk_one(args):
            asymmetric = has_asymmetric_kv(hf) and ctx.release.has(CHANGES.ASYMMETRIC_KV_FA4)
            return "fa4" if asymmetric else "trtllm_mha"
        if platform.is_hip:
            return "aiter"
        if platform.is_npu and not ctx.release.has(CHANGES.NPU_DEFAULT_SERVER_ARGS):
            return "ascend"
        if platform.is_mps and ctx.release.has(CHANGES.MPS_TORCH_NATIVE_DEFAULT):
            return "torch_native"
        sinks = has_attention_sinks(hf) and ctx.release.has(CHANGES.ATTENTION_SINKS_NOT_FLASHINFER)
        if flashinfer_available(ctx) and not sinks:
            return "flashinfer"
        return "triton"
    if platform.is_sm90:
        return "fa3"
    if platform.is_sm100:
        return "flashinfer"
    if platform.is_hip:
        return "aiter" if num_kv_heads_per_rank(hf, args.tp_size) in (16, 128) else "triton"
    if platform.is_npu and not ctx.release.has(CHANGES.NPU_DEFAULT_SERVER_ARGS):
        return "ascend"
    if platform.is_mps and ctx.release.has(CHANGES.MPS_TORCH_NATIVE_DEFAULT):
        return "torch_native"
    return "triton"


@registry.rule("attention")
def attention_backend_default(ctx):
    """§4.1 (``server_args._handle_attention_backend_compatibility``'s first action): a matching
    prefill/decode pair wins (even over a user ``A``); else ``A`` from ``_get_default_attn_backend``."""
    args = ctx.args
    prefill = args.prefill_attention_backend
    if prefill is not None and prefill == args.decode_attention_backend:
        if args.attention_backend == prefill:
            return {}
        return {
            "attention_backend": Force(prefill, "--prefill/--decode-attention-backend name the same backend")
        }
    if args.attention_backend is None:
        return {"attention_backend": default_attention_backend(ctx)}
    return {}
