"""sglang 0.5.20 → 0.5.21: one golden case per modelled row of docs/releases/0.5.21.md.

Each case resolves the same input with ``sglang_version="0.5.16"`` (standing for the behaviour
before 0.5.21: 0.5.17–0.5.20 did not change these rules, checked in their wheels, except where a
docstring says otherwise) and ``"0.5.21"``, and checks both answers, read from the wheels (file
and function in each docstring). The default release is tested in test_releases.py.
"""

from __future__ import annotations

from release_helpers import SIX
from release_helpers import refusal_at as _refusal
from release_helpers import resolve_at as _resolve

from resolvable import Platform
from resolvable.errors import ConflictError, InvalidArgumentError
from resolvable.sglang import SGLANG_RELEASES, registry, resolve_server_args
from resolvable.sglang.grid import cases
from resolvable.sglang.models import load_model

P, V = "0.5.16", "0.5.21"

IQUEST = {
    "architectures": ["IQuestQ1ForCausalLM"],
    "model_type": "iquest_q1",
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_hidden_layers": 32,
}


def _six(res) -> tuple:
    return tuple(res[f] for f in SIX)


def test_release_is_supported():
    assert V in SGLANG_RELEASES  # (integration: later releases follow it)
    assert _resolve("llama-3.1-8b", "h100", "0.5.21").release == V


def test_nvfp4_rule_runs_before_the_default_backend():
    """The 0.5.21 pipeline calls ``handle_nvfp4_prefill_kv_dequant_dtype`` before
    ``handle_attention_backend_compatibility`` (the default): the plan keeps that order."""
    names = [rule.name for _stage, rules in registry.plan("LlamaForCausalLM", V) for rule in rules]
    # the default-backend rule serving 0.5.21 (the series' newest link: 0.5.17's, after merging)
    default = next(n for n in names if n.startswith("attention_backend_default"))
    assert names.index("nvfp4_prefill_kv_dequant_dtype") < names.index(default)
    assert "nvfp4_prefill_kv_dequant_dtype" not in [
        rule.name for _stage, rules in registry.plan("LlamaForCausalLM", P) for rule in rules
    ]


def test_row_1_nvfp4_sm100_native_prefill():
    """#1 ``kv_cache_hook.handle_nvfp4_prefill_kv_dequant_dtype`` (0.5.21): no backend set on SM100
    → native nvfp4: prefill and decode trtllm_mha (0.5.16: only ``A`` = trtllm_mha, the
    generic SM100 default)."""
    old = _resolve("llama-3.1-8b", "b200", P, kv_cache_dtype="nvfp4")
    new = _resolve("llama-3.1-8b", "b200", V, kv_cache_dtype="nvfp4")
    assert _six(old) == ("trtllm_mha", None, None, 64, "auto", "nvfp4")
    assert _six(new) == ("trtllm_mha", "trtllm_mha", "trtllm_mha", 64, "auto", "nvfp4")


def test_row_1_nvfp4_sm120_fp8_workspace():
    """#1: off SM100 the auto dequant dtype is fp8_e4m3: prefill flashinfer, decode trtllm_mha
    (a mixed pair the KV4 check only warns about); 0.5.16 refused the SM120 default flashinfer
    (``_handle_kv4_compatibility``'s MHA list). trtllm_mha decode → 64-token pages."""
    assert "got flashinfer" in _refusal("llama-3.1-8b", "rtx5090", P, kv_cache_dtype="nvfp4")
    new = _resolve("llama-3.1-8b", "rtx5090", V, kv_cache_dtype="nvfp4")
    assert _six(new) == ("flashinfer", "flashinfer", "trtllm_mha", 64, "auto", "nvfp4")


