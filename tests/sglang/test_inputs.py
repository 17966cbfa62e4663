"""What sglang 0.5.15 reads besides config.json, config-class defaults, and GPU-memory defaults.

Sources: sglang 0.5.15 ``srt/configs/model_config.py`` (``_parse_quant_hf_config``,
``_parse_modelopt_quant_config``), ``srt/utils/hf_transformers/config.py`` + ``mistral_utils.py``
(params.json routing and adaptation), ``srt/server_args.py:3469`` (``_handle_gpu_memory_settings``),
``srt/arg_groups/overrides.py`` (``_gemma4_overrides``, ``_nemotron_h_overrides``); transformers
5.12.1 config classes (values checked by instantiating them) and sglang's ``srt/configs/*.py``.
"""

from __future__ import annotations

import json
import os

import pytest

from golden import GOLDEN_FLAGS, resolve_golden
from resolvable import ConflictError, HFConfig, Platform
from resolvable.cli import main
from resolvable.errors import ConfigError
from resolvable.sglang import load_model
from resolvable.sglang.checkpoint import checkpoint_quant_method, is_mistral_model, parse_modelopt
from resolvable.sglang.config_defaults import TABLE, apply_config_defaults
from resolvable.sglang.passes.memory import chunked_prefill_default, decode_cuda_graph_max_bs, gpu_memory_mib

# golden cases of sglang 0.5.15 (spec): pinned

SMALL = {
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_attention_heads": 4,
    "num_hidden_layers": 2,
    "num_key_value_heads": 2,
    "vocab_size": 512,
    "max_position_embeddings": 128,
}


def model_dir(tmp_path, name="model", config=None, **files):
    d = tmp_path / name
    d.mkdir()
    if config is not None:
        (d / "config.json").write_text(json.dumps(config))
    for fname, content in files.items():
        path = d / fname.replace("__", ".")
        path.write_text(content if isinstance(content, str) else json.dumps(content))
    return d


def resolve(hf, plat="h100", **args):
    return resolve_golden(hf, Platform.preset(plat), env={}, **args)


# -- hf_quant_config.json ------------------------------------------------------------------------

GEMMA4 = {**SMALL, "architectures": ["Gemma4ForCausalLM"]}
EXAONE = {**SMALL, "architectures": ["Exaone4ForCausalLM"], "model_type": "exaone4"}
FULL = {"layer_types": ["full_attention", "full_attention"]}
EXAONE_BASE = {**EXAONE, **FULL}
NEMOTRON = {**SMALL, "architectures": ["NemotronHForCausalLM"], "mlp_hidden_act": "relu2"}
NVFP4 = {"quantization": {"quant_algo": "NVFP4"}}


@pytest.mark.parametrize(
    "quantization, expected",
    [
        ({"quant_algo": "FP8"}, "modelopt_fp8"),
        ({"quant_algo": "FP8_PER_CHANNEL_PER_TOKEN"}, "modelopt_fp8"),
        ({"quant_algo": "NVFP4"}, "modelopt_fp4"),
        ({"quant_algo": "W4A16_NVFP4"}, "modelopt_fp4"),
        (
            {"quant_algo": "MIXED_PRECISION", "quantized_layers": {"a": {"quant_algo": "NVFP4"}}},
            "modelopt_mixed",
        ),
        ({"quant_algo": "MIXED_PRECISION", "quantized_layers": {"a": {"quant_algo": "FP8"}}}, "w4afp8"),
        ({"quant_algo": "INT8"}, None),
        ({}, None),
    ],
)
def test_parse_modelopt(quantization, expected):
    """``_parse_modelopt_quant_config`` (model_config.py:1148)."""
    parsed = parse_modelopt(quantization, "x")
    assert (parsed or {}).get("quant_method") == expected


def test_sidecar_gives_gemma4_its_nvfp4_moe_runner_on_b200(tmp_path):
    """_gemma4_overrides reads model_config.quantization, which hf_quant_config.json sets."""
    d = model_dir(tmp_path, config=GEMMA4, hf_quant_config__json=NVFP4)
    hf = load_model(str(d))
    assert hf.sidecar("hf_quant_config.json") is not None
    res = resolve(hf, "b200")
    assert (res["quantization"], res["moe_runner_backend"]) == ("modelopt_fp4", "flashinfer_trtllm")
    plain = resolve(load_model(str(model_dir(tmp_path, "plain", config=GEMMA4))), "b200")
    assert (plain["quantization"], plain["moe_runner_backend"]) == (None, "auto")


