"""Decision tables for the generic passes of sglang 0.5.15 (spec §2.2, §4.1-§4.7, §5, §11.1).

Source: ``/work/shared/reference/sglang-attention-spec.md``: §2.2 step 2 (deprecated alias),
step 5/6 (CUDA-graph defaults, device handlers incl. HPU/MPS via ``device=`` and XPU graphs),
step 11 (sampling default), §4.1 default backend (MHA-a..f, MLA-a..f), §4.2 compatibility
C1-C24, §4.3 deterministic D0-D8, §4.4 diffusion LLMs, §4.5 page size, §4.6 FP4 KV cache,
§4.7 downstream validations, §5 split backends, §11.1 mxfp4 registration. Upstream behaviours
(``sglang-upstream-tests.md`` §2.6 #38-#48, §3.1) are cited where reproduced.

Generic passes are exercised with architectures that have no family rule (Llama for MHA,
DeepSeek-V2 for MLA, spec §3.20), so the passes alone decide. Every decision-table row is a
parametrized case with the expected fields or the expected refusal.

Rows that set ``speculative_eagle_topk`` also pass ``speculative_num_steps=3``: sglang 0.5.15
(arg_groups/speculative_hook.py ``_handle_eagle_family``) asserts that topk and draft tokens are
unset when it chooses the speculative parameters itself (num_steps unset); DFLASH rows pass a
``speculative_draft_model_path``, which ``_handle_dflash`` requires.
"""

from __future__ import annotations

from typing import Any

import pytest

# ---------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------
from sglang_tables import (
    ASSERT,
    CPU_ENGINE,
    DET,
    DLLM,
    EAGLE,
    GRAPHS_OFF,
    KV4,
    MLA,
    RUNTIME,
    VALUE,
    E,
    Err,
    Row,
    check,
    decls,
    resolve,
    row,
)

# golden cases of sglang 0.5.15 (spec): pinned (sglang_tables.resolve names the release)

LLAMA, DSV2, DSV3 = "LlamaForCausalLM", "DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM"
LLADA2, SDAR = "LLaDA2MoeModelLM", "SDARForCausalLM"


# ---------------------------------------------------------------------------------------
# §2.2 step 2: deprecated backend alias
# ---------------------------------------------------------------------------------------

ALIAS_ROWS = [
    row("attention-compressed", LLAMA, "h100", E(A="dsv4"), attention_backend="compressed"),
    row(
        "prefill-compressed",
        LLAMA,
        "h100",
        E(P="dsv4"),
        prefill_attention_backend="compressed",
        attention_backend="triton",
    ),
    row(
        "decode-compressed",
        LLAMA,
        "h100",
        E(D="dsv4"),
        decode_attention_backend="compressed",
        attention_backend="triton",
    ),
    row(
        "draft-compressed",
        LLAMA,
        "h100",
        E(speculative_draft_attention_backend="dsv4"),
        speculative_draft_attention_backend="compressed",
    ),
    row("nsa-not-rewritten", LLAMA, "h100", E(A="nsa"), attention_backend="nsa"),
]


class TestDeprecatedAlias:
    """§2.2 step 2: "compressed" -> "dsv4" on A, P, D and the draft backend; "nsa" stays."""

    @pytest.mark.parametrize("r", ALIAS_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)


# ---------------------------------------------------------------------------------------
# §2.2 steps 5-6: CUDA-graph defaults and device handlers
# ---------------------------------------------------------------------------------------

DEVICE_ROWS = [
    # step 5 defaults: decode full; prefill breakable on CUDA, tc_piecewise elsewhere.
    row(
        "cuda-graph-defaults",
        LLAMA,
        "h100",
        E(cuda_graph_backend_decode="full", cuda_graph_backend_prefill="breakable"),
    ),
    row(
        "rocm-graph-defaults",
        LLAMA,
        "mi300x",
        E(cuda_graph_backend_decode="full", cuda_graph_backend_prefill="tc_piecewise"),
    ),
    row("disable-cuda-graph", LLAMA, "h100", E(**GRAPHS_OFF), disable_cuda_graph=True),
    # HPU: A := torch_native unconditionally, sampling pytorch; C1 then disables graphs.
    row(
        "hpu",
        LLAMA,
        "h100",
        E(device="hpu", A="torch_native", sampling_backend="pytorch", p=1, **GRAPHS_OFF),
        device="hpu",
    ),
    row(
        "hpu-overrides-user-backend",
        LLAMA,
        "h100",
        E(A="torch_native"),
        device="hpu",
        attention_backend="fa3",
    ),
    row(
        "hpu-overrides-user-sampling",
        LLAMA,
        "h100",
        E(sampling_backend="pytorch"),
        device="hpu",
        sampling_backend="flashinfer",
    ),
    # CPU: A := intel_amx (x86) / torch_native (arm64) when None; sampling pytorch.
    row(
        "cpu-amx",
        LLAMA,
        "cpu-amx",
        E(device="cpu", A="intel_amx", sampling_backend="pytorch"),
        env=CPU_ENGINE,
    ),
    row(
        "cpu-arm-torch-native-graphs-off", LLAMA, "cpu-arm", E(A="torch_native", **GRAPHS_OFF), env=CPU_ENGINE
    ),
    row(
        "cpu-user-backend-kept",
        LLAMA,
        "cpu",
        E(A="triton", sampling_backend="pytorch"),
        env=CPU_ENGINE,
        attention_backend="triton",
    ),
    row(
        "cpu-user-sampling-overridden",
        LLAMA,
        "cpu-amx",
        E(sampling_backend="pytorch"),
        env=CPU_ENGINE,
        sampling_backend="flashinfer",
    ),
    # --device cpu on a CUDA host: the handler keys off the device string (spec §10 #12).
    row(
        "device-cpu-on-cuda-host",
        LLAMA,
        "h100",
        E(A="torch_native", sampling_backend="pytorch"),
        device="cpu",
    ),
    # NPU: A := P := D := ascend unconditionally; page 128 if None.
    row(
        "npu-overrides-user-backend",
        LLAMA,
        "npu",
        E(A="ascend", P="ascend", D="ascend", p=128),
        attention_backend="fa3",
    ),
    row("npu-user-page-kept", LLAMA, "npu", E(A="ascend", p=64), page_size=64),
    # MPS: overlap scheduler off (without MLX).
    row("device-mps", LLAMA, "h100", E(device="mps", disable_overlap_schedule=True, A="fa3"), device="mps"),
    row(
        "mps-platform",
        LLAMA,
        "mps",
        E(device="mps", A="torch_native", disable_overlap_schedule=True, **GRAPHS_OFF),
    ),
    # XPU [15]: decode graph disabled unless the user locked it to full; prefill disabled unless tc_piecewise.
    row(
        "xpu-default-graphs",
        LLAMA,
        "xpu",
        E(cuda_graph_backend_decode="disabled", cuda_graph_backend_prefill="tc_piecewise"),
    ),
    row(
        "xpu-locked-decode-full",
        LLAMA,
        "xpu",
        E(cuda_graph_backend_decode="full"),
        cuda_graph_backend_decode="full",
    ),
    row(
        "xpu-locked-decode-breakable-disabled",
        LLAMA,
        "xpu",
        E(cuda_graph_backend_decode="disabled"),
        cuda_graph_backend_decode="breakable",
    ),
    row(
        "xpu-prefill-breakable-disabled",
        LLAMA,
        "xpu",
        E(cuda_graph_backend_prefill="disabled"),
        cuda_graph_backend_prefill="breakable",
    ),
    row(
        "xpu-prefill-tc-piecewise-kept",
        LLAMA,
        "xpu",
        E(cuda_graph_backend_prefill="tc_piecewise"),
        cuda_graph_backend_prefill="tc_piecewise",
    ),
    row("xpu-disable-cuda-graph", LLAMA, "xpu", E(**GRAPHS_OFF), disable_cuda_graph=True),
]


class TestDeviceHandlers:
    """§2.2 step 5 (CUDA-graph defaults) and step 6 (hpu, cpu, npu, mps, xpu handlers)."""

    @pytest.mark.parametrize("r", DEVICE_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)

    def test_npu_override_is_forced(self) -> None:
        res = resolve(LLAMA, "npu", attention_backend="fa3")
        assert res.explain("attention_backend").steps[-1].outcome == "forced"


# ---------------------------------------------------------------------------------------
# §2.2 step 11: sampling backend default (upstream #38/#39)
# ---------------------------------------------------------------------------------------

SAMPLING_ROWS = [
    row("cuda-flashinfer", LLAMA, "b200", E(sampling_backend="flashinfer")),
    row("cuda-no-flashinfer", LLAMA, "a100-nofi", E(sampling_backend="pytorch")),
    row(
        "cuda-flashinfer-disabled-by-env",
        LLAMA,
        "h100",
        E(sampling_backend="pytorch"),
        env={"SGLANG_IS_FLASHINFER_AVAILABLE": "false"},
    ),
    row("rocm", LLAMA, "mi300x", E(sampling_backend="pytorch")),
    row("xpu", LLAMA, "xpu", E(sampling_backend="pytorch")),
    row("user-pytorch-kept", LLAMA, "h100", E(sampling_backend="pytorch"), sampling_backend="pytorch"),
    row(
        "user-flashinfer-kept-on-xpu",
        LLAMA,
        "xpu",
        E(sampling_backend="flashinfer"),
        sampling_backend="flashinfer",
    ),
]


