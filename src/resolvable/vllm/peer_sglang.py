"""The translation table between ``vllm serve`` flags (side a) and SGLang server flags (side b).

Each rule is one equivalence, with the two engines' sources it rests on: vLLM's
``vllm/engine/arg_utils.py : EngineArgs`` (the flag) and the config class that reads it
(vllm-config-spec.md), SGLang's ``sglang/srt/server_args.py : ServerArgs`` (the flag and its
``add_cli_args`` help; sglang-attention-spec.md §2). Facts only; no upstream text is copied.

Invariants:

* a flag whose meaning differs between the engines is not equated: the memory knobs
  (``--gpu-memory-utilization``: a share of the whole device, weights and activations included;
  ``--mem-fraction-static``: the static pool, weights + KV cache) are listed in ``IGNORED_*``
  with the reason, and ``resolvable compare --same-memory-budget`` derives a matched budget
  from the memory model instead (``resolvable.compare``);
* a value with no equivalent raises ``NoEquivalent`` (named in the output), never guessed;
* every flag a rule writes exists in every modelled release of the target engine
  (tests/cli/test_translate.py checks each rule against each release pair's flag tables).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..translate import NoEquivalent, Parsed, Row, Rule, Table

__all__ = ["ENV", "TABLE"]


def _v(p: Parsed) -> Any:
    return p.value


def _int_text(text: Any) -> str:
    """vLLM's human-readable integers (``8k`` = 8000, ``8K`` = 8192) as plain digits, which
    both engines read (``vllm/engine/arg_utils.py : human_readable_int``)."""
    s = str(text).strip()
    units = {"k": 1000, "m": 1000**2, "g": 1000**3, "K": 1024, "M": 1024**2, "G": 1024**3}
    if s and s[-1] in units:
        try:
            return str(int(float(s[:-1]) * units[s[-1]]))
        except ValueError:
            raise NoEquivalent(f"{s!r} is not a number") from None
    return s


def _same(
    name: str, a: str, b: str, a_opt: str, b_opt: str, cite: str, *, numeric: bool = False, doc: str = ""
) -> Rule:
    """A flag that means the same in both engines, its value copied (integers normalised)."""

    def conv(p: Parsed, opt: str) -> list[str]:
        if p.value is True:
            return [opt]
        if p.value is False:
            return []
        return [opt, _int_text(p.value) if numeric else str(p.value)]

    return Rule(
        name,
        (a,),
        (b,),
        lambda f, t, ctx: (conv(f[a], b_opt), ""),
        lambda f, t, ctx: (conv(f[b], a_opt), ""),
        cite,
        doc,
    )


def _mapped(
    name: str,
    a: str,
    b: str,
    a_opt: str,
    b_opt: str,
    a_to_b: Mapping[str, str],
    b_to_a: Mapping[str, str],
    cite: str,
) -> Rule:
    """A flag whose value names differ: each direction maps the value through its own table; a
    value outside the table has no equivalent."""

    def conv(value: Any, table: Mapping[str, str], opt: str, other: str) -> list[str]:
        out = table.get(str(value))
        if out is None:
            raise NoEquivalent(f"{value!r} has no {other} equivalent (known: {', '.join(sorted(table))})")
        return [opt, out]

    return Rule(
        name,
        (a,),
        (b,),
        lambda f, t, ctx: (conv(f[a].value, a_to_b, b_opt, "SGLang"), ""),
        lambda f, t, ctx: (conv(f[b].value, b_to_a, a_opt, "vLLM"), ""),
        cite,
    )


# -- the rules ---------------------------------------------------------------------------------

TP = _same(
    "tensor parallel size",
    "tensor_parallel_size",
    "tp_size",
    "--tensor-parallel-size",
    "--tp-size",
    "vLLM ParallelConfig.tensor_parallel_size (arg_utils.py); SGLang ServerArgs.tp_size",
    numeric=True,
)
PP = _same(
    "pipeline parallel size",
    "pipeline_parallel_size",
    "pp_size",
    "--pipeline-parallel-size",
    "--pp-size",
    "vLLM ParallelConfig.pipeline_parallel_size; SGLang ServerArgs.pp_size",
    numeric=True,
)
DP = _same(
    "data parallel size",
    "data_parallel_size",
    "dp_size",
    "--data-parallel-size",
    "--dp-size",
    "vLLM ParallelConfig.data_parallel_size; SGLang ServerArgs.dp_size (data-parallel replicas)",
    numeric=True,
)


def _ep_to_sglang(f: Mapping[str, Parsed], t: Any, ctx: Mapping[str, Parsed]) -> tuple[list[str], str]:
    """vLLM's ``--enable-expert-parallel`` shards experts over TP × DP ranks
    (``vllm/config/parallel.py : ParallelConfig``, FusedMoEParallelConfig); SGLang takes the
    expert-parallel size itself (``ServerArgs.ep_size``), which we set to the TP size."""
    if not f["enable_expert_parallel"].value:
        return [], "expert parallelism off (SGLang's default, ep_size 1)"
    tp = ctx.get("tensor_parallel_size")
    size = _int_text(tp.value) if tp is not None else "1"
    return [
        "--ep-size",
        size,
    ], "SGLang's expert-parallel group spans the tensor-parallel ranks (ep_size = tp_size)"


def _ep_to_vllm(f: Mapping[str, Parsed], t: Any, ctx: Mapping[str, Parsed]) -> tuple[list[str], str]:
    """SGLang's ``--ep-size N`` (N > 1) is vLLM's ``--enable-expert-parallel`` (vLLM derives
    the size from TP × DP)."""
    if _int_text(f["ep_size"].value) in ("1", "0"):
        return [], "ep_size 1: expert parallelism off"
    return ["--enable-expert-parallel"], "vLLM sizes expert parallelism from TP × DP itself"


EP = Rule(
    "expert parallelism",
    ("enable_expert_parallel",),
    ("ep_size",),
    _ep_to_sglang,
    _ep_to_vllm,
    "vLLM ParallelConfig.enable_expert_parallel; SGLang ServerArgs.ep_size (sglang-attention-spec.md §2.2 MoE)",
)

CONTEXT = _same(
    "context length",
    "max_model_len",
    "context_length",
    "--max-model-len",
    "--context-length",
    "vLLM ModelConfig.max_model_len; SGLang ServerArgs.context_length (both cap the model's derived length)",
    numeric=True,
)

#: vLLM ``CacheDType`` (vllm/config/cache.py) ↔ SGLang ``--kv-cache-dtype`` choices. vLLM's
#: bare ``fp8`` is E4M3 on CUDA (vllm-config-spec.md, CacheConfig).
KV_DTYPE = _mapped(
    "KV-cache dtype",
    "kv_cache_dtype",
    "kv_cache_dtype",
    "--kv-cache-dtype",
    "--kv-cache-dtype",
    {
        "auto": "auto",
        "fp8": "fp8_e4m3",
        "fp8_e4m3": "fp8_e4m3",
        "fp8_e5m2": "fp8_e5m2",
        "bfloat16": "bfloat16",
    },
    {
        "auto": "auto",
        "fp8_e4m3": "fp8_e4m3",
        "fp8_e5m2": "fp8_e5m2",
        "bf16": "bfloat16",
        "bfloat16": "bfloat16",
    },
    "vLLM CacheConfig.cache_dtype; SGLang ServerArgs.kv_cache_dtype",
)

MAX_SEQS = _same(
    "concurrent requests",
    "max_num_seqs",
    "max_running_requests",
    "--max-num-seqs",
    "--max-running-requests",
    "vLLM SchedulerConfig.max_num_seqs; SGLang ServerArgs.max_running_requests (requests batched at once)",
    numeric=True,
)


def _chunk_to_sglang(f: Mapping[str, Parsed], t: Any, ctx: Mapping[str, Parsed]) -> tuple[list[str], str]:
    """vLLM's per-step token budget (``SchedulerConfig.max_num_batched_tokens``) is what bounds a
    prefill chunk; SGLang's ``--chunked-prefill-size`` is that chunk (-1: chunking off).
    ``--no-enable-chunked-prefill`` is SGLang's ``--chunked-prefill-size -1``."""
    on = f.get("enable_chunked_prefill")
    if on is not None and on.value is False:
        return ["--chunked-prefill-size", "-1"], "chunked prefill off"
    tokens = f.get("max_num_batched_tokens")
    if tokens is None:
        return [], "chunked prefill on: SGLang's default chunk size"
    return [
        "--chunked-prefill-size",
        _int_text(tokens.value),
    ], "vLLM's token budget per step as SGLang's chunk"