def test_sidecar_is_ignored_when_config_json_has_a_quantization_config(tmp_path):
    """_parse_quant_hf_config reads hf_quant_config.json only without (compression|quantization)_config."""
    config = {**GEMMA4, "quantization_config": {"quant_method": "fp8"}}
    hf = load_model(str(model_dir(tmp_path, config=config, hf_quant_config__json=NVFP4)))
    assert checkpoint_quant_method(hf) == "fp8"
    assert resolve(hf, "b200")["moe_runner_backend"] == "auto"


def test_sidecar_drives_nemotron_h_modelopt(tmp_path):
    hf = load_model(str(model_dir(tmp_path, config=NEMOTRON, hf_quant_config__json=NVFP4)))
    res = resolve(hf, "h100")
    assert (res["quantization"], res["moe_runner_backend"]) == ("modelopt_fp4", "marlin")


def test_sidecar_read_from_the_hub_cache(tmp_path, monkeypatch):
    snap = tmp_path / "hub" / "models--org--gemma" / "snapshots" / "rev"
    snap.mkdir(parents=True)
    (snap / "config.json").write_text(json.dumps(GEMMA4))
    (snap / "hf_quant_config.json").write_text(json.dumps(NVFP4))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.chdir(tmp_path)
    assert checkpoint_quant_method(load_model("org/gemma")) == "modelopt_fp4"


def test_modelopt_quant_method_in_config_json_is_refined_in_place():
    """quant_cfg.update(parsed_cfg): later readers of hf_config.quantization_config see modelopt_fp8."""
    from resolvable.sglang.checkpoint import prepare

    refined = prepare(
        HFConfig({**GEMMA4, "quantization_config": {"quant_method": "modelopt", "quant_algo": "FP8"}})
    )
    assert refined.quantization_config.quant_method == "modelopt_fp8"
    assert refined.raw.quantization_config.quant_method == "modelopt"
    assert "quantization_config" in refined.origins
    assert prepare(refined) is refined


def test_config_survives_pickling_with_origins_and_sidecars(tmp_path):
    import pickle

    hf = load_model(
        str(model_dir(tmp_path, config={**EXAONE_BASE, "sliding_window": None}, hf_quant_config__json=NVFP4))
    )
    back = pickle.loads(pickle.dumps(hf))
    assert back == hf and back.origins == hf.origins and set(back.sidecars) == {"hf_quant_config.json"}


@pytest.mark.parametrize(
    "content, fragment",
    [
        ("{not json", "invalid JSON"),
        ("", "empty"),
        ("[1]", "JSON object"),
        (b"\xff\xfe", "UTF-8"),
        ('{"quant_algo": "FP8"}', "needs a 'quantization' object"),
        ('{"quantization": {"quant_algo": 8}}', "quant_algo"),
    ],
)
def test_malformed_hf_quant_config_names_the_file(tmp_path, content, fragment):
    d = model_dir(tmp_path, config=GEMMA4)
    path = d / "hf_quant_config.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(ConfigError) as info:
        resolve(load_model(str(d)), "b200")
    assert str(path) in str(info.value) and fragment in str(info.value)


def test_hf_quant_config_fifo_and_symlink_loop(tmp_path):
    d = model_dir(tmp_path, config=GEMMA4)
    os.mkfifo(d / "hf_quant_config.json")
    with pytest.raises(ConfigError, match="not a regular file"):
        load_model(str(d))
    d2 = model_dir(tmp_path, "loop", config=GEMMA4)
    os.symlink(d2 / "hf_quant_config.json", d2 / "hf_quant_config.json")
    with pytest.raises(ConfigError, match=r"hf_quant_config\.json"):
        load_model(str(d2))


def test_hf_quant_config_too_large(tmp_path, monkeypatch):
    import resolvable._hfconfig as module

    d = model_dir(
        tmp_path, config={"architectures": ["X"]}, hf_quant_config__json={"quantization": {"a": "b" * 64}}
    )
    monkeypatch.setattr(module, "MAX_CONFIG_BYTES", 40)
    with pytest.raises(ConfigError, match=r"hf_quant_config\.json.*too large"):
        load_model(str(d))


