"""Choices that exist only in some sglang releases (argparse, before ``ServerArgs``).

Invariant: the field choices in ``choices.py`` are the union over the supported releases; a
name a release added is refused by the releases before it, and a name a release removed by
that release and the later ones, with argparse's wording, before any other rule runs. The
per-release names are data (``choices.ADDED_IN`` / ``choices.REMOVED_IN``); each release that
changes them has its pair of rules here, ranged by release like any other rule.
"""

from __future__ import annotations

from ..._declaration import Force
from ...errors import InvalidArgumentError
from .. import choices as C
from .._base import registry

#: sglang reads these through ``SpeculativeAlgorithm.from_string``, not argparse choices.
_NOT_ARGPARSE = {"speculative_algorithm": "Unknown speculative algorithm name: {value}"}


def _flag(field: str) -> str:
    return "--" + field.replace("_", "-")


def _refuse_choices(ctx, names: dict[str, tuple[str, ...]], release_note: str) -> dict:
    """Refuse a user value listed in ``names`` (field -> values) as sglang's parser would."""
    for field, values in names.items():
        value = ctx.args[field]
        if value is None or value not in values:
            continue
        template = _NOT_ARGPARSE.get(field)
        if template is not None:
            raise InvalidArgumentError(f"{template.format(value=value)} ({release_note})")
        valid = [c for c in getattr(C, _CHOICE_LISTS[field]) if c not in values]
        listed = ", ".join(repr(c) for c in valid)
        raise InvalidArgumentError(
            f"argument {_flag(field)}: invalid choice: {value!r} (choose from {listed}) ({release_note})"
        )
    return {}


#: The choices tuple of each field named in ADDED_IN / REMOVED_IN.
_CHOICE_LISTS = {
    "attention_backend": "ATTENTION_BACKENDS",
    "prefill_attention_backend": "ATTENTION_BACKENDS",
    "decode_attention_backend": "ATTENTION_BACKENDS",
    "kv_cache_dtype": "KV_CACHE_DTYPES",
    "dsa_prefill_backend": "DSA_BACKENDS",
    "dsa_decode_backend": "DSA_BACKENDS",
    "quantization": "QUANTIZATIONS",
    "moe_runner_backend": "MOE_RUNNER_BACKENDS",
    "speculative_moe_runner_backend": "MOE_RUNNER_BACKENDS",
    "moe_a2a_backend": "MOE_A2A_BACKENDS",
    "speculative_moe_a2a_backend": "MOE_A2A_BACKENDS",
    "speculative_algorithm": "SPECULATIVE_ALGORITHMS",
    "sampling_backend": "SAMPLING_BACKENDS",
    "cuda_graph_backend_prefill": "CUDA_GRAPH_BACKENDS",
    "cuda_graph_backend_decode": "CUDA_GRAPH_BACKENDS",
}


@registry.rule("device", until="0.5.16")
def choices_added_in_0_5_16(ctx):
    """``server_args.py`` choice lists (releases before 0.5.16): the names 0.5.16 added
    (``--kv-cache-dtype mxfp8/nvfp4/fp4_mx_block16``, ``flashmla_sparse_q8``, ``humming``,
    ``experimental_sgl_marlin``, ``ascend_tp``, ``DSPARK``) are unknown."""
    return _refuse_choices(ctx, C.ADDED_IN["0.5.16"], "added in sglang 0.5.16")


@registry.rule("device", since="0.5.16")
def choices_removed_in_0_5_16(ctx):
    """``server_args.QUANTIZATION_CHOICES`` (since 0.5.16): ``qoq`` is no longer a choice."""
    return _refuse_choices(ctx, C.REMOVED_IN["0.5.16"], "removed in sglang 0.5.16")


@registry.rule("device", until="0.5.17")
def choices_added_in_0_5_17(ctx):
    """``server_args.py`` choice lists (releases before 0.5.17): the names 0.5.17 added
    (attention backend ``hpc_ops``, DSA kernel ``flashinfer_sparse_mla``, MoE runner
    ``hpc_ops``, MoE A2A ``pplx``) are unknown."""
    return _refuse_choices(ctx, C.ADDED_IN["0.5.17"], "added in sglang 0.5.17")