def _chunk_to_vllm(f: Mapping[str, Parsed], t: Any, ctx: Mapping[str, Parsed]) -> tuple[list[str], str]:
    size = int(_int_text(f["chunked_prefill_size"].value))
    if size <= 0:
        return ["--no-enable-chunked-prefill"], "chunked prefill off"
    return ["--max-num-batched-tokens", str(size)], "SGLang's chunk as vLLM's token budget per step"


CHUNKED = Rule(
    "chunked prefill",
    ("enable_chunked_prefill", "max_num_batched_tokens"),
    ("chunked_prefill_size",),
    _chunk_to_sglang,
    _chunk_to_vllm,
    "vLLM SchedulerConfig.enable_chunked_prefill / max_num_batched_tokens; SGLang ServerArgs.chunked_prefill_size",
)

#: vLLM ``SpeculativeConfig.method`` ↔ SGLang ``--speculative-algorithm`` (SGLang's MTP draft
#: heads run under EAGLE, ``NEXTN`` being its alias; vllm-config-spec.md, sglang spec §2.2 step 22).
SPEC_METHODS = {
    "eagle": "EAGLE",
    "eagle3": "EAGLE3",
    "ngram": "NGRAM",
    "mtp": "EAGLE",
    "deepseek_mtp": "EAGLE",
}
SPEC_METHODS_BACK = {"EAGLE": "eagle", "EAGLE3": "eagle3", "NGRAM": "ngram", "NEXTN": "mtp"}