# -- params.json (Mistral-native) ----------------------------------------------------------------

LARGE3_PARAMS = {
    "dim": 7168,
    "n_layers": 4,
    "n_heads": 128,
    "n_kv_heads": 128,
    "hidden_dim": 16384,
    "norm_eps": 1e-6,
    "kv_lora_rank": 512,
    "q_lora_rank": 1536,
    "qk_rope_head_dim": 64,
    "qk_nope_head_dim": 128,
    "v_head_dim": 128,
    "moe": {"num_experts": 128, "num_shared_experts": 1, "num_experts_per_tok": 4},
    "llama_4_scaling": {"original_max_position_embeddings": 8192, "beta": 0.1},
    "quantization": {"qformat_weight": "fp8_e4m3", "qscheme_act": "TENSOR"},
}


@pytest.mark.parametrize(
    "name, routed",
    [
        ("Mistral-Large-3-675B", True),
        ("mistralai/Mistral-Small-4-119B", True),
        ("Leanstral-22B", True),
        ("mistral-7b-eagle", True),
        ("Mistral-7B-Instruct-v0.3", False),
        ("llama-eagle3", False),
    ],
)
def test_is_mistral_model(name, routed):
    assert is_mistral_model(name) is routed


def test_mistral_large3_params_json_replaces_config_json(tmp_path):
    d = model_dir(tmp_path, "Mistral-Large-3-675B", config=GEMMA4, params__json=LARGE3_PARAMS)
    hf = load_model(str(d))
    assert hf.source == str(d / "params.json")
    assert (hf.architecture, hf.model_type) == ("MistralLarge3ForCausalLM", "deepseek_v3")
    assert (hf.hidden_size, hf.num_attention_heads, hf.n_routed_experts) == (7168, 128, 128)
    assert hf.quantization_config.to_dict() == {"quant_method": "fp8", "activation_scheme": "static"}
    assert hf.max_position_embeddings == 128_000
    assert "architectures" in hf.origins
    res = resolve(hf, "h100")
    assert res["attention_backend"] == "fa3"  # MLA on Hopper (spec §3.1 / §4.1)


def test_model_config_parser_hf_reads_config_json(tmp_path):
    d = model_dir(tmp_path, "Mistral-Large-3-675B", config=GEMMA4, params__json=LARGE3_PARAMS)
    assert load_model(str(d), model_config_parser="hf").architecture == "Gemma4ForCausalLM"
    other = model_dir(tmp_path, "plain-model", config=GEMMA4, params__json={"dim": 8})
    assert load_model(str(other)).architecture == "Gemma4ForCausalLM"  # name not routed
    assert load_model(str(other), model_config_parser="mistral").architecture == "MistralForCausalLM"


def test_dense_and_draft_params(tmp_path):
    # the whole path counts for sglang's "eagle" test (mistral_utils.adapt_config_dict), so the
    # test name (part of tmp_path) must not contain it
    dense = load_model(str(model_dir(tmp_path, "leanstral", params__json={"dim": 64, "n_heads": 4})))
    assert (dense.architecture, dense.model_type, dense.rope_is_neox_style) == (
        "MistralForCausalLM",
        "mistral",
        False,
    )
    eagle = load_model(str(model_dir(tmp_path, "mistral-eagle", params__json={"dim": 64})))
    assert eagle.architecture == "MistralForCausalLMEagle"
    mla = load_model(str(model_dir(tmp_path, "mistral-small-4-eagle", params__json={"kv_lora_rank": 8})))
    assert (mla.architecture, mla.first_k_dense_replace) == ("MistralLarge3ForCausalLMEagle", 0)


def test_vision_params_wrap_as_pixtral_and_list_sliding_window(tmp_path):
    params = {**LARGE3_PARAMS, "vision_encoder": {"hidden_size": 16}}
    hf = load_model(str(model_dir(tmp_path, "mistral-large-3-vl", params__json=params)))
    assert hf.architecture == "PixtralForConditionalGeneration"
    assert hf.text_config.architectures == ("MistralLarge3ForCausalLM",)
    assert hf.quantization_config.quant_method == "fp8"
    swa = load_model(
        str(model_dir(tmp_path, "leanstral-swa", params__json={"n_layers": 4, "sliding_window": [None, 512]}))
    )
    assert swa.sliding_window == 512
    assert swa.layer_types == ("full_attention", "sliding_attention") * 2


