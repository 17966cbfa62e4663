"""Start-up checks (after ServerArgs): one test per check of ``passes/startup.py``.

Each case is accepted by ServerArgs (asserted) and then refused — or not — where sglang 0.5.15's
model runner builds its attention backends (a test of a later release names it). The docstring of each test names the sglang file
and function whose ``raise``/``assert`` it reproduces.
"""

from __future__ import annotations

from typing import Any

import pytest

from golden import GOLDEN, resolve_golden
from resolvable import ConflictError, Platform
from resolvable.sglang import check_startup, load_model, resolve_server_args
from resolvable.sglang.passes import startup as S

# golden cases of sglang 0.5.15 (spec): pinned (``refusal`` and every call without a release)


def _platform(p: str | Platform) -> Platform:
    return p if isinstance(p, Platform) else Platform.preset(p)


def _hf(model: str | dict[str, Any]) -> Any:
    return load_model(model) if isinstance(model, str) else model


def refusal(model: str | dict[str, Any], platform: str | Platform, **flags: Any) -> ConflictError | None:
    """The start-up refusal of a configuration ServerArgs accepts (None: it would start), in
    0.5.15 unless ``flags`` name another ``sglang_version``."""
    hf = _hf(model)
    res = resolve_server_args(hf, _platform(platform), **{"sglang_version": GOLDEN, **flags})  # accepted
    try:
        check_startup(res, hf)
    except ConflictError as exc:
        assert exc.phase == "startup" and exc.stage == "startup" and exc.resolution is res
        return exc
    return None


def refused_by(
    rule: str, model: str | dict[str, Any], platform: str | Platform, **flags: Any
) -> ConflictError:
    exc = refusal(model, platform, **flags)
    assert exc is not None, f"{model} on {platform} {flags}: expected {rule} to refuse at start-up"
    assert exc.rule == rule, f"refused by {exc.rule}, expected {rule}: {exc.message}"
    return exc


def test_every_check_has_a_test_here():
    rules = {r.name for r in S.registry.rules if r.stage == S.STAGE}
    tested = {name[len("test_") :] for name in globals() if name.startswith("test_")}
    assert rules <= tested, f"start-up checks without a test: {sorted(rules - tested)}"


def test_kv_cache_dtype_deprecated():
    """mem_cache/kv_cache_dtype.py configure_kv_cache_dtype (since 0.5.16): fp4_e2m1 is deprecated
    at start-up; 0.5.15 starts with it."""
    hf, b200 = load_model("llama-3.1-8b"), Platform.preset("b200")
    resolve_server_args(hf, b200, kv_cache_dtype="fp4_e2m1", startup=True, sglang_version=GOLDEN)
    with pytest.raises(ConflictError) as info:
        resolve_server_args(hf, b200, kv_cache_dtype="fp4_e2m1", startup=True, sglang_version="0.5.16")
    assert info.value.rule == "kv_cache_dtype_deprecated" and "fp4_mx_block16" in info.value.fix


def test_cuda_min_capability():
    """model_runner.py ModelRunner.load_model: "SGLang only supports sm75 and above"."""
    v100 = Platform("cuda", name="v100", capability=(7, 0), cuda_version=(12, 4), kernels={"triton_kernels"})
    t4 = Platform("cuda", name="t4", capability=(7, 5), cuda_version=(12, 4), kernels={"triton_kernels"})
    exc = refused_by("cuda_min_capability", "llama-3.1-8b", v100)
    assert exc.upstream == "RuntimeError" and "sm70" in exc.message
    assert refusal("llama-3.1-8b", t4) is None


def test_backend_is_registered():
    """model_runner.py _get_attention_backend_from_str: "Invalid attention backend: X"."""
    hf = load_model("llama-3.1-8b")
    res = resolve_golden(hf, _platform("h100"))
    # ServerArgs never leaves an unregistered name; a load-time adjustment can (adjust → check).
    from resolvable import check
    from resolvable.sglang import registry

    late = res.adjust("test", attention_backend=None)
    with pytest.raises(ConflictError, match="Invalid attention backend: None") as excinfo:
        check(registry, late, hf, phase="startup")
    assert excinfo.value.rule == "backend_is_registered" and excinfo.value.upstream == "ValueError"
    assert refusal("llama-3.1-8b", "h100", attention_backend="flashinfer") is None


