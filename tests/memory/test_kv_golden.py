"""Golden KV-per-token figures, hand-computed from the bundled configs, per attention kind and engine.

Each expected number is written out from the config values in the comment (no formula of the
module under test is reused): MHA, GQA, MLA, DSA, sliding window and hybrid GDN state.
"""

from __future__ import annotations

from resolvable.memory import attention_shape, kv_bytes_per_token, linear_state_bytes
from resolvable.sglang import load_model
from resolvable.sglang.memory import kv_cell
from resolvable.vllm.memory import kv_page_bytes


def sg(model: str, **values):
    full, swa, _ = kv_cell({"tp_size": 1, "kv_cache_dtype": "auto", **values}, load_model(model))
    return full, swa


def vl(model: str, **values):
    per_layer, _, _ = kv_page_bytes({"tensor_parallel_size": 1, **values}, load_model(model))
    return per_layer


def test_mha_olmo2():
    # 32 layers, 32 KV heads (= heads), head_dim 4096/32 = 128, bf16: 32 × (128+128) × 2 × 32
    assert attention_shape(load_model("olmo-2-7b")).kind == "mha"
    assert sg("olmo-2-7b") == (524_288, 0)
    assert sg("olmo-2-7b", tp_size=2) == (262_144, 0)  # 16 heads per rank
    assert vl("olmo-2-7b") * 32 == 524_288


def test_gqa_llama31():
    # 32 layers, 8 KV heads, head_dim 128: 8 × 256 × 2 B × 32 = 131072; TP 8 → 1 head; fp8 → 1 B
    assert sg("llama-3.1-8b") == (131_072, 0)
    assert sg("llama-3.1-8b", tp_size=8) == (16_384, 0)
    assert sg("llama-3.1-8b", kv_cache_dtype="fp8_e4m3") == (65_536, 0)
    assert sg("llama-3.1-8b", tp_size=16) == (16_384, 0)  # fewer heads than ranks: replicated
    assert vl("llama-3.1-8b", tensor_parallel_size=8, kv_cache_dtype="fp8") * 32 == 8_192


def test_mla_deepseek_v3():
    # kv_lora_rank 512 + rope 64 = 576 elements a layer, 61 layers, not split by TP
    assert sg("deepseek-v3") == (70_272, 0)  # × 2 B
    assert sg("deepseek-v3", tp_size=8, kv_cache_dtype="fp8_e4m3") == (35_136, 0)
    assert vl("deepseek-v3", tensor_parallel_size=8) == 1_152
    assert vl("deepseek-v3", kv_cache_dtype="fp8_ds_mla") == 656  # vLLM's packed fp8 MLA entry


def test_dsa_deepseek_v32():
    # TRT-LLM's DSA backends keep the raw layout: MLA 576 fp8 bytes + indexer 128 fp8 + one fp32
    # scale per 128 (4 B) = 708 a layer × 61
    assert sg("deepseek-v3.2", kv_cache_dtype="fp8_e4m3", dsa_decode_backend="trtllm") == (43_188, 0)
    # the FlashMLA backends store 512 fp8 + 4 fp32 scales + 64 bf16 rope = 656, + 132 = 788 × 61
    assert sg("deepseek-v3.2", kv_cache_dtype="fp8_e4m3") == (48_068, 0)
    assert vl("deepseek-v3.2", kv_cache_dtype="fp8") * 61 == 43_188


def test_sliding_window_gpt_oss():
    # 36 layers alternate sliding (window 128) / full; 8 KV heads × (64+64) × 2 B = 2048 a layer
    full, swa = sg("gpt-oss-120b")
    assert (full, swa) == (36_864, 36_864)  # 18 full layers, 18 SWA layers in their own pool
    shape = attention_shape(load_model("gpt-oss-120b"))
    assert (shape.full_layers, shape.swa_layers, shape.sliding_window) == (18, 18, 128)
    # Gemma-3 is not hybrid-SWA in sglang: every layer keeps a full KV (62 layers, 16 KV heads, hd 128)
    assert sg("gemma-3-27b") == (62 * 16 * 256 * 2, 0)