@pytest.mark.parametrize(
    "params, fragment",
    [
        ({"quantization": {"qformat_weight": "int4"}}, "Found unknown quantization"),
        ({"moe": {"num_shared_experts": 1}}, "MistralLarge3 expect llama4 scaling config"),
        (
            {"moe": {"num_shared_experts": 1}, "llama_4_scaling": {"beta": 1}},
            "llama_4_scaling config should define",
        ),
    ],
)
def test_params_json_refusals_name_the_file(tmp_path, params, fragment):
    d = model_dir(tmp_path, "mistral-large-3", params__json=params)
    with pytest.raises(ConfigError) as info:
        load_model(str(d))
    assert str(d / "params.json") in str(info.value) and fragment in str(info.value)


def test_missing_or_malformed_params_json(tmp_path):
    d = model_dir(tmp_path, "mistral-large-3", config=GEMMA4)
    with pytest.raises(ConfigError, match=r"params\.json.*--model-config-parser hf"):
        load_model(str(d))
    (d / "params.json").write_text("{oops")
    with pytest.raises(ConfigError, match=r"params\.json: invalid JSON"):
        load_model(str(d))


# -- config-class defaults -----------------------------------------------------------------------


def test_exaone4_null_sliding_window_refuses_like_sglang(tmp_path, capsys):
    """Exaone4Config: sliding_window null -> sliding_window_pattern 0, not None, so sglang's
    Exaone4 assert (server_args.py:4151) fires without an explicit backend."""
    d = model_dir(tmp_path, config={**EXAONE, **FULL, "sliding_window": None, "sliding_window_pattern": None})
    hf = load_model(str(d))
    assert hf.sliding_window_pattern == 0 and hf.raw.sliding_window_pattern is None
    assert "Exaone4Config" in hf.origin("sliding_window_pattern")
    with pytest.raises(
        ConflictError, match=r"One of the attention backends in .* is required for Exaone4ForCausalLM"
    ):
        resolve(hf)
    assert resolve(hf, attention_backend="fa3")["disable_hybrid_swa_memory"] is True
    assert main(["explain", str(d), "--platform", "h100", *GOLDEN_FLAGS]) == 1  # refused
    out = capsys.readouterr().out
    assert "sliding_window_pattern=0 from transformers 5.12.1 Exaone4Config" in out


def test_exaone4_missing_pattern_defaults_to_4_and_explicit_null_stays():
    assert resolve({**EXAONE, **FULL}, attention_backend="triton")["disable_hybrid_swa_memory"] is True
    res = resolve({**EXAONE, **FULL, "sliding_window_pattern": None})
    assert (res["attention_backend"], res["disable_hybrid_swa_memory"]) == ("fa3", False)


@pytest.mark.parametrize(
    "extra", [{"sliding_window_pattern": None}, {"sliding_window": None}, {"sliding_window_pattern": "LLLG"}]
)
def test_exaone4_without_layer_types_fails_to_load_like_transformers(extra):
    with pytest.raises(ConfigError, match="cannot derive 'layer_types'"):
        resolve({**EXAONE, **extra})