class TestSamplingDefault:
    """§2.2 step 11: flashinfer if is_flashinfer_available() else pytorch, only when unset."""

    @pytest.mark.parametrize("r", SAMPLING_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)

    @pytest.mark.parametrize("plat, expected", [("h100", "flashinfer"), ("a100-nofi", "pytorch")])
    def test_declaration(self, plat: str, expected: str) -> None:
        """Upstream #38: the default pass declares exactly the expected value."""
        res = resolve(LLAMA, plat)
        assert [d.fields for d in decls(res, "sampling_backend_default")] == [{"sampling_backend": expected}]

    def test_user_choice_declares_nothing(self) -> None:
        """Upstream #39."""
        res = resolve(LLAMA, "h100", sampling_backend="pytorch")
        assert decls(res, "sampling_backend_default") == []
        assert res.explain("sampling_backend").decided_by == "user"


# ---------------------------------------------------------------------------------------
# §4.1 Default backend when nothing was chosen
# ---------------------------------------------------------------------------------------

DEFAULT_ROWS = [
    # MHA-a: Hopper (CC 9.x, CUDA >= 12.3) and no spec / topk 1 with page 1|None.
    row("MHA-a-h200", LLAMA, "h200", E(A="fa3")),
    row("MHA-a-h20", LLAMA, "h20", E(A="fa3")),
    row(
        "MHA-a-eagle-topk1",
        LLAMA,
        "h100",
        E(A="fa3", p=1),
        speculative_eagle_topk=1,
        speculative_num_steps=3,
        **EAGLE,
    ),
    row(
        "MHA-a-eagle-topk1-page1",
        LLAMA,
        "h100",
        E(A="fa3", p=1),
        speculative_eagle_topk=1,
        speculative_num_steps=3,
        page_size=1,
        **EAGLE,
    ),
    row("MHA-a-not-hopper-cuda122", LLAMA, "h100-cu122", E(A="flashinfer")),
    row("MHA-a-eagle-topk-unset-fa3", LLAMA, "h100", E(A="fa3"), **EAGLE),
    # MHA-b: SM100, topk one, and (no spec or explicit topk).
    row("MHA-b-b300", LLAMA, "b300", E(A="trtllm_mha", p=64)),
    row(
        "MHA-b-eagle-topk2",
        LLAMA,
        "b200",
        E(A="flashinfer", p=1),
        speculative_eagle_topk=2,
        speculative_num_steps=3,
        **EAGLE,
    ),
    row("MHA-b-not-sm100-cuda124", LLAMA, "b200-cu124", E(A="flashinfer", p=1)),
    row("MHA-b-thor-not-sm100", LLAMA, "thor", E(A="flashinfer", p=1)),
    # MHA-c: HIP.
    row("MHA-c-mi355x", LLAMA, "mi355x", E(A="aiter", p=1)),
    # MHA-d: MPS.
    row("MHA-d-mps", LLAMA, "mps", E(A="torch_native")),
    # MHA-e: flashinfer available and no attention sinks.
    row("MHA-e-a100", LLAMA, "a100", E(A="flashinfer")),
    row("MHA-e-l40s", LLAMA, "l40s", E(A="flashinfer")),
    row("MHA-e-rtxpro6000", LLAMA, "rtxpro6000", E(A="flashinfer")),
    row(
        "MHA-e-env-true-uppercase",
        LLAMA,
        "a100",
        E(A="flashinfer"),
        env={"SGLANG_IS_FLASHINFER_AVAILABLE": "TRUE"},
    ),
    row("MHA-e-env-1", LLAMA, "a100", E(A="flashinfer"), env={"SGLANG_IS_FLASHINFER_AVAILABLE": "1"}),
    # MHA-f: otherwise triton.
    row("MHA-f-env-false", LLAMA, "a100", E(A="triton"), env={"SGLANG_IS_FLASHINFER_AVAILABLE": "false"}),
    row("MHA-f-env-0", LLAMA, "a100", E(A="triton"), env={"SGLANG_IS_FLASHINFER_AVAILABLE": "0"}),
    row(
        "MHA-f-env-other-value", LLAMA, "a100", E(A="triton"), env={"SGLANG_IS_FLASHINFER_AVAILABLE": "maybe"}
    ),
    row(
        "MHA-f-sinks",
        "MiMoV2FlashForCausalLM",
        "l40s",
        E(A="triton"),
        hf={"add_swa_attention_sink_bias": True},
    ),
    row("MHA-f-xpu", LLAMA, "xpu", E(A="triton")),
    row("MHA-f-musa", LLAMA, "musa", E(A="triton", p=64)),
    # MLA-a: Hopper with CUDA >= 12.3.
    row("MLA-a-h200", DSV2, "h200", E(A="fa3"), hf=MLA),
    row(
        "MLA-a-eagle-topk4-still-fa3",
        DSV2,
        "h100",
        E(A="fa3"),
        hf=MLA,
        speculative_eagle_topk=4,
        speculative_num_steps=3,
        **EAGLE,
    ),
    row("MLA-a-not-hopper-cuda122", DSV2, "h100-cu122", E(A="triton"), hf=MLA),
    # MLA-b: SM100.
    row("MLA-b-b300", DSV2, "b300", E(A="flashinfer", p=1), hf=MLA),
    # MLA-c/d: HIP, KV heads per rank in {16, 128} -> aiter else triton.
    row("MLA-c-128-heads-tp1", DSV2, "mi300x", E(A="aiter"), hf=MLA),
    row("MLA-c-16-heads", DSV2, "mi300x", E(A="aiter"), hf={**MLA, "num_key_value_heads": 16}),
    row(
        "MLA-c-num-attention-heads-fallback",
        DSV2,
        "mi300x",
        E(A="aiter"),
        hf={**MLA, "num_attention_heads": 16},
        drop=("num_key_value_heads",),
    ),
    row(
        "MLA-c-num-kv-heads-precedes",
        DSV2,
        "mi300x",
        E(A="aiter"),
        hf={**MLA, "num_kv_heads": 16, "num_key_value_heads": 2},
    ),
    row("MLA-d-32-heads", DSV2, "mi355x", E(A="triton"), hf={**MLA, "num_key_value_heads": 32}),
    row(
        "MLA-d-tp-beyond-heads-min-1",
        DSV2,
        "mi300x",
        E(A="triton"),
        hf={**MLA, "num_key_value_heads": 16},
        tp_size=32,
    ),
    # MLA-e: MPS.
    row("MLA-e-mps", DSV2, "mps", E(A="torch_native"), hf=MLA),
    # MLA-f: otherwise triton.
    row("MLA-f-a100", DSV2, "a100", E(A="triton"), hf=MLA),
    row("MLA-f-sm120", DSV2, "rtx5090", E(A="triton"), hf=MLA),
    row("MLA-f-xpu", DSV2, "xpu", E(A="triton"), hf=MLA),
    row("MLA-f-b200-cuda124", DSV2, "b200-cu124", E(A="triton"), hf=MLA),
]

WRAPPER_ROWS = [
    # P set and P == D -> A := P, even over a user A (upstream #47: the pair wins over the default).
    row(
        "split-pair-wins-over-default",
        LLAMA,
        "b200",
        E(A="fa3", P="fa3", D="fa3", p=1),
        prefill_attention_backend="fa3",
        decode_attention_backend="fa3",
    ),
    row(
        "split-pair-wins-over-user-backend",
        LLAMA,
        "b200",
        E(A="triton"),
        attention_backend="fa3",
        prefill_attention_backend="triton",
        decode_attention_backend="triton",
    ),
    row(
        "split-different-default-fills-A",
        LLAMA,
        "h100",
        E(A="fa3", P="triton", D="flashinfer"),
        prefill_attention_backend="triton",
        decode_attention_backend="flashinfer",
    ),
    row(
        "decode-only-default-fills-A",
        LLAMA,
        "a100",
        E(A="flashinfer", D="triton"),
        decode_attention_backend="triton",
    ),
    row("user-backend-kept", LLAMA, "b200", E(A="fa3", p=1), attention_backend="fa3"),
]


class TestDefaultBackend:
    """§4.1: wrapper (P == D wins, else fill A) and default() rows MHA-a..f, MLA-a..f."""

    @pytest.mark.parametrize("r", DEFAULT_ROWS)
    def test_default_table(self, r: Row) -> None:
        check(r)

    @pytest.mark.parametrize("r", WRAPPER_ROWS)
    def test_wrapper(self, r: Row) -> None:
        check(r)

    def test_default_fill_provenance(self) -> None:
        """Upstream #44: the default fill declares A."""
        res = resolve(LLAMA, "h100")
        assert res.explain("attention_backend").decided_by == "attention_backend_default"

    def test_split_pair_override_is_forced(self) -> None:
        res = resolve(
            LLAMA,
            "h100",
            attention_backend="fa3",
            prefill_attention_backend="triton",
            decode_attention_backend="triton",
        )
        step = res.explain("attention_backend").steps[-1]
        assert (step.rule, step.outcome) == ("attention_backend_default", "forced")

    def test_user_backend_is_not_redeclared(self) -> None:
        """Upstream #46: an explicit triton stays triton, decided by the user."""
        res = resolve(LLAMA, "h100", attention_backend="triton")
        assert res["attention_backend"] == "triton"
        assert res.explain("attention_backend").decided_by == "user"