def _spec_to_sglang(f: Mapping[str, Parsed], t: Any, ctx: Mapping[str, Parsed]) -> tuple[list[str], str]:
    """``--speculative-config {"method", "model", "num_speculative_tokens"}`` → SGLang's
    algorithm, draft model, steps (= tokens) and draft tokens (= tokens + 1, one chain, topk 1)."""
    raw = f["speculative_config"].value
    try:
        spec = json.loads(raw) if isinstance(raw, str) else dict(raw)
    except (ValueError, TypeError):
        raise NoEquivalent(f"{raw!r} is not a JSON object") from None
    method = str(spec.get("method") or "").lower()
    algo = SPEC_METHODS.get(method)
    if algo is None:
        raise NoEquivalent(
            f"method {method or '(none)'!r} has no SGLang algorithm (known: {', '.join(SPEC_METHODS)})"
        )
    out = ["--speculative-algorithm", algo]
    if spec.get("model"):
        out += ["--speculative-draft-model-path", str(spec["model"])]
    n = spec.get("num_speculative_tokens")
    if n is not None:
        out += [
            "--speculative-num-steps",
            str(n),
            "--speculative-eagle-topk",
            "1",
            "--speculative-num-draft-tokens",
            str(int(n) + 1),
        ]
    return out, "one draft chain (topk 1): draft tokens = steps + 1"


def _spec_to_vllm(f: Mapping[str, Parsed], t: Any, ctx: Mapping[str, Parsed]) -> tuple[list[str], str]:
    algo = str(f["speculative_algorithm"].value).upper()
    method = SPEC_METHODS_BACK.get(algo)
    if method is None:
        raise NoEquivalent(f"algorithm {algo!r} has no vLLM method (known: {', '.join(SPEC_METHODS_BACK)})")
    spec: dict[str, Any] = {"method": method}
    if "speculative_draft_model_path" in f:
        spec["model"] = f["speculative_draft_model_path"].value
    if "speculative_num_steps" in f:
        spec["num_speculative_tokens"] = int(f["speculative_num_steps"].value)
    elif "speculative_num_draft_tokens" in f:
        spec["num_speculative_tokens"] = max(1, int(f["speculative_num_draft_tokens"].value) - 1)
    note = "vLLM drafts one chain"
    if "speculative_eagle_topk" in f and str(f["speculative_eagle_topk"].value) != "1":
        note += f" (SGLang's topk {f['speculative_eagle_topk'].value} has no vLLM equivalent)"
    return ["--speculative-config", json.dumps(spec, separators=(",", ":"))], note