# (model_type, config keys, key read, expected value) — one case per TABLE row.
ROWS = [
    ("exaone4", {**FULL}, "sliding_window", 4096),
    ("exaone_moe", {**FULL}, "sliding_window_pattern", 4),
    ("exaone4", {**FULL, "sliding_window": None}, "sliding_window_pattern", 0),
    ("exaone4", {**FULL, "num_key_value_heads": None}, "num_key_value_heads", None),
    ("exaone4", {**FULL, "max_position_embeddings": None}, "max_position_embeddings", None),
    ("granitemoehybrid", {"num_hidden_layers": 7}, "layer_types", ("mamba",) * 5 + ("attention", "mamba")),
    ("granitemoehybrid", {}, "mamba_chunk_size", 256),
    ("falcon_h1", {}, "mamba_chunk_size", 256),
    ("nemotron_h", {}, "mamba_chunk_size", 256),
    ("nemotron_h", {"chunk_size": 128}, "mamba_chunk_size", 128),
    ("nemotron_h", {"chunk_size": 128, "mamba_chunk_size": 64}, "mamba_chunk_size", 64),
    ("nemotron_h", {}, "mlp_hidden_act", "relu2"),
    ("deepseek_v3", {}, "kv_lora_rank", 512),
    ("glm_moe_dsa", {}, "index_topk", 2048),
    ("deepseek_v32", {}, "index_topk", None),  # sglang aliases deepseek_v32 to DeepseekV3Config
    ("deepseek_v3", {"max_position_embeddings": None}, "max_position_embeddings", None),
    ("deepseek_v4", {}, "max_position_embeddings", 4096),
    ("hrm_text", {}, "prefix_lm", True),
    ("qwen2", {}, "num_key_value_heads", 32),
    ("qwen3", {"num_key_value_heads": None, "num_attention_heads": 12}, "num_key_value_heads", 12),
    ("qwen2", {}, "num_attention_heads", 32),
    ("qwen3", {}, "max_position_embeddings", 32768),
    ("llama", {"num_key_value_heads": None}, "num_key_value_heads", 4),
    ("llama", {}, "num_attention_heads", 32),
    ("mistral", {}, "num_key_value_heads", 8),
    ("llama", {}, "max_position_embeddings", 2048),
    ("mistral", {}, "max_position_embeddings", 131072),
    # sglang's Olmo3Config serves Olmo3ForCausalLM as Olmo2ForCausalLM
    ("olmo3", {"architectures": ["Olmo3ForCausalLM"]}, "architectures", ("Olmo2ForCausalLM",)),
]
_DROP = ("num_attention_heads", "num_key_value_heads", "max_position_embeddings", "num_hidden_layers")


@pytest.mark.parametrize("model_type, extra, key, expected", ROWS)
def test_table_row(model_type, extra, key, expected):
    base = {k: v for k, v in SMALL.items() if k != key and not (k in _DROP and k == key)}
    if key in ("num_attention_heads", "max_position_embeddings"):
        base.pop(key, None)
    if key == "num_key_value_heads" and model_type in ("qwen2", "mistral"):
        base.pop(key, None)
    hf = apply_config_defaults(HFConfig({**base, "architectures": ["X"], "model_type": model_type, **extra}))
    assert hf.get(key) == expected
    if (key not in extra or extra[key] != expected) and expected is not None:
        assert hf.origin(key), f"{key} should say where it came from"


#: (section type, key, expected) of the rows for a sub-config without a model_type of its own
SECTION_ROWS = [
    ("kimi_k25.vision_config", "num_hidden_layers", 27),
    ("kimi_k25.vision_config", "hidden_size", 1152),
]


@pytest.mark.parametrize("kind, key, expected", SECTION_ROWS)
def test_section_row(kind, key, expected):
    """A sub-config without a model_type is typed ``<model_type>.<section>``: Kimi-K2.5's vision
    tower gets KimiK25VisionConfig's sizes where config.json leaves them out, keeps its own."""
    model_type, section = kind.split(".")
    hf = apply_config_defaults(
        HFConfig({"architectures": ["X"], "model_type": model_type, section: {"patch_size": 14}})
    )
    assert hf.get(section).get(key) == expected and hf.origin(f"{section}.{key}")
    given = apply_config_defaults(
        HFConfig({"architectures": ["X"], "model_type": model_type, section: {key: 3}})
    )
    assert given.get(section).get(key) == 3
    other = apply_config_defaults(HFConfig({"architectures": ["X"], "model_type": "qwen3_vl", section: {}}))
    assert other.get(section).get(key) is None


def test_every_table_row_is_tested():
    covered = {(t, k) for t, _, k, _ in ROWS} | {(t, k) for t, k, _ in SECTION_ROWS}
    for row in TABLE:
        assert any((t, row.key) in covered for t in row.model_types), row


def test_defaults_reach_text_config_and_are_idempotent():
    hf = HFConfig({"architectures": ["X"], "model_type": "vlm", "text_config": {"model_type": "glm_moe_dsa"}})
    once = apply_config_defaults(hf)
    assert once.text_config.index_topk == 2048
    assert "text_config.index_topk" in once.origins
    assert apply_config_defaults(once) is once
    assert once.raw.text_config.get("index_topk") is None


def test_granite_layer_types_default_makes_the_model_hybrid():
    res = resolve(
        {**SMALL, "architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid"}, "b200"
    )
    assert res["attention_backend"] == "flashinfer"