# ---------------------------------------------------------------------------------------
# §4.2 Compatibility fallbacks and constraints (C1-C24)
# ---------------------------------------------------------------------------------------

COMPAT_ROWS = [
    # C1 torch_native: both CUDA graphs disabled (also over a user-locked phase).
    row(
        "C1-torch-native",
        LLAMA,
        "h100",
        E(A="torch_native", p=1, **GRAPHS_OFF),
        attention_backend="torch_native",
    ),
    row(
        "C1-overrides-locked-decode",
        LLAMA,
        "h100",
        E(cuda_graph_backend_decode="disabled"),
        attention_backend="torch_native",
        cuda_graph_backend_decode="full",
    ),
    # C2 flex_attention: graphs disabled; speculative decoding refused.
    row("C2-flex", LLAMA, "h100", E(A="flex_attention", **GRAPHS_OFF), attention_backend="flex_attention"),
    row(
        "C2-flex-speculative-refused",
        LLAMA,
        "h100",
        Err(ASSERT, r"Speculative decoding is currently not supported with Flex Attention backend"),
        attention_backend="flex_attention",
        **EAGLE,
    ),
    # C3 Whisper (encoder-decoder): radix cache off.
    row(
        "C3-whisper",
        "WhisperForConditionalGeneration",
        "h100",
        E(disable_radix_cache=True),
        hf={"is_encoder_decoder": True},
    ),
    row("C3-not-whisper", LLAMA, "h100", E(disable_radix_cache=False)),
    # C4 flashmla: page 64 unconditional.
    row("C4-flashmla", DSV2, "b200", E(A="flashmla", p=64), hf=MLA, attention_backend="flashmla"),
    row(
        "C4-decode-flashmla",
        DSV2,
        "b200",
        E(A="flashinfer", D="flashmla", p=64),
        hf=MLA,
        decode_attention_backend="flashmla",
    ),
    row(
        "C4-user-page-32-overridden",
        DSV2,
        "h100",
        E(p=64),
        hf=MLA,
        attention_backend="flashmla",
        page_size=32,
    ),
    # C5 cutlass_mla: page 128 unconditional.
    row("C5-cutlass", DSV2, "b200", E(A="cutlass_mla", p=128), hf=MLA, attention_backend="cutlass_mla"),
    row(
        "C5-decode-cutlass",
        DSV2,
        "b200",
        E(D="cutlass_mla", p=128),
        hf=MLA,
        decode_attention_backend="cutlass_mla",
    ),
    row(
        "C5-user-page-64-overridden",
        DSV2,
        "b200",
        E(p=128),
        hf=MLA,
        attention_backend="cutlass_mla",
        page_size=64,
    ),
    # C6 trtllm_mla (A or D): page not in {32, 64} -> 64.
    row("C6-none", DSV2, "b200", E(A="trtllm_mla", p=64), hf=MLA, attention_backend="trtllm_mla"),
    row("C6-32-kept", DSV2, "b200", E(p=32), hf=MLA, attention_backend="trtllm_mla", page_size=32),
    row("C6-64-kept", DSV2, "b200", E(p=64), hf=MLA, attention_backend="trtllm_mla", page_size=64),
    row("C6-16-snapped", DSV2, "b200", E(p=64), hf=MLA, attention_backend="trtllm_mla", page_size=16),
    row("C6-128-snapped", DSV2, "b200", E(p=64), hf=MLA, attention_backend="trtllm_mla", page_size=128),
    row(
        "C6-decode",
        DSV2,
        "b200",
        E(A="flashinfer", D="trtllm_mla", p=64),
        hf=MLA,
        decode_attention_backend="trtllm_mla",
    ),
    row(
        "C6-prefill-only-not-snapped",
        DSV2,
        "b200",
        E(P="trtllm_mla", p=1),
        hf=MLA,
        prefill_attention_backend="trtllm_mla",
    ),
    # C7 tokenspeed_mla (A or D): page not in {32, 64} -> 64.
    row(
        "C7-none",
        DSV2,
        "b200",
        E(A="tokenspeed_mla", p=64),
        hf=MLA,
        attention_backend="tokenspeed_mla",
        kv_cache_dtype="fp8_e4m3",
    ),
    row(
        "C7-32-kept",
        DSV2,
        "b200",
        E(p=32),
        hf=MLA,
        attention_backend="tokenspeed_mla",
        kv_cache_dtype="fp8_e4m3",
        page_size=32,
    ),
    row(
        "C7-decode",
        DSV2,
        "b200",
        E(D="tokenspeed_mla", p=64),
        hf=MLA,
        decode_attention_backend="tokenspeed_mla",
        kv_cache_dtype="fp8_e4m3",
    ),
    # C8 cutedsl_mla (A, D or P): page not in {32, 64} -> 64.
    row(
        "C8-decode-32-kept",
        DSV2,
        "b200",
        E(D="cutedsl_mla", P="trtllm_mla", p=32),
        hf=MLA,
        decode_attention_backend="cutedsl_mla",
        page_size=32,
    ),
    row(
        "C8-attention-backend",
        DSV2,
        "b200",
        E(A="cutedsl_mla", P="trtllm_mla", p=64),
        hf=MLA,
        attention_backend="cutedsl_mla",
    ),
    # C9 trtllm_mha (A, D or P): page not in {16, 32, 64} -> 64 (128 snaps in 0.5.15).
    row("C9-16-kept", LLAMA, "b200", E(A="trtllm_mha", p=16), page_size=16),
    row("C9-32-kept", LLAMA, "b200", E(p=32), page_size=32),
    row("C9-1-snapped", LLAMA, "b200", E(p=64), page_size=1),
    row("C9-128-snapped", LLAMA, "b200", E(p=64), attention_backend="trtllm_mha", page_size=128),
    row("C9-256-snapped", LLAMA, "b200", E(p=64), page_size=256),
    row(
        "C9-decode-on-hopper",
        LLAMA,
        "h100",
        E(A="fa3", D="trtllm_mha", p=64),
        attention_backend="fa3",
        decode_attention_backend="trtllm_mha",
    ),
    # Snaps chain on the running page value.
    row(
        "C5-then-C9-chain",
        DSV2,
        "b200",
        E(p=64),
        hf=MLA,
        attention_backend="cutlass_mla",
        prefill_attention_backend="trtllm_mha",
    ),
    row(
        "C4-then-C9-chain",
        DSV2,
        "b200",
        E(p=64),
        hf=MLA,
        decode_attention_backend="flashmla",
        prefill_attention_backend="trtllm_mha",
    ),
    row("no-constraint-page-1", DSV2, "b200", E(p=1), hf=MLA, attention_backend="triton"),
    # C10 trtllm_mla: Blackwell (SM100/SM12x) and kv in {fp8_e4m3, fp4_e2m1, bf16, auto}.
    row(
        "C10-hopper-refused",
        DSV2,
        "h100",
        Err(VALUE, r"TRTLLM MLA backend is only supported on Blackwell GPUs"),
        hf=MLA,
        attention_backend="trtllm_mla",
    ),
    row(
        "C10-decode-hopper-refused",
        DSV2,
        "h100",
        Err(VALUE, r"TRTLLM MLA backend is only supported on Blackwell GPUs"),
        hf=MLA,
        decode_attention_backend="trtllm_mla",
    ),
    row("C10-sm120-ok", DSV2, "rtx5090", E(A="trtllm_mla", p=64), hf=MLA, attention_backend="trtllm_mla"),
    row("C10-thor-ok", DSV2, "thor", E(A="trtllm_mla", p=64), hf=MLA, attention_backend="trtllm_mla"),
    row(
        "C10-kv-bf16-ok",
        DSV2,
        "b200",
        E(kv_cache_dtype="bf16"),
        hf=MLA,
        attention_backend="trtllm_mla",
        kv_cache_dtype="bf16",
    ),
    row(
        "C10-kv-fp8-ok",
        DSV2,
        "b200",
        E(kv_cache_dtype="fp8_e4m3"),
        hf=MLA,
        attention_backend="trtllm_mla",
        kv_cache_dtype="fp8_e4m3",
    ),
    row(
        "C10-kv-fp4-ok",
        DSV2,
        "b200",
        E(kv_cache_dtype="fp4_e2m1"),
        hf=MLA,
        attention_backend="trtllm_mla",
        kv_cache_dtype="fp4_e2m1",
    ),
    row(
        "C10-kv-e5m2-refused",
        DSV2,
        "b200",
        Err(
            VALUE,
            r"TensorRT-LLM MLA backend only supports kv-cache-dtype of fp8_e4m3, fp4_e2m1, bf16, or auto\.",
        ),
        hf=MLA,
        attention_backend="trtllm_mla",
        kv_cache_dtype="fp8_e5m2",
    ),
    # C11 tokenspeed_mla: Blackwell and kv fp8_e4m3.
    row(
        "C11-hopper-refused",
        DSV2,
        "h100",
        Err(VALUE, r"tokenspeed_mla backend is only supported on Blackwell GPUs \(SM100/SM12x\)\."),
        hf=MLA,
        attention_backend="tokenspeed_mla",
        kv_cache_dtype="fp8_e4m3",
    ),
    row(
        "C11-kv-auto-refused",
        DSV2,
        "b200",
        Err(VALUE, r"tokenspeed_mla backend requires kv-cache-dtype=fp8_e4m3, got auto\."),
        hf=MLA,
        attention_backend="tokenspeed_mla",
    ),
    row(
        "C11-sm120-fp8-ok",
        DSV2,
        "rtx5090",
        E(A="tokenspeed_mla", p=64),
        hf=MLA,
        attention_backend="tokenspeed_mla",
        kv_cache_dtype="fp8_e4m3",
    ),
    # C12 cutedsl_mla: decode only, SM100 only, kv dtype; P None -> trtllm_mla.
    row(
        "C12-prefill-refused",
        DSV2,
        "b200",
        Err(ASSERT, r"CuteDSL MLA only supports decoding for now"),
        hf=MLA,
        prefill_attention_backend="cutedsl_mla",
    ),
    row(
        "C12-sm120-refused",
        DSV2,
        "rtx5090",
        Err(VALUE, r"CuteDSL MLA backend is only supported on Blackwell GPUs \(SM100\)\."),
        hf=MLA,
        decode_attention_backend="cutedsl_mla",
    ),
    row(
        "C12-kv-e5m2-refused",
        DSV2,
        "b200",
        Err(VALUE, r"(?i)cutedsl"),
        hf=MLA,
        decode_attention_backend="cutedsl_mla",
        kv_cache_dtype="fp8_e5m2",
    ),
    row(
        "C12-kv-bfloat16-ok",
        DSV2,
        "b200",
        E(D="cutedsl_mla"),
        hf=MLA,
        decode_attention_backend="cutedsl_mla",
        kv_cache_dtype="bfloat16",
    ),
    row(
        "C12-user-prefill-kept",
        DSV2,
        "b200",
        E(P="flashinfer", D="cutedsl_mla"),
        hf=MLA,
        prefill_attention_backend="flashinfer",
        decode_attention_backend="cutedsl_mla",
    ),
    # C13 effective prefill trtllm_mha needs SM100.
    row(
        "C13-prefill-hopper-refused",
        LLAMA,
        "h100",
        Err(VALUE, r"TRTLLM MHA backend for prefill is only supported on Blackwell GPUs \(SM100\)"),
        attention_backend="fa3",
        prefill_attention_backend="trtllm_mha",
    ),
    row(
        "C13-sm120-refused",
        LLAMA,
        "rtx5090",
        Err(VALUE, r"TRTLLM MHA backend for prefill is only supported on Blackwell GPUs \(SM100\)"),
        attention_backend="trtllm_mha",
    ),
    # C14 effective decode trtllm_mha needs SM90, SM100 or SM120.
    row(
        "C14-decode-ampere-refused",
        LLAMA,
        "a100",
        Err(
            VALUE,
            r"TRTLLM MHA backend for decode is only supported on Hopper \(SM90\), Blackwell \(SM100\) and",
        ),
        decode_attention_backend="trtllm_mha",
    ),
    row(
        "C14-decode-sm120-ok",
        LLAMA,
        "rtx5090",
        E(A="flashinfer", D="trtllm_mha", p=64),
        decode_attention_backend="trtllm_mha",
    ),
    # C15 fa3 + fp8_e5m2 -> triton (A only).
    row("C15-user-fa3", LLAMA, "h100", E(A="triton"), attention_backend="fa3", kv_cache_dtype="fp8_e5m2"),
    row("C15-e4m3-kept", LLAMA, "h100", E(A="fa3"), kv_cache_dtype="fp8_e4m3"),
    row(
        "C15-prefill-fa3-not-inspected",
        LLAMA,
        "a100",
        E(A="flashinfer", P="fa3"),
        prefill_attention_backend="fa3",
        kv_cache_dtype="fp8_e5m2",
    ),
    # C16 [15]: fa4 in A, D or P, not MLA, SM100, topk <= 1 -> page 128.
    row("C16-decode-fa4", LLAMA, "b200", E(A="trtllm_mha", D="fa4", p=128), decode_attention_backend="fa4"),
    row("C16-b300", LLAMA, "b300", E(A="fa4", p=128), attention_backend="fa4"),
    row("C16-user-page-overridden", LLAMA, "b200", E(p=128), attention_backend="fa4", page_size=64),
    row(
        "C16-eagle-topk1",
        LLAMA,
        "b200",
        E(p=128),
        attention_backend="fa4",
        speculative_eagle_topk=1,
        speculative_num_steps=3,
        **EAGLE,
    ),
    row(
        "C16-eagle-topk2-skipped",
        LLAMA,
        "b200",
        E(p=1),
        attention_backend="fa4",
        speculative_eagle_topk=2,
        speculative_num_steps=3,
        **EAGLE,
    ),
    row("C16-mla-skipped", DSV2, "b200", E(A="fa4", p=1), hf=MLA, attention_backend="fa4"),
    row("C16-hopper-skipped", LLAMA, "h100", E(A="fa4", p=1), attention_backend="fa4"),
    row("C16-sm120-skipped", LLAMA, "rtx5090", E(A="fa4", p=1), attention_backend="fa4"),
    # C18 intel_amx on device cpu without AMX -> torch_native (graphs kept: C1 already ran).
    row("C18-amx-kept", LLAMA, "cpu-amx", E(A="intel_amx"), env=CPU_ENGINE, attention_backend="intel_amx"),
    row(
        "C18-no-amx-graphs-kept",
        LLAMA,
        "cpu",
        E(A="torch_native", cuda_graph_backend_decode="full"),
        env=CPU_ENGINE,
        attention_backend="intel_amx",
    ),
    row("C18-device-cuda-not-applied", LLAMA, "h100", E(A="intel_amx"), attention_backend="intel_amx"),
    # C19 intel_xpu on device xpu without XMX -> triton (A only).
    row("C19-xpu-noxmx", LLAMA, "xpu-noxmx", E(A="triton", p=1), attention_backend="intel_xpu"),
    row(
        "C19-decode-only-not-inspected",
        LLAMA,
        "xpu-noxmx",
        E(A="triton", D="intel_xpu", p=128),
        decode_attention_backend="intel_xpu",
    ),
    row("C19-device-cuda-not-applied", LLAMA, "h100", E(A="intel_xpu", p=128), attention_backend="intel_xpu"),
    # C20 MLA and effective prefill intel_xpu -> ValueError.
    row(
        "C20-mla-intel-xpu-refused",
        DSV2,
        "xpu",
        Err(VALUE, r"intel_xpu backend is only supported on decode for MLA models"),
        hf=MLA,
        attention_backend="intel_xpu",
    ),
    row(
        "C20-mla-prefill-intel-xpu-refused",
        DSV2,
        "xpu",
        Err(VALUE, r"intel_xpu backend is only supported on decode for MLA models"),
        hf=MLA,
        prefill_attention_backend="intel_xpu",
    ),
    row(
        "C20-mla-decode-intel-xpu-ok",
        DSV2,
        "xpu",
        E(A="triton", D="intel_xpu", p=128),
        hf=MLA,
        decode_attention_backend="intel_xpu",
    ),
    # C21 effective decode intel_xpu: MLA {16,32,64,128}, MHA {64,128}, else 128.
    row("C21-mla-16-kept", DSV2, "xpu", E(p=16), hf=MLA, decode_attention_backend="intel_xpu", page_size=16),
    row(
        "C21-mla-256-snapped",
        DSV2,
        "xpu",
        E(p=128),
        hf=MLA,
        decode_attention_backend="intel_xpu",
        page_size=256,
    ),
    row("C21-mha-16-snapped", LLAMA, "xpu", E(p=128), decode_attention_backend="intel_xpu", page_size=16),
    row("C21-mha-32-snapped", LLAMA, "xpu", E(p=128), attention_backend="intel_xpu", page_size=32),
    row("C21-mha-64-kept", LLAMA, "xpu", E(p=64), attention_backend="intel_xpu", page_size=64),
    # C22 dual chunk attention config: A must be dual_chunk_flash_attn (A is always filled by §4.1).
    row(
        "C22-b200-default-refused",
        "Qwen2ForCausalLM",
        "b200",
        Err(
            VALUE,
            r"Dual chunk attention is enabled, but attention backend is set to trtllm_mha\. "
            r"Please set it to 'dual_chunk_flash_attn'\.",
        ),
        hf={"dual_chunk_attention_config": {"chunk_size": 8192}},
    ),
    row(
        "C22-user-fa3-refused",
        "Qwen2ForCausalLM",
        "a100",
        Err(VALUE, r"Dual chunk attention is enabled, but attention backend is set to fa3"),
        hf={"dual_chunk_attention_config": {"chunk_size": 8192}},
        attention_backend="fa3",
    ),
    row("C22-no-config-nothing", "Qwen2ForCausalLM", "h100", E(A="fa3", disable_radix_cache=False)),
    # C23 A == dual_chunk_flash_attn: mixed chunk off, radix off.
    row(
        "C23-without-config",
        LLAMA,
        "h100",
        E(enable_mixed_chunk=False, disable_radix_cache=True),
        attention_backend="dual_chunk_flash_attn",
    ),
    row(
        "C23-overrides-user-mixed-chunk",
        LLAMA,
        "h100",
        E(enable_mixed_chunk=False, disable_radix_cache=True),
        attention_backend="dual_chunk_flash_attn",
        enable_mixed_chunk=True,
    ),
    # C24 [15] step 14: DeepseekV3 in architectures and effective prefill trtllm_mla.
    row(
        "C24-user-locked-prefill-graph",
        DSV3,
        "b200",
        E(A="trtllm_mla", cuda_graph_backend_prefill="breakable"),
        hf=MLA,
        cuda_graph_backend_prefill="breakable",
    ),
    row(
        "C24-prefill-split",
        DSV3,
        "b200",
        E(A="flashinfer", P="trtllm_mla", p=1, cuda_graph_backend_prefill="disabled"),
        hf=MLA,
        prefill_attention_backend="trtllm_mla",
    ),
    row(
        "C24-decode-split-not-prefill",
        DSV3,
        "b200",
        E(A="flashinfer", D="trtllm_mla", p=64, cuda_graph_backend_prefill="breakable"),
        hf=MLA,
        decode_attention_backend="trtllm_mla",
    ),
    row(
        "C24-any-position",
        (DSV2, DSV3),
        "b200",
        E(A="trtllm_mla", cuda_graph_backend_prefill="disabled"),
        hf=MLA,
        attention_backend="trtllm_mla",
    ),
    row(
        "C24-not-deepseek-v3",
        DSV2,
        "b200",
        E(A="trtllm_mla", cuda_graph_backend_prefill="breakable"),
        hf=MLA,
        attention_backend="trtllm_mla",
    ),
]