SPECULATIVE = Rule(
    "speculative decoding",
    ("speculative_config",),
    (
        "speculative_algorithm",
        "speculative_draft_model_path",
        "speculative_num_steps",
        "speculative_num_draft_tokens",
        "speculative_eagle_topk",
    ),
    _spec_to_sglang,
    _spec_to_vllm,
    "vLLM SpeculativeConfig (method, model, num_speculative_tokens); SGLang ServerArgs.speculative_* (spec §2.2 step 22)",
)


def _quant(to: str):
    """Quantization method names: the same name in both engines where both implement it
    (fp8, awq, gptq, compressed-tensors, modelopt, mxfp4, …). A name the target release's
    ``--quantization`` choices lack has no equivalent (vLLM's table lists no choices: any
    name SGLang gives is passed through and vLLM's own check answers)."""

    def write(f: Mapping[str, Parsed], t: Any, ctx: Mapping[str, Parsed]) -> tuple[list[str], str]:
        value = str(f["quantization"].value)
        flag = t.by_option.get("--quantization")
        choices = getattr(flag, "choices", None)
        if choices and value not in choices:
            raise NoEquivalent(f"{value!r} is not a {to} {t.release} quantization method")
        return ["--quantization", value], ""

    return write


QUANT = Rule(
    "quantization",
    ("quantization",),
    ("quantization",),
    _quant("SGLang"),
    _quant("vLLM"),
    "vLLM ModelConfig.quantization (QuantizationMethods); SGLang ServerArgs.quantization (QUANTIZATION_CHOICES)",
)
TRUST = _same(
    "trust remote code",
    "trust_remote_code",
    "trust_remote_code",
    "--trust-remote-code",
    "--trust-remote-code",
    "vLLM ModelConfig.trust_remote_code; SGLang ServerArgs.trust_remote_code",
)
SERVED = _same(
    "served model name",
    "served_model_name",
    "served_model_name",
    "--served-model-name",
    "--served-model-name",
    "vLLM ModelConfig.served_model_name; SGLang ServerArgs.served_model_name",
)


def _switch(name: str, a: str, b: str, a_opt: str, b_opt: str, cite: str, *, inverse: bool) -> Rule:
    """A switch of one engine that is (the inverse of) a switch of the other. vLLM's are
    boolean-optional (``--x`` / ``--no-x``); SGLang's are store_true (only ``--x``)."""

    def to_b(f: Mapping[str, Parsed], t: Any, ctx: Mapping[str, Parsed]) -> tuple[list[str], str]:
        on = bool(f[a].value)
        return ([b_opt] if on != inverse else []), ""

    def to_a(f: Mapping[str, Parsed], t: Any, ctx: Mapping[str, Parsed]) -> tuple[list[str], str]:
        on = bool(f[b].value)
        if on != inverse:
            return [a_opt], ""
        return ["--no-" + a_opt[2:]], ""

    return Rule(name, (a,), (b,), to_b, to_a, cite)


EAGER = _switch(
    "CUDA graphs off",
    "enforce_eager",
    "disable_cuda_graph",
    "--enforce-eager",
    "--disable-cuda-graph",
    "vLLM ModelConfig.enforce_eager (cudagraph_mode NONE); SGLang ServerArgs.disable_cuda_graph",
    inverse=False,
)
PREFIX = _switch(
    "prefix caching",
    "enable_prefix_caching",
    "disable_radix_cache",
    "--enable-prefix-caching",
    "--disable-radix-cache",
    "vLLM CacheConfig.enable_prefix_caching; SGLang ServerArgs.disable_radix_cache (the radix tree is SGLang's prefix cache)",
    inverse=True,
)
DTYPE = _same(
    "dtype",
    "dtype",
    "dtype",
    "--dtype",
    "--dtype",
    "vLLM ModelConfig.dtype; SGLang ServerArgs.dtype (the same names: auto, half, float16, bfloat16, float, float32)",
)
BLOCK = _same(
    "KV page size",
    "block_size",
    "page_size",
    "--block-size",
    "--page-size",
    "vLLM CacheConfig.block_size (tokens per KV block); SGLang ServerArgs.page_size (tokens per KV page)",
    numeric=True,
)

