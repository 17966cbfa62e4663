"""vLLM's start-up log, read for ``resolvable check-log`` (the pack's half of
``resolvable.startup_log``).

What vLLM prints (0.2–0.34 logs): ``vLLM API server version V`` / ``Initializing a V1 LLM engine
(vV) with config: model='…', …``, ``non-default args: {…}``, ``Model loading took X GiB``,
``Available KV cache memory: X GiB``, ``GPU KV cache size: N tokens`` (V0: ``# GPU blocks: B``),
``Maximum concurrency for L tokens per request: Cx``, ``Graph capturing finished in S secs, took
X GiB``, ``Using … backend``, ``Free memory on device (F/T GiB) on startup``, and the failures
("To serve at least one request…", V0's "The model's max seq len (L) is larger than the maximum
number of tokens that can be stored in KV cache (N)", "No available memory for the cache blocks",
"max_num_seqs (N) exceeds available Mamba cache blocks", torch's "CUDA out of memory"). The sampler
line ("Using FlashInfer for top-p & top-k sampling." / "FlashInfer is not available…") becomes
the ``flashinfer_sampler`` value: it sets the sampler's share of the profiled peak.

V0 logs print the weights as ``Loading model weights took X GB`` (0.4–0.6) or ``model weights
take X GiB`` (0.7) and the KV budget as ``kv_cache_size=X GiB`` (0.6) or ``the rest of the memory
reserved for KV Cache is X GiB`` (0.7); 0.15+ print the version in the start-up banner
(``… version 0.17.0``). Each rank prints its own KV budget and ``determine_available_memory``'s
caller sizes the cache on the smallest, so the smallest figure is the one read.

Invariants: standard library only; a fact the log does not state stays None.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from ..startup_log import DEVICE_NAME, LineRecorder, LogFacts, command_flags, first, literal_args, outcome_of

__all__ = ["launch", "read", "recognises", "used_bytes"]

_NUM = r"(-?[0-9]+(?:\.[0-9]+)?)"


def recognises(text: str) -> bool:
    return bool(
        re.search(
            r"vLLM API server version|LLM engine \(v|non-default args:|Available KV cache memory|GPU KV cache size|"
            r"# GPU blocks:|EngineCore|vllm serve|vllm\.entrypoints|tokens that can be stored in KV cache",
            text,
        )
    )


#: engine-config names → ``vllm.memory.capacity`` keys
_CONFIG_KEYS = {
    "tensor_parallel_size": "tensor_parallel_size",
    "pipeline_parallel_size": "pipeline_parallel_size",
    "data_parallel_size": "data_parallel_size",
    "max_seq_len": "max_model_len",
    "kv_cache_dtype": "kv_cache_dtype",
    "quantization": "quantization",
    "enforce_eager": "enforce_eager",
    "dtype": "dtype",
}
_FLAG_KEYS = (
    "tensor_parallel_size",
    "pipeline_parallel_size",
    "data_parallel_size",
    "enable_expert_parallel",
    "gpu_memory_utilization",
    "kv_cache_dtype",
    "block_size",
    "max_model_len",
    "max_num_batched_tokens",
    "max_num_seqs",
    "dtype",
    "quantization",
    "kv_cache_memory_bytes",
    "enforce_eager",
    "mamba_ssm_cache_dtype",
)


def least(pattern: str, text: str, number: Any = float) -> re.Match[str] | None:
    """The match of ``pattern`` whose first group is the smallest number (one line per rank)."""
    found = list(re.finditer(pattern, text))
    return min(found, key=lambda m: number(m.group(1))) if found else None


#: A constructor's repr in the non-default args ("'lora_modules': [LoRAModulePath(name='x',
#: path='…', base_model_name=None)]", vLLM with --lora-modules: h27f's Kaggle and verl logs) is
#: not a Python literal; without this the whole dict was dropped, and with it the launch's
#: --gpu-memory-utilization (the check then ran at the 0.9 default).
_CALL = re.compile(r"\b[A-Za-z_][\w.]*\((?:[^()'\"]|'[^']*'|\"[^\"]*\")*\)")


def _args_dict(src: str) -> Any:
    """The ``non-default args: {…}`` dict, each constructor repr in it read as None ({}: none)."""
    for _ in range(8):
        try:
            return ast.literal_eval(src)
        except (ValueError, SyntaxError):
            stripped = _CALL.sub("None", src)
            if stripped == src:
                return {}
            src = stripped
    return {}


def read(text: str) -> LogFacts:
    log = LineRecorder(text)
    take = log.take

    model, flags = command_flags(
        text,
        ("vllm serve", "vllm.entrypoints.openai.api_server"),
        {"tp": "tensor_parallel_size", "pp": "pipeline_parallel_size", "dp": "data_parallel_size"},
    )
    m = take("config", first(r"with config: (model=.*)", text))
    if m:
        cfg = literal_args(m.group(1))
        model = cfg.get("model") if isinstance(cfg.get("model"), str) else None
        for src, dst in _CONFIG_KEYS.items():
            value = cfg.get(src)
            if value is not None and not (isinstance(value, str) and value.startswith("torch.")):
                flags[dst] = value
            elif isinstance(value, str) and value.startswith("torch."):
                flags[dst] = value.removeprefix("torch.")
    m = take("non_default_args", first(r"non-default args: (\{.*\})", text))
    if m:
        parsed = _args_dict(m.group(1))
        if isinstance(parsed, dict):
            model = parsed.get("model", model) if isinstance(parsed.get("model", model), str) else model
            flags.update({k: v for k, v in parsed.items() if k in _FLAG_KEYS})
    for k in list(flags):
        if k not in _FLAG_KEYS or flags[k] is None or (flags[k] == "auto" and k != "kv_cache_dtype"):
            flags.pop(k, None)
    # which top-k/top-p sampler the profile run took (v1/sample/ops/topk_topp_sampler.py): it sets
    # the sampler's share of the profiled peak (vllm.memory.flashinfer_sampler)
    if take("sampler", first(r"Using FlashInfer for top-p & top-k sampling", text)):
        flags["flashinfer_sampler"] = True
    elif take("sampler", first(r"FlashInfer is (?:not available|available, but it is not enabled)", text)):
        flags["flashinfer_sampler"] = False
    version = log.value(
        "version",
        first(
            r"(?:vLLM API server version|LLM engine \(v|vLLM version:?|\][\s\u2580-\u259f]+version)"
            r"\s*v?(\d+\.\d+(?:\.\d+)?[\w.+]*)",
            text,
        ),
        str,
    )
    weights = log.value(
        "weights_gib",
        first(
            r"(?:Model loading took|Loading model weights took|model weights take) "
            + _NUM
            + r"\s*(?:GiB|GB)",
            text,
        ),
        float,
    )
    # every rank prints its own figure and the cache is sized on the smallest (V1: "Available KV
    # cache memory"; V0 0.6: "kv_cache_size=", 0.7: "the rest of the memory reserved for KV Cache is")
    avail = log.value(
        "available_kv_gib",
        least(
            r"(?:Available KV cache memory: |kv_cache_size=|the rest of the memory reserved for KV Cache is )"
            + _NUM
            + r"\s*GiB",
            text,
        ),
        float,
    )
    block = log.value(
        "block_size",
        # not the checkpoint prefetch's read size ("… page cache started (…, block_size=16777216
        # bytes)", weight_utils.py from 0.22: h27f's Kaggle download.txt read it as 16M tokens)
        first(
            r"(?:Setting attention block size to|block_size=|block size:?)\s*([0-9]+)(?![0-9]|\s*bytes)", text
        ),
        int,
    )
    kv = log.value(
        # one line per worker in 0.10 (h27f: DaisukeTakai/eval_dataset vllm.log, 4 ranks print
        # 853,808-861,488): the smallest, as for the KV memory (the engine runs with the least)
        "kv_tokens",
        least(r"GPU KV cache size: ([0-9,]+) tokens", text, lambda v: int(v.replace(",", ""))),
        lambda v: int(v.replace(",", "")),
    )
    if kv is None:
        m = take("kv_tokens", first(r"# GPU blocks: ([0-9]+)", text))
        if m:
            kv = int(m.group(1)) * (block or int(flags.get("block_size") or 16))
        else:  # V0's refusal states the capacity in tokens
            kv = log.value(
                "kv_tokens", first(r"tokens that can be stored in KV cache \(([0-9]+)\)", text), int
            )
    conc = log.value(
        "max_concurrency",
        first(r"Maximum concurrency for [0-9,]+ tokens per request: " + _NUM + r"x", text),
        float,
    )
    graph_gib = log.value(
        "cuda_graph_gib",
        first(r"Graph capturing finished in [0-9.]+ secs?, took " + _NUM + r"\s*GiB", text),
        float,
    )
    backend = log.value(
        "backend",
        first(r"Using (?:AttentionBackendEnum\.)?([A-Z][A-Z0-9_]+) (?:attention )?backend", text),
        str,
    )
    total = log.value(
        "device_total_gib",
        first(r"Free memory on device \(?[^()]*?\(?" + _NUM + r"/" + _NUM + r" GiB\)", text),
        float,
        group=2,
    )
    # the free memory of the start-up snapshot (Worker.init_device, after the CUDA context and
    # NCCL): what other processes leave; the launch does not state it (issue 27, vllm-s4-hyouin)
    start_free = log.value(
        "pre_load_free_gib",
        first(r"Free memory on device \(?[^()]*?\(?" + _NUM + r"/" + _NUM + r" GiB\)", text),
        float,
    )
    if total is None:
        total = log.value("device_total_gib", first(r"total capacity of " + _NUM + r"\s*GiB", text), float)
    device = log.value("device_name", first(DEVICE_NAME, text), str.strip)
    if device is None:  # the fused-MoE tuning file vLLM looks for is named after the device:
        # "Config file not found at [.../E=128,N=384,device_name=NVIDIA_H100_80GB_HBM3.json]"
        # (h27f: Zzsf11/VideoCuttingAgent vllm_serve.log, Qwen3-VL-30B-A3B, 0.12)
        device = log.value(
            "device_name",
            first(r"device_name=((?:NVIDIA|AMD_Instinct)_[A-Za-z0-9_-]+?)(?:,|\.json)", text),
            lambda name: name.replace("_", " "),
        )
    outcome, oline = outcome_of(
        text,
        (
            ("out-of-memory", r"OutOfMemoryError|CUDA out of memory"),
            (
                "refused",
                r"To serve at least one request|No available memory for the cache blocks|exceeds available Mamba cache|"
                r"is larger than the maximum number of tokens that can be stored in KV cache|"
                r"is less than desired GPU memory utilization|Available KV cache memory: -",
            ),
            (
                "starts",
                r"Application startup complete|Starting vLLM API server|GPU KV cache size|# GPU blocks",
            ),
        ),
    )
    return LogFacts(
        engine="vllm",
        version=version,
        model=model,
        device_name=device,
        device_total_gib=total,
        flags=flags,
        weights_gib=weights,
        kv_tokens=kv,
        available_kv_gib=avail,
        max_concurrency=conc,
        block_size=block,
        backend=backend,
        cuda_graph_gib=graph_gib,
        pre_load_free_gib=start_free,
        outcome=outcome,
        outcome_line=oline,
        lines=log.lines,
    )


def launch(
    facts: LogFacts, hf: Any, platform: Any, release: str | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(values for ``vllm.memory.capacity``, its keyword arguments) rebuilt from the log."""
    values = dict(facts.flags)
    if facts.block_size and "block_size" not in values:
        values["block_size"] = facts.block_size
    used = used_bytes(
        facts, values, getattr(platform, "device_name", None), getattr(platform, "memory_gib", None)
    )
    if used and "used_bytes" not in values:
        values["used_bytes"] = used
    version = release
    if version is None and facts.version:
        m = re.match(r"(\d+)\.(\d+)", facts.version)
        version = f"{m.group(1)}.{m.group(2)}" if m else None
    return values, {"version": version}


def used_bytes(
    facts: LogFacts, values: dict[str, Any], device_name: str | None, memory_gib: float | None
) -> float:
    """Memory other processes held at start-up, from the logged ``Free memory on device (F/T GiB)``
    (``Worker.init_device``'s snapshot, vLLM 0.10+): the device total the memory model uses for
    ``device_name``/``memory_gib`` less ``F`` and less the CUDA context and communication buffers
    the model counts itself (``device_memory.context_overhead``), so the model's free memory at
    start-up is the logged one; 0.0 when the log does not state it. What ``--used-gib`` says for
    a launch, read from the log (issue 27: vllm-s4-hyouin)."""
    from ..device_memory import context_overhead, device_total_bytes

    total = device_total_bytes(device_name, memory_gib or facts.device_total_gib)
    if facts.pre_load_free_gib is None or not total:
        return 0.0
    world = int(values.get("tensor_parallel_size") or 1) * int(values.get("pipeline_parallel_size") or 1)
    return max(0.0, total - facts.pre_load_free_gib * (1 << 30) - context_overhead(world).value)