#: C17: A == aiter and model context_len > 8192 -> mem_fraction_static *= 0.85.
C17_ROWS = [
    row(
        "C17-aiter-long-context",
        LLAMA,
        "mi300x",
        E(A="aiter", mem_fraction_static=pytest.approx(0.68)),
        hf={"max_position_embeddings": 16384},
        mem_fraction_static=0.8,
    ),
    row(
        "C17-aiter-short-context",
        LLAMA,
        "mi300x",
        E(A="aiter", mem_fraction_static=pytest.approx(0.8)),
        hf={"max_position_embeddings": 8192},
        mem_fraction_static=0.8,
    ),
    row(
        "C17-triton-long-context",
        LLAMA,
        "mi300x",
        E(A="triton", mem_fraction_static=pytest.approx(0.8)),
        hf={"max_position_embeddings": 16384},
        mem_fraction_static=0.8,
        attention_backend="triton",
    ),
]


class TestCompatibility:
    """§4.2 compatibility fallbacks and page constraints, C1-C24."""

    @pytest.mark.parametrize("r", COMPAT_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)

    @pytest.mark.parametrize("r", C17_ROWS)
    def test_c17_aiter_memory_fraction(self, r: Row) -> None:
        check(r)

    @pytest.mark.parametrize(
        "args",
        [
            {"attention_backend": "flashmla", "page_size": 32},
            {"attention_backend": "cutlass_mla", "page_size": 64},
            {"attention_backend": "trtllm_mla", "page_size": 16},
        ],
        ids=["C4", "C5", "C6"],
    )
    def test_page_snap_is_forced(self, args: dict[str, Any]) -> None:
        res = resolve(DSV2, "b200", hf=MLA, **args)
        assert res["page_size"] != args["page_size"]
        assert res.explain("page_size").steps[-1].outcome == "forced"

    def test_fa3_fp8_fallback_is_forced(self) -> None:
        """Upstream #47: fa3 + fp8_e5m2 -> triton (over an explicit fa3)."""
        res = resolve(LLAMA, "h100", attention_backend="fa3", kv_cache_dtype="fp8_e5m2")
        assert res["attention_backend"] == "triton"
        assert res.explain("attention_backend").steps[-1].outcome == "forced"

    def test_user_page_kept_without_constraint(self) -> None:
        res = resolve(LLAMA, "h100", page_size=16)
        assert res["page_size"] == 16
        assert res.explain("page_size").decided_by == "user"