#: vLLM ``AttentionBackendEnum`` names ↔ SGLang ``--attention-backend`` names of the same kernel.
ATTN_TO_SGLANG = {
    "FLASH_ATTN": "fa3",
    "FLASHINFER": "flashinfer",
    "TRITON_ATTN": "triton",
    "FLASHMLA": "flashmla",
    "FLASHINFER_MLA": "trtllm_mla",
    "FLEX_ATTENTION": "flex_attention",
    "TORCH_SDPA": "torch_native",
    "ROCM_AITER_FA": "aiter",
}
ATTN_TO_VLLM = {
    "fa3": "FLASH_ATTN",
    "fa4": "FLASH_ATTN",
    "flashinfer": "FLASHINFER",
    "triton": "TRITON_ATTN",
    "flashmla": "FLASHMLA",
    "trtllm_mla": "FLASHINFER_MLA",
    "flex_attention": "FLEX_ATTENTION",
    "aiter": "ROCM_AITER_FA",
}
ATTENTION = _mapped(
    "attention backend",
    "attention_backend",
    "attention_backend",
    "--attention-backend",
    "--attention-backend",
    ATTN_TO_SGLANG,
    ATTN_TO_VLLM,
    "vLLM AttentionConfig.backend (AttentionBackendEnum); SGLang ServerArgs.attention_backend (spec §7)",
)
SEED = _same(
    "random seed",
    "seed",
    "random_seed",
    "--seed",
    "--random-seed",
    "vLLM ModelConfig.seed; SGLang ServerArgs.random_seed",
    numeric=True,
)
HOST = _same("host", "host", "host", "--host", "--host", "vLLM frontend --host; SGLang ServerArgs.host")
PORT = _same(
    "port", "port", "port", "--port", "--port", "vLLM frontend --port; SGLang ServerArgs.port", numeric=True
)
TOKENIZER = _same(
    "tokenizer",
    "tokenizer",
    "tokenizer_path",
    "--tokenizer",
    "--tokenizer-path",
    "vLLM ModelConfig.tokenizer; SGLang ServerArgs.tokenizer_path",
)
REVISION = _same(
    "revision",
    "revision",
    "revision",
    "--revision",
    "--revision",
    "vLLM ModelConfig.revision; SGLang ServerArgs.revision",
)
DOWNLOAD = _same(
    "download directory",
    "download_dir",
    "download_dir",
    "--download-dir",
    "--download-dir",
    "vLLM LoadConfig.download_dir; SGLang ServerArgs.download_dir",
)

#: vLLM ``--reasoning-parser`` names (``vllm/reasoning/__init__.py`` registry) ↔ SGLang's
#: (``sglang/srt/parser/reasoning_parser.py : ReasoningParser.DetectorMap``) for the same format.
REASONING_TO_SGLANG = {
    "deepseek_r1": "deepseek-r1",
    "deepseek_v3": "deepseek-v3",
    "qwen3": "qwen3",
    "glm45": "glm45",
    "openai_gptoss": "gpt-oss",
    "kimi_k2": "kimi_k2",
    "mistral": "mistral",
    "step3": "step3",
    "minimax_m2": "minimax",
    "minimax_m2_append_think": "minimax-append-think",
}
#: vLLM ``--tool-call-parser`` names (``vllm/entrypoints/openai/tool_parsers``) ↔ SGLang's
#: (``sglang/srt/function_call/function_call_parser.py : FunctionCallParser.ToolCallParserEnum``).
TOOL_TO_SGLANG = {
    "hermes": "hermes",
    "mistral": "mistral",
    "llama3_json": "llama3",
    "pythonic": "pythonic",
    "deepseek_v3": "deepseekv3",
    "deepseek_v31": "deepseekv31",
    "deepseek_v32": "deepseekv32",
    "kimi_k2": "kimi_k2",
    "qwen3_coder": "qwen3_coder",
    "glm45": "glm45",
    "glm47": "glm47",
    "minimax_m2": "minimax-m2",
    "openai": "gpt-oss",
    "step3": "step3",
}


