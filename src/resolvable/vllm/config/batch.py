"""``max_num_batched_tokens`` and ``max_num_seqs`` (vllm-config-spec.md §3.5).

``EngineArgs.get_batch_defaults`` (``engine/arg_utils.py`` 2940): a table keyed by the usage
context and the device (total memory, name, GB10), ``_set_default_max_num_seqs_and_batched_tokens_args``
(3151) and ``SchedulerConfig.verify_max_model_len`` (``config/scheduler.py`` 317). Invariants: the
device facts come from the platform (``memory_gib``, ``device_name``, ``capability``); an unknown
memory counts as 0 (the small tier), as when vLLM's query fails.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import Fix
from .._base import registry
from ..changes import CHANGES
from .caching import engine_args_chunked_prefill, scheduler_encoder_decoder
from .facts import GIB, device_memory_bytes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: ``SchedulerConfig.DEFAULT_MAX_NUM_BATCHED_TOKENS`` / ``DEFAULT_MAX_NUM_SEQS`` (other contexts).
DEFAULT_TOKENS, DEFAULT_SEQS = 2048, 128
#: ``SchedulerConfig.DEFAULT_MAX_NUM_BATCHED_TOKENS_FOR_BATCHED_DP``.
BATCHED_DP_TOKENS = 256
#: (tier, {usage context: (tokens, seqs)}) in the order ``get_batch_defaults`` tests them.
TIERS = {
    "large": {"LLM_CLASS": (16384, 1024), "OPENAI_API_SERVER": (16384, 1024)},
    "mid": {"LLM_CLASS": (16384, 1024), "OPENAI_API_SERVER": (8192, 1024)},
    "small": {"LLM_CLASS": (8192, 256), "OPENAI_API_SERVER": (2048, 256)},
}


def device_tier(platform: Any, gb10_small: bool = True, large_tier: bool = True) -> str:
    """``get_batch_defaults``: memory >= 160 GiB → large (0.28+, ``large_tier``); >= 70 GiB without
    "a100" in the name and not GB10 (cc 12.1, 0.33+) → mid; else small."""
    memory = device_memory_bytes(platform)
    name = str(platform.device_name or "").lower()
    gb10 = gb10_small and platform.vendor == "cuda" and tuple(platform.capability or ()) == (12, 1)
    if large_tier and memory >= 160 * GIB:
        return "large"
    if memory >= 70 * GIB and "a100" not in name and not gb10:
        return "mid"
    return "small"


def batch_defaults(
    platform: Any, usage: str, world_size: int, gb10_small: bool = True, large_tier: bool = True
) -> tuple[int, int]:
    """(tokens, seqs) of the table for this device and usage context; CPU: 4096·ws / 256·ws
    (LLM class) and 2048·ws / 128·ws (API server)."""
    if platform.vendor == "cpu":
        table = {
            "LLM_CLASS": (4096 * world_size, 256 * world_size),
            "OPENAI_API_SERVER": (2048 * world_size, 128 * world_size),
        }
    else:
        table = TIERS[device_tier(platform, gb10_small, large_tier)]
    return table.get(usage, (DEFAULT_TOKENS, DEFAULT_SEQS))


@registry.rule("engine_args")
def batch_limits(ctx: Any) -> dict[str, Any]:
    """§3.5: unset limits take the table value (256 tokens for batched DP MoE: DeepEP low-latency or
    NIXL-EP all2all with EP and DP > 1); ``--performance-mode throughput`` doubles them; without
    chunked prefill the token budget rises to ``max_model_len``; then it is capped at
    ``max_num_seqs × max_model_len`` and ``max_num_seqs`` at the token budget."""
    a = ctx.args
    tokens, seqs = batch_defaults(
        ctx.platform,
        a.usage_context,
        a.pipeline_parallel_size * a.tensor_parallel_size,
        ctx.release.has(CHANGES.GB10_SMALL_BATCH_TIER),
        ctx.release.has(CHANGES.BATCH_DEFAULTS_160GIB_TIER),
    )
    user_tokens, user_seqs = a.max_num_batched_tokens, a.max_num_seqs
    batched_dp = (
        a.all2all_backend in ("deepep_low_latency", "nixl_ep")
        and a.enable_expert_parallel
        and a.data_parallel_size > 1
    )
    if batched_dp:
        tokens = BATCHED_DP_TOKENS
    if a.performance_mode == "throughput":
        tokens, seqs = tokens * 2, seqs * 2
    if user_tokens is not None:
        tokens = user_tokens
    if user_seqs is not None:
        seqs = user_seqs
    if user_tokens is None:
        chunked = a.enable_chunked_prefill
        if not chunked and scheduler_encoder_decoder(ctx):
            # the budget was sized before SchedulerConfig switched chunked prefill off (dev
            # 7003:367: Whisper under --convert embed keeps 16384 and is refused below 32768)
            chunked = engine_args_chunked_prefill(ctx)
        if not chunked:
            tokens = max(a.max_model_len, tokens)
        tokens = min(seqs * a.max_model_len, tokens)
    if user_seqs is None:
        seqs = min(seqs, tokens)
    out = {}
    if tokens != user_tokens:
        out["max_num_batched_tokens"] = tokens
    if seqs != user_seqs:
        out["max_num_seqs"] = seqs
    return out


@registry.rule("engine_args")
def verify_max_model_len(ctx: Any) -> dict[str, Any]:
    """§3.5: ``SchedulerConfig.verify_max_model_len`` (``config/scheduler.py`` 317): without chunked
    prefill the token budget must hold ``max_model_len``; it must hold ``max_num_seqs``."""
    a = ctx.args
    tokens, seqs, length = a.max_num_batched_tokens, a.max_num_seqs, a.max_model_len
    if tokens < length and not a.enable_chunked_prefill:
        raise ConflictError(
            f"max_num_batched_tokens ({tokens}) is smaller than max_model_len ({length}). This "
            "effectively limits the maximum sequence length to max_num_batched_tokens and makes vLLM "
            "reject longer sequences. Please increase max_num_batched_tokens or decrease max_model_len.",
            fields=("max_num_batched_tokens", "max_model_len"),
            fix=Fix.any_of(
                Fix(set={"max_num_batched_tokens": length}),
                Fix(drop=("max_num_batched_tokens",)),
                text=f"pass --max-num-batched-tokens {length} (or drop --max-num-batched-tokens)",
            ),
        )
    if tokens < seqs:
        raise ConflictError(
            f"max_num_batched_tokens ({tokens}) must be greater than or equal to max_num_seqs ({seqs}).",
            fields=("max_num_batched_tokens", "max_num_seqs"),
            fix=Fix(set={"max_num_seqs": tokens}, note="(or a larger --max-num-batched-tokens)"),
        )
    return {}


@registry.rule("vllm_config")
def max_num_scheduled_tokens(ctx: Any) -> dict[str, Any]:
    """§3.16: ``VllmConfig._set_max_num_scheduled_tokens`` (``config/vllm.py`` 2341): with speculative
    decoding it defaults to ``max_num_batched_tokens`` (without, it stays None); with speculative
    decoding the budget must exceed the lookahead slots ("VllmConfig does not have enough slots …").
    Before ``CHANGES.SCHEDULED_TOKENS_FULL_BUDGET`` (0.27.1) the default is the budget less
    ``max_num_seqs`` × ``SpeculativeConfig.max_num_new_slots_for_drafting`` (K-1 for parallel
    drafting — DFlash, DSpark or ``parallel_drafting`` — plus 1 for a draft model), refused when
    that leaves no token."""
    a = ctx.args
    out = {}
    if a.speculative_method is not None and not ctx.release.has(CHANGES.SCHEDULED_TOKENS_FULL_BUDGET):
        return _scheduled_tokens_less_drafting_slots(ctx)
    if a.max_num_scheduled_tokens is None and a.speculative_method is not None:
        out["max_num_scheduled_tokens"] = a.max_num_batched_tokens  # None without speculative decoding
    if a.num_speculative_tokens and a.max_num_batched_tokens <= a.num_speculative_tokens:
        raise ConflictError(
            "VllmConfig does not have enough slots to schedule a token and support the speculative "
            "decoding settings.",
            fields=("max_num_batched_tokens",),
            fix="pass a larger --max-num-batched-tokens",
        )
    return out


def _scheduled_tokens_less_drafting_slots(ctx: Any) -> dict[str, Any]:
    """0.27.1's ``_set_max_num_scheduled_tokens``: the budget less the drafting slots of every
    sequence (see ``max_num_scheduled_tokens``)."""
    from .speculative import parse_speculative_config

    a = ctx.args
    k = int(a.num_speculative_tokens or 0)
    spec = parse_speculative_config(a.speculative_config) or {}
    parallel = a.speculative_method in ("dflash", "dspark") or bool(spec.get("parallel_drafting"))
    slots = (k - 1 if parallel else 0) + (1 if a.speculative_method == "draft_model" else 0)
    delta = slots * a.max_num_seqs
    tokens = a.max_num_batched_tokens
    scheduled = a.max_num_scheduled_tokens
    out: dict[str, Any] = {}
    if scheduled is None:
        scheduled = tokens - delta
        out["max_num_scheduled_tokens"] = scheduled
    if scheduled <= 0:
        raise ConflictError(
            f"max_num_scheduled_tokens is set to {scheduled} based on the speculative decoding settings, "
            "which does not allow any tokens to be scheduled. Increase max_num_batched_tokens to "
            "accommodate the additional draft token slots, or decrease num_speculative_tokens or "
            "max_num_seqs.",
            fields=("max_num_batched_tokens", "max_num_seqs"),
            fix=Fix(set={"max_num_batched_tokens": delta + 1}, note="(or a smaller --max-num-seqs)"),
        )
    if tokens < scheduled + delta:
        raise ConflictError(
            "VllmConfig received max_num_scheduled_tokens but it does not have enough slots to support "
            f"the speculative decoding settings. It should be greater by at least {delta}, but got "
            f"max_num_batched_tokens={tokens} and max_num_scheduled_tokens={scheduled}.",
            fields=("max_num_batched_tokens", "max_num_scheduled_tokens"),
            fix=Fix(set={"max_num_batched_tokens": scheduled + delta}),
        )
    return out