# ---------------------------------------------------------------------------------------
# §4.3 Deterministic inference
# ---------------------------------------------------------------------------------------

D5_MSG = (
    r"Currently only \['flashinfer', 'fa3', 'triton', 'ascend'\] attention backends are supported for "
    r"deterministic inference, but you explicitly specified '{}'\."
)
D6_MSG = (
    r"Currently only \['fa3', 'triton', 'ascend'\] attention backends are supported for deterministic "
    r"inference with DeepSeek models\. But you're using {}\."
)

DETERMINISTIC_ROWS = [
    # D0 rl_on_policy_target implies deterministic inference.
    row(
        "D0-rl-on-policy",
        LLAMA,
        "h100",
        E(enable_deterministic_inference=True, sampling_backend="pytorch", A="fa3"),
        rl_on_policy_target="fsdp",
    ),
    # D1 not enabled: nothing.
    row(
        "D1-off",
        LLAMA,
        "h100",
        E(sampling_backend="flashinfer", enforce_disable_flashinfer_allreduce_fusion=False),
    ),
    # D2 (and step 9): fusion off, sampling pytorch unless ascend.
    row(
        "D2-fusion-off",
        LLAMA,
        "h100",
        E(
            enable_aiter_allreduce_fusion=False,
            flashinfer_allreduce_fusion_backend=None,
            enforce_disable_flashinfer_allreduce_fusion=True,
        ),
        enable_aiter_allreduce_fusion=True,
        flashinfer_allreduce_fusion_backend="trtllm",
        **DET,
    ),
    row(
        "D2-sampling-ascend-kept",
        LLAMA,
        "h100",
        E(sampling_backend="ascend"),
        sampling_backend="ascend",
        **DET,
    ),
    row(
        "D2-user-flashinfer-sampling-overridden",
        LLAMA,
        "h100",
        E(sampling_backend="pytorch"),
        sampling_backend="flashinfer",
        **DET,
    ),
    # D3 A None and SM100/SM120: triton for DeepSeek models, else flashinfer.
    row("D3-sm120", LLAMA, "rtx5090", E(A="flashinfer", disable_radix_cache=True), **DET),
    row("D3-sm120-deepseek-v3", DSV3, "rtx5090", E(A="triton", disable_radix_cache=False), hf=MLA, **DET),
    row("D3-b200-deepseek-v2", DSV2, "b200", E(A="triton", p=1, disable_radix_cache=False), hf=MLA, **DET),
    row("D3-sm120-mistral-large3", "MistralLarge3ForCausalLM", "rtx5090", E(A="triton"), **DET),
    row(
        "D3-kimi-k25-not-deepseek",
        "KimiK25ForConditionalGeneration",
        "rtx5090",
        E(A="flashinfer", disable_radix_cache=True),
        hf=MLA,
        **DET,
    ),
    # D4 A None otherwise: fa3 on every other platform.
    row("D4-a100", LLAMA, "a100", E(A="fa3", disable_radix_cache=False), **DET),
    row("D4-xpu", LLAMA, "xpu", E(A="fa3"), **DET),
    row("D4-b200-cuda124", LLAMA, "b200-cu124", E(A="fa3"), **DET),
    # D5 A set and not deterministic-compatible (also when a model rule chose it).
    row(
        "D5-user-flashmla",
        LLAMA,
        "h100",
        Err(VALUE, D5_MSG.format("flashmla")),
        attention_backend="flashmla",
        **DET,
    ),
    row("D5-gemma4-trtllm", "Gemma4ForCausalLM", "b200", Err(VALUE, D5_MSG.format("trtllm_mha")), **DET),
    row(
        "D5-llama4-aiter",
        "Llama4ForConditionalGeneration",
        "mi300x",
        Err(VALUE, D5_MSG.format("aiter")),
        **DET,
    ),
    row(
        "D5-dsa",
        "DeepseekV32ForCausalLM",
        "h100",
        Err(VALUE, D5_MSG.format("dsa")),
        hf={**MLA, "index_topk": 2048},
        **DET,
    ),
    row(
        "D5-user-ascend-accepted",
        LLAMA,
        "h100",
        E(A="ascend", disable_radix_cache=False),
        attention_backend="ascend",
        **DET,
    ),
    # D6 DeepSeek model and A not in {fa3, triton} (the message lists ascend but the check rejects it).
    row(
        "D6-deepseek-flashinfer",
        DSV2,
        "h100",
        Err(VALUE, D6_MSG.format("flashinfer")),
        hf=MLA,
        attention_backend="flashinfer",
        **DET,
    ),
    row(
        "D6-deepseek-ascend",
        DSV2,
        "h100",
        Err(VALUE, D6_MSG.format("ascend")),
        hf=MLA,
        attention_backend="ascend",
        **DET,
    ),
    row(
        "D6-deepseek-triton-ok",
        DSV2,
        "h100",
        E(A="triton", disable_radix_cache=False),
        hf=MLA,
        attention_backend="triton",
        **DET,
    ),
    row(
        "D6-kimi-flashinfer-ok",
        "KimiK25ForConditionalGeneration",
        "h100",
        E(A="flashinfer", disable_radix_cache=True),
        hf=MLA,
        attention_backend="flashinfer",
        **DET,
    ),
    # D7 A not in {fa3, triton, ascend} -> radix cache off.
    row(
        "D7-user-flashinfer",
        LLAMA,
        "h100",
        E(A="flashinfer", disable_radix_cache=True),
        attention_backend="flashinfer",
        **DET,
    ),
    row(
        "D7-user-triton",
        LLAMA,
        "b200",
        E(A="triton", disable_radix_cache=False),
        attention_backend="triton",
        **DET,
    ),
    # D8 tp > 1: custom all-reduce off except on HIP.
    row("D8-tp2-cuda", LLAMA, "h100", E(disable_custom_all_reduce=True), tp_size=2, **DET),
    row("D8-tp2-hip", LLAMA, "mi300x", E(disable_custom_all_reduce=False), tp_size=2, **DET),
    row("D8-tp1", LLAMA, "h100", E(disable_custom_all_reduce=False), **DET),
    # Quirk (§4.3): the §4.1 P == D override runs afterwards, without re-validation.
    row(
        "split-pair-replaces-deterministic-A",
        LLAMA,
        "h100",
        E(A="flashinfer", disable_radix_cache=False),
        prefill_attention_backend="flashinfer",
        decode_attention_backend="flashinfer",
        **DET,
    ),
    row(
        "split-pair-not-revalidated",
        LLAMA,
        "h100",
        E(A="flashmla", p=64),
        prefill_attention_backend="flashmla",
        decode_attention_backend="flashmla",
        **DET,
    ),
    row(
        "split-unequal-bypasses-check",
        LLAMA,
        "h100",
        E(A="fa3", P="flashmla"),
        prefill_attention_backend="flashmla",
        **DET,
    ),
]