def _named(value: Any, table: Mapping[str, str], option: str, t: Any, engine: str) -> list[str]:
    """A parser name through ``table``; a name the table or the target release lacks is named."""
    out = table.get(str(value))
    if out is None:
        raise NoEquivalent(
            f"{value!r} has no {engine} parser of the same format (known: {', '.join(sorted(table))})"
        )
    choices = getattr(t.by_option.get(option), "choices", None)
    if choices and out not in choices:
        raise NoEquivalent(f"{engine} {t.release} has no {option} {out}")
    return [option, out]


REASONING = Rule(
    "reasoning parser",
    ("reasoning_parser",),
    ("reasoning_parser",),
    lambda f, t, ctx: (
        _named(f["reasoning_parser"].value, REASONING_TO_SGLANG, "--reasoning-parser", t, "SGLang"),
        "",
    ),
    lambda f, t, ctx: (
        _named(
            f["reasoning_parser"].value,
            {v: k for k, v in REASONING_TO_SGLANG.items()},
            "--reasoning-parser",
            t,
            "vLLM",
        ),
        "",
    ),
    "vLLM frontend --reasoning-parser (ReasoningParserManager); SGLang ServerArgs.reasoning_parser",
)


def _tools_to_sglang(f: Mapping[str, Parsed], t: Any, ctx: Mapping[str, Parsed]) -> tuple[list[str], str]:
    """vLLM turns tool calls on with ``--enable-auto-tool-choice`` and names the format with
    ``--tool-call-parser``; SGLang needs only the parser (``ServerArgs.tool_call_parser``)."""
    parser = f.get("tool_call_parser")
    if parser is None:
        return [], "SGLang turns tool calls on with --tool-call-parser alone; none was given"
    return _named(parser.value, TOOL_TO_SGLANG, "--tool-call-parser", t, "SGLang"), ""


def _tools_to_vllm(f: Mapping[str, Parsed], t: Any, ctx: Mapping[str, Parsed]) -> tuple[list[str], str]:
    back = {v: k for k, v in TOOL_TO_SGLANG.items()}
    words = _named(f["tool_call_parser"].value, back, "--tool-call-parser", t, "vLLM")
    return ["--enable-auto-tool-choice", *words], "vLLM also needs --enable-auto-tool-choice"


TOOLS = Rule(
    "tool calls",
    ("enable_auto_tool_choice", "tool_call_parser"),
    ("tool_call_parser",),
    _tools_to_sglang,
    _tools_to_vllm,
    "vLLM frontend --enable-auto-tool-choice / --tool-call-parser (ToolParserManager); SGLang ServerArgs.tool_call_parser",
)
TOKENIZER_MODE = _mapped(
    "tokenizer mode",
    "tokenizer_mode",
    "tokenizer_mode",
    "--tokenizer-mode",
    "--tokenizer-mode",
    {"auto": "auto", "slow": "slow"},
    {"auto": "auto", "slow": "slow"},
    "vLLM ModelConfig.tokenizer_mode; SGLang ServerArgs.tokenizer_mode (auto, slow)",
)
NNODES = _same(
    "nodes",
    "nnodes",
    "nnodes",
    "--nnodes",
    "--nnodes",
    "vLLM ParallelConfig.nnodes; SGLang ServerArgs.nnodes",
    numeric=True,
)
NODE_RANK = _same(
    "node rank",
    "node_rank",
    "node_rank",
    "--node-rank",
    "--node-rank",
    "vLLM ParallelConfig.node_rank; SGLang ServerArgs.node_rank",
    numeric=True,
)

RULES = (
    TP,
    PP,
    DP,
    EP,
    CONTEXT,
    KV_DTYPE,
    MAX_SEQS,
    CHUNKED,
    SPECULATIVE,
    QUANT,
    TRUST,
    SERVED,
    EAGER,
    PREFIX,
    DTYPE,
    BLOCK,
    ATTENTION,
    SEED,
    HOST,
    PORT,
    TOKENIZER,
    REVISION,
    DOWNLOAD,
    REASONING,
    TOOLS,
    TOKENIZER_MODE,
    NNODES,
    NODE_RANK,
)

