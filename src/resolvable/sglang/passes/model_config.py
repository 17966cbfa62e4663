"""What sglang refuses while it loads and builds the model config, before ``_verify_quantization``.

Invariant: these rules only refuse (nothing is written), in sglang's order: the config class's
own validation (the config does not load), then ``ModelConfig._derive_context_length``. They
are rules, not load errors, so a bundled sample sglang cannot load still resolves to an
explained refusal.
"""

from __future__ import annotations

from ...errors import ConflictError
from ...rules import ArchList, Fix
from .._base import registry
from ..facts import MLA_ARCHS_SINCE, env_flag

#: ``utils/hf_transformers/common.py`` ``CONTEXT_LENGTH_KEYS``, in the order sglang tries them.
CONTEXT_LENGTH_KEYS = (
    "max_sequence_length",
    "seq_length",
    "max_seq_len",
    "model_max_length",
    "max_position_embeddings",
)


def derived_context_length(hf) -> int:
    """``get_context_length(hf_text_config)``: the first length key, times the RoPE scaling factor
    (1 with ``original_max_position_embeddings`` or llama3 scaling); 2048 when none is set."""
    text = hf.text_config
    rope = text.get("rope_scaling")
    factor = 1
    if rope and hasattr(rope, "get"):
        factor = rope.get("factor", 1)
        if "original_max_position_embeddings" in rope or rope.get("rope_type") == "llama3":
            factor = 1
    for key in CONTEXT_LENGTH_KEYS:
        value = text.get(key)
        if value is not None:
            return int(factor * value)
    return 2048


#: The model types of the bundled samples that sglang 0.5.9's config loader does not know:
#: neither transformers 4.57.1 (the pin of the 0.5.5-0.5.9 wheels) nor sglang's own
#: ``utils/hf_transformers_utils._CONFIG_REGISTRY`` registers them (0.5.10 pins transformers
#: 5.3.0). The oracle loads such a config as a generic ``PretrainedConfig`` (tools/agreement,
#: "oracle approximation"); the two rules below are what that generic config then trips over.
#: (Real sglang 0.5.9 stops earlier, in ``AutoConfig``, with "model type ... not recognized",
#: unless ``--trust-remote-code`` finds the checkpoint's own class.)
GENERIC_BEFORE_TRANSFORMERS_5 = frozenset(
    {
        "deepseek_v32",
        "deepseek_v4",
        "gemma4",
        "glm_moe_dsa",
        "hrm_text",
        "kimi_k2",
        "llada2_moe",
        "mimo_v2_flash",
        "minicpmv",
        "minimax_m2",
        "moss_vl",
        "sdar",
    }
)

#: ``configs/model_config.ModelConfig._derive_model_shapes`` (0.5.9): the architectures of the
#: MLA branch, which reads ``hf_text_config.rope_scaling``.
_MLA_SHAPE_ARCHS = (
    "DeepseekV2ForCausalLM",
    "DeepseekV32ForCausalLM",
    "DeepseekV3ForCausalLM",
    "DeepseekV3ForCausalLMNextN",
    "Glm4MoeLiteForCausalLM",
    "GlmMoeDsaForCausalLM",
    "LongcatFlashForCausalLM",
    "LongcatFlashForCausalLMNextN",
    "DotsVLMForCausalLM",
    "MistralLarge3ForCausalLM",
    "PixtralForConditionalGeneration",
    "MistralLarge3ForCausalLMEagle",
    "KimiK25ForConditionalGeneration",
)


#: Model types whose config class sglang registers (``utils/hf_transformers_utils._CONFIG_REGISTRY``)
#: and that transformers 4.57.1 (the pin of 0.5.5-0.5.9) does not know, each with the release that
#: registered it: Kimi-K2.5 and Qwen3.5 since 0.5.9.
TEXT_CONFIG_CLASSES = ArchList(
    ("kimi_k25", "0.5.9"),
    ("qwen3_5", "0.5.9"),
    ("qwen3_5_moe", "0.5.9"),
    what="config registry",
)


def _generic_config(ctx) -> bool:
    """The config loads as a generic ``PretrainedConfig`` (no remote class to load instead): its
    model type is one of ``GENERIC_BEFORE_TRANSFORMERS_5``, or one of ``TEXT_CONFIG_CLASSES``
    before the release that registered its class."""
    hf = ctx.hf
    if ctx.args.trust_remote_code and hf.get("auto_map"):
        return False
    model_type = hf.get("model_type")
    if model_type in TEXT_CONFIG_CLASSES:
        return not ctx.release.holds(TEXT_CONFIG_CLASSES, model_type)
    return model_type in GENERIC_BEFORE_TRANSFORMERS_5


def _generic_config_fails(message: str, upstream: str) -> ConflictError:
    """The refusal of a generic config's missing attribute (before 0.5.10), with its fix."""
    return ConflictError(
        message,
        fields=(),
        fix="use a release that reads this model type (0.5.10 or later), or a checkpoint whose config "
        "class transformers knows",
        upstream=upstream,
    )


@registry.rule("device", until="0.5.10")
def text_config_is_a_config(ctx):
    """Before 0.5.10 (``utils/hf_transformers_utils.get_hf_text_config``, 0.5.9): a config with a
    ``text_config`` returns it after ``assert hasattr(config.text_config, "num_attention_heads")``;
    a generic config keeps ``text_config`` as a plain dict, which has no such attribute, so the
    assertion fails. Since 0.5.10 the function converts dict sub-configs first."""
    hf = ctx.hf
    arch = (hf.architectures or ("",))[0]
    if arch.startswith("Llava") and arch.endswith("ForCausalLM"):
        return {}
    if "text_config" not in hf or not _generic_config(ctx):
        return {}
    raise _generic_config_fails('assert hasattr(config.text_config, "num_attention_heads")', "AssertionError")


