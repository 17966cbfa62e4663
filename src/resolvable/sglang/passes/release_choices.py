"""Choices that exist only in some sglang releases (argparse, before ``ServerArgs``).

Invariant: the field choices in ``choices.py`` are the union over the supported releases; a
name a release added is refused by the releases before it, and a name a release removed by
that release and the later ones, with argparse's wording, before any other rule runs. The
per-release names are data (``choices.CHOICE_CHANGES``: each group with its named change), read by
one rule (``release_choices``) in the order sglang's parser meets them.
"""

from __future__ import annotations

from ...errors import InvalidArgumentError
from ...rules import Force
from .. import choices as C
from .._base import registry
from ..changes import CHANGES

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


#: The choices tuple of each field named in ``choices.CHOICE_CHANGES``.
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


def _refusals(release) -> tuple[tuple[tuple[str, frozenset, str, str], ...], dict[str, frozenset]]:
    """The names a release refuses, field by field, in the order sglang's parser meets them
    (``choices.CHOICE_CHANGES``), and all of them per field: a pure function of the release's
    changes (``ctx.release.derive``: built once per release, each use asks the changes)."""
    out = []
    for kind, change, names in C.CHOICE_CHANGES:
        if kind == "internal":
            note = "not a choice in any sglang release"
        elif kind == "added" and not release.has(change):
            note = f"added in sglang {change.since}"
        elif kind == "removed" and release.has(change):
            note = f"removed in sglang {change.since}"
            if change is CHANGES.CUDA_GRAPH_TC_PIECEWISE_GONE:
                kind = "type-parser"
        else:
            continue
        out += [(field, frozenset(values), kind, note) for field, values in names.items()]
    refused: dict[str, frozenset] = {}
    for field, values, _, _ in out:
        refused[field] = refused.get(field, frozenset()) | values
    return tuple(out), refused


@registry.rule("device")
def release_choices(ctx):
    """argparse and the flags' type parsers (``server_args.py`` / ``arg_groups/choices.py``
    choice lists): a name a release added (``choices.CHOICE_CHANGES``) is unknown before it, a
    name it removed from it on; a name only sglang itself declares
    (``choices.INTERNAL``: the XPU DSA kernel, 0.5.23's ``minimax_m3_nvfp4`` quantization) in
    every release. 0.5.22's ``tc_piecewise`` removal is refused by
    ``cuda_graph_config.parse_cuda_graph_backend_arg``, before argparse's choices."""
    args = ctx.args
    refusals, refused = ctx.release.derive(_refusals)
    for field, names in refused.items():  # one lookup per field: the usual case refuses nothing
        if args[field] in names:
            break
    else:
        return {}
    for field, values, kind, note in refusals:
        value = args[field]
        if value is not None and value in values:
            if kind == "type-parser":
                _refuse_removed_cuda_graph_backend(ctx)
            _refuse_choices(ctx, {field: tuple(values)}, note)
    return {}


@registry.rule("parallelism", since="0.5.16", only_if_set=("moe_a2a_backend",))
def moe_a2a_ascend_tp(ctx):
    """``server_args._handle_a2a_moe`` (since 0.5.16): ``--moe-a2a-backend ascend_tp`` runs as
    ``none`` (sglang rewrites it; the named backend loses accuracy)."""
    if ctx.args.moe_a2a_backend != "ascend_tp":
        return {}
    return {"moe_a2a_backend": Force("none", "sglang 0.5.16 runs --moe-a2a-backend ascend_tp as 'none'")}


def _refuse_removed_cuda_graph_backend(ctx) -> None:
    """``cuda_graph_config.parse_cuda_graph_backend_arg`` (since 0.5.22): the ``tc_piecewise``
    CUDA-graph backend is gone; the flag's type parser rejects it before argparse's choices."""
    _, _, removed = next(c for c in C.CHOICE_CHANGES if c[1] is CHANGES.CUDA_GRAPH_TC_PIECEWISE_GONE)
    for field, values in removed.items():
        value = ctx.args[field]
        if value in values:
            raise InvalidArgumentError(
                f"argument {_flag(field)}: {value} was removed; select breakable, full, or disabled "
                "(removed in sglang 0.5.22)"
            )