_MEMORY = (
    "not equated: vLLM's share of the whole device (weights, activations, KV) is not SGLang's static "
    "pool (weights + KV); each engine keeps its default (--same-memory-budget matches the KV budget)"
)

#: Environment variables: vLLM's name → SGLang's, for the ones with an equivalent. Variables of
#: neither engine (HF_*, CUDA_*, NCCL_*) carry over unchanged (``NEUTRAL_ENV_PREFIXES``).
ENV = {
    # vllm/envs.py VLLM_ALLOW_LONG_MAX_MODEL_LEN; sglang ServerArgs / model_config.py
    # SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN: both let --max-model-len / --context-length
    # exceed the model's derived maximum.
    "VLLM_ALLOW_LONG_MAX_MODEL_LEN": "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN",
}
NEUTRAL_ENV_PREFIXES = (
    "HF_",
    "HUGGING_FACE_",
    "CUDA_",
    "NCCL_",
    "TRANSFORMERS_",
    "PYTORCH_",
    "TORCH_",
    "OMP_",
)
#: The memory knob of each side (the flag ``--same-memory-budget`` sets).
MEMORY_KNOBS = {
    "vllm": ("gpu_memory_utilization", "--gpu-memory-utilization"),
    "sglang": ("mem_fraction_static", "--mem-fraction-static"),
}


# -- the comparison rows (resolvable compare): what each side resolved, in one vocabulary ---------


def _on(value: Any) -> str:
    return "on" if value else "off"


def _vllm_attention(v: Mapping[str, Any]) -> str:
    kinds = [(k[len("attn_backend_") :], v[k]) for k in sorted(v) if k.startswith("attn_backend_") and v[k]]
    return ", ".join(f"{kind}: {name}" for kind, name in kinds) or "(none selected)"


def _sglang_attention(v: Mapping[str, Any]) -> str:
    text = str(v.get("attention_backend"))
    extra = [(k, v.get(f"{k}_attention_backend")) for k in ("prefill", "decode")]
    parts = [f"{k}: {b}" for k, b in extra if b and b != v.get("attention_backend")]
    return text + (f" ({', '.join(parts)})" if parts else "")


def _vllm_graphs(v: Mapping[str, Any]) -> str:
    mode = v.get("cudagraph_mode")
    if v.get("enforce_eager") or mode in (None, "NONE"):
        return "off (eager)"
    sizes = v.get("cudagraph_capture_sizes") or []
    span = f", {len(sizes)} sizes up to {max(sizes)}" if sizes else ""
    return f"{mode}{span}"


def _sglang_graphs(v: Mapping[str, Any]) -> str:
    if v.get("disable_cuda_graph"):
        return "off (eager)"
    parts = []
    for phase in ("decode", "prefill"):
        if v.get(f"disable_{phase}_cuda_graph"):
            parts.append(f"{phase}: off")
        elif v.get(f"cuda_graph_backend_{phase}"):
            parts.append(f"{phase}: {v[f'cuda_graph_backend_{phase}']}")
    return ", ".join(parts) or "on"


def _vllm_chunked(v: Mapping[str, Any]) -> Any:
    return v.get("max_num_batched_tokens") if v.get("enable_chunked_prefill") else "off"


def _sglang_chunked(v: Mapping[str, Any]) -> Any:
    size = v.get("chunked_prefill_size")
    return "off" if size is None or size <= 0 else size