def test_row_1_nvfp4_explicit_backends():
    """#1: an explicit backend picks the dequant dtype: flashinfer → FP8 workspace (0.5.16:
    refused by the KV4 list), triton → refused (0.5.16: accepted); an explicit prefill backend
    other than the dtype's, or a decode backend other than trtllm_mha, is refused."""
    assert "got flashinfer" in _refusal(
        "llama-3.1-8b", "b200", P, kv_cache_dtype="nvfp4", attention_backend="flashinfer"
    )
    fi = _resolve("llama-3.1-8b", "b200", V, kv_cache_dtype="nvfp4", attention_backend="flashinfer")
    assert _six(fi)[:3] == ("flashinfer", "flashinfer", "trtllm_mha")
    old = _resolve("llama-3.1-8b", "b200", P, kv_cache_dtype="nvfp4", attention_backend="triton")
    assert old["attention_backend"] == "triton"
    assert "but backend 'triton' provides neither" in _refusal(
        "llama-3.1-8b", "b200", V, kv_cache_dtype="nvfp4", attention_backend="triton"
    )
    assert "NVFP4 decode requires --decode-attention-backend=trtllm_mha; got 'triton'" in _refusal(
        "llama-3.1-8b",
        "b200",
        V,
        kv_cache_dtype="nvfp4",
        prefill_attention_backend="trtllm_mha",
        decode_attention_backend="triton",
    )
    assert "Native NVFP4 prefill currently requires SM100" in _refusal(
        "llama-3.1-8b", "rtx5090", V, kv_cache_dtype="nvfp4", attention_backend="trtllm_mha"
    )


def test_row_1_nvfp4_reads_the_model_rules():
    """#1: the hook runs after the model overrides: DeepSeek-V3 on SM100 (``trtllm_mla``) is now
    refused by it (0.5.16: by the TRT-LLM MLA kv list); Gemma 4's SM100 trtllm_mha is kept."""
    assert "fp8_e4m3, fp4_e2m1, bf16, or auto" in _refusal("deepseek-v3", "b200", P, kv_cache_dtype="nvfp4")
    assert "but backend 'trtllm_mla' provides neither" in _refusal(
        "deepseek-v3", "b200", V, kv_cache_dtype="nvfp4"
    )
    gemma = _resolve("gemma-4-31b", "b200", V, kv_cache_dtype="nvfp4")
    assert _six(gemma)[:4] == ("trtllm_mha", "trtllm_mha", "trtllm_mha", 64)


def test_row_2_native_nvfp4_refusals():
    """#2 ``kv_cache_hook.handle_kv4_compatibility`` (0.5.21): SM100 native NVFP4 (trtllm_mha)
    refuses PD disaggregation, host caches and DFLASH; FP4 KV refuses unified memory. 0.5.16
    accepted the PD and hierarchical-cache launches."""
    pd = dict(kv_cache_dtype="nvfp4", disaggregation_mode="prefill")
    assert _resolve("llama-3.1-8b", "b200", P, **pd)["attention_backend"] == "trtllm_mha"
    assert "does not yet support PD disaggregation" in _refusal("llama-3.1-8b", "b200", V, **pd)
    hicache = dict(kv_cache_dtype="nvfp4", enable_hierarchical_cache=True)
    assert _resolve("llama-3.1-8b", "b200", P, **hicache)["kv_cache_dtype"] == "nvfp4"
    assert "hierarchical KV cache or LMCache" in _refusal("llama-3.1-8b", "b200", V, **hicache)
    assert "does not yet support DFLASH" in _refusal(
        "llama-3.1-8b",
        "b200",
        V,
        kv_cache_dtype="nvfp4",
        speculative_algorithm="DFLASH",
        speculative_draft_model_path="org/draft",
    )
    assert "--speculative-ngram-max-bfs-breadth=1" in _refusal(
        "llama-3.1-8b", "b200", V, kv_cache_dtype="nvfp4", speculative_algorithm="NGRAM"
    )