class TestDeterministic:
    """§4.3 deterministic inference D0-D8 (step 12, before the §4.1 default)."""

    @pytest.mark.parametrize("r", DETERMINISTIC_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)

    @pytest.mark.parametrize("plat", ["h100", "b200", "a100"])
    def test_forces_pytorch_sampling_with_one_backend_declaration(self, plat: str) -> None:
        """Upstream #40: sampling pytorch; exactly one deterministic_attention_backend declaration,
        whose value is the final A; the §4.1 default fill then has nothing to do."""
        res = resolve(LLAMA, plat, **DET)
        assert res["sampling_backend"] == "pytorch"
        det = decls(res, "deterministic_attention_backend")
        assert len(det) == 1
        assert det[0].fields["attention_backend"] == res["attention_backend"]
        assert not any("attention_backend" in d.fields for d in decls(res, "attention_backend_default"))


# ---------------------------------------------------------------------------------------
# §4.4 Diffusion LLM
# ---------------------------------------------------------------------------------------

DLLM_ROWS = [
    # Platform arms (exclusive, first match).
    row(
        "hip-user-fa3-forced-triton",
        LLADA2,
        "mi300x",
        E(A="triton", **GRAPHS_OFF),
        attention_backend="fa3",
        **DLLM,
    ),
    row(
        "hip-user-triton-kept",
        LLADA2,
        "mi355x",
        E(A="triton", **GRAPHS_OFF),
        attention_backend="triton",
        **DLLM,
    ),
    row("npu-ascend-page-capped", LLADA2, "npu", E(A="ascend", p=32), **DLLM),
    row(
        "cuda-decode-graph-forces-flashinfer",
        SDAR,
        "h100",
        E(A="flashinfer", p=4),
        attention_backend="triton",
        **DLLM,
    ),
    row("b200-flashinfer-page-capped", LLADA2, "b200", E(A="flashinfer", p=32), **DLLM),
    row(
        "decode-graph-disabled-unchanged",
        LLADA2,
        "h100",
        E(A="fa3", p=32),
        cuda_graph_backend_decode="disabled",
        **DLLM,
    ),
    row(
        "torch-native-graphs-off-unchanged",
        LLADA2,
        "h100",
        E(A="torch_native"),
        attention_backend="torch_native",
        **DLLM,
    ),
    row("xpu-decode-graph-off-by-default", LLADA2, "xpu", E(A="triton", p=32), **DLLM),
    row(
        "xpu-locked-decode-graph-forces-flashinfer",
        LLADA2,
        "xpu",
        E(A="flashinfer"),
        cuda_graph_backend_decode="full",
        **DLLM,
    ),
    row("sdar-moe-block-4", "SDARMoeForCausalLM", "h100", E(A="flashinfer", p=4), **DLLM),
    # Overlap always off.
    row("overlap-off", LLADA2, "h100", E(disable_overlap_schedule=True), **DLLM),
    row("no-dllm-nothing", LLADA2, "h100", E(A="fa3", p=1, disable_overlap_schedule=False)),
    # Unknown diffusion arch: DllmConfig is always built in 0.5.15.
    row(
        "unknown-arch-refused",
        LLAMA,
        "h100",
        Err(RUNTIME, r"Unknown diffusion LLM: LlamaForCausalLM"),
        **DLLM,
    ),
    row(
        "unknown-arch-refused-radix-off",
        LLAMA,
        "h100",
        Err(RUNTIME, r"Unknown diffusion LLM: LlamaForCausalLM"),
        disable_radix_cache=True,
        **DLLM,
    ),
    # Page: radix on -> align to the block, else cap at the block.
    row("radix-on-page-16-aligned", LLADA2, "h100", E(p=32), page_size=16, **DLLM),
    row("radix-on-page-64-capped", LLADA2, "h100", E(p=32), page_size=64, **DLLM),
    row("radix-on-page-32-kept", LLADA2, "h100", E(p=32), page_size=32, **DLLM),
    row("radix-off-page-1-kept", LLADA2, "h100", E(p=1), disable_radix_cache=True, **DLLM),
    row("radix-off-page-16-kept", LLADA2, "h100", E(p=16), disable_radix_cache=True, page_size=16, **DLLM),
    row("radix-off-page-64-capped", LLADA2, "h100", E(p=32), disable_radix_cache=True, page_size=64, **DLLM),
    row(
        "radix-off-sdar-page-128-capped",
        SDAR,
        "h100",
        E(p=4),
        disable_radix_cache=True,
        page_size=128,
        **DLLM,
    ),
    # Feature limits.
    row(
        "radix-on-hicache-lmcache-off",
        LLADA2,
        "h100",
        E(enable_hierarchical_cache=False, enable_lmcache=False),
        enable_hierarchical_cache=True,
        enable_lmcache=True,
        **DLLM,
    ),
    row(
        # 0.5.15 server_args.py:_handle_cache_compatibility (step 23, before dLLM at step 24)
        # refuses the pair, so the dLLM stage never sees it.
        "radix-off-hicache-refused-before-dllm",
        LLADA2,
        "h100",
        Err(
            VALUE, r"^The arguments enable-hierarchical-cache and disable-radix-cache are mutually exclusive"
        ),
        disable_radix_cache=True,
        enable_hierarchical_cache=True,
        **DLLM,
    ),
    row(
        "pp-lora-pd-mixed-off",
        LLADA2,
        "h100",
        E(pp_size=1, enable_lora=False, disaggregation_mode="null", enable_mixed_chunk=False),
        pp_size=2,
        enable_lora=True,
        disaggregation_mode="prefill",
        enable_mixed_chunk=True,
        **DLLM,
    ),
]


class TestDllm:
    """§4.4 diffusion LLMs (platform arms, page alignment/cap, feature limits); upstream #43/#48."""

    @pytest.mark.parametrize("r", DLLM_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)

    def test_flashinfer_force_declaration(self) -> None:
        """Upstream #43 (SDAR, radix off, explicit triton): the dLLM pass declares flashinfer."""
        res = resolve(SDAR, "h100", disable_radix_cache=True, attention_backend="triton", **DLLM)
        assert res["attention_backend"] == "flashinfer"
        assert [d.fields.get("attention_backend") for d in decls(res, "dllm_attention_backend")] == [
            "flashinfer"
        ]
        assert res.explain("attention_backend").steps[-1].outcome == "forced"

    def test_hip_aiter_declares_no_backend(self) -> None:
        """Upstream #48: on HIP an existing aiter is accepted (no attention declaration)."""
        res = resolve(LLADA2, "mi300x", **DLLM)
        assert res["attention_backend"] == "aiter"
        assert not any("attention_backend" in d.fields for d in decls(res, "dllm_attention_backend"))


# ---------------------------------------------------------------------------------------
# §4.5 page_size default and writers
# ---------------------------------------------------------------------------------------