def test_backend_is_registered_0_5_19():
    """0.5.19 layers/attention/attention_registry.py registers minicpm_flashattn and
    minicpm_flashinfer: a MiniCPM sparse model starts with the backend its override picked;
    an unregistered name is still refused (same message, the 0.5.19 rule)."""
    hf = {
        "architectures": ["MiniCPMForCausalLM"],
        "model_type": "minicpm",
        "hidden_size": 2304,
        "num_attention_heads": 36,
        "num_key_value_heads": 36,
        "num_hidden_layers": 4,
        "vocab_size": 1000,
        "has_minicpm_sparse_attention": True,
    }
    res = resolve_server_args(hf, _platform("h100"), sglang_version="0.5.19")
    assert res["attention_backend"] == "minicpm_flashattn"
    check_startup(res, hf)  # registered: starts
    from resolvable import check
    from resolvable.sglang import registry

    late = res.adjust("test", attention_backend=None)
    with pytest.raises(ConflictError, match="Invalid attention backend: None") as excinfo:
        check(registry, late, hf, phase="startup")
    assert excinfo.value.rule == "backend_is_registered"


@pytest.mark.parametrize("backend", ["trtllm_mla", "tokenspeed_mla", "cutedsl_mla"])
def test_mla_only_backends(backend):
    """attention_registry.py create_trtllm_mla_backend / create_tokenspeed_mla_backend /
    create_cutedsl_mla_backend: "… backend can only be used with MLA models"."""
    flags: dict[str, Any] = {"kv_cache_dtype": "fp8_e4m3"}
    if backend == "cutedsl_mla":
        flags["decode_attention_backend"] = backend
    else:
        flags["attention_backend"] = backend
    exc = refused_by("mla_only_backends", "llama-3.1-8b", "b200", **flags)
    assert exc.message == f"{backend} backend can only be used with MLA models."
    assert refusal("deepseek-v3", "b200", **flags) is None


def test_trtllm_mha_needs_mha():
    """attention_registry.py create_trtllm_mha_backend: "trtllm_mha backend can only be used with
    non-MLA models"."""
    exc = refused_by("trtllm_mha_needs_mha", "deepseek-v3", "b200", attention_backend="trtllm_mha")
    assert exc.origins["attention_backend"] == ("trtllm_mha", "user", None)
    assert refusal("llama-3.1-8b", "b200", attention_backend="trtllm_mha") is None


def test_triton_no_cross_attention():
    """attention_registry.py create_triton_backend: no cross attention (is_encoder_decoder_model)
    with triton."""
    exc = refused_by("triton_no_cross_attention", "whisper-large-v3", "h100", attention_backend="triton")
    assert exc.upstream == "AssertionError" and "--attention-backend flashinfer" in exc.message
    assert refusal("whisper-large-v3", "h100") is None  # the default is flashinfer
    assert refusal("llama-3.1-8b", "h100", attention_backend="triton") is None


@pytest.mark.parametrize(
    ("model", "platform", "starts"),
    [
        ("llama-3.1-8b", "a100", True),  # SM80, MHA
        ("llama-3.1-8b", "h100", True),
        ("deepseek-v3", "h200", True),  # SM90, MLA
        ("deepseek-v3", "a100", False),  # SM80 only for non-MLA
        ("llama-3.1-8b", "b200", False),  # SM100
        ("llama-3.1-8b", "rtx5090", False),  # SM120
        ("llama-3.1-8b", "xpu", False),  # no CUDA capability
    ],
)
def test_fa3_capability(model, platform, starts):
    """attention_registry.py create_flashattention_v3_backend: (major 8 and not MLA) or major 9."""
    exc = refusal(model, platform, attention_backend="fa3")
    assert (exc is None) == starts
    if exc is not None:
        assert exc.rule == "fa3_capability" and exc.message.startswith(
            "FlashAttention v3 Backend requires SM>=80 and SM<=90."
        )


def test_fa3_capability_on_musa():
    """attention_registry.py create_flashattention_v3_backend (MUSA branch): MP >= 31."""
    old = Platform("musa", name="mp22", capability=(2, 2))
    new = Platform("musa", name="mp31", capability=(3, 1))
    assert "MP>=31" in refused_by("fa3_capability", "llama-3.1-8b", old, attention_backend="fa3").message
    assert refusal("llama-3.1-8b", new, attention_backend="fa3") is None


def test_fa3_capability_reached_by_deterministic_default():
    """The deterministic default picks fa3 on XPU (spec §4.3 D5); sglang then refuses it at start."""
    exc = refused_by("fa3_capability", "llama-3.1-8b", "xpu", enable_deterministic_inference=True)
    assert "no CUDA compute capability" in exc.message
    assert exc.origins["attention_backend"][1] == "deterministic_attention_backend"