def test_row_2_native_nvfp4_draft_backend():
    """#2: an EAGLE draft worker with SM100 native NVFP4 gets the trtllm_mha draft backend;
    another explicit draft backend is refused (0.5.16: the draft backend stays unset, the draft
    worker follows the target's)."""
    eagle = dict(
        kv_cache_dtype="nvfp4",
        speculative_algorithm="EAGLE",
        speculative_draft_model_path="org/d",
        speculative_eagle_topk=1,
        speculative_num_steps=3,
        speculative_num_draft_tokens=4,
    )
    assert _resolve("llama-3.1-8b", "b200", P, **eagle)["speculative_draft_attention_backend"] is None
    new = _resolve("llama-3.1-8b", "b200", V, **eagle)
    assert _six(new)[:3] == ("trtllm_mha", "trtllm_mha", "trtllm_mha")
    assert new["speculative_draft_attention_backend"] == "trtllm_mha"
    assert "--speculative-draft-attention-backend=trtllm_mha" in _refusal(
        "llama-3.1-8b", "b200", V, speculative_draft_attention_backend="triton", **eagle
    )


def test_row_2_fp4_unified_memory():
    """#2: FP4 KV with ``--enable-unified-memory`` is refused first in 0.5.21 (0.5.16: the
    unified-memory triton check decides)."""
    flags = dict(kv_cache_dtype="fp4_mx_block16", enable_unified_memory=True, attention_backend="triton")
    assert _resolve("llama-3.1-8b", "h100", P, **flags)["kv_cache_dtype"] == "fp4_mx_block16"
    assert "FP4 KV cache does not yet support --enable-unified-memory" in _refusal(
        "llama-3.1-8b", "h100", V, **flags
    )


def test_row_3_fp4_e2m1_removed():
    """#3 ``arg_groups/fields/model.py`` (0.5.21): ``fp4_e2m1`` is no longer a choice (0.5.16:
    accepted by ServerArgs, refused at model load); the TRT-LLM MLA message drops it
    (``overrides._mla_kv_cache_dtype_checks``)."""
    old = _resolve("llama-3.1-8b", "b200", P, kv_cache_dtype="fp4_e2m1", load_time=False)
    assert old["kv_cache_dtype"] == "fp4_e2m1"
    message = _refusal("llama-3.1-8b", "b200", V, exc=InvalidArgumentError, kv_cache_dtype="fp4_e2m1")
    assert "invalid choice: 'fp4_e2m1'" in message and "removed in sglang 0.5.21" in message
    assert "fp8_e4m3, fp4_e2m1, bf16, or auto" in _refusal(
        "deepseek-v3", "b200", P, kv_cache_dtype="fp8_e5m2"
    )
    assert "kv-cache-dtype of fp8_e4m3, bf16, or auto." in _refusal(
        "deepseek-v3", "b200", V, kv_cache_dtype="fp8_e5m2"
    )


def test_row_4_intel_xpu_sampling():
    """#4 ``platform_hook.handle_xpu_backends`` / ``validation_hook.validate_device_sampling_backend``
    (0.5.21): XPU samples with ``intel_xpu`` by default (0.5.16: pytorch); ``intel_xpu`` is a new
    choice, refused off XPU."""
    assert _resolve("llama-3.1-8b", "xpu", P)["sampling_backend"] == "pytorch"
    assert _resolve("llama-3.1-8b", "xpu", V)["sampling_backend"] == "intel_xpu"
    assert "added in sglang 0.5.21" in _refusal(
        "llama-3.1-8b", "xpu", P, exc=InvalidArgumentError, sampling_backend="intel_xpu"
    )
    assert "--sampling-backend intel_xpu requires --device xpu, got --device cuda" in _refusal(
        "llama-3.1-8b", "h100", V, sampling_backend="intel_xpu"
    )
    deterministic = _resolve("llama-3.1-8b", "xpu", V, enable_deterministic_inference=True)
    assert deterministic["sampling_backend"] == "pytorch"  # _deterministic_sampling_backend