@registry.rule("device", until="0.5.10")
def mla_shape_rope_scaling(ctx):
    """Before 0.5.10 (``configs/model_config.ModelConfig._derive_model_shapes``, 0.5.9): the MLA
    branch reads ``hf_text_config.rope_scaling``; a generic config built from a config.json
    without that key has no such attribute (``AttributeError``). 0.5.10's transformers knows
    ``glm_moe_dsa``. The list is the release's: GLM-5 and Kimi-K2.5 joined it in 0.5.9
    (``facts.MLA_ARCHS_SINCE``)."""
    hf = ctx.hf
    listed = [a for a in hf.architectures or () if a in _MLA_SHAPE_ARCHS]
    if not any(a not in MLA_ARCHS_SINCE or ctx.release.holds(MLA_ARCHS_SINCE, a) for a in listed):
        return {}
    if "rope_scaling" in hf.text_config or not _generic_config(ctx):
        return {}
    raise _generic_config_fails(
        f"'GenericConfig_{hf.get('model_type')}' object has no attribute 'rope_scaling'", "AttributeError"
    )


@registry.rule("device", since="0.5.22")
def step3p5_per_layer_heads(ctx):
    """Since 0.5.22 (transformers 5.19.0 pinned; ``utils/hf_transformers/config.py``
    ``HfModelConfigParser.parse``): transformers maps ``model_type`` ``step3p5`` to its own
    heterogeneous config class, whose global ``num_attention_heads`` may not be read when
    sliding-attention layers carry their own head count; sglang reads it while it copies the text
    config's keys, so the config does not load. transformers 5.19 (``Step3p7Config.__post_init__``,
    ``integrations/heterogeneity``) drops a per-layer override equal to the global value, so only
    a sliding head count (``num_sliding_attention_heads``, else ``attention_other_setting``'s
    ``num_attention_heads``) that differs from ``num_attention_heads`` makes the global value
    ambiguous. With ``--trust-remote-code`` the checkpoint's own class (``auto_map``) loads
    instead."""
    hf = ctx.hf
    if hf.get("model_type") != "step3p5" or (ctx.args.trust_remote_code and hf.get("auto_map")):
        return {}
    if "sliding_attention" not in (hf.get("layer_types") or ()):
        return {}
    heads = hf.get("num_attention_heads", 64)
    sliding = hf.get("num_sliding_attention_heads")
    if sliding is None:
        other = hf.get("attention_other_setting")
        sliding = other.get("num_attention_heads", heads) if other else heads
    if sliding == heads:
        return {}
    raise ConflictError(
        "'num_attention_heads' is a per-layer attribute and may vary across layers. Access it via "
        "the individual layer configs instead (e.g. config.per_layer_config[i].num_attention_heads).",
        fields=(),
        fix=Fix(
            set={"trust_remote_code": True},
            text="pass --trust-remote-code (the checkpoint's own config class loads it)",
        ),
    )


@registry.rule("device")
def granite_mamba_dims(ctx):
    """sglang 0.5.15 ``configs/granitemoehybrid.py`` ``GraniteMoeHybridConfig.__init__`` (and
    transformers 5.12.1's ``validate_architecture``): ``mamba_expand * hidden_size`` must be
    divisible by ``mamba_n_heads`` and equal ``mamba_d_head * mamba_n_heads``, else the config does
    not load -- even for an attention-only Granite (granite-4.0-micro's config fails it)."""
    hf = ctx.hf
    if hf.get("model_type") != "granitemoehybrid":
        return {}
    expand, hidden = hf.get("mamba_expand", 2), hf.get("hidden_size", 4096)
    heads, head_dim = hf.get("mamba_n_heads", 64), hf.get("mamba_d_head", "auto")
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in (expand, hidden, heads)):
        return {}
    intermediate = expand * hidden
    # transformers' validator runs first (at config parse), so its wording is what sglang reports
    if intermediate % heads:
        detail = "mamba_n_heads must divide mamba_expand * hidden_size"
        numbers = f"mamba_intermediate_size ({intermediate}) must be divisible by mamba_n_heads ({heads})"
    elif isinstance(head_dim, int) and head_dim * heads != intermediate:
        detail = "The dimensions for the Mamba head state do not match the model intermediate_size"
        numbers = (
            f"mamba_d_head ({head_dim}) * mamba_n_heads ({heads}) != mamba_intermediate_size ({intermediate})"
        )
    else:
        return {}
    raise ConflictError(
        f"Class validation error for validator 'validate_architecture': {detail} ({numbers})",
        fields=(),
        fix="fix the checkpoint's config.json (mamba_n_heads, mamba_d_head, mamba_expand): sglang cannot load it",
    )


@registry.rule("device", only_if_set=("context_length",))
def context_length_limit(ctx):
    """``configs/model_config.py`` ``ModelConfig._derive_context_length``: a user context length
    above the derived one is refused (``SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN`` allows it)."""
    wanted = ctx.args.context_length
    if wanted is None:
        return {}
    derived = derived_context_length(ctx.hf)
    if wanted > derived and not env_flag(ctx, "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"):
        raise ConflictError(
            f"Warning: User-specified context_length ({wanted}) is greater than the derived context_length "
            f"({derived}). This may lead to incorrect model outputs or CUDA errors. Note that the derived "
            "context_length may differ from max_position_embeddings in the model's config. To allow "
            "overriding this maximum, set the env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1",
            fields=("context_length",),
            fix=Fix.any_of(
                Fix(set={"context_length": derived}),
                Fix(env={"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"}),
                text=f"pass --context-length {derived} or less, or set SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1",
            ),
        )
    return {}