def test_hybrid_gdn_qwen3_next():
    # 48 layers, every 4th full: 12 full layers × 2 KV heads × (256+256) × 2 B = 24576
    assert sg("qwen3-next-80b-a3b") == (24_576, 0)
    shape = attention_shape(load_model("qwen3-next-80b-a3b"))
    assert (shape.full_layers, shape.linear_layers) == (12, 36)
    # per GDN layer: conv (2·16·128 + 32·128) × (4−1) = 24576 elements (bf16);
    # recurrent state 32 heads × 128 × 128 = 524288 elements (fp32) → 49152 + 2097152 bytes
    assert linear_state_bytes(shape, tp=1, state_dtype_bytes=2, ssm_dtype_bytes=4) == 36 * 2_146_304


def test_mxfp8_scales():
    # one 1-byte e8m0 scale per 32 elements: 8 × 256 = 2048 elements → +64 B a layer
    shape = attention_shape(load_model("llama-3.1-8b"))
    assert kv_bytes_per_token(shape, kv_dtype_bytes=1, scale_block=32) == 32 * (2048 + 64)


def test_vllm_hybrid_allocator_sliding_groups_gpt_oss():
    # 18 full + 18 sliding layers: groups of 18 layers, 2 groups; a block is one 16-token page
    # (8 KV heads × 128 × 2 B = 2048 B a token a layer → 32768 B) in each of 18 tensors = 589824 B.
    # 10 GiB → 18204 blocks; up to 0.20.0 the log's tokens = blocks // groups × 16 = 145632. From
    # 0.20.1 it logs int(max_concurrency × max_model_len): a request holds 512 full blocks and
    # cdiv(min(128 − 1 + 8192, 8192), 16) + 1 = 513 sliding ones → 18204 / 1025 × 8192 = 145489.
    from resolvable.vllm.memory import capacity

    def tokens(version: str | None) -> int:
        rep = capacity(
            {"kv_cache_memory_bytes": 10 * 2**30, "block_size": 16, "max_model_len": 8192},
            load_model("gpt-oss-120b"),
            device_name="NVIDIA H200",
            memory_gib=141,
            version=version,
        )
        assert rep.inputs["kv_cache_groups"] == 2 and rep.inputs["num_gpu_blocks"] == 18_204
        return rep.kv_tokens

    assert tokens("0.20.0") == tokens("0.19.1") == 145_632
    assert tokens("0.20.1") == tokens(None) == 145_489


def test_vllm_mamba_page_alignment_qwen3_next():
    # GDN state per layer (bf16): conv 24576 + recurrent 524288 elements = 1097728 B; the attention
    # page per token per layer is 2 KV heads × 512 × 2 B = 2048 B, so the block grows to
    # 16 × ceil(1097728 / (16 × 2048)) = 544 tokens (vLLM logs the same 544 for Qwen3-Next).
    from resolvable.vllm.memory import capacity

    rep = capacity(
        {"kv_cache_memory_bytes": 40 * 2**30, "block_size": 16, "max_model_len": 32768},
        load_model("qwen3-next-80b-a3b"),
        device_name="NVIDIA H200",
        memory_gib=141,
    )
    assert rep.inputs["block_size"] == 544  # the aligned block, not the flag
    assert rep.state_bytes_per_request == 36 * 1_097_728
    # the latest releases log int(max_concurrency × max_model_len): a request holds
    # cdiv(32768, 544) = 61 blocks in the full group and one in each of the 3 linear groups
    blocks = rep.inputs["num_gpu_blocks"]
    assert rep.kv_tokens == int(blocks / (61 + 3) * 32768)
    old = capacity(
        {"kv_cache_memory_bytes": 40 * 2**30, "block_size": 16, "max_model_len": 32768},
        load_model("qwen3-next-80b-a3b"),
        device_name="NVIDIA H200",
        memory_gib=141,
        version="0.20.0",
    )
    assert old.kv_tokens == blocks // 4 * 544  # up to 0.20.0: num_blocks // groups × block