def test_tokenspeed_mla_page_size():
    """tokenspeed_mla_backend.py TokenspeedMLABackend.__init__: page_size in {32, 64} (ServerArgs
    snaps it only for the attention/decode backend, not a prefill-only tokenspeed_mla)."""
    exc = refused_by(
        "tokenspeed_mla_page_size",
        "deepseek-v3",
        "b200",
        prefill_attention_backend="tokenspeed_mla",
        kv_cache_dtype="fp8_e4m3",
    )
    assert "got page_size=1" in exc.message and "page_size" in exc.fields
    assert (
        refusal(
            "deepseek-v3",
            "b200",
            prefill_attention_backend="tokenspeed_mla",
            kv_cache_dtype="fp8_e4m3",
            page_size=64,
        )
        is None
    )


@pytest.mark.parametrize(
    ("model", "tp", "starts"),
    [
        ("deepseek-v3", 8, True),
        ("deepseek-v3", 16, True),
        ("deepseek-v2-lite", 8, False),
        ("deepseek-v2-lite", 1, True),
    ],
)
def test_aiter_mla_head_count(model, tp, starts):
    """aiter_backend.py AiterAttnBackend.__init__: MLA heads per attention-TP rank in {4, 8} or a
    multiple of 16 in [16, 128] (DeepSeek-V2-Lite has 16 heads: tp 8 leaves 2)."""
    exc = refusal(model, "mi300x", attention_backend="aiter", tp_size=tp)
    assert (exc is None) == starts
    if exc is not None:
        assert exc.rule == "aiter_mla_head_count" and "Provided 2 number of heads" in exc.message


def test_aiter_mla_head_count_uses_the_attention_tp_size():
    """compute_dp_attention_world_info: with DP attention, attention TP = tp // dp."""
    assert S._attn_tp_size(_Args(tp_size=8, dp_size=8, enable_dp_attention=True, attn_cp_size=1)) == 1
    assert S._attn_tp_size(_Args(tp_size=8, dp_size=8, enable_dp_attention=False, attn_cp_size=1)) == 8


class _Args(dict):
    __getattr__ = dict.__getitem__


def test_intel_xpu_head_split():
    """xpu_backend.py XPUAttentionBackend.__init__: num_attention_heads % tp_size == 0."""
    exc = refused_by("intel_xpu_head_split", "llama-3.1-8b", "xpu", attention_backend="intel_xpu", tp_size=3)
    assert "(32) is not divisible by tp_size (3)" in exc.message
    assert refusal("llama-3.1-8b", "xpu", attention_backend="intel_xpu", tp_size=8) is None


def test_dual_chunk_model():
    """dual_chunk_flashattention_backend.py DualChunkFlashAttentionBackend.__init__: the config
    needs dual_chunk_attention_config; heads per rank a multiple of KV heads per rank."""
    refused_by("dual_chunk_model", "llama-3.1-8b", "h100", attention_backend="dual_chunk_flash_attn")
    assert refusal("qwen2.5-7b-instruct-1m", "h100", attention_backend="dual_chunk_flash_attn") is None
    odd = {
        **load_model("qwen2.5-7b-instruct-1m").to_dict(),
        "num_attention_heads": 12,
        "num_key_value_heads": 8,
    }
    exc = refused_by("dual_chunk_model", odd, "h100", attention_backend="dual_chunk_flash_attn")
    assert "12 attention heads per rank are not a multiple of 8 KV heads" in exc.message


def test_dsv4_backend_model():
    """deepseek_v4_backend.py DeepseekV4AttnBackend.__init__ (and the HIP radix backend): head_dim
    512 / the DeepSeek-V4 KV pool, page_size 256, MTP topk 0 or 1."""
    exc = refused_by("dsv4_backend_model", "llama-3.1-8b", "b200", attention_backend="dsv4")
    assert "head_dim" in exc.message
    refused_by("dsv4_backend_model", "deepseek-v3", "mi300x", attention_backend="dsv4")
    assert refusal("deepseek-v4-flash", "h100") is None
    # ServerArgs forces page 256 for DeepSeek-V4; a load-time change of it is refused at start.
    from resolvable import check
    from resolvable.sglang import registry

    hf = load_model("deepseek-v4-flash")
    res = resolve_golden(hf, _platform("h100")).adjust("test", page_size=64)
    with pytest.raises(ConflictError, match="hardcodes page_size=256"):
        check(registry, res, hf, phase="startup")