@registry.rule("device", until="0.5.19")
def choices_added_in_0_5_19(ctx):
    """``server_args.py`` choice lists (releases before 0.5.19): ``minicpm_flashattn`` and
    ``minicpm_flashinfer`` (attention), ``intel_xpu`` (MoE runner), ``deepep_v2`` (MoE A2A) are
    unknown names."""
    return _refuse_choices(ctx, C.ADDED_IN["0.5.19"], "added in sglang 0.5.19")


@registry.rule("device", until="0.5.20")
def choices_added_in_0_5_20(ctx):
    """Choice lists before 0.5.20: ``qsa``, the ``triton`` DSA kernel, ``flashinfer_megamoe``
    (MoE runner and A2A) and the ``UNO`` speculative algorithm do not exist yet."""
    return _refuse_choices(ctx, C.ADDED_IN["0.5.20"], "added in sglang 0.5.20")


@registry.rule("device", since="0.5.20")
def choices_removed_in_0_5_20(ctx):
    """Choice lists since 0.5.20 (``arg_groups/choices.py``): ``cutlass_mla`` and
    ``dual_chunk_flash_attn`` are no attention backends any more; ``marlin`` is no
    ``--quantization`` choice."""
    return _refuse_choices(ctx, C.REMOVED_IN["0.5.20"], "removed in sglang 0.5.20")


@registry.rule("device")
def internal_choices(ctx):
    """Every release: a name that only sglang itself declares (``choices.INTERNAL``: the XPU DSA
    kernel, 0.5.23's ``minimax_m3_nvfp4`` quantization) is no user choice."""
    return _refuse_choices(ctx, C.INTERNAL, "not a choice in any sglang release")


@registry.rule("device", until="0.5.21")
def choices_added_in_0_5_21(ctx):
    """``arg_groups/choices.SAMPLING_BACKEND_CHOICES`` (releases before 0.5.21): the
    ``intel_xpu`` sampling backend 0.5.21 added is unknown."""
    return _refuse_choices(ctx, C.ADDED_IN["0.5.21"], "added in sglang 0.5.21")


@registry.rule("device", since="0.5.21")
def choices_removed_in_0_5_21(ctx):
    """``arg_groups/fields/model.py`` ``kv_cache_dtype`` choices (since 0.5.21): the deprecated
    ``fp4_e2m1`` is no longer a choice."""
    return _refuse_choices(ctx, C.REMOVED_IN["0.5.21"], "removed in sglang 0.5.21")


@registry.rule("device", until="0.5.23")
def choices_added_in_0_5_23(ctx):
    """``arg_groups/choices.py`` (releases before 0.5.23): the LoRA MoE runners
    ``lora_cutedsl``, ``lora_triton``, ``lora_marlin`` are unknown choices."""
    return _refuse_choices(ctx, C.ADDED_IN["0.5.23"], "added in sglang 0.5.23")


@registry.rule("parallelism", since="0.5.16")
def moe_a2a_ascend_tp(ctx):
    """``server_args._handle_a2a_moe`` (since 0.5.16): ``--moe-a2a-backend ascend_tp`` runs as
    ``none`` (sglang rewrites it; the named backend loses accuracy)."""
    if ctx.args.moe_a2a_backend != "ascend_tp":
        return {}
    return {"moe_a2a_backend": Force("none", "sglang 0.5.16 runs --moe-a2a-backend ascend_tp as 'none'")}


@registry.rule("device", until="0.5.22")
def choices_added_in_0_5_22(ctx):
    """``arg_groups/choices.py`` ``ATTENTION_BACKEND_CHOICES`` (releases before 0.5.22): the
    ``llada2_cfg_flashinfer`` backend 0.5.22 registered is unknown."""
    return _refuse_choices(ctx, C.ADDED_IN["0.5.22"], "added in sglang 0.5.22")


@registry.rule("device", since="0.5.22")
def choices_removed_in_0_5_22(ctx):
    """``cuda_graph_config.parse_cuda_graph_backend_arg`` (since 0.5.22): the ``tc_piecewise``
    CUDA-graph backend is gone; the flag's type parser rejects it before argparse's choices."""
    for field, values in C.REMOVED_IN["0.5.22"].items():
        value = ctx.args[field]
        if value in values:
            raise InvalidArgumentError(
                f"argument {_flag(field)}: {value} was removed; select breakable, full, or disabled "
                "(removed in sglang 0.5.22)"
            )
    return {}
