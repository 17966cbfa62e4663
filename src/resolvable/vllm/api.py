"""The vLLM pack's entry point: ``resolve_vllm_args(hf_config, platform, env=None, **flags)``.

Invariants: pure (platform and env are inputs; ``env_from_os`` is the only reader of
``os.environ``); ``attention_config`` (vLLM's ``--attention-config`` JSON, or a dict) is
flattened into the schema's fields before resolution, and giving a backend both ways is refused
like vLLM does (``engine/arg_utils.py : create_engine_config``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from ..errors import ConfigError, InvalidArgumentError, closest
from ..rules import HFConfig, Platform, Resolution, resolve
from ._base import registry
from .choices import ATTENTION_BACKENDS, DTYPE_SPELLINGS, KINDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Environment variables the rules read (spec §1.3).
ENV_VARS = (
    "VLLM_BATCH_INVARIANT",
    "VLLM_MLA_DISABLE",
    "VLLM_ROCM_USE_AITER",
    "VLLM_ROCM_USE_AITER_MLA",
    "VLLM_ROCM_USE_AITER_MHA",
    "VLLM_ROCM_USE_AITER_UNIFIED_ATTENTION",
    # read by the memory model (determine_available_memory, v1/worker/gpu_worker.py)
    "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS",
)

_CONFIG_KEYS = (
    "backend",
    "backend_per_kind",
    "flash_attn_version",
    "mla_prefill_backend",
    "use_trtllm_attention",
    "use_non_causal",
)


def backend_name(value: Any, what: str) -> str | None:
    """``AttentionConfig.validate_backend_before``: case-insensitive enum names; "auto" is None."""
    if value is None:
        return None
    name = str(value).strip().upper()
    if name == "AUTO":
        return None
    if name in ("CUTLASS_MSA", "TRITON_MSA"):  # aliases that only set the MiniMax-M3 decode backend
        return None
    if name not in ATTENTION_BACKENDS:
        hint = closest(name, ATTENTION_BACKENDS)
        extra = f" (did you mean {hint!r}?)" if hint else ""
        raise InvalidArgumentError(f"{what}: unknown attention backend {value!r}{extra}")
    return name


def flatten_attention_config(config: Any, flags: dict[str, Any]) -> dict[str, Any]:
    """``--attention-config`` (JSON text or mapping) → schema fields, merged into ``flags``."""
    if config is None:
        return flags
    if isinstance(config, str):
        import json

        if len(config) > 64 * 1024:  # a few keys; anything this long is not an attention config
            raise InvalidArgumentError(
                f"--attention-config is {len(config):,} characters long; expected a small JSON object"
            )
        try:
            config = json.loads(config)
        except ValueError as exc:
            raise InvalidArgumentError(f"--attention-config is not valid JSON: {exc}") from None
        except RecursionError:
            raise InvalidArgumentError(
                "--attention-config is nested too deeply; expected a flat JSON object"
            ) from None
    if not isinstance(config, Mapping):
        raise InvalidArgumentError(
            '--attention-config must be a JSON object, e.g. \'{"backend": "FLASH_ATTN"}\''
        )
    unknown = sorted(set(config) - set(_CONFIG_KEYS))
    if unknown:
        raise InvalidArgumentError(f"--attention-config: unknown keys {unknown}; known: {list(_CONFIG_KEYS)}")
    out = dict(flags)
    if "backend" in config:
        if out.get("attention_backend") is not None:
            raise InvalidArgumentError(
                "--attention-backend and --attention-config.backend are mutually exclusive; give the backend once"
            )
        out["attention_backend"] = config["backend"]
    per_kind = config.get("backend_per_kind") or {}
    if not isinstance(per_kind, Mapping):
        raise InvalidArgumentError("--attention-config backend_per_kind must map a kind to a backend")
    entries = []
    for kind, name in per_kind.items():
        if kind not in KINDS:
            raise InvalidArgumentError(
                f"--attention-config backend_per_kind: {kind!r} is not one of {list(KINDS)}"
            )
        resolved = backend_name(name, f"backend_per_kind[{kind}]")
        if resolved is not None:
            entries.append(f"{kind}={resolved}")
    if entries:
        out["backend_per_kind"] = entries
    for key in ("flash_attn_version", "mla_prefill_backend", "use_trtllm_attention", "use_non_causal"):
        if config.get(key) is not None:
            out[key] = config[key]
    return out


def rule_releases(rule: str, location: str | None, res: Resolution | None = None) -> Any:
    """The ``ReleaseRange`` of the registered vLLM rule ``rule`` at ``location``, narrowed by the
    named changes it asked in ``res`` (``Registry.rule_releases``; None: not a registered rule)."""
    return registry.rule_releases(rule, location, res)


def installed_vllm_version() -> str | None:
    """The installed vllm's version (package metadata; vllm is not imported), or None."""
    from importlib import metadata

    try:
        return metadata.version("vllm")
    except metadata.PackageNotFoundError:
        return None


