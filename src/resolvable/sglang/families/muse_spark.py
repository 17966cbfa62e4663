"""Muse Spark (new in sglang 0.5.23, ``arg_groups/overrides.py:_muse_spark_overrides``).

Invariant: only fields at their defaults are filled: an ``auto`` KV cache becomes ``fp8_e4m3``
and an unset TF32 matmul switch is turned on. The environment defaults, the chat template and the
multimodal-encoder DP switch of ``muse_spark_hook.py`` are not resolved fields of the pack.
Releases before 0.5.23 have no Muse Spark rule.
"""

from __future__ import annotations

from .._base import registry

ARCH = "MuseSparkForConditionalGeneration"


@registry.rule("model", archs=(ARCH,), since="0.5.23")
def muse_spark_defaults(ctx):
    """Since 0.5.23 (``overrides._muse_spark_overrides``): FP8 (e4m3) KV cache when
    ``--kv-cache-dtype`` is ``auto``; TF32 matmuls when ``--enable-tf32-matmul`` was not given."""
    args = ctx.args
    out: dict = {}
    if not args.enable_tf32_matmul:
        # 0.5.23 makes the flag tri-state (None = "the model's preference"); the pack's flag is
        # the 0.5.15 store_true one, so "not given" reads False here.
        out["enable_tf32_matmul"] = True
    if args.kv_cache_dtype == "auto":
        out["kv_cache_dtype"] = "fp8_e4m3"
    return out
