"""`check-log`: every corpus log gives the launch and the comparison, or a one-line reason; the
readers find what each engine prints (tests/memory/corpus quotes the log lines with their source)."""

from __future__ import annotations

import json

import pytest
from corpus_eval import _hf, _platform, entries, vllm_version

from resolvable.cli import main
from resolvable.startup_log import check_log, literal_args, read_log


@pytest.mark.parametrize("entry", entries(), ids=lambda e: e["id"])
def test_every_corpus_log_is_checked_or_gives_a_one_line_reason(entry, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # a log's model that is not bundled: no network here
    text = "\n".join([entry["command"], *entry["log"]])  # the launch command pasted above the log
    release = vllm_version(entry) if entry["engine"] == "vllm" else None
    result = check_log(
        text, engine=entry["engine"], hf=_hf(entry), platform=_platform(entry), release=release
    )
    if result.reason is not None:
        assert "\n" not in result.reason and result.reason
        return
    assert result.engine == entry["engine"] and result.report is not None
    names = {r.name for r in result.rows}
    obs = entry["observed"]
    # what the corpus says the quoted lines state is what the reader found
    if "kv_tokens" in obs and any("GPU KV cache size" in x or "#tokens" in x for x in entry["log"]):
        assert result.facts.kv_tokens == obs["kv_tokens"], entry["id"]
        assert "KV tokens" in names
    if "weights_gib" in obs and any("Model loading took" in x for x in entry["log"]):
        assert result.facts.weights_gib == pytest.approx(obs["weights_gib"]), entry["id"]
    if "available_kv_gib" in obs and any("Available KV cache memory" in x for x in entry["log"]):
        assert result.facts.available_kv_gib == pytest.approx(obs["available_kv_gib"]), entry["id"]
    assert json.loads(json.dumps(result.to_dict(), default=repr))["schema"] == "resolvable.check-log/1"


SGLANG_LOG = """\
[2025-03-29 18:12:40] server_args=ServerArgs(model_path='/llm/model/google/gemma-3-27b-it-int4-awq/', tokenizer_mode='auto', dtype='auto', kv_cache_dtype='auto', quantization=None, context_length=4096, mem_fraction_static=0.88, max_running_requests=None, chunked_prefill_size=2048, page_size=1, tp_size=1, attention_backend=None, json_model_override_args='{}')
[2025-03-29 18:13:10 TP0] Load weight end. type=Gemma3ForConditionalGeneration, dtype=torch.bfloat16, avail mem=5.95 GB, mem usage=17.54 GB.
[2025-03-29 18:13:10 TP0] RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.
"""


def test_sglang_reader_takes_server_args_weights_and_the_refusal():
    """The line shapes of sglang issue 4895 (server_args, Load weight end, the refusal); the
    figures in this fixture are illustrative, the reader is what is tested."""
    facts = read_log(SGLANG_LOG)
    assert facts.engine == "sglang" and facts.model == "/llm/model/google/gemma-3-27b-it-int4-awq/"
    assert facts.flags["context_length"] == 4096 and facts.flags["tp_size"] == 1
    assert facts.flags["json_model_override_args"] == "{}" and "quantization" not in facts.flags
    assert facts.mem_fraction_static == 0.88 and facts.weights_gib == 17.54
    assert facts.outcome == "refused" and "Not enough memory" in facts.outcome_line
    # the model path is not on this machine: a one-line reason naming the fix
    result = check_log(SGLANG_LOG)
    assert "--model-config gemma-3-27b" in result.reason and "\n" not in result.reason


def test_literal_args_keeps_nested_values_and_strings_with_commas():
    got = literal_args("a='x, y', b=[1, 2], c={'k': (3, 4)}, d=None, e=torch.bfloat16")
    assert got == {"a": "x, y", "b": [1, 2], "c": {"k": (3, 4)}, "d": None, "e": "torch.bfloat16"}


def test_cli_check_log_text_json_and_errors(tmp_path, capsys):
    log = tmp_path / "vllm.log"
    log.write_text(
        "INFO vLLM API server version 0.11.0\n"
        "INFO non-default args: {'model': 'meta-llama/Llama-3.1-8B-Instruct', 'max_model_len': 16000}\n"
        "INFO Model loading took 14.99 GiB and 5.1 seconds\n"
        "INFO GPU KV cache size: 100 tokens\n"
    )
    code = main(["check-log", str(log), "--model-config", "llama-3.1-8b", "--platform", "h100"])
    out = capsys.readouterr().out
    assert code == 1 and "KV tokens" in out and "weights GiB/rank" in out  # 100 tokens diverges
    code = main(["check-log", str(log), "--config", "llama-3.1-8b", "--platform", "h100", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and data["diverged"] == ["KV tokens"] and data["facts"]["version"] == "0.11.0"
    code = main(["check-log", str(tmp_path / "missing.log")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: check-log ") and err.count("\n") == 1
    (tmp_path / "other.log").write_text("hello\n")
    code = main(["check-log", str(tmp_path / "other.log")])
    assert code == 2 and "no engine recognises this log" in capsys.readouterr().err


def test_vllm_reader_takes_the_smallest_rank_the_v0_lines_and_the_banner_version():
    """Each rank prints its KV budget and vLLM sizes the cache on the smallest (the line shapes of
    DaisukeTakai/eval_dataset vllm_judge.log, 0.10.0 on 8 H100s); V0 prints the weights and the
    budget in other words (0.6: vllm#10517, 0.7: daxdelvira/distributed_agent_gc); 0.15+ print
    the version in the banner. The figures are the logs'; the reader is what is tested."""
    v1 = (
        "(APIServer pid=1) INFO 06-18 09:16:00 [utils.py:344]  \u2584\u2584 \u2584\u2588 \u2588  version 0.22.1\n"
        "(VllmWorker rank=0 pid=775158) INFO 08-16 02:14:35 [gpu_worker.py:255] Available KV cache memory: 35.74 GiB\n"
        "(VllmWorker rank=6 pid=775164) INFO 08-16 02:14:35 [gpu_worker.py:255] Available KV cache memory: 35.65 GiB\n"
        "(VllmWorker rank=7 pid=775165) INFO 08-16 02:14:35 [gpu_worker.py:255] Available KV cache memory: 36.12 GiB\n"
    )
    facts = read_log(v1)
    assert facts.version == "0.22.1" and facts.available_kv_gib == 35.65
    assert "rank=6" in facts.lines["available_kv_gib"]
    v06 = (
        "INFO 11-18 17:10:46 api_server.py:585] vLLM API server version 0.6.4.post1\n"
        "INFO 11-18 17:11:00 model_runner.py:1077] Loading model weights took 7.5122 GB\n"
        "INFO worker.py:232] Memory profiling results: total_gpu_memory=44.42GiB initial_memory_usage=8.19GiB "
        "peak_torch_memory=8.70GiB memory_usage_post_profile=8.26GiB non_torch_memory=0.73GiB "
        "kv_cache_size=30.55GiB gpu_memory_utilization=0.90\n"
    )
    facts = read_log(v06)
    assert facts.weights_gib == 7.5122 and facts.available_kv_gib == 30.55
    v07 = (
        "INFO 04-18 14:12:51 api_server.py:840] vLLM API server version 0.7.2\n"
        "INFO 04-18 14:21:23 worker.py:267] model weights take 13.93GiB; non_torch_memory takes 1.54GiB; "
        "PyTorch activation peak memory takes 2.84GiB; the rest of the memory reserved for KV Cache is 17.24GiB.\n"
    )
    facts = read_log(v07)
    assert facts.weights_gib == 13.93 and facts.available_kv_gib == 17.24


def test_vllm_reader_takes_v0s_refusal_and_its_token_capacity():
    """V0 refuses a context longer than the cache with the capacity in tokens (QwenLM/Qwen3#16:
    Qwen1.5-7B-Chat-GPTQ-Int4 on an RTX 3090, Feb 2024)."""
    log = (
        "python -m vllm.entrypoints.openai.api_server --model qwen/Qwen1.5-7B-Chat-GPTQ-Int4 --quantization gptq\n"
        "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be "
        "stored in KV cache (24320). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
        "initializing the engine.\n"
    )
    facts = read_log(log)
    assert facts.outcome == "refused" and facts.kv_tokens == 24320
    assert facts.flags["quantization"] == "gptq"


def test_a_utf16_log_is_read(tmp_path, capsys):
    """PowerShell's redirect writes UTF-16 LE with a byte-order mark and CR LF (h27f:
    Kartikeya2046/Invoice-Processor_VLM vllm_log.txt); the file was 'no engine recognises this
    log' before. The lines are that log's shapes; the reader is what is tested."""
    from resolvable.startup_log import decode_log

    text = (
        "(APIServer pid=1) INFO 06-17 11:25:22 [api_utils.py:339] vLLM version 0.23.0\r\n"
        "(APIServer pid=1) INFO 06-17 11:25:22 [api_utils.py:273] non-default args: {'model': "
        "'Qwen/Qwen2.5-VL-3B-Instruct-AWQ', 'max_model_len': 4096, 'gpu_memory_utilization': 0.7}\r\n"
        "(EngineCore pid=208) INFO 06-17 11:28:53 [gpu_model_runner.py:5187] Model loading took 3.32 GiB "
        "memory and 119.535175 seconds\r\n"
    )
    data = b"\xff\xfe" + text.encode("utf-16-le")
    assert decode_log(data) == text.replace("\r\n", "\n")
    assert decode_log(text.encode("utf-16-le")) == decode_log(data)  # no mark: NUL every other byte
    assert decode_log(b"\xef\xbb\xbfa\r\nb\rc") == "a\nb\nc"
    log = tmp_path / "vllm_log.txt"
    log.write_bytes(data)
    code = main(["check-log", str(log), "--config", "qwen3-8b"])
    err = capsys.readouterr().err
    assert code == 2 and "names no GPU" in err and "no engine recognises" not in err
    facts = read_log(decode_log(data))
    assert facts.version == "0.23.0" and facts.weights_gib == 3.32
    assert facts.flags["gpu_memory_utilization"] == 0.7


def test_vllm_reader_keeps_the_flags_beside_lora_modules_and_skips_the_prefetch_block_size():
    """With --lora-modules the non-default args hold a constructor repr (LoRAModulePath(…)), not a
    literal: the whole dict was dropped, so the utilization fell back to 0.9; vLLM 0.22's
    checkpoint prefetch prints 'block_size=16777216 bytes', read as the KV block size (h27f:
    trietnguyeminh/Submission---EXACT--IJCNN vllm_server.log and download.txt, 0.22 on 2x T4)."""
    log = (
        "(APIServer pid=228) INFO 06-13 20:05:05 [utils.py:278] non-default args: {'lora_modules': "
        "[LoRAModulePath(name='qwen3-8b-exact-type1', path='/kaggle/input/x', base_model_name=None, "
        "is_3d_lora_weight=False)], 'model': '/kaggle/input/models/qwen-lm/qwen-3/transformers/8b/1', "
        "'dtype': 'float16', 'max_model_len': 4096, 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.85}\n"
        "(Worker_TP1 pid=301) INFO 06-13 20:05:56 [weight_utils.py:884] Prefetching checkpoint files into "
        "page cache started (in background, num_threads=8, block_size=16777216 bytes)\n"
        "(Worker_TP0 pid=300) INFO 06-13 20:06:37 [model_runner.py:295] Model loading took 7.7 GiB and 42.37 seconds\n"
    )
    facts = read_log(log)
    assert facts.flags["gpu_memory_utilization"] == 0.85 and facts.flags["tensor_parallel_size"] == 2
    assert facts.model == "/kaggle/input/models/qwen-lm/qwen-3/transformers/8b/1"
    assert facts.block_size is None
    assert read_log(log + "INFO [cuda.py:1] Setting attention block size to 64 tokens\n").block_size == 64


def test_tesla_device_names_are_read_and_matched_to_their_preset():
    """Torch names the T4 and the V100 'Tesla …': vLLM quotes it in its bf16 fallback warning
    (h27f: mobambas/Agentic-Healthcare-Maps vllm_server.log, 0.19.1 on a T4)."""
    from resolvable.startup_log import _platform_for

    log = (
        "(APIServer pid=42624) INFO 04-26 12:03:17 [utils.py:233] non-default args: {'model': "
        "'Qwen/Qwen2.5-7B-Instruct', 'max_model_len': 4096, 'gpu_memory_utilization': 0.85}\n"
        "(APIServer pid=42624) WARNING 04-26 12:03:38 [model.py:1963] Your device 'Tesla T4' (with compute "
        "capability 7.5) doesn't support torch.bfloat16. Falling back to torch.float16 for compatibility.\n"
    )
    facts = read_log(log)
    assert facts.device_name == "Tesla T4"
    assert _platform_for(facts, None).device_name == "Tesla T4"  # the t4 preset, not the h100 fallback
    v100 = read_log(log.replace("Tesla T4", "Tesla V100-SXM2-32GB"))
    assert v100.device_name == "Tesla V100-SXM2-32GB" and _platform_for(v100, None).device_name != "Tesla T4"


def test_vllm_reader_takes_the_device_from_the_fused_moe_config_path():
    """A MoE launch that names its GPU nowhere else: the tuning file vLLM looks for carries the
    device name (h27f: Zzsf11/VideoCuttingAgent vllm_serve.log, 0.12 on 2x H100)."""
    from resolvable.startup_log import _platform_for

    log = (
        "(Worker_TP0 pid=1182678) WARNING 01-13 02:22:23 [fused_moe.py:888] Using default MoE config. "
        "Performance might be sub-optimal! Config file not found at ['/x/vllm/model_executor/layers/"
        "fused_moe/configs/E=128,N=384,device_name=NVIDIA_H100_80GB_HBM3.json']\n"
        "(Worker_TP0 pid=1182678) INFO 01-13 02:22:24 [gpu_worker.py:359] Available KV cache memory: 37.23 GiB\n"
    )
    facts = read_log(log)
    assert facts.device_name == "NVIDIA H100 80GB HBM3"
    assert "H100" in _platform_for(facts, None).device_name
    assert _platform_for(read_log(log.splitlines()[1]), None) is None  # without it: no GPU


def test_vllm_reader_takes_the_smallest_rank_token_count_like_the_kv_memory():
    """0.10 prints 'GPU KV cache size' once per worker; the engine runs with the smallest, the
    same rank as the smallest 'Available KV cache memory' (h27f: DaisukeTakai/eval_dataset
    vllm.log at 6c41693, Qwen3-32B TP 4)."""
    log = (
        "INFO 08-07 11:12:30 [gpu_worker.py:255] Available KV cache memory: 52.21 GiB\n"
        "INFO 08-07 11:12:30 [gpu_worker.py:255] Available KV cache memory: 52.11 GiB\n"
        "INFO 08-07 11:12:30 [kv_cache_utils.py:833] GPU KV cache size: 855,344 tokens\n"
        "INFO 08-07 11:12:30 [kv_cache_utils.py:833] GPU KV cache size: 853,808 tokens\n"
        "INFO 08-07 11:12:31 [kv_cache_utils.py:833] GPU KV cache size: 861,488 tokens\n"
    )
    facts = read_log(log)
    assert facts.kv_tokens == 853_808 and facts.available_kv_gib == 52.11
    assert "853,808" in facts.lines["kv_tokens"]
