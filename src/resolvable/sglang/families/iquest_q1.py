"""IQuest-Q1 (new in sglang 0.5.21, ``arg_groups/model_overrides/iquest_q1.py``).

Invariant: the model applies its attention sink from the softmax LSE, so prefill and decode
both run FA3: unset backends become fa3 and any other backend is refused; context parallelism,
DP attention, pipeline parallelism and tree/multi-layer speculation are refused. Reads the
pristine input (a model-stage provider), as sglang's override does. The MTP draft-checkpoint
checks (``speculative_hook._handle_iquest_q1_mtp_draft``) read the draft config: not modelled.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix
from .._base import registry

ARCHS = ("IQuestQ1ForCausalLM", "IQuestQ1MTP")
_BACKENDS = ("attention_backend", "prefill_attention_backend", "decode_attention_backend")


def _refuse(message: str, fields: tuple[str, ...], fix: str | Fix) -> ConflictError:
    return ConflictError(message, fields=fields, fix=fix)


def _checks(args) -> None:
    """The refusals of ``_iquest_q1_overrides``, in sglang's order."""
    if any(args[f] not in (None, "fa3") for f in _BACKENDS):
        raise _refuse(
            "IQuestQ1 applies its attention sink from the softmax LSE and requires FA3 attention for "
            "both prefill and decode.",
            _BACKENDS,
            Fix(
                set={"attention_backend": "fa3"},
                text="pass --attention-backend fa3 (or drop the backend flags)",
            ),
        )
    algorithm = args.speculative_algorithm
    if algorithm is not None:
        if algorithm.upper() not in ("EAGLE", "NEXTN"):
            raise _refuse(
                "IQuest Q1 MTP requires serial EAGLE or NEXTN drafting.",
                ("speculative_algorithm",),
                Fix.any_of(
                    Fix(set={"speculative_algorithm": "EAGLE"}),
                    Fix(set={"speculative_algorithm": "NEXTN"}),
                    text="pass --speculative-algorithm EAGLE or NEXTN",
                ),
            )
        if args.speculative_draft_attention_backend not in (None, "fa3"):
            raise _refuse(
                "IQuestQ1 requires FA3 attention for the MTP draft.",
                ("speculative_draft_attention_backend",),
                Fix(
                    set={"speculative_draft_attention_backend": "fa3"},
                    text="pass --speculative-draft-attention-backend fa3 (or drop it)",
                ),
            )
    if args.attn_cp_size > 1 or args.dcp_size > 1 or args.enable_prefill_cp:
        raise _refuse(
            "IQuestQ1 does not support context parallelism.",
            ("attn_cp_size", "dcp_size", "enable_prefill_cp"),
            "drop --attn-cp-size / --dcp-size / --enable-prefill-cp",
        )
    if args.speculative_eagle_topk is not None and args.speculative_eagle_topk > 1:
        raise _refuse(
            "IQuestQ1 speculative decoding requires --speculative-eagle-topk 1.",
            ("speculative_eagle_topk",),
            Fix(set={"speculative_eagle_topk": 1}),
        )
    if args.enable_multi_layer_eagle:
        raise _refuse(
            "IQuest Q1 MTP drafting does not support multi-layer EAGLE.",
            ("enable_multi_layer_eagle",),
            Fix(drop=("enable_multi_layer_eagle",)),
        )
    if args.enable_dp_attention:
        raise _refuse(
            "IQuest Q1 does not support DP attention.",
            ("enable_dp_attention",),
            Fix(drop=("enable_dp_attention",)),
        )
    if args.pp_size > 1:
        raise _refuse(
            "IQuest Q1 does not support pipeline parallelism.",
            ("pp_size",),
            Fix(set={"pp_size": 1}),
        )


@registry.rule("model", archs=ARCHS, since="0.5.21")
def iquest_q1_attention(ctx):
    """Since 0.5.21 (``model_overrides/iquest_q1._iquest_q1_overrides``): refuse non-FA3
    backends, CP, DP attention, PP and non-serial speculation; no backend set → ``A`` := fa3,
    else each unset prefill/decode side := fa3 when ``A`` is unset."""
    args = ctx.args
    _checks(args)
    if all(args[f] is None for f in _BACKENDS):
        return {"attention_backend": "fa3"}
    out = {}
    if args.attention_backend is None:
        for field in ("prefill_attention_backend", "decode_attention_backend"):
            if args[field] is None:
                out[field] = "fa3"
    return out