PAGE_ROWS = [
    row("cuda-1", LLAMA, "h100", E(p=1)),
    row("hip-1", LLAMA, "mi300x", E(p=1)),
    row(
        "hip-vectorized-5d-uppercase-64",
        LLAMA,
        "mi355x",
        E(p=64),
        env={"SGLANG_AITER_KV_CACHE_LAYOUT": "VECTORIZED_5D"},
    ),
    row("hip-nhd-1", LLAMA, "mi300x", E(p=1), env={"SGLANG_AITER_KV_CACHE_LAYOUT": "nhd"}),
    row(
        "cuda-vectorized-5d-ignored",
        LLAMA,
        "h100",
        E(p=1),
        env={"SGLANG_AITER_KV_CACHE_LAYOUT": "vectorized_5d"},
    ),
    row("musa-64", LLAMA, "musa", E(p=64)),
    row("xpu-1", LLAMA, "xpu", E(p=1)),
    row("cpu-1", LLAMA, "cpu", E(p=1), env=CPU_ENGINE),
    row("npu-handler-128", LLAMA, "npu", E(p=128)),
    row("user-page-kept", LLAMA, "a100", E(p=64), page_size=64),
    row(
        "user-page-kept-hip-layout",
        LLAMA,
        "mi300x",
        E(p=16),
        page_size=16,
        env={"SGLANG_AITER_KV_CACHE_LAYOUT": "vectorized_5d"},
    ),
    # Writers in execution order: NPU handler, DeepSeek-V4 (unconditional) ...
    row("npu-deepseek-v4-128", "DeepseekV4ForCausalLM", "npu", E(p=128)),
    row("deepseek-v4-musa-256", "DeepseekV4ForCausalLM", "musa", E(p=256)),
    # check_server_args: chunked_prefill_size % page_size == 0 (chunked > 0, not PD decode).
    row(
        "chunked-prefill-misaligned-refused",
        LLAMA,
        "b200",
        Err(ASSERT, r"chunked_prefill_size|page_size"),
        chunked_prefill_size=100,
    ),
    row(
        "chunked-prefill-aligned", LLAMA, "b200", E(p=64, chunked_prefill_size=128), chunked_prefill_size=128
    ),
    row(
        "chunked-prefill-pd-decode-skipped",
        LLAMA,
        "b200",
        E(p=64),
        chunked_prefill_size=100,
        disaggregation_mode="decode",
    ),
    row("chunked-prefill-disabled", LLAMA, "b200", E(p=64), chunked_prefill_size=-1),
    row("chunked-prefill-page-1", LLAMA, "h100", E(p=1), chunked_prefill_size=100),
]


class TestPageSize:
    """§4.5 page_size default (step 17) and the ordering of the other writers."""

    @pytest.mark.parametrize("r", PAGE_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)

    def test_default_provenance(self) -> None:
        res = resolve(LLAMA, "h100")
        assert res.explain("page_size").decided_by == "page_size_default"
        assert resolve(LLAMA, "h100", page_size=64).explain("page_size").decided_by == "user"


# ---------------------------------------------------------------------------------------
# §4.6 FP4 KV cache (step 16, assertions only)
# ---------------------------------------------------------------------------------------

KV4_ROWS = [
    row(
        "non-cuda-hip-refused",
        LLAMA,
        "mi300x",
        Err(RUNTIME, r"KV4 is not tested on non-CUDA platforms\."),
        **KV4,
    ),
    row(
        "non-cuda-xpu-refused",
        LLAMA,
        "xpu",
        Err(RUNTIME, r"KV4 is not tested on non-CUDA platforms\."),
        **KV4,
    ),
    row(
        "non-cuda-npu-refused",
        LLAMA,
        "npu",
        Err(RUNTIME, r"KV4 is not tested on non-CUDA platforms\."),
        **KV4,
    ),
    # MHA, equal backends: A in {triton, torch_native, flex_attention, trtllm_mha}.
    row("mha-trtllm-ok", LLAMA, "b200", E(A="trtllm_mha", kv_cache_dtype="fp4_e2m1"), **KV4),
    row("mha-triton-ok", LLAMA, "h100", E(A="triton"), attention_backend="triton", **KV4),
    row("mha-torch-native-ok", LLAMA, "h100", E(A="torch_native"), attention_backend="torch_native", **KV4),
    row("mha-flex-ok", LLAMA, "h100", E(A="flex_attention"), attention_backend="flex_attention", **KV4),
    row("mha-fa3-refused", LLAMA, "h100", Err(ASSERT, r"fa3"), **KV4),
    row("mha-flashinfer-refused", LLAMA, "a100", Err(ASSERT, r"flashinfer"), **KV4),
    # MHA, fa4 prefill: decode in {triton, torch_native, flex_attention}.
    row(
        "mha-fa4-prefill-trtllm-decode-refused",
        LLAMA,
        "b200",
        Err(ASSERT, r"trtllm_mha"),
        prefill_attention_backend="fa4",
        **KV4,
    ),
    row(
        "mha-fa4-prefill-triton-decode-ok",
        LLAMA,
        "b200",
        E(P="fa4", D="triton"),
        prefill_attention_backend="fa4",
        decode_attention_backend="triton",
        **KV4,
    ),
    row(
        "mha-fa4-prefill-flex-decode-ok",
        LLAMA,
        "b200",
        E(P="fa4", D="flex_attention"),
        prefill_attention_backend="fa4",
        decode_attention_backend="flex_attention",
        **KV4,
    ),
    # Unequal backends, prefill not fa4: warning only.
    row(
        "mha-unequal-warning-only",
        LLAMA,
        "h100",
        E(A="fa3", P="triton", D="flashinfer"),
        prefill_attention_backend="triton",
        decode_attention_backend="flashinfer",
        **KV4,
    ),
    # MLA, equal backends: A in {cutlass_mla, flashinfer, trtllm_mla, flashmla}.
    row("mla-flashinfer-ok", DSV2, "b200", E(A="flashinfer"), hf=MLA, **KV4),
    row("mla-cutlass-ok", DSV2, "b200", E(A="cutlass_mla"), hf=MLA, attention_backend="cutlass_mla", **KV4),
    row("mla-flashmla-ok", DSV2, "b200", E(A="flashmla"), hf=MLA, attention_backend="flashmla", **KV4),
    row("mla-trtllm-ok", DSV3, "b200", E(A="trtllm_mla"), hf=MLA, **KV4),
    row("mla-fa3-refused", DSV2, "h100", Err(ASSERT, r"fa3"), hf=MLA, **KV4),
    # MLA, fa4 prefill: decode in {cutlass_mla, flashinfer, trtllm_mla}.
    row(
        "mla-fa4-prefill-flashinfer-decode-ok",
        DSV2,
        "b200",
        E(P="fa4", A="flashinfer"),
        hf=MLA,
        prefill_attention_backend="fa4",
        **KV4,
    ),
    row(
        "mla-fa4-prefill-fa3-decode-refused",
        DSV2,
        "b200",
        Err(ASSERT, r"fa3"),
        hf=MLA,
        prefill_attention_backend="fa4",
        decode_attention_backend="fa3",
        **KV4,
    ),
]


class TestKV4:
    """§4.6 FP4 KV cache compatibility (step 16)."""

    @pytest.mark.parametrize("r", KV4_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)


# ---------------------------------------------------------------------------------------
# §4.7 Other downstream readers (validations)
# ---------------------------------------------------------------------------------------