def test_row_5_hybrid_gdn_sm100_flashinfer():
    """#5 ``attention_registry.attn_backend_wrapper`` (0.5.21): on SM100 hybrid GDN models accept
    flashinfer on either side (the mixed NVFP4 recipe); 0.5.18–0.5.20 checked prefill and decode
    against {triton, trtllm_mha, fa4} (the pack's 0.5.16 rule reads ``A`` only). torch_native is
    still refused."""
    mixed = dict(prefill_attention_backend="flashinfer", decode_attention_backend="trtllm_mha", startup=True)
    assert _resolve("qwen3-next-80b-a3b", "b200", V, **mixed)["decode_attention_backend"] == "trtllm_mha"
    assert "Got prefill=torch_native, decode=trtllm_mha" in _refusal(
        "qwen3-next-80b-a3b",
        "b200",
        V,
        prefill_attention_backend="torch_native",
        decode_attention_backend="trtllm_mha",
        startup=True,
    )
    assert _resolve("qwen3-next-80b-a3b", "b200", P, **mixed)["attention_backend"] == "triton"


def test_row_6_extra_buffer_needs_mamba_state():
    """#6 ``model_hook.handle_mamba_radix_cache`` (0.5.21): an explicit extra_buffer strategy on a
    model without mamba state is refused (0.5.16: ignored); hybrid models are unaffected."""
    flags = dict(mamba_radix_cache_strategy="extra_buffer")
    assert _resolve("llama-3.1-8b", "h100", P, **flags)["uses_mamba_radix_cache"] is False
    assert "extra_buffer needs mamba state, got LlamaForCausalLM" in _refusal(
        "llama-3.1-8b", "h100", V, **flags
    )
    assert _resolve("llama-3.1-8b", "h100", V, disable_radix_cache=True, **flags)
    assert _resolve("qwen3-next-80b-a3b", "h100", V, **flags)["mamba_radix_cache_strategy"] == "extra_buffer"


def test_row_7_iquest_q1():
    """#7 ``model_overrides/iquest_q1.py`` (0.5.21): FA3 for prefill and decode (0.5.16: an
    unknown model, SM100 default trtllm_mha); other backends, DP attention and PP are refused."""
    assert _resolve(IQUEST, "b200", P)["attention_backend"] == "trtllm_mha"
    assert _six(_resolve(IQUEST, "b200", V))[:4] == ("fa3", None, None, 1)
    split = _resolve(IQUEST, "h100", V, prefill_attention_backend="fa3")
    assert (split["prefill_attention_backend"], split["decode_attention_backend"]) == ("fa3", "fa3")
    assert _resolve(IQUEST, "b200", P, attention_backend="triton")["attention_backend"] == "triton"
    assert "requires FA3 attention for both prefill and decode" in _refusal(
        IQUEST, "b200", V, attention_backend="triton"
    )
    assert "does not support DP attention" in _refusal(
        IQUEST, "h100", V, tp_size=2, dp_size=2, enable_dp_attention=True
    )
    assert "does not support pipeline parallelism" in _refusal(
        IQUEST, "h100", V, pp_size=2, disable_overlap_schedule=True
    )


def test_row_14_lmcache_checks():
    """#14 ``kv_cache_hook.handle_cache_compatibility`` (0.5.21): LMCache excludes the
    hierarchical cache and needs the radix cache, no speculation (0.5.16: accepted)."""
    both = dict(enable_lmcache=True, enable_hierarchical_cache=True)
    assert _resolve("llama-3.1-8b", "h100", P, **both)["enable_lmcache"] is True
    assert "mutually exclusive" in _refusal("llama-3.1-8b", "h100", V, **both)
    assert "requires radix cache" in _refusal(
        "llama-3.1-8b", "h100", V, enable_lmcache=True, disable_radix_cache=True
    )
    assert "does not yet support speculative decoding" in _refusal(
        "llama-3.1-8b", "h100", V, enable_lmcache=True, speculative_algorithm="NGRAM"
    )
    assert _resolve("llama-3.1-8b", "h100", V, enable_lmcache=True)["enable_lmcache"] is True


def test_row_16_megamoe_checks():
    """#16 ``mega_moe_hook.check_mega_moe_compat`` (0.5.21): MegaMoE refuses two-batch overlap
    and GPUs other than SM90/SM100 (0.5.16: accepted)."""
    assert _resolve("qwen3-30b-a3b", "rtx5090", P, moe_a2a_backend="megamoe")
    assert "needs a CUDA SM90 GPU" in _refusal("qwen3-30b-a3b", "rtx5090", V, moe_a2a_backend="megamoe")
    tbo = dict(moe_a2a_backend="megamoe", enable_two_batch_overlap=True)
    assert _resolve("qwen3-30b-a3b", "h100", P, **tbo)
    assert "no two-batch / single-batch overlap" in _refusal("qwen3-30b-a3b", "h100", V, **tbo)