def vllm_release(version: str | None) -> str:
    """The supported release a version names: None → the newest supported; ``"auto"`` → the
    installed vllm's (its package metadata). A release the pack does not model is refused with the
    supported list: answering for another release would be a wrong answer."""
    if version is None:
        return str(registry.default_release)
    if version == "auto":
        installed = installed_vllm_version()
        if installed is None:
            raise InvalidArgumentError(
                "--vllm-version auto: vllm is not installed in this environment; name the release, "
                f"one of {', '.join(registry.releases)}"
            )
        return registry.release(installed)
    return registry.release(version)


def resolve_vllm_args(
    hf_config: HFConfig | Mapping[str, Any],
    platform: Platform,
    env: Mapping[str, str] | None = None,
    *,
    attention_config: Any = None,
    trace: bool = False,
    vllm_version: str | None = None,
    **flags: Any,
) -> Resolution:
    """Resolve vLLM's attention fields for a model config on a platform, for release
    ``vllm_version`` (``"0.30.0"`` … ``"0.34.0"``, ``"auto"``; default: the newest supported).

    ``flags`` are vLLM engine-argument names (``attention_backend``, ``block_size``,
    ``kv_cache_dtype``, ``dtype``, ``tensor_parallel_size``, ``kernels`` …). The engine
    configuration follows the release's named changes (``config/changes.py``).
    """
    release = vllm_release(vllm_version)
    hf = hf_config if isinstance(hf_config, HFConfig) else HFConfig(hf_config)
    if not isinstance(hf_config, HFConfig):  # a dict: its values checked as a file's are
        from ..rules import check_config_values as check_hf_values

        check_hf_values(hf, hf.source)
    if hf.architecture is None:
        raise ConfigError(
            f'{hf.source}: no \'architectures\' entry; add e.g. "architectures": ["LlamaForCausalLM"]'
        )
    flags = flatten_attention_config(attention_config, flags)
    from .flags.values import check_sizes

    check_sizes(flags)  # -tp 0 names the flag, not a ZeroDivisionError (issue 29)

    from .config.hf_overrides import apply_attribute_map

    hf = apply_attribute_map(hf)
    if "hf_overrides" in flags:  # applied to config.json before any rule reads it (as vLLM does)
        from .config.hf_overrides import apply_hf_overrides

        hf = apply_hf_overrides(hf, flags.pop("hf_overrides"))
    # config/model.py:_get_and_verify_dtype reads "half"/"float" as float16/float32 before any
    # backend sees the dtype: the layers are asked with the torch name (as from the CLI).
    if flags.get("dtype") in DTYPE_SPELLINGS:
        flags["dtype"] = DTYPE_SPELLINGS[flags["dtype"]]
    if flags.get("attention_backend") is not None:
        flags["attention_backend"] = backend_name(flags["attention_backend"], "--attention-backend")
    if flags.get("mla_prefill_backend") is not None:
        flags["mla_prefill_backend"] = str(flags["mla_prefill_backend"]).upper()
    flags = {k: v for k, v in flags.items() if v is not None or k in ("block_size",)}
    check_config_values(flags)
    return resolve(registry, flags, hf, platform, env, trace=trace, release=release)


def env_from_os() -> dict[str, str]:
    """The vLLM environment variables of this process (the only place os.environ is read)."""
    return {k: os.environ[k] for k in ENV_VARS if k in os.environ}


def check_config_values(flags: Mapping[str, Any]) -> None:
    """Values vLLM's configuration itself refuses (after parsing), refused with vLLM's words and
    exception, as a refusal (``ConflictError``), not as this tool's argument error:

    * ``kv_cache_dtype`` outside ``CacheDType`` (``config/cache.py : CacheConfig``'s validator,
      a pydantic ValidationError "Invalid kv_cache_dtype: …"; 0.30-0.33's argparse refuses it
      first on the command line, with argparse's words, in ``cli_args``);
    * ``-cc.cudagraph_mode`` that names no ``CUDAGraphMode`` member
      (``CompilationConfig.validate_cudagraph_mode_before``: ``CUDAGraphMode[value.upper()]``
      raises ``KeyError: 'BOGUS'``)."""
    from ..errors import ConflictError
    from ..rules import Fix
    from .choices import CUDAGRAPH_MODES, KV_CACHE_DTYPES

    kv = flags.get("kv_cache_dtype")
    if isinstance(kv, str) and kv not in KV_CACHE_DTYPES:
        raise ConflictError(
            f"Invalid kv_cache_dtype: {kv!r}. Valid values are: {list(KV_CACHE_DTYPES)}",
            fields=("kv_cache_dtype",),
            fix=Fix.any_of(
                Fix(drop=("kv_cache_dtype",)),
                Fix(set={"kv_cache_dtype": "fp8"}),
                text="drop --kv-cache-dtype (or pass --kv-cache-dtype fp8)",
            ),
            upstream="ValidationError",
        )
    mode = flags.get("cudagraph_mode")
    if isinstance(mode, str) and mode.upper() not in CUDAGRAPH_MODES:
        raise ConflictError(
            f"{mode.upper()!r} (KeyError: CUDAGraphMode has no member {mode.upper()}; valid: "
            f"{', '.join(CUDAGRAPH_MODES)})",
            fields=("cudagraph_mode",),
            fix=Fix(drop=("cudagraph_mode",)),
            upstream="KeyError",
        )