def test_dsa_backend_model():
    """dsa_backend.py DeepseekSparseAttnBackend.__init__: "DSA backend only supports DeepSeek DSA"."""
    exc = refused_by("dsa_backend_model", "llama-3.1-8b", "h100", attention_backend="dsa")
    assert exc.message == "DSA backend only supports DeepSeek DSA"
    assert refusal("deepseek-v3.2", "h200", attention_backend="dsa") is None


def test_hybrid_gdn_backend():
    """attention_registry.py attn_backend_wrapper: hybrid GDN on Blackwell needs triton,
    trtllm_mha, fa4 or flashinfer as --attention-backend."""
    exc = refused_by(
        "hybrid_gdn_backend",
        "qwen3-next-80b-a3b",
        "b200",
        attention_backend="aiter",
        disable_radix_cache=True,
    )
    assert exc.message.startswith("triton, trtllm_mha, fa4, or flashinfer backend are the only supported")
    assert refusal("qwen3-next-80b-a3b", "b200") is None
    assert refusal("qwen3-next-80b-a3b", "h100", attention_backend="aiter", disable_radix_cache=True) is None


def test_hybrid_gdn_backend_0_5_21():
    """attention_registry.py attn_backend_wrapper (0.5.21): both effective sides are checked; on
    SM100 flashinfer joins triton, trtllm_mha and fa4; SM120 keeps triton, trtllm_mha, flashinfer."""
    v = dict(sglang_version="0.5.21", disable_radix_cache=True)
    exc = refused_by(
        "hybrid_gdn_backend",
        "qwen3-next-80b-a3b",
        "b200",
        prefill_attention_backend="flashinfer",
        decode_attention_backend="torch_native",
        **v,
    )
    assert "Got prefill=flashinfer, decode=torch_native." in exc.message
    mixed = dict(prefill_attention_backend="flashinfer", decode_attention_backend="trtllm_mha", **v)
    assert refusal("qwen3-next-80b-a3b", "b200", **mixed) is None
    assert refused_by("hybrid_gdn_backend", "qwen3-next-80b-a3b", "rtx5090", attention_backend="fa4", **v)


def test_short_conv_hybrid_on_npu():
    """attention_registry.py attn_backend_wrapper: short-conv hybrids (LFM2, ZAYA1) raise
    NotImplementedError on NPU."""
    exc = refused_by("short_conv_hybrid_on_npu", "lfm2-1.2b", "npu", disable_radix_cache=True)
    assert exc.upstream == "NotImplementedError"
    assert refusal("lfm2-1.2b", "h100", disable_radix_cache=True) is None


def test_eagle_draft_extend_backend():
    """speculative/draft_utils.py DraftBackendFactory.create_draft_extend_backend: "EAGLE is not
    supported in attention backend X"."""
    exc = refused_by(
        "eagle_draft_extend_backend",
        "llama-3.1-8b",
        "h100",
        speculative_algorithm="EAGLE",
        attention_backend="torch_native",
    )
    assert exc.message == "EAGLE is not supported in attention backend torch_native"
    assert refusal("llama-3.1-8b", "h100", speculative_algorithm="EAGLE") is None
    assert refusal("llama-3.1-8b", "h100", attention_backend="torch_native") is None  # no speculation


def test_constructed_backends_follow_the_model_runner():
    """model_runner.py _get_attention_backend: P != D builds decode then prefill; P == D builds A."""
    assert S.constructed_backends(
        _Args(attention_backend="a", prefill_attention_backend="p", decode_attention_backend=None)
    ) == ("a", "p")
    assert S.constructed_backends(
        _Args(attention_backend="a", prefill_attention_backend="x", decode_attention_backend="x")
    ) == ("a",)


# -- API -----------------------------------------------------------------------------------------


def test_resolve_server_args_answers_serverargs_by_default_and_startup_on_request():
    hf, b200 = load_model("llama-3.1-8b"), Platform.preset("b200")
    res = resolve_golden(hf, b200, attention_backend="fa3")  # what sglang's ServerArgs does
    assert res["attention_backend"] == "fa3"
    with pytest.raises(ConflictError) as excinfo:
        resolve_golden(hf, b200, attention_backend="fa3", startup=True)
    exc = excinfo.value
    assert (exc.phase, exc.rule) == ("startup", "fa3_capability")
    assert exc.resolution.fingerprint() == res.fingerprint()  # the accepted ServerArgs resolution
    ok = resolve_golden(hf, Platform.preset("h100"), startup=True)
    in_release = [
        r for stage, rules in S.registry.plan(ok.arch, ok.release) if stage.name == "startup" for r in rules
    ]
    assert len(check_startup(ok, hf)) == len(in_release)


