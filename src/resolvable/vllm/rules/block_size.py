"""Stage "block_size": the KV-cache block size that follows from the chosen backends (spec §4).

``platforms/interface.py : update_block_size_for_backend`` / ``_preferred_block_size_for_backends``
(CUDA, ROCm, XPU; default 16) and ``platforms/cpu.py`` (default 128; the reference CPU_MLA
kernel forces 16 even over a user value). A user ``--block-size`` is kept (it already took part in
selection). Not modelled: the hybrid (mamba) page alignment and the skip-layer alignment, which
may change the value afterwards; a note says so for hybrid models.
"""

from __future__ import annotations

import itertools
import math

from ..._declaration import Force
from ...errors import ConflictError
from .._base import registry
from ..backends._spec import M, supports_block
from ..changes import CHANGES
from ..select import backend_entry
from ._inputs import chosen, user_block_size

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEFAULT_BLOCK_SIZE = 16  # CacheConfig.DEFAULT_BLOCK_SIZE, 0.30-0.33
DEFAULT_BLOCK_SIZE_64 = 64  # from 0.34 (CHANGES.DEFAULT_BLOCK_SIZE_64)
CPU_DEFAULT_BLOCK_SIZE = 128


def common_block_size(entries: list[tuple[Any, Any]], default: int) -> int:
    """Smallest block size every (query, backend) accepts: the default if all do, else the
    smallest LCM of one kernel size per backend that all accept; one backend: its preference."""
    if len(entries) == 1:
        q, b = entries[0]
        return b.preferred(q, default)
    if all(supports_block(b.block_sizes(q), default) for q, b in entries):
        return default
    per_backend = [[s.base if isinstance(s, M) else s for s in b.block_sizes(q)] or [1] for q, b in entries]
    for candidate in sorted({math.lcm(*sizes) for sizes in itertools.product(*per_backend)}):
        if all(supports_block(b.block_sizes(q), candidate) for q, b in entries):
            return candidate
    raise ConflictError(
        "The attention backends share no supported KV cache block size ("
        + "; ".join(f"{b.name}: {b.block_sizes(q)}" for q, b in entries)
        + ").",
        fields=("block_size",),
        fix="choose backends per kind that share a block size (--attention-config backend_per_kind)",
    )


@registry.rule("block_size")
def block_size_for_backends(ctx: Any) -> dict[str, Any]:
    """Spec §4, §9.2 item 1, §9.5 item 1: without --block-size, the preferred size of the distinct
    chosen backends for the release's default (16; 64 from 0.34; 128 on CPU), across every
    backend from 0.31 (``platforms/interface.py : update_block_size_for_backend``)."""
    pairs = chosen(ctx)
    if not pairs:
        return {}
    vendor = ctx.platform.vendor
    if vendor == "cpu" and any(name == "CPU_MLA" for _, name in pairs):
        if ctx.args.block_size != 16:
            return {"block_size": Force(16, "the CPU MLA decode kernel only compiles with block_size=16")}
        return {}
    if user_block_size(ctx) is not None:
        return {}
    distinct: dict[str, tuple[Any, Any]] = {}
    for q, name in pairs:
        entry = backend_entry(name, vendor)
        if entry is not None and name not in distinct:
            distinct[name] = (q, entry)
    if vendor == "cpu":
        default = CPU_DEFAULT_BLOCK_SIZE
    elif ctx.release.has(CHANGES.DEFAULT_BLOCK_SIZE_64):
        default = DEFAULT_BLOCK_SIZE_64
    else:
        default = DEFAULT_BLOCK_SIZE
    entries = list(distinct.values())
    if not ctx.release.has(CHANGES.BLOCK_SIZE_ACROSS_BACKENDS):
        entries = entries[:1]  # 0.30: _find_non_ssm_backend, the first attention backend only
    return {"block_size": common_block_size(entries, default)}