def test_nemotron_chunk_size_checks_the_page_size():
    """mamba_cache_chunk_size: max(chunk, page) % min(chunk, page) with the class's chunk size."""
    hf = {**NEMOTRON, "model_type": "nemotron_h", "chunk_size": 96}
    with pytest.raises(ConflictError, match="mamba chunk size \\(96\\)"):
        resolve(hf, "h100", page_size=64, mamba_track_interval=192)


# -- GPU memory (presets) ------------------------------------------------------------------------

PRESET_MEMORY = {
    # preset: (memory_gib as torch reports it, chunked_prefill_size, decode max_bs tp1, tp8); the
    # bands are the same as with nvidia-smi's figures (15, 22.5, 24, 32, 40, 48, 80, 96, 141, 180,
    # 192 GiB), which sglang reads
    "t4": (14.56, 2048, 8, 8),
    "l4": (22.05, 2048, 24, 80),
    "a10g": (22.0, 2048, 24, 80),
    "rtx4090": (23.65, 2048, 24, 80),
    "rtx5090": (31.37, 2048, 24, 80),
    "a100-40g": (39.39, 4096, 32, 160),
    "l40s": (44.4, 4096, 32, 160),
    "a100": (79.15, 8192, 256, 512),
    "h100": (79.19, 8192, 256, 512),
    "h100-pcie": (79.19, 8192, 256, 512),
    "h20": (95.0, 8192, 256, 512),
    "h200": (139.8, 8192, 256, 512),
    "b200": (178.4, 16384, 512, 512),
    "mi300x": (191.98, 16384, 512, 512),
}


@pytest.mark.parametrize("name", sorted(PRESET_MEMORY))
def test_preset_memory_decides_chunked_prefill(name):
    mem, chunk, bs1, bs8 = PRESET_MEMORY[name]
    p = Platform.preset(name)
    assert p.memory_gib == mem
    assert (chunked_prefill_default(gpu_memory_mib(p)), decode_cuda_graph_max_bs(gpu_memory_mib(p), 1)) == (
        chunk,
        bs1,
    )
    assert decode_cuda_graph_max_bs(gpu_memory_mib(p), 8) == bs8
    res = resolve({**SMALL, "architectures": ["LlamaForCausalLM"]}, name)
    assert res["chunked_prefill_size"] == chunk


def test_new_presets_predicates():
    assert Platform.preset("a100-40g").is_sm80 and Platform.preset("h100-pcie").is_sm90
    assert Platform.preset("l4").device_sm == 89 and Platform.preset("a10g").device_sm == 86
    t4 = Platform.preset("t4")
    assert not (t4.is_sm80 or t4.is_sm90) and t4.device_sm == 75


def test_unknown_memory_takes_sglangs_fallback():
    assert gpu_memory_mib(Platform.preset("cpu")) is None
    assert chunked_prefill_default(None) == 4096 and decode_cuda_graph_max_bs(None, 1) == 160
    assert gpu_memory_mib(Platform(vendor="mps", memory_gib=64)) is None


@pytest.mark.parametrize(
    "mib, chunk",
    [(20 * 1024 - 1, 2048), (20 * 1024, 2048), (35 * 1024, 4096), (60 * 1024, 8192), (160 * 1024, 16384)],
)
def test_band_boundaries_are_strict(mib, chunk):
    assert chunked_prefill_default(mib) == chunk


def test_user_chunked_prefill_is_kept():
    res = resolve({**SMALL, "architectures": ["LlamaForCausalLM"]}, "l4", chunked_prefill_size=1024)
    assert res["chunked_prefill_size"] == 1024


@pytest.mark.parametrize(
    "preset, page, accepted",
    [
        ("l4", 4096, False),
        ("a100-40g", 4096, True),
        ("a100-40g", 8192, False),
        ("h100", 8192, True),
        ("h200", 16384, False),
        ("b200", 16384, True),
    ],
)
def test_page_size_must_divide_the_memory_default(preset, page, accepted):
    """check_server_args (server_args.py:6610): chunked_prefill_size % page_size == 0."""
    hf = {**SMALL, "architectures": ["LlamaForCausalLM"]}
    if accepted:
        assert resolve(hf, preset, page_size=page, attention_backend="triton")["page_size"] == page
    else:
        with pytest.raises(ConflictError, match="must be a multiple of page_size"):
            resolve(hf, preset, page_size=page, attention_backend="triton")