VALIDATION_ROWS = [
    # step 19 multi-item scoring: both effective backends flashinfer.
    row(
        "mis-flashinfer-ok",
        LLAMA,
        "a100",
        E(A="flashinfer", disable_radix_cache=True, chunked_prefill_size=-1, **GRAPHS_OFF),
        enable_mis=True,
    ),
    row(
        "mis-split-pair-ok",
        LLAMA,
        "h100",
        E(A="flashinfer"),
        prefill_attention_backend="flashinfer",
        decode_attention_backend="flashinfer",
        enable_mis=True,
    ),
    row("mis-fa3-refused", LLAMA, "h100", Err(ASSERT, r"(?i)flashinfer"), enable_mis=True),
    row(
        "mis-prefill-triton-refused",
        LLAMA,
        "a100",
        Err(ASSERT, r"(?i)flashinfer"),
        prefill_attention_backend="triton",
        enable_mis=True,
    ),
    # step 20 prefill-only without KV cache: effective prefill in {fa3, fa4}.
    row("prefill-only-fa3-ok", LLAMA, "h100", E(A="fa3"), prefill_only_disable_kv_cache=True),
    row(
        "prefill-only-split-fa3-ok",
        LLAMA,
        "a100",
        E(P="fa3"),
        prefill_attention_backend="fa3",
        prefill_only_disable_kv_cache=True,
    ),
    row(
        "prefill-only-fa4-ok",
        LLAMA,
        "b200",
        E(P="fa4"),
        prefill_attention_backend="fa4",
        prefill_only_disable_kv_cache=True,
    ),
    row(
        "prefill-only-flashinfer-refused",
        LLAMA,
        "a100",
        Err(VALUE, r"fa3"),
        prefill_only_disable_kv_cache=True,
    ),
    row("prefill-only-trtllm-refused", LLAMA, "b200", Err(VALUE, r"fa3"), prefill_only_disable_kv_cache=True),
    # step 22 speculative decoding.
    row(
        "spec-trtllm-mha-topk2-refused",
        LLAMA,
        "b200",
        Err(VALUE, r"trtllm_mha backend only supports topk = 1 for speculative decoding\."),
        attention_backend="trtllm_mha",
        speculative_eagle_topk=2,
        speculative_num_steps=3,
        **EAGLE,
    ),
    row(
        "spec-decode-trtllm-mha-topk2-refused",
        LLAMA,
        "b200",
        Err(VALUE, r"trtllm_mha backend only supports topk = 1 for speculative decoding\."),
        attention_backend="triton",
        decode_attention_backend="trtllm_mha",
        speculative_eagle_topk=2,
        speculative_num_steps=3,
        **EAGLE,
    ),
    row(
        "spec-eagle-topk2-paged-torch-native-refused",
        LLAMA,
        "h100",
        Err(VALUE, r"torch_native"),
        attention_backend="torch_native",
        speculative_eagle_topk=2,
        speculative_num_steps=3,
        page_size=16,
        **EAGLE,
    ),
    row(
        "spec-eagle3-topk2-paged-torch-native-refused",
        LLAMA,
        "h100",
        Err(VALUE, r"torch_native"),
        attention_backend="torch_native",
        speculative_algorithm="EAGLE3",
        speculative_eagle_topk=2,
        speculative_num_steps=3,
        page_size=16,
    ),
    row(
        "spec-eagle-topk2-paged-fa3-ok",
        LLAMA,
        "h100",
        E(A="fa3", p=16),
        attention_backend="fa3",
        speculative_eagle_topk=2,
        speculative_num_steps=3,
        page_size=16,
        **EAGLE,
    ),
    row(
        "spec-eagle-topk2-unpaged-torch-native-ok",
        LLAMA,
        "h100",
        E(A="torch_native", p=1),
        attention_backend="torch_native",
        speculative_eagle_topk=2,
        speculative_num_steps=3,
        **EAGLE,
    ),
    row(
        "spec-ngram-topk2-paged-triton-refused",
        LLAMA,
        "h100",
        Err(VALUE, r"flashinfer"),
        attention_backend="triton",
        speculative_algorithm="NGRAM",
        speculative_eagle_topk=2,
        speculative_num_steps=3,
        page_size=16,
    ),
    row(
        "spec-ngram-topk2-paged-flashinfer-ok",
        LLAMA,
        "h100",
        E(A="flashinfer"),
        attention_backend="flashinfer",
        speculative_algorithm="NGRAM",
        speculative_eagle_topk=2,
        speculative_num_steps=3,
        page_size=16,
    ),
    # [15] DFLASH draft backend: user value, else effective prefill; unsupported -> fallback.
    row(
        "dflash-h100-fa3",
        LLAMA,
        "h100",
        E(speculative_draft_attention_backend="fa3"),
        speculative_algorithm="DFLASH",
        speculative_draft_model_path="draft",
    ),
    # DFLASH without topk is not "topk one" for MHA-b (§4.1), so B200 defaults to flashinfer.
    row(
        "dflash-b200-default-flashinfer",
        LLAMA,
        "b200",
        E(A="flashinfer", speculative_draft_attention_backend="flashinfer"),
        speculative_algorithm="DFLASH",
        speculative_draft_model_path="draft",
    ),
    row(
        "dflash-trtllm-prefill-falls-back",
        LLAMA,
        "b200",
        E(A="trtllm_mha", speculative_draft_attention_backend="flashinfer"),
        speculative_algorithm="DFLASH",
        speculative_draft_model_path="draft",
        attention_backend="trtllm_mha",
    ),
    row(
        "dflash-hip-aiter-falls-back-triton",
        LLAMA,
        "mi300x",
        E(speculative_draft_attention_backend="triton"),
        speculative_algorithm="DFLASH",
        speculative_draft_model_path="draft",
    ),
    row(
        "dflash-user-triton-kept",
        LLAMA,
        "b200",
        E(speculative_draft_attention_backend="triton"),
        speculative_algorithm="DFLASH",
        speculative_draft_model_path="draft",
        speculative_draft_attention_backend="triton",
    ),
    row(
        "dflash-user-trtllm-falls-back",
        LLAMA,
        "b200",
        E(speculative_draft_attention_backend="flashinfer"),
        speculative_algorithm="DFLASH",
        speculative_draft_model_path="draft",
        speculative_draft_attention_backend="trtllm_mha",
    ),
    row(
        "dflash-prefill-fa4",
        LLAMA,
        "b200",
        E(speculative_draft_attention_backend="fa4"),
        speculative_algorithm="DFLASH",
        speculative_draft_model_path="draft",
        prefill_attention_backend="fa4",
    ),
    row(
        "dflash-triton-default",
        LLAMA,
        "a100-nofi",
        E(speculative_draft_attention_backend="triton"),
        speculative_algorithm="DFLASH",
        speculative_draft_model_path="draft",
    ),
    # [15] unified memory -> page-major KV layout: effective backends within {triton}.
    row(
        "unified-memory-triton-ok",
        LLAMA,
        "h100",
        E(A="triton"),
        attention_backend="triton",
        enable_unified_memory=True,
    ),
    row(
        "unified-memory-split-triton-ok",
        LLAMA,
        "h100",
        E(A="triton"),
        prefill_attention_backend="triton",
        decode_attention_backend="triton",
        enable_unified_memory=True,
    ),
    row("unified-memory-fa3-refused", LLAMA, "h100", Err(VALUE, r"triton"), enable_unified_memory=True),
    # step 21: dp_size 1 -> no DP attention / DP LM head.
    row(
        "dp1-no-dp-attention",
        LLAMA,
        "h100",
        E(enable_dp_attention=False, enable_dp_lm_head=False),
        enable_dp_attention=True,
        enable_dp_lm_head=True,
    ),
    row(
        "dp2-dp-attention-kept",
        LLAMA,
        "h100",
        E(enable_dp_attention=True),
        tp_size=2,
        dp_size=2,
        enable_dp_attention=True,
    ),
]


class TestValidations:
    """§4.7 downstream validations (steps 19-23) and step 21 DP defaults."""

    @pytest.mark.parametrize("r", VALIDATION_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)


# ---------------------------------------------------------------------------------------
# §11.1 mxfp4 is a platform-dependent quantization method
# ---------------------------------------------------------------------------------------

GPT_OSS = "GptOssForCausalLM"
MXFP4 = {"quantization_config": {"quant_method": "mxfp4"}}
MXFP4_MSG = r"Unknown quantization method: mxfp4\. Must be one of"

QUANT_ROWS = [
    row("gpt-oss-mxfp4-mi300x-refused", GPT_OSS, "mi300x", Err(VALUE, MXFP4_MSG), hf=MXFP4),
    row("gpt-oss-mxfp4-xpu-refused", GPT_OSS, "xpu", Err(VALUE, MXFP4_MSG), hf=MXFP4),
    row("gpt-oss-mxfp4-npu-refused", GPT_OSS, "npu", Err(VALUE, MXFP4_MSG), hf=MXFP4),
    row("gpt-oss-mxfp4-b200", GPT_OSS, "b200", E(A="trtllm_mha", dtype="bfloat16"), hf=MXFP4),
    row("gpt-oss-mxfp4-cpu", GPT_OSS, "cpu", E(A="torch_native", dtype="bfloat16"), hf=MXFP4, env=CPU_ENGINE),
    row(
        "gpt-oss-mxfp4-cpu-amx",
        GPT_OSS,
        "cpu-amx",
        E(A="intel_amx", dtype="bfloat16"),
        hf=MXFP4,
        env=CPU_ENGINE,
    ),
    row("gpt-oss-mxfp4-mi355x", GPT_OSS, "mi355x", E(A="aiter", dtype="bfloat16"), hf=MXFP4),
    # The bf16 checkpoints resolve normally there.
    row("gpt-oss-bf16-mi300x", GPT_OSS, "mi300x", E(A="aiter", dtype="auto")),
    row("gpt-oss-bf16-xpu", GPT_OSS, "xpu", E(A="intel_xpu", dtype="auto")),
    # --quantization mxfp4 on a plain model.
    row("user-mxfp4-mi300x-refused", LLAMA, "mi300x", Err(VALUE, MXFP4_MSG), quantization="mxfp4"),
    row("user-mxfp4-b200", LLAMA, "b200", E(quantization="mxfp4"), quantization="mxfp4"),
]


class TestQuantizationRegistry:
    """§11.1: mxfp4 refused on MI300X / XPU / NPU, accepted on CUDA, CPU and gfx95."""

    @pytest.mark.parametrize("r", QUANT_ROWS)
    def test_table(self, r: Row) -> None:
        check(r)


# C23's refusal runs after the platform checks (overrides._attention_backend_dual_chunk is
# registered after _mla_kv_cache_dtype_checks and _cutedsl_prefill_backend_fill; found by the
# agreement runs against the 0.5.15 wheel).
@pytest.mark.parametrize(
    ("flags", "first"),
    [
        (
            {"attention_backend": "trtllm_mha", "page_size": 128},
            "TRTLLM MHA backend for prefill is only supported",
        ),
        ({"attention_backend": "trtllm_mla"}, "TRTLLM MLA backend is only supported on Blackwell"),
        (
            {"attention_backend": "fa3"},
            "Dual chunk attention is enabled, but attention backend is set to fa3",
        ),
    ],
)
def test_dual_chunk_refusal_comes_after_the_platform_checks(flags, first):
    from release_helpers import refusal_at

    assert first in refusal_at("qwen2.5-7b-instruct-1m", "a100", "0.5.15", **flags)
