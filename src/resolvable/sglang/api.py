"""The SGLang pack's entry points: resolve from a config and a platform, or from ServerArgs.

Invariants: ``resolve_server_args`` is pure (platform and env are inputs); a refused
configuration raises ``ConflictError`` carrying sglang's meaning; load-time adjustments
(HRM-Text) are applied through ``Resolution.adjust`` so the published context matches.
By default it answers what ServerArgs (and the load-time adjustments) decide; ``startup=True``
or ``check_startup`` also runs the start-up checks (a ``ConflictError`` with ``phase="startup"``),
which never change a value.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from ..errors import ConfigError, InvalidArgumentError
from ..rules import HFConfig, Platform, ReleaseRange, Resolution, check, resolve, resolve_into
from ._base import STARTUP_PHASE, registry
from .checkpoint import prepare
from .families.hrm_text import apply_load_time_adjustments, apply_post_init_adjustments
from .models import load_model

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any


#: ``fields.split_fields``, imported on the first resolution (``_load_split_fields``): the field
#: typing is import time that ``import resolvable.sglang`` does not need.
_split_fields: Any = None


def _load_split_fields() -> Any:
    global _split_fields
    from .fields import split_fields

    _split_fields = split_fields
    return split_fields


#: Environment variables the rules read (spec §1); the CLI forwards these from os.environ.
ENV_VARS = (
    "SGLANG_USE_AITER",
    "SGLANG_USE_AITER_UNIFIED_ATTN",
    "SGLANG_AITER_KV_CACHE_LAYOUT",
    "SGLANG_EMBEDDINGS_SPARSE_HEAD",
    "SGLANG_IS_FLASHINFER_AVAILABLE",
    "SGLANG_DSA_HIP_DISABLE_PRESHUFFLE",
    "SGLANG_NSA_HIP_DISABLE_PRESHUFFLE",
    "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE",
    "SGLANG_DEEPEP_BF16_DISPATCH",
    "SGLANG_ENABLE_UNIFIED_RADIX_TREE",
    "SGLANG_USE_MLX",
    "SGLANG_USE_CPU_ENGINE",
    "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN",
    "SGLANG_IS_IN_CI",
)


def as_hf_config(hf_config: HFConfig | Mapping[str, Any]) -> HFConfig:
    hf = hf_config if isinstance(hf_config, HFConfig) else HFConfig(hf_config)
    if not isinstance(hf_config, HFConfig):  # a dict: its values checked as a file's are
        from ..rules import check_config_values

        check_config_values(hf, hf.source)
    if hf.architecture is None:
        raise ConfigError(
            f"{hf.source}: no 'architectures' entry; sglang dispatches on architectures[0]. "
            'Add e.g. "architectures": ["LlamaForCausalLM"]'
        )
    return prepare(hf)  # config-class defaults (no-op when load_model already applied them)


def resolve_server_args(
    hf_config: HFConfig | Mapping[str, Any],
    platform: Platform,
    env: Mapping[str, str] | None = None,
    model_path: str | None = None,
    *,
    load_time: bool = True,
    startup: bool = False,
    trace: bool = False,
    sglang_version: str | None = None,
    **server_args: Any,
) -> Resolution:
    """Resolve SGLang's server arguments for a model config on a platform.

    ``server_args`` are what the user passed: any field of the release's ``ServerArgs`` (SGLang
    field names), typed as sglang types it (``fields.split_fields``); the ones no rule reads are
    recorded in ``res.not_modelled``. ``load_time=False`` stops
    after ``ServerArgs.__post_init__`` (no ModelRunner adjustment). ``startup=True`` also runs
    the start-up checks (after ServerArgs, see ``check_startup``): a configuration ServerArgs
    accepts but sglang refuses while building its attention backends raises ``ConflictError``
    with ``phase == "startup"`` and the accepted resolution in ``.resolution``. The default
    (False) answers exactly what ServerArgs decides. ``trace=True`` records what every rule read.
    ``sglang_version`` is the sglang release to model (``"0.5.14"``, ``"0.5.15.post1"`` …;
    default: the pack's default release, the newest supported; ``"auto"``: the installed sglang's, see
    ``installed_sglang_version``).
    """
    if type(load_time) is not bool or type(startup) is not bool:  # "no" would mean True
        name, flag = ("load_time", load_time) if type(load_time) is not bool else ("startup", startup)
        raise InvalidArgumentError(f"{name} must be True or False, got {flag!r}")
    if model_path is not None:
        server_args["model_path"] = model_path
    release = sglang_release(sglang_version)
    server_args, not_modelled = (_split_fields or _load_split_fields())(server_args, release)
    hf = as_hf_config(hf_config)
    res = resolve(registry, server_args, hf, platform, env, trace=trace, release=release)
    res = res.with_not_modelled(not_modelled)
    if not load_time:
        return apply_post_init_adjustments(res, hf)
    res = apply_load_time_adjustments(res, hf)
    if startup:
        check_startup(res, hf, env)
    return res


def check_startup(
    res: Resolution, hf_config: HFConfig | Mapping[str, Any], env: Mapping[str, str] | None = None
) -> tuple[Any, ...]:
    """The start-up checks (after ServerArgs) of a resolution: what sglang's ModelRunner refuses
    when it builds the attention backends (``passes/startup.py``).

    Returns the check rules that passed ("accepted, and would start"); raises ``ConflictError``
    with ``phase == "startup"``, ``stage == "startup"`` and ``resolution is res`` when one refuses
    ("accepted by ServerArgs, refused at start-up"). Values and the fingerprint never change.
    """
    return check(registry, res, as_hf_config(hf_config), env, phase=STARTUP_PHASE)


def installed_sglang_version() -> str | None:
    """The version of the sglang distribution installed here, read from its metadata (sglang is
    never imported), or None when none is installed."""
    from importlib import metadata

    try:
        return metadata.version("sglang")
    except metadata.PackageNotFoundError:
        return None


def sglang_release(version: str | None) -> str:
    """The supported release a version names: None → the newest supported; ``"auto"`` → the
    installed sglang's, or the newest supported when none is installed. A release the pack does
    not model (installed or named) is an ``InvalidArgumentError`` listing the supported ones:
    answering for another release would be a wrong answer."""
    if version is None:
        return registry.default_release
    if version == "auto":
        installed = installed_sglang_version()
        return registry.default_release if installed is None else registry.release(installed)
    return registry.release(version)


def env_from_os() -> dict[str, str]:
    """The SGLang environment variables of this process (the only place os.environ is read)."""
    return {k: os.environ[k] for k in ENV_VARS if k in os.environ}


def resolve_server_args_object(
    obj: Any,
    hf_config: Any,
    platform: Platform | None,
    env: Mapping[str, str] | None,
    user_set: Iterable[str] | None,
    sglang_version: str | None = None,
) -> None:
    """``ServerArgs.__post_init__``: resolve and materialize onto ``obj`` (dummy models skip)."""
    path = obj.model_path
    if hf_config is None and (path is None or str(path).lower() in ("none", "dummy")):
        object.__setattr__(obj, "resolution", None)
        return
    release = sglang_release(sglang_version)
    hf = as_hf_config(hf_config) if hf_config is not None else load_model(path, release=release)
    platform = platform or Platform.detect()
    env = env_from_os() if env is None else env
    not_modelled = obj.__dict__.get("not_modelled_fields", {})

    def resolver(user: dict[str, Any]) -> Resolution:
        # What ServerArgs.__post_init__ ends with (HRM-Text since 0.5.16), not the load-time step.
        res = resolve(registry, user, hf, platform, env, release=release)
        return apply_post_init_adjustments(res, hf).with_not_modelled(not_modelled)

    resolve_into(obj, resolver, user_set)


def rule_releases(rule: str, location: str | None, res: Resolution | None = None) -> ReleaseRange | None:
    """The release range of the registered rule ``rule`` at ``location``, narrowed by the named
    changes it asked in ``res`` (``Registry.rule_releases``)."""
    return registry.rule_releases(rule, location, res)