def test_row_18_nemotron_h_cp():
    """#18 ``parallel_hook._boundary_parallelism_overrides`` (0.5.21): Nemotron-H refuses
    ``--attn-cp-size > 1`` (0.5.16: accepted)."""
    flags = dict(tp_size=2, attn_cp_size=2)
    assert _resolve("nemotron-h-8b", "h100", P, **flags)["attn_cp_size"] == 2
    assert "Nemotron-H does not support --attn-cp-size > 1" in _refusal("nemotron-h-8b", "h100", V, **flags)


def test_row_20_glm5_rocm_aiter_allreduce_fusion():
    """#20 ``model_hook.handle_model_specific_adjustments`` HIP arm (0.5.21): GLM-5 on ROCm turns
    AITER all-reduce fusion on (0.5.16: off); not with DP attention."""
    assert _resolve("glm-5", "mi300x", P)["enable_aiter_allreduce_fusion"] is False
    assert _resolve("glm-5", "mi300x", V)["enable_aiter_allreduce_fusion"] is True
    assert _resolve("glm-5", "h200", V)["enable_aiter_allreduce_fusion"] is False
    dp = _resolve("glm-5", "mi300x", V, tp_size=8, dp_size=8, enable_dp_attention=True)
    assert dp["enable_aiter_allreduce_fusion"] is False


def test_grid_differences_0_5_16_to_0_5_21():
    """Step 4: on the grid (``grid.cases()``: no NVFP4 variant), the outcome and the six attention
    fields are the same for 0.5.16 and 0.5.21 as modelled (0 of 10,120 cells on this branch):
    the 0.5.21 changes need NVFP4, LMCache, MegaMoE, CP or new architectures, none of which the
    grid's variants use. Sampling backend (XPU) and AITER fusion are not among the six fields."""
    from resolvable.errors import ResolvableError

    def outcome(hf, platform, flags, version):
        try:
            res = resolve_server_args(hf, platform, sglang_version=version, load_time=False, **flags)
        except ResolvableError as exc:
            return ("refused", str(getattr(exc, "message", exc)))
        return ("ok", _six(res))

    # Integration: against the release before 0.5.21 (0.5.20), not 0.5.16: 0.5.17-0.5.20 are
    # modelled now and change the grid themselves (docs/sglang-releases.md has their figures).
    before = SGLANG_RELEASES[SGLANG_RELEASES.index(V) - 1]
    total = differ = 0
    for _model, _preset, _variant, hf, platform, flags in cases():
        total += 1
        differ += outcome(hf, platform, flags, before) != outcome(hf, platform, flags, V)
    assert total >= 7480
    assert differ == 0


def test_row_12_ngram_devices_chain():
    """#12 ``speculative_hook._handle_ngram``: CUDA only in 0.5.15, CUDA or CPU in 0.5.16-0.5.20
    (the 0.5.16 log, row 26), CUDA, CPU or XPU since 0.5.21 (chained at integration)."""

    def refusal(preset, version):
        try:
            resolve_server_args(
                load_model("llama-3.1-8b"),
                Platform.preset(preset),
                sglang_version=version,
                speculative_algorithm="NGRAM",
            )
        except ConflictError as exc:
            return exc.message
        return None

    assert refusal("cpu", "0.5.15") == "Ngram speculative decoding only supports CUDA device."
    assert refusal("cpu", "0.5.16") is None
    assert refusal("xpu", "0.5.20") == "Ngram speculative decoding only supports CUDA or CPU devices."
    assert refusal("xpu", V) is None
    assert refusal("npu", V) == "Ngram speculative decoding only supports CUDA, CPU, or XPU devices."
    assert refusal("h100", "0.5.15") is None
