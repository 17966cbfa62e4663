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
    "kv_cache_dtype": "KV_CACHE_DTYPES",
    "dsa_prefill_backend": "DSA_BACKENDS",
    "dsa_decode_backend": "DSA_BACKENDS",
    "quantization": "QUANTIZATIONS",
    "moe_runner_backend": "MOE_RUNNER_BACKENDS",
    "speculative_moe_runner_backend": "MOE_RUNNER_BACKENDS",
    "moe_a2a_backend": "MOE_A2A_BACKENDS",
    "speculative_moe_a2a_backend": "MOE_A2A_BACKENDS",
    "speculative_algorithm": "SPECULATIVE_ALGORITHMS",
    "attention_backend": "ATTENTION_BACKENDS",
    "prefill_attention_backend": "ATTENTION_BACKENDS",
    "decode_attention_backend": "ATTENTION_BACKENDS",
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