def test_startup_checks_see_the_load_time_adjustments():
    """HRM-Text: model_specific_adjustment forces triton before the backends are built, so fa3 on
    B200 starts (the load-time value is checked, not the ServerArgs one)."""
    assert refusal("hrm-text", "b200", attention_backend="fa3") is None
    hf = load_model("hrm-text")
    post_init = resolve_golden(hf, Platform.preset("b200"), load_time=False, attention_backend="fa3")
    with pytest.raises(ConflictError, match="FlashAttention v3"):
        check_startup(post_init, hf)


def test_serverargs_refusal_has_no_phase():
    with pytest.raises(ConflictError) as excinfo:
        resolve_golden(
            load_model("llama-3.1-8b"), Platform.preset("h100"), attention_backend="trtllm_mha", startup=True
        )
    assert excinfo.value.phase is None and excinfo.value.stage == "attention_checks"


def test_no_startup_check_crashes_on_the_grid():
    """Every grid cell ServerArgs accepts goes through the start-up checks without a RuleFailure."""
    from resolvable.sglang import grid

    refused = 0
    for _m, _p, _v, hf, platform, flags in grid.cases():
        try:
            res = resolve_server_args(hf, platform, **flags)
        except ConflictError:
            continue
        try:
            check_startup(res, hf)
        except ConflictError as exc:
            assert exc.phase == "startup"
            refused += 1
    assert refused > 0  # e.g. deterministic fa3 for MLA on A100, EAGLE on CPU backends


def test_hybrid_gdn_backend_0_5_18():
    """attention_registry.py attn_backend_wrapper (0.5.18): the effective prefill and decode
    backends are both checked on Blackwell (more in tests/sglang/test_release_0_5_18.py)."""
    from resolvable.sglang import resolve_server_args

    hf = load_model("qwen3-next-80b-a3b")
    res = resolve_server_args(
        hf, Platform.preset("b200"), sglang_version="0.5.18", prefill_attention_backend="flashinfer"
    )
    with pytest.raises(ConflictError) as info:
        check_startup(res, hf)
    assert info.value.message.startswith("Only {'triton', 'trtllm_mha', 'fa4'} backends are supported")


# -- sglang 0.5.17 -----------------------------------------------------------------------------

V17 = {"sglang_version": "0.5.17"}


def test_backend_is_registered_0_5_17():
    """0.5.17 attention_registry.py registers ``hpc_ops``: Llama (head_dim 128, GQA 4) on H100
    with 64-token pages starts; an unregistered name is still refused."""
    assert refusal("llama-3.1-8b", "h100", attention_backend="hpc_ops", **V17) is None
    hf = load_model("llama-3.1-8b")
    res = resolve_server_args(hf, _platform("h100"), **V17)
    from resolvable import check
    from resolvable.sglang import registry

    late = res.adjust("test", attention_backend=None)
    with pytest.raises(ConflictError, match="Invalid attention backend: None") as excinfo:
        check(registry, late, hf, phase="startup")
    assert excinfo.value.rule == "backend_is_registered"


def test_hpc_ops_backend():
    """0.5.17 attention_registry.py ``create_hpc_ops_backend`` and hpc_ops_backend.py
    ``HPCOpsAttnBackend.__init__``: MLA, non-SM90 GPUs, speculative decoding, an fp8_e5m2 KV cache
    and unsupported head shapes are refused."""
    exc = refused_by("hpc_ops_backend", "deepseek-v2-lite", "h100", attention_backend="hpc_ops", **V17)
    assert "non-MLA models" in exc.message
    exc = refused_by("hpc_ops_backend", "llama-3.1-8b", "b200", attention_backend="hpc_ops", **V17)
    assert "SM90 (Hopper)" in exc.message and "sm100" in exc.message
    exc = refused_by(
        "hpc_ops_backend",
        "llama-3.1-8b",
        "h100",
        attention_backend="hpc_ops",
        kv_cache_dtype="fp8_e5m2",
        **V17,
    )
    assert "bf16 or fp8_e4m3" in exc.message
    # Llama-3.1-8B: 32 q / 8 kv heads; TP 4 gives (8, 2) per rank, which the fp8 path lacks.
    exc = refused_by(
        "hpc_ops_backend",
        "llama-3.1-8b",
        "h100",
        attention_backend="hpc_ops",
        kv_cache_dtype="fp8_e4m3",
        tp_size=4,
        **V17,
    )
    assert "(8, 2)" in exc.message
    # Qwen3-8B has head_dim 128 and 32/8 heads: accepted with bf16 KV.
    assert refusal("qwen3-8b", "h100", attention_backend="hpc_ops", **V17) is None


