"""The speculative-decoding hook of ``ServerArgs`` (sglang 0.5.15 step 22, spec §2.2, §4.7).

Source: arg_groups/speculative_hook.py ``handle_speculative_decoding`` and the per-algorithm
handlers ``_handle_eagle_family`` (EAGLE, EAGLE3, NEXTN, STANDALONE), ``_handle_ngram`` and
``_handle_dflash`` (with ``_resolve_dflash_draft_attention_backend``), plus overrides.py
``_speculative_moe_runner_default``. Invariants: rules before this stage read the raw topk
(spec §10 #15); here the hook fills or overrides topk / steps / draft tokens first and the
backend checks read the result, so e.g. Llama's EAGLE default topk 4 counts; each handler's
refusals come in sglang's order.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import ArchList, Fix, Force
from .. import choices as C
from .._base import registry
from ..changes import CHANGES, in_release
from ..facts import effective_backends, env_flag

#: ``_auto_choose_speculative_params``: (num_steps, eagle_topk, num_draft_tokens) per arch.
_TOPK4_ARCHS = frozenset({"LlamaForCausalLM", "Grok1ForCausalLM", "Grok1VForCausalLM"})
_PAGE_TREE_SPEC_BACKENDS = ("flashinfer", "fa3", "triton")
_DFLASH_DRAFT_OK = ("flashinfer", "fa3", "fa4", "triton", "ascend")


def _common_writes(args, algo: str, *, keeps_mixed_chunk: bool = False) -> dict:
    """max_running_requests := 48 when unset; no mixed chunked prefill (every handler up to
    0.5.18; since 0.5.19 only where ``SpeculativeAlgorithm.supports_mixed_chunk`` is false)."""
    out = {}
    if args.max_running_requests is None:
        out["max_running_requests"] = 48
    if args.enable_mixed_chunk and not keeps_mixed_chunk:
        out["enable_mixed_chunk"] = Force(False, f"{algo} speculative decoding runs without mixed chunks")
    return out


def _set(args, out: dict, field: str, value, reason: str) -> None:
    if args[field] != value:
        out[field] = Force(value, reason) if args[field] is not None else value


@registry.rule("speculative")
def speculative_moe_runner_default(ctx):
    """``_speculative_moe_runner_default``: the draft MoE runner defaults to the resolved one.
    Before ``SPEC_MOE_RUNNER_TRTLLM`` (0.5.12; 0.5.11 ``_handle_speculative_decoding``) a
    flashinfer_trtllm(_routed) runner gave the draft ``auto``, and an explicit draft
    flashinfer_trtllm runner was refused. Before ``SPEC_MOE_RUNNER_FILLED`` (0.5.7) the field was
    left as given."""
    args = ctx.args
    if not ctx.release.has(CHANGES.SPEC_MOE_RUNNER_FILLED):
        return {}
    old = not ctx.release.has(CHANGES.SPEC_MOE_RUNNER_TRTLLM)
    if args.speculative_moe_runner_backend is None:
        runner = args.moe_runner_backend
        if old and runner in ("flashinfer_trtllm", "flashinfer_trtllm_routed"):
            runner = "auto"
        return {"speculative_moe_runner_backend": runner}
    if old and args.speculative_moe_runner_backend == "flashinfer_trtllm":
        raise ConflictError(
            "Currently speculative MoE runner backend doesn't support flashinfer_trtllm, please use triton "
            "or auto backend for speculative moe runner instead.",
            fields=("speculative_moe_runner_backend",),
            fix=Fix(set={"speculative_moe_runner_backend": "auto"}),
            upstream="AssertionError",
        )
    return {}


#: 0.5.10's MiMo-V2-Flash and Step-3.5 branches turn spec v2 on for ``--speculative-algorithm EAGLE``
#: (a substring test on the architecture, before NEXTN becomes EAGLE); Step-3.5's branch came with
#: its model in 0.5.9.
_SPEC_V2_BRANCH_ARCHS = ArchList(
    "MiMoV2FlashForCausalLM", ("Step3p5ForCausalLM", "0.5.9"), what="spec v2 branches"
)


def _overlap_before_spec_v2_default(ctx) -> dict:
    """Before ``SPEC_V2_BY_DEFAULT`` (0.5.11; 0.5.10 ``_handle_speculative_decoding``): the overlap
    schedule stays on only with spec v2 (``SGLANG_ENABLE_SPEC_V2``, default off, or set by the
    branches above), which refuses a topk above 1; otherwise it is turned off. STANDALONE takes
    spec v2 since 0.5.8 (``SPEC_V2_STANDALONE``; 0.5.7: EAGLE and EAGLE3 only).
    ``SPEC_V2_EAGLE3_TOPK_ONE`` (0.5.7): before it, spec v2 kept the overlap schedule for EAGLE only,
    checked no topk, and left it as it was for the other algorithms."""
    args = ctx.args
    spec_v2 = env_flag(ctx, "SGLANG_ENABLE_SPEC_V2") or (
        args.speculative_algorithm == "EAGLE"
        and any(a in ctx.arch and ctx.release.holds(_SPEC_V2_BRANCH_ARCHS, a) for a in _SPEC_V2_BRANCH_ARCHS)
    )
    if not ctx.release.has(CHANGES.SPEC_V2_EAGLE3_TOPK_ONE):  # 0.5.6.post2: EAGLE only, no topk check
        if not spec_v2:
            return {} if args.disable_overlap_schedule else {"disable_overlap_schedule": True}
        if args.speculative_algorithm == "EAGLE" and args.disable_overlap_schedule:
            return {"disable_overlap_schedule": Force(False, "spec v2 turns the overlap schedule on")}
        return {}
    if args.speculative_algorithm == "STANDALONE" and not ctx.release.has(CHANGES.SPEC_V2_STANDALONE):
        spec_v2 = False  # 0.5.7: spec v2 took EAGLE and EAGLE3 only
    if not spec_v2:
        return {} if args.disable_overlap_schedule else {"disable_overlap_schedule": True}
    if args.speculative_eagle_topk is not None and args.speculative_eagle_topk > 1:
        raise ConflictError(
            "Spec v2 currently only supports topk = 1 for speculative decoding.",
            fields=("speculative_eagle_topk",),
            fix=Fix(set={"speculative_eagle_topk": 1}),
        )
    if args.disable_overlap_schedule:
        return {"disable_overlap_schedule": Force(False, "spec v2 turns the overlap schedule on")}
    return {}


@registry.rule("speculative")
def eagle_family(ctx):
    """``_handle_eagle_family`` (since 0.5.19 ``speculative_hook``): STANDALONE refuses DP
    attention; parameters are chosen per arch when ``--speculative-num-steps`` is unset (then
    topk and draft tokens must be unset too); trtllm_mha as a backend needs topk 1 (spec §9 #13:
    the fields as given in 0.5.14, the effective prefill/decode backends since 0.5.15,
    ``EAGLE_TRTLLM_EFFECTIVE_BACKENDS``); topk 1 means ``num_draft_tokens = num_steps + 1``; topk
    > 1 with pages > 1 needs flashinfer, fa3 or triton (triton since 0.5.13,
    ``EAGLE_PAGE_TREE_TRITON``). ``SPEC_MIXED_CHUNK`` (0.5.19): mixed
    chunked prefill stays on for EAGLE and EAGLE3 (NEXTN runs as EAGLE); STANDALONE still turns it
    off. Before 0.5.11 (``SPEC_V2_BY_DEFAULT``) the overlap schedule follows spec v2
    (``_overlap_before_spec_v2_default``); from 0.5.11 on the pack leaves it as it is (not
    modelled: 0.5.11's spec v1 fallback for topk > 1)."""
    args = ctx.args
    algo = args.speculative_algorithm
    if algo not in (*C.EAGLE_FAMILY, "STANDALONE"):
        return {}
    if algo == "STANDALONE" and args.enable_dp_attention:
        raise ConflictError(
            "Currently standalone speculative decoding does not support dp attention.",
            fields=("speculative_algorithm", "enable_dp_attention"),
            fix=Fix.any_of(
                Fix(drop=("enable_dp_attention",)),
                Fix(another=("speculative_algorithm",)),
                text="drop --enable-dp-attention or use another --speculative-algorithm",
            ),
        )
    keeps_mixed_chunk = algo != "STANDALONE" and ctx.release.has(CHANGES.SPEC_MIXED_CHUNK)
    out = _common_writes(args, "EAGLE", keeps_mixed_chunk=keeps_mixed_chunk)
    if not ctx.release.has(CHANGES.SPEC_V2_BY_DEFAULT):
        out.update(_overlap_before_spec_v2_default(ctx))
    steps, topk, draft = (
        args.speculative_num_steps,
        args.speculative_eagle_topk,
        args.speculative_num_draft_tokens,
    )
    if steps is None:
        if topk is not None or draft is not None:
            raise ConflictError(  # sglang: a bare assert before _auto_choose_speculative_params
                "--speculative-eagle-topk / --speculative-num-draft-tokens need --speculative-num-steps: "
                "without it sglang chooses all three and asserts that none was given.",
                fields=("speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens"),
                fix=Fix(
                    drop=("speculative_eagle_topk",),
                    text="pass --speculative-num-steps too, or drop --speculative-eagle-topk/--speculative-num-draft-tokens",
                ),
                upstream="AssertionError",
            )
        if algo != "STANDALONE" and ctx.arch in _TOPK4_ARCHS:
            steps, topk, draft = 5, 4, 8
        else:
            steps, topk, draft = 3, 1, 4
        out.update(
            speculative_num_steps=steps, speculative_eagle_topk=topk, speculative_num_draft_tokens=draft
        )
    if topk is None:
        raise ConflictError(  # sglang compares None > 1 and crashes
            "--speculative-num-steps without --speculative-eagle-topk: sglang compares the unset topk "
            "with 1 and fails ('>' not supported between 'NoneType' and 'int').",
            fields=("speculative_num_steps", "speculative_eagle_topk"),
            fix=Fix.any_of(
                Fix(set={"speculative_eagle_topk": 1}),
                Fix(drop=("speculative_num_steps",)),
                text="pass --speculative-eagle-topk too (e.g. 1), or drop --speculative-num-steps",
            ),
            upstream="TypeError",
        )
    if ctx.release.has(CHANGES.EAGLE_TRTLLM_EFFECTIVE_BACKENDS):
        trtllm_checked: tuple = effective_backends(args)
    else:
        trtllm_checked = (
            args.attention_backend,
            args.prefill_attention_backend,
            args.decode_attention_backend,
        )
    if topk > 1 and "trtllm_mha" in trtllm_checked:
        raise ConflictError(
            "trtllm_mha backend only supports topk = 1 for speculative decoding.",
            fields=("speculative_eagle_topk", "attention_backend"),
            fix=Fix.any_of(
                Fix(set={"speculative_eagle_topk": 1}),
                Fix(another=("attention_backend",)),
                text="pass --speculative-eagle-topk 1 or another --attention-backend",
            ),
        )
    if topk == 1 and draft != steps + 1:
        _set(args, out, "speculative_num_draft_tokens", steps + 1, "topk 1 drafts num_steps + 1 tokens")
    tree_backends = (
        _PAGE_TREE_SPEC_BACKENDS
        if ctx.release.has(CHANGES.EAGLE_PAGE_TREE_TRITON)
        else ("flashinfer", "fa3")
        if ctx.release.has(CHANGES.EAGLE_PAGE_TREE_FA3)
        else ("flashinfer",)
    )
    if topk > 1 and args.page_size > 1 and args.attention_backend not in tree_backends:
        if ctx.release.has(CHANGES.EAGLE_PAGE_TREE_TRITON):
            message = (
                f"speculative_eagle_topk > 1 with page_size > 1 is only supported on {_PAGE_TREE_SPEC_BACKENDS}; "
                f"got attention_backend={args.attention_backend!r}. Use page_size == 1 or one of those backends."
            )
        else:
            message = (
                "speculative_eagle_topk > 1 with page_size > 1 is unstable and produces incorrect results for "
                "paged attention backends. This combination is only supported for the 'flashinfer' backend."
            )
        raise ConflictError(
            message,
            fields=("speculative_eagle_topk", "page_size", "attention_backend"),
            fix=Fix.any_of(
                Fix(set={"speculative_eagle_topk": 1}),
                Fix(set={"page_size": 1}),
                *(Fix(set={"attention_backend": b}) for b in tree_backends),
                text="pass --speculative-eagle-topk 1 (with --speculative-num-steps), --page-size 1, or "
                f"--attention-backend {'/'.join(tree_backends)}",
            ),
        )
    return out


#: Where NGRAM runs, each with the change that added it, and the release's wording.
_NGRAM_DEVICES = (("cuda", None), ("cpu", CHANGES.NGRAM_ON_CPU), ("xpu", CHANGES.NGRAM_ON_XPU))
_NGRAM_MESSAGES = {
    ("cuda",): "Ngram speculative decoding only supports CUDA device.",
    ("cuda", "cpu"): "Ngram speculative decoding only supports CUDA or CPU devices.",
    ("cuda", "cpu", "xpu"): "Ngram speculative decoding only supports CUDA, CPU, or XPU devices.",
}


@registry.rule("speculative")
def ngram_speculative(ctx):
    """``_handle_ngram`` (since 0.5.16 ``speculative_hook._handle_ngram``): CUDA only (CPU too
    since 0.5.16, ``NGRAM_ON_CPU``; XPU since 0.5.21, ``NGRAM_ON_XPU``); topk :=
    ``--speculative-ngram-max-bfs-breadth`` (default 10), 12 draft tokens by default; topk > 1
    with pages > 1 needs flashinfer; no DP attention. Before 0.5.14 (``NGRAM_KEEPS_OVERLAP``) it
    turned the overlap schedule off. (Its CPU overlap-schedule write of 0.5.16 is
    ``speculative_cpu_overlap_off``.)"""
    args = ctx.args
    if args.speculative_algorithm != "NGRAM":
        return {}
    device = str(args.device or "")
    devices = in_release(ctx.release, _NGRAM_DEVICES)
    if not any(device == d or device.startswith(d + ":") for d in devices):
        raise ConflictError(
            _NGRAM_MESSAGES[devices],
            fields=("speculative_algorithm", "device"),
            fix=Fix(
                another=("speculative_algorithm",), text="use another --speculative-algorithm on this device"
            ),
        )
    out = _common_writes(args, "ngram")
    if not args.disable_overlap_schedule and not ctx.release.has(CHANGES.NGRAM_KEEPS_OVERLAP):
        out["disable_overlap_schedule"] = True
    topk = args.speculative_ngram_max_bfs_breadth
    _set(
        args,
        out,
        "speculative_eagle_topk",
        topk,
        "NGRAM drafts --speculative-ngram-max-bfs-breadth tokens per step",
    )
    draft = args.speculative_num_draft_tokens
    if draft is None:
        draft = out["speculative_num_draft_tokens"] = 12
    if args.speculative_num_steps is None:
        out["speculative_num_steps"] = draft // topk
    page = args.page_size
    if topk > 1 and page > 1 and args.attention_backend != "flashinfer":
        raise ConflictError(
            f"speculative_eagle_topk({topk}) > 1 with page_size({page}) > 1 is unstable and produces incorrect "
            "results for paged attention backends. This combination is only supported for the 'flashinfer' backend.",
            fields=("speculative_ngram_max_bfs_breadth", "page_size", "attention_backend"),
            fix=Fix.any_of(
                Fix(set={"attention_backend": "flashinfer"}),
                Fix(set={"page_size": 1}),
                Fix(set={"speculative_ngram_max_bfs_breadth": 1}),
                text="pass --attention-backend flashinfer, --page-size 1 or --speculative-ngram-max-bfs-breadth 1",
            ),
        )
    if args.enable_dp_attention:
        raise ConflictError(
            "Currently ngram speculative decoding does not support dp attention.",
            fields=("speculative_algorithm", "enable_dp_attention"),
            fix=Fix(drop=("enable_dp_attention",)),
        )
    return out


def _spec_refusal(message: str, *fields: str, fix: str | Fix) -> ConflictError:
    return ConflictError(message, fields=fields, fix=fix)


@registry.rule("speculative", since="0.5.16")
def speculative_cpu_overlap_off(ctx):
    """``speculative_hook._disable_overlap_schedule_for_cpu`` (since 0.5.16), called from
    ``_handle_eagle_family`` (EAGLE, EAGLE3, NEXTN, STANDALONE) and ``_handle_ngram``: on the CPU
    device the overlap schedule is turned off ("Overlap schedule is not implemented for
    speculative decoding on CPU")."""
    args = ctx.args
    if str(args.device) != "cpu" or args.disable_overlap_schedule:
        return {}
    if args.speculative_algorithm not in (*C.EAGLE_FAMILY, "STANDALONE", "NGRAM"):
        return {}
    return {"disable_overlap_schedule": True}


@registry.rule("speculative", since="0.5.16")
def dspark_checks(ctx):
    """Step 22 (since 0.5.16, ``speculative_hook._handle_dspark``): DSPARK runs on CUDA only,
    with ``pp_size`` 1; with DP attention it needs the DP LM head, the built-in TP MoE and no
    context parallelism. Not modelled: its linear draft chain (sglang sets
    ``speculative_eagle_topk``/``speculative_num_steps`` to 1; not resolvable fields here), the
    draft checkpoint, gamma and ``speculative_num_draft_tokens``."""
    args = ctx.args
    if args.speculative_algorithm != "DSPARK":
        return {}
    if not str(args.device).startswith("cuda"):
        raise _spec_refusal(
            "DSpark speculative decoding only supports CUDA device.",
            "speculative_algorithm",
            fix=Fix(
                another=("speculative_algorithm",),
                text="run DSPARK on a CUDA or ROCm GPU, or pick another --speculative-algorithm",
            ),
        )
    if args.enable_dp_attention:
        if not args.enable_dp_lm_head:
            raise _spec_refusal(
                "DSpark with dp attention requires --enable-dp-lm-head.",
                "enable_dp_attention",
                "enable_dp_lm_head",
                fix=Fix(set={"enable_dp_lm_head": True}),
            )
        if args.moe_a2a_backend != "none":
            raise _spec_refusal(
                "DSpark with dp attention only supports the built-in TP MoE "
                f"(moe_a2a_backend='none'), got {args.moe_a2a_backend!r}.",
                "moe_a2a_backend",
                fix=Fix(drop=("moe_a2a_backend",)),
            )
        if args.attn_cp_size > 1:
            raise _spec_refusal(
                f"DSpark with dp attention does not support context parallel (attn_cp_size={args.attn_cp_size}).",
                "attn_cp_size",
                fix="drop context parallelism",
            )
    if args.pp_size != 1:
        raise _spec_refusal(
            "Currently DSpark speculative decoding only supports pp_size == 1.",
            "pp_size",
            fix=Fix(set={"pp_size": 1}),
        )
    return {}


#: ``type(current_platform).__name__`` per vendor (``sglang/srt/platforms/*.py``, 0.5.21+).
_PLATFORM_CLASS = {
    "cuda": "CudaSRTPlatform",
    "hip": "RocmSRTPlatform",
    "xpu": "XpuSRTPlatform",
    "npu": "NPUSRTPlatform",
    "cpu": "CpuSRTPlatform",
    "musa": "MusaSRTPlatform",
    "mps": "MpsSRTPlatform",
}
#: Where DFLASH runs besides ``cuda*``, each with the change that added it, and the wording
#: before ``DFLASH_PLATFORM_CLASS_MESSAGE``.
_DFLASH_DEVICES = (("npu", CHANGES.DFLASH_ON_NPU), ("xpu", CHANGES.DFLASH_ON_XPU))
_DFLASH_DEVICE_MESSAGES = {
    (): "DFLASH speculative decoding only supports CUDA device.",
    ("npu",): "DFLASH speculative decoding only supports CUDA and NPU devices.",
    ("npu", "xpu"): "DFLASH speculative decoding only supports CUDA, NPU and XPU devices.",
}


@registry.rule("speculative", since="0.5.16")
def dflash_device_gate(ctx):
    """Step 22 (since 0.5.16, ``speculative_hook._handle_dflash``): DFLASH needs a CUDA device
    (checked before its other constraints); NPU too since 0.5.17 (``DFLASH_ON_NPU``), XPU since
    0.5.20 (``DFLASH_ON_XPU``); since 0.5.21 the message names sglang's platform class and the
    device (``DFLASH_PLATFORM_CLASS_MESSAGE``)."""
    args = ctx.args
    device = str(args.device)
    if args.speculative_algorithm != "DFLASH" or device.startswith("cuda"):
        return {}
    devices = tuple(name for name, change in _DFLASH_DEVICES if ctx.release.has(change))
    if device in devices:
        return {}
    if ctx.release.has(CHANGES.DFLASH_PLATFORM_CLASS_MESSAGE):
        platform_class = _PLATFORM_CLASS.get(ctx.platform.vendor, "SRTPlatform")
        message = f"DFLASH speculative decoding is not supported by {platform_class} on device {device!r}."
    else:
        message = _DFLASH_DEVICE_MESSAGES[devices]
    where = " or ".join(("CUDA/ROCm", *(d.upper() for d in devices)))
    raise _spec_refusal(
        message,
        "speculative_algorithm",
        fix=Fix(
            another=("speculative_algorithm",),
            text=f"run DFLASH on a {where} device, or pick another --speculative-algorithm",
        ),
    )


def _dflash_dp_attention(ctx) -> None:
    """The DP-attention check of ``_handle_dflash``: refused until 0.5.20; allowed on NPU since
    0.5.20 (``DFLASH_DP_ATTENTION_ON_NPU``); on CUDA with ``--enable-dp-lm-head``, no attention
    context parallelism and ``SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION`` off since 0.5.23
    (``DFLASH_DP_ATTENTION_ON_CUDA``)."""
    args = ctx.args
    if not args.enable_dp_attention:
        return
    fields = ("speculative_algorithm", "enable_dp_attention")
    device = str(args.device)
    fix: str | Fix = Fix(drop=("enable_dp_attention",))
    if not ctx.release.has(CHANGES.DFLASH_DP_ATTENTION_ON_NPU):
        message = "Currently DFLASH speculative decoding does not support dp attention."
    elif device == "npu":
        return
    elif not ctx.release.has(CHANGES.DFLASH_DP_ATTENTION_ON_CUDA):
        message = "Currently DFLASH speculative decoding does not support dp attention on non-NPU devices."
    elif not device.startswith("cuda"):
        message = "DFLASH with dp attention requires CUDA or NPU."
    elif not args.enable_dp_lm_head:
        message = "DFLASH with dp attention requires --enable-dp-lm-head."
        fix = Fix(set={"enable_dp_lm_head": True}, text="add --enable-dp-lm-head")
    elif args.attn_cp_size != 1:
        message = "DFLASH with dp attention does not support context parallel."
        fields, fix = (*fields, "attn_cp_size"), Fix(set={"attn_cp_size": 1})
    elif env_flag(ctx, "SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION"):
        message = "DFLASH with dp attention requires SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION=0."
        fix = "unset SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION"
    else:
        return
    raise ConflictError(message, fields=fields, fix=fix)


@registry.rule("speculative")
def dflash_speculative(ctx):
    """``_handle_dflash``: no DP attention, ``pp_size == 1``, a draft model path; steps and topk
    are 1; draft tokens default to 16 (sglang first tries the draft config's block size, which
    is not read here); mixed chunked prefill off until ``SPEC_MIXED_CHUNK`` (0.5.19); the DP
    attention check per release is ``_dflash_dp_attention``."""
    args = ctx.args
    if args.speculative_algorithm != "DFLASH":
        return {}
    _dflash_dp_attention(ctx)
    if args.pp_size != 1:
        raise ConflictError(
            "Currently DFLASH speculative decoding only supports pp_size == 1.",
            fields=("speculative_algorithm", "pp_size"),
            fix=Fix(set={"pp_size": 1}),
        )
    if args.speculative_draft_model_path is None:
        raise ConflictError(
            "DFLASH speculative decoding requires setting --speculative-draft-model-path.",
            fields=("speculative_algorithm", "speculative_draft_model_path"),
            fix="pass --speculative-draft-model-path with the DFLASH draft model",
        )
    out = _common_writes(args, "dflash", keeps_mixed_chunk=ctx.release.has(CHANGES.SPEC_MIXED_CHUNK))
    _set(args, out, "speculative_num_steps", 1, "DFLASH only supports speculative_num_steps == 1")
    _set(args, out, "speculative_eagle_topk", 1, "DFLASH only supports speculative_eagle_topk == 1")
    if args.speculative_num_draft_tokens is None:
        out["speculative_num_draft_tokens"] = 16
    return out


@registry.rule("speculative")
def dflash_draft_backend(ctx):
    """Step 22 (0.5.15): the DFLASH draft backend is the user's, else the effective prefill;
    unsupported ones fall back to flashinfer (triton on ROCm)."""
    args = ctx.args
    if args.speculative_algorithm != "DFLASH":
        return {}
    chosen = args.speculative_draft_attention_backend or effective_backends(args)[0]
    fallback = "triton" if ctx.platform.is_hip else "flashinfer"
    if chosen is None or chosen == "trtllm_mha" or chosen not in _DFLASH_DRAFT_OK:
        chosen = Force(fallback, f"DFLASH drafts support only {list(_DFLASH_DRAFT_OK)} (not trtllm_mha)")
    if chosen == args.speculative_draft_attention_backend:
        return {}
    return {"speculative_draft_attention_backend": chosen}
