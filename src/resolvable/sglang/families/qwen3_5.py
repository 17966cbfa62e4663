"""Qwen3.5 hybrid / Qwen3-Next (spec §3.12).

Invariant: on SM100 with ``A`` unset, the backend and page size are chosen together:
trtllm_mha with 64-token pages only if the generic default would be trtllm_mha and the
extra buffer, a disabled radix cache or speculation is in play; otherwise triton with
1-token pages. The page size overrides the user's (spec §8 #65); before 0.5.14
(``QWEN3_5_SM100_PAGE_SIZE``) only the backend was chosen here.
"""

from __future__ import annotations

from ...rules import ArchList, Force
from .._base import registry
from ..changes import CHANGES
from ..passes.default_backend import default_attention_backend

#: The Qwen3-Next branch; 0.5.9 brought the Qwen3.5 architectures into it (with their models).
ARCHS = ArchList(
    "Qwen3NextForCausalLM",
    ("Qwen3_5MoeForConditionalGeneration", "0.5.9"),
    "InternS2PreviewForConditionalGeneration",
    ("Qwen3_5ForConditionalGeneration", "0.5.9"),
    what="Qwen3-Next branch",
)


@registry.rule("model", archs=ARCHS)
def qwen3_5_hybrid_attention(ctx):
    """§3.12 coupled declaration of ``attention_backend`` and ``page_size`` on SM100. Before
    ``QWEN3_NEXT_SM100_TRITON_WHEN_UNSET`` (0.5.6.post1) the backend was triton even when named,
    and before ``QWEN3_NEXT_SM100_TRITON`` (0.5.6) there was no SM100 arm."""
    args = ctx.args
    if not ctx.platform.is_sm100 or not ctx.release.has(CHANGES.QWEN3_NEXT_SM100_TRITON):
        return {}  # before 0.5.6 the Qwen3-Next branch had no SM100 arm
    if not ctx.release.has(CHANGES.QWEN3_NEXT_SM100_TRITON_WHEN_UNSET):
        # 0.5.6: the Qwen3-Next branch set triton on SM100 whatever the user named
        if args.attention_backend == "triton":
            return {}
        return {"attention_backend": Force("triton", "Qwen3-Next on SM100 runs triton attention")}
    if args.attention_backend is not None:
        return {}
    extra_buffer = not args.disable_radix_cache and args.mamba_radix_cache_strategy in (
        "extra_buffer",
        "extra_buffer_lazy",
    )
    wants_paged = extra_buffer or args.disable_radix_cache or args.speculative_algorithm is not None
    backend = "trtllm_mha" if default_attention_backend(ctx) == "trtllm_mha" and wants_paged else "triton"
    if not ctx.release.has(CHANGES.QWEN3_5_SM100_PAGE_SIZE):
        return {"attention_backend": backend}  # the page size is left to the later rules
    if backend == "trtllm_mha":
        return {
            "attention_backend": "trtllm_mha",
            "page_size": Force(64, "Qwen3.5 hybrid with trtllm_mha uses 64-token pages"),
        }
    return {
        "attention_backend": "triton",
        "page_size": Force(1, "Qwen3.5 hybrid with triton uses 1-token pages"),
    }