ROWS = (
    Row(
        "attention backend",
        tuple(f"attn_backend_{k}" for k in ("full", "sliding_window", "mla", "indexer", "encoder", "cross")),
        ("attention_backend", "prefill_attention_backend", "decode_attention_backend"),
        _vllm_attention,
        _sglang_attention,
        lambda v: ATTN_TO_SGLANG.get(v.get("attn_backend_full") or v.get("attn_backend_mla") or "", "?"),
        lambda v: "fa3" if v.get("attention_backend") == "fa4" else v.get("attention_backend"),
    ),
    Row(
        "KV page size",
        ("block_size",),
        ("page_size",),
        lambda v: str(v.get("block_size")),
        lambda v: str(v.get("page_size")),
        lambda v: v.get("block_size"),
        lambda v: v.get("page_size"),
    ),
    Row(
        "KV-cache dtype",
        ("kv_cache_dtype",),
        ("kv_cache_dtype",),
        lambda v: str(v.get("kv_cache_dtype")),
        lambda v: str(v.get("kv_cache_dtype")),
        lambda v: KV_CANON.get(str(v.get("kv_cache_dtype")), v.get("kv_cache_dtype")),
        lambda v: KV_CANON.get(str(v.get("kv_cache_dtype")), v.get("kv_cache_dtype")),
    ),
    Row(
        "concurrent requests",
        ("max_num_seqs",),
        ("max_running_requests",),
        lambda v: str(v.get("max_num_seqs")),
        lambda v: (
            "auto (from the KV pool)"
            if v.get("max_running_requests") is None
            else str(v["max_running_requests"])
        ),
        lambda v: v.get("max_num_seqs"),
        lambda v: v.get("max_running_requests"),
    ),
    Row(
        "CUDA graphs",
        ("cudagraph_mode", "cudagraph_capture_sizes", "enforce_eager"),
        ("disable_cuda_graph", "cuda_graph_backend_decode", "cuda_graph_backend_prefill"),
        _vllm_graphs,
        _sglang_graphs,
        lambda v: _vllm_graphs(v) != "off (eager)",
        lambda v: not v.get("disable_cuda_graph"),
    ),
    Row(
        "chunked prefill",
        ("enable_chunked_prefill", "max_num_batched_tokens"),
        ("chunked_prefill_size",),
        lambda v: str(_vllm_chunked(v)),
        lambda v: str(_sglang_chunked(v)),
        _vllm_chunked,
        _sglang_chunked,
    ),
    Row(
        "prefix caching",
        ("enable_prefix_caching",),
        ("disable_radix_cache",),
        lambda v: _on(v.get("enable_prefix_caching")),
        lambda v: _on(not v.get("disable_radix_cache")) + " (radix cache)",
        lambda v: bool(v.get("enable_prefix_caching")),
        lambda v: not v.get("disable_radix_cache"),
    ),
    Row(
        "overlap / async scheduling",
        ("async_scheduling",),
        ("disable_overlap_schedule",),
        lambda v: _on(v.get("async_scheduling")),
        lambda v: _on(not v.get("disable_overlap_schedule")),
        lambda v: bool(v.get("async_scheduling")),
        lambda v: not v.get("disable_overlap_schedule"),
    ),
    Row(
        "MoE runner",
        ("enable_expert_parallel", "all2all_backend"),
        ("moe_runner_backend", "moe_a2a_backend", "ep_size"),
        lambda v: (
            "expert parallel" + (f", all2all {v['all2all_backend']}" if v.get("all2all_backend") else "")
            if v.get("enable_expert_parallel")
            else "tensor parallel (runner chosen at load; not modelled)"
        ),
        lambda v: f"{v.get('moe_runner_backend')}, a2a {v.get('moe_a2a_backend')}, ep {v.get('ep_size')}",
        lambda v: bool(v.get("enable_expert_parallel")),
        lambda v: (v.get("ep_size") or 1) > 1,
    ),
)

#: KV dtypes in one vocabulary (vLLM's bare fp8 is E4M3 on CUDA).
KV_CANON = {"fp8": "fp8_e4m3", "bf16": "bfloat16"}

TABLE = Table(
    "vllm",
    "sglang",
    RULES,
    ignored_a={"gpu_memory_utilization": _MEMORY, "model": "the model is given once, as MODEL"},
    ignored_b={"mem_fraction_static": _MEMORY, "model_path": "the model is given once, as MODEL"},
    rows=ROWS,
    env=ENV,
    neutral_env=NEUTRAL_ENV_PREFIXES,
    memory_knobs=MEMORY_KNOBS,
    model_dests={"vllm": "model", "sglang": "model_path"},
)
