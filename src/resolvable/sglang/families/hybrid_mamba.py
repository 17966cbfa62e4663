"""Hybrid linear-attention / mamba families: attention fills and checks (spec §3.11).

MiniCPM-V-4.6, Falcon-H1 / Jet-Nemotron, Granite-4.0-H, LFM2, Nemotron-H. Invariants: only an
unset ``A`` is filled, and only on SM100; LFM2 and Nemotron-H refuse triton (their first layer
may not be attention) — read before the generic default (spec §10 #6); Nemotron-H ModelOpt
checkpoints pick their quantization and MoE runner. The mamba radix cache is in
``mamba_radix``.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import ArchList, Fix, Force
from .._base import registry
from ..changes import CHANGES
from ..checkpoint import hf_quantization_config
from ..facts import model_quantization

TRITON_ON_SM100 = ArchList(
    # 0.5.7 (server_args._handle_model_specific_adjustments): the Falcon-H1 arm gained the SM100
    # triton default; 0.5.6.post2's only turned the overlap schedule off
    ("FalconH1ForCausalLM", "0.5.7"),
    ("JetNemotronForCausalLM", "0.5.7"),
    ("JetVLMForConditionalGeneration", "0.5.7"),
    # 0.5.23 (``model_overrides/minicpmv.py``): MiniCPM-V 4.7 registered on the 4.6 override.
    ("MiniCPMV4_7ForConditionalGeneration", "0.5.23"),
    ("MiniCPMV4_6ForConditionalGeneration", "0.5.12"),  # 0.5.11: no MiniCPM-V 4.6 branch
    what="triton on SM100",
)
NEMOTRON_H = ("NemotronHForCausalLM", "NemotronHPuzzleForCausalLM")
#: LFM2's branch came with its model in 0.5.9.
NO_TRITON = ArchList(("Lfm2ForCausalLM", "0.5.9"), *NEMOTRON_H, what="no triton")
#: Granite-4.0-H's branch came with its model (``GraniteMoeHybridForCausalLM``) in 0.5.9.
GRANITE_HYBRID = ArchList(("GraniteMoeHybridForCausalLM", "0.5.9"), what="Granite hybrid")


def granite_has_mamba(hf) -> bool:
    """Granite-4.0-H is hybrid only when some ``layer_types`` entry is "mamba"."""
    layer_types = hf.text_config.get("layer_types") or ()
    return any(t == "mamba" for t in layer_types)


@registry.rule("model", archs=TRITON_ON_SM100)
def hybrid_triton_on_sm100(ctx):
    """§3.11: MiniCPM-V-4.6 (and 4.7 since 0.5.23), Falcon-H1, Jet-Nemotron use triton on SM100
    when ``A`` is unset."""
    if ctx.args.attention_backend is None and ctx.platform.is_sm100:
        return {"attention_backend": "triton"}
    return {}


@registry.rule("model", archs=GRANITE_HYBRID)
def granite_hybrid_attention(ctx):
    """§3.11: Granite with mamba layers uses flashinfer on SM100 when ``A`` is unset (triton
    before 0.5.13: ``GRANITE_HYBRID_SM100_FLASHINFER``)."""
    if granite_has_mamba(ctx.hf) and ctx.args.attention_backend is None and ctx.platform.is_sm100:
        flashinfer = ctx.release.has(CHANGES.GRANITE_HYBRID_SM100_FLASHINFER)
        return {"attention_backend": "flashinfer" if flashinfer else "triton"}
    return {}


@registry.rule("model", archs=NO_TRITON)
def lfm2_nemotron_attention(ctx):
    """§3.11: LFM2 and Nemotron-H use flashinfer on SM100 when ``A`` is unset (LFM2:
    ``model_overrides/lfm2.py``). ``NEMOTRON_H_BLACKWELL_DEFAULTS`` (0.5.19): Nemotron-H
    (``model_overrides/nemotron_h.py:_nemotron_h_overrides``) on Blackwell with A, P and D all
    unset: without speculation trtllm_mha on SM100; with speculation trtllm_mha on SM100 when
    the EAGLE topk is unset or 1 (page 64 when unset, draft backend trtllm_mha for
    EAGLE/NEXTN/DSPARK), else triton (draft backend flashinfer for EAGLE/NEXTN/DFLASH/DSPARK).
    ``NEMOTRON_H_SM100_FLASHINFER`` (0.5.7): before it, Nemotron-H took the generic default.

    Its ``mamba_radix_cache_strategy`` write is not declared: the mamba resolution has already
    decided the strategy when the override reads it (docs/releases/0.5.19.md)."""
    args, platform = ctx.args, ctx.platform
    if ctx.arch in NEMOTRON_H and not ctx.release.has(CHANGES.NEMOTRON_H_SM100_FLASHINFER):
        return {}  # the generic default
    if ctx.arch not in NEMOTRON_H or not ctx.release.has(CHANGES.NEMOTRON_H_BLACKWELL_DEFAULTS):
        if args.attention_backend is None and platform.is_sm100:
            return {"attention_backend": "flashinfer"}
        return {}
    unset = (args.attention_backend, args.prefill_attention_backend, args.decode_attention_backend)
    if not platform.is_blackwell or unset != (None, None, None):
        return {}
    algo = args.speculative_algorithm
    if algo is None:
        return {"attention_backend": "trtllm_mha"} if platform.is_sm100 else {}
    algo = algo.upper()
    out: dict = {}
    if platform.is_sm100 and args.speculative_eagle_topk in (None, 1):
        out["attention_backend"] = "trtllm_mha"
        if args.page_size is None:
            out["page_size"] = 64
        if args.speculative_draft_attention_backend is None and algo in ("EAGLE", "NEXTN", "DSPARK"):
            out["speculative_draft_attention_backend"] = "trtllm_mha"
    else:
        out["attention_backend"] = "triton"
        if args.speculative_draft_attention_backend is None and algo in (
            "EAGLE",
            "NEXTN",
            "DFLASH",
            "DSPARK",
        ):
            out["speculative_draft_attention_backend"] = "flashinfer"
    return out


@registry.rule("model_checks", archs=NO_TRITON)
def no_triton_check(ctx):
    """§3.11 (``model_hook.handle_model_specific_adjustments``): LFM2 and Nemotron-H refuse
    triton (checked on ``A`` before the generic default); ``NEMOTRON_H_TRITON_ALLOWED`` (0.5.19):
    only LFM2 (Nemotron-H's own override may pick triton); ``NEMOTRON_H_SM100_FLASHINFER`` (0.5.7):
    Nemotron-H's check arrived with its own arm."""
    if ctx.arch in NEMOTRON_H and (
        ctx.release.has(CHANGES.NEMOTRON_H_TRITON_ALLOWED)
        or not ctx.release.has(CHANGES.NEMOTRON_H_SM100_FLASHINFER)
    ):
        return {}
    if ctx.args.attention_backend == "triton":
        raise ConflictError(
            f"{ctx.arch} does not support triton attention backend, as the first layer might not be an "
            "attention layer",
            fields=("attention_backend",),
            fix=Fix.any_of(
                Fix(set={"attention_backend": "flashinfer"}),
                Fix(set={"attention_backend": "fa3"}),
                text="pass another --attention-backend (e.g. flashinfer or fa3)",
            ),
            upstream="AssertionError",
        )
    return {}


_MODELOPT = ("modelopt", "modelopt_fp8", "modelopt_fp4", "modelopt_mixed")


@registry.for_arch(*NEMOTRON_H)
def nemotron_h_quant_moe(ctx):
    """§3.11 Nemotron-H (0.5.15 overrides.py:_nemotron_h_overrides): when the *model config's*
    quantization (``ModelConfig._verify_quantization``, see ``facts.model_quantization``) is a
    ModelOpt one, the MLP must be relu2 and ``quantization`` := that method (the generic
    ``modelopt`` refined by ``quant_algo``); with a ModelOpt or no quantization the MoE runner is
    flashinfer_trtllm on SM100, marlin for FP4 on SM80-SM9x, else flashinfer_cutlass.

    A ModelOpt MIXED_PRECISION checkpoint without NVFP4 layers is ``w4afp8`` to the model
    config, so neither field is declared (0.5.14 answered modelopt_mixed). Before 0.5.11
    (``NEMOTRON_H_MOE_RUNNER_WHEN_AUTO``) a ModelOpt checkpoint set flashinfer_cutlass whatever
    runner was named, and an unquantized one kept its runner; before ``NEMOTRON_H_MODELOPT_ARM``
    (0.5.6) the Nemotron-H branch did not exist (nothing checked or set here)."""
    args, hf, platform = ctx.args, ctx.hf, ctx.platform
    if not ctx.release.has(CHANGES.NEMOTRON_H_MODELOPT_ARM):
        return {}
    model_q, _ = model_quantization(args.quantization, hf, platform)
    out = {}
    quantization = args.quantization
    is_modelopt = model_q in _MODELOPT
    if is_modelopt:
        if hf.text_config.get("mlp_hidden_act") != "relu2":
            raise ConflictError(
                f"{ctx.arch} ModelOpt checkpoints require mlp_hidden_act == 'relu2'",
                fields=("quantization",),
                fix="check the checkpoint's config.json",
                upstream="AssertionError",
            )
        if model_q == "modelopt":
            algo = (hf_quantization_config(hf) or {}).get("quant_algo")
            if algo == "MIXED_PRECISION":
                quantization = "modelopt_mixed"
            else:
                quantization = "modelopt_fp4" if algo == "NVFP4" else "modelopt_fp8"
        else:
            quantization = model_q
        if args.quantization != quantization:
            out["quantization"] = Force(quantization, f"the checkpoint's ModelOpt method is {quantization}")
    if not ctx.release.has(CHANGES.NEMOTRON_H_MOE_RUNNER_WHEN_AUTO):
        # before 0.5.11 a ModelOpt checkpoint always ran flashinfer_cutlass (a named runner too)
        if is_modelopt:
            why = "sglang < 0.5.11 runs a ModelOpt Nemotron-H on flashinfer_cutlass"
            out["moe_runner_backend"] = Force("flashinfer_cutlass", why)
        return out
    if (is_modelopt or model_q is None) and args.moe_runner_backend == "auto":
        cap = platform.capability or (0, 0)
        if platform.is_sm100 and args.moe_a2a_backend == "none":
            out["moe_runner_backend"] = "flashinfer_trtllm"
        elif (
            (model_q in ("modelopt_fp4", "modelopt_mixed") or quantization == "modelopt_fp4")
            and platform.is_cuda
            and (8, 0) <= tuple(cap) < (10, 0)
        ):
            out["moe_runner_backend"] = "marlin"
        else:
            out["moe_runner_backend"] = "flashinfer_cutlass"
    return out


#: 0.5.17 (``overrides._lfm2_overrides``, ``server_args`` LFM2 branch): LFM2-MoE joins LFM2.
LFM2_MOE = "Lfm2MoeForCausalLM"


@registry.rule("model", archs=(LFM2_MOE,), since="0.5.17")
def lfm2_moe_attention(ctx):
    """§3.11 (0.5.17 ``overrides._lfm2_overrides``): LFM2-MoE uses flashinfer on SM100 when ``A``
    is unset, like LFM2."""
    return lfm2_nemotron_attention(ctx)


@registry.rule("model_checks", archs=(LFM2_MOE,), since="0.5.17")
def lfm2_moe_no_triton_check(ctx):
    """§3.11 (0.5.17 ``_handle_model_specific_adjustments``): LFM2-MoE refuses triton, like LFM2."""
    return no_triton_check(ctx)