def test_trtllm_mla_dcp_speculative():
    """0.5.17 attention_registry.py ``create_trtllm_mla_backend``: decode context parallelism
    with speculative decoding cannot decode on trtllm_mla (0.5.15 has no such check)."""
    flags = dict(
        attention_backend="trtllm_mla",
        dcp_size=2,
        tp_size=2,
        speculative_algorithm="EAGLE",
        speculative_num_steps=1,
        speculative_eagle_topk=1,
        speculative_num_draft_tokens=2,
    )
    exc = refused_by("trtllm_mla_dcp_speculative", "deepseek-v3", "b200", **flags, **V17)
    assert "Select cutedsl_mla or tokenspeed_mla" in exc.message
    old = refusal("deepseek-v3", "b200", **flags)
    assert old is None or old.rule != "trtllm_mla_dcp_speculative"


def test_trtllm_mha_page_128():
    """0.5.17 trtllm_mha_backend.py ``TRTLLMHAAttnBackend.__init__``: 128-token pages (accepted
    by ServerArgs since 0.5.17) need GQA with equal QK/V head dims on trtllm-gen (SM100)."""
    exc = refused_by("trtllm_mha_page_128", "olmo-2-7b", "b200", page_size=128, **V17)  # 32 q / 32 kv heads
    assert "got 32/32" in exc.message
    assert refusal("llama-3.1-8b", "b200", page_size=128, **V17) is None  # GQA 32/8
    assert refusal("olmo-2-7b", "b200", page_size=128) is None  # 0.5.15 snaps the page to 64


def test_backend_platform_family():
    """attention_registry.py create_ascend_backend / create_intel_xpu_backend /
    create_intel_amx_backend: a backend of another platform family fails on its kernels' import."""
    exc = refused_by("backend_platform_family", "llama-3.1-8b", "h100", attention_backend="ascend")
    assert "No module named 'torch_npu'" in exc.message and exc.fix == "pass --attention-backend triton"
    exc = refused_by("backend_platform_family", "llama-3.1-8b", "xpu", attention_backend="ascend")
    assert exc.fix == "pass --attention-backend intel_xpu"
    exc = refused_by("backend_platform_family", "llama-3.1-8b", "cpu-amx", attention_backend="intel_xpu")
    assert exc.fix == "pass --attention-backend intel_amx" and "flash_mla_decode" in exc.message
    exc = refused_by("backend_platform_family", "llama-3.1-8b", "mi300x", attention_backend="intel_amx")
    assert "decode_attention_cpu" in exc.message
    assert refusal("llama-3.1-8b", "xpu", attention_backend="intel_xpu") is None


@pytest.mark.parametrize("release", sorted(S.implemented_architectures()))
def test_architecture_implemented(release: str) -> None:
    """model_loader/utils.py get_model_architecture: an encoder-decoder the release's
    ModelRegistry lacks is refused; a bundled (registered) one and an unregistered
    ``*ForCausalLM`` (the Transformers fallback) are not."""
    t5 = {
        "architectures": ["T5ForConditionalGeneration"],
        "model_type": "t5",
        "d_model": 512,
        "num_heads": 8,
        "num_layers": 6,
        "vocab_size": 32128,
    }
    if release == min(S.implemented_architectures()):  # the oldest list also stands for 0.5.14
        refused_by("architecture_implemented", t5, "h100", sglang_version="0.5.14")
    exc = refused_by("architecture_implemented", t5, "h100", sglang_version=release)
    assert "T5ForConditionalGeneration has no SGlang implementation" in exc.message
    assert f"sglang {release}'s model registry" in exc.message
    assert refusal("llama-3.1-8b", "h100", sglang_version=release) is None
    fallback = {**load_model("llama-3.1-8b").to_dict(), "architectures": ["MadeUpForCausalLM"]}
    assert refusal(fallback, "h100", sglang_version=release) is None
