"""Model configs operators serve that the bundled samples lack (pooling, rerankers, GPT-2,
encoder-decoder, bitsandbytes), for the ``operators`` generator kind (``generate.py``).

Each entry is the published ``config.json`` of the named Hugging Face repository (main branch),
reduced to the keys vLLM's configuration reads; the repository is the source.
"""

from __future__ import annotations

OPERATOR_MODELS: dict[str, dict] = {
    # https://huggingface.co/openai-community/gpt2/blob/main/config.json
    "gpt2": {
        "architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "vocab_size": 50257,
        "n_positions": 1024, "n_ctx": 1024, "n_embd": 768, "n_layer": 12, "n_head": 12,
        "activation_function": "gelu_new", "layer_norm_epsilon": 1e-05, "bos_token_id": 50256,
        "eos_token_id": 50256,
    },
    # https://huggingface.co/BAAI/bge-reranker-v2-m3/blob/main/config.json
    "bge-reranker-v2-m3": {
        "architectures": ["XLMRobertaForSequenceClassification"], "model_type": "xlm-roberta",
        "hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16,
        "intermediate_size": 4096, "hidden_act": "gelu", "max_position_embeddings": 8194,
        "type_vocab_size": 1, "vocab_size": 250002, "layer_norm_eps": 1e-05, "pad_token_id": 1,
        "bos_token_id": 0, "eos_token_id": 2, "position_embedding_type": "absolute",
        "id2label": {"0": "LABEL_0"}, "label2id": {"LABEL_0": 0}, "torch_dtype": "float32",
    },
    # https://huggingface.co/BAAI/bge-m3/blob/main/config.json
    "bge-m3": {
        "architectures": ["XLMRobertaModel"], "model_type": "xlm-roberta", "hidden_size": 1024,
        "num_hidden_layers": 24, "num_attention_heads": 16, "intermediate_size": 4096,
        "hidden_act": "gelu", "max_position_embeddings": 8194, "type_vocab_size": 1,
        "vocab_size": 250002, "layer_norm_eps": 1e-05, "pad_token_id": 1, "bos_token_id": 0,
        "eos_token_id": 2, "position_embedding_type": "absolute", "torch_dtype": "float32",
    },
    # https://huggingface.co/Qwen/Qwen3-Embedding-0.6B/blob/main/config.json
    "qwen3-embedding-0.6b": {
        "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 1024,
        "intermediate_size": 3072, "num_hidden_layers": 28, "num_attention_heads": 16,
        "num_key_value_heads": 8, "head_dim": 128, "max_position_embeddings": 32768,
        "rope_theta": 1000000, "rms_norm_eps": 1e-06, "vocab_size": 151669, "hidden_act": "silu",
        "tie_word_embeddings": True, "use_sliding_window": False, "sliding_window": None,
        "max_window_layers": 28, "attention_bias": False, "torch_dtype": "bfloat16",
    },
    # https://huggingface.co/Qwen/Qwen2.5-Math-RM-72B/blob/main/config.json (reward model)
    "qwen2.5-math-rm-72b": {
        "architectures": ["Qwen2ForRewardModel"], "model_type": "qwen2", "hidden_size": 8192,
        "intermediate_size": 29568, "num_hidden_layers": 80, "num_attention_heads": 64,
        "num_key_value_heads": 8, "max_position_embeddings": 4096, "rope_theta": 1000000.0,
        "rms_norm_eps": 1e-06, "vocab_size": 152064, "hidden_act": "silu", "use_sliding_window": False,
        "sliding_window": 4096, "max_window_layers": 80, "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
    },
    # https://huggingface.co/unsloth/llama-3-8b-bnb-4bit/blob/main/config.json
    "llama-3-8b-bnb-4bit": {
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
        "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
        "num_key_value_heads": 8, "max_position_embeddings": 8192, "rope_theta": 500000.0,
        "rms_norm_eps": 1e-05, "vocab_size": 128256, "hidden_act": "silu", "torch_dtype": "bfloat16",
        "quantization_config": {
            "quant_method": "bitsandbytes", "load_in_4bit": True, "load_in_8bit": False,
            "bnb_4bit_compute_dtype": "bfloat16", "bnb_4bit_quant_type": "nf4",
            "bnb_4bit_use_double_quant": True, "llm_int8_threshold": 6.0,
        },
    },
}  # fmt: skip
