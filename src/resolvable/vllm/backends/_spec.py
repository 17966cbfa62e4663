"""Build a backend candidate from its capability declaration (vLLM's hooks, as data).

``backend(name, ...)`` turns one vLLM backend's overridden hooks (``supported_dtypes``,
``supports_head_size``, ``get_supported_kernel_block_sizes``, ``supports_sink``, …,
``supports_combination``) into a ``Candidate`` whose checks run in the order and with the reason
strings of ``v1/attention/backend.py : AttentionBackend.validate_configuration`` (21 predicates).

Invariants: a capability is a constant or a pure function of the ``LayerQuery``; every check
carries ``facts`` (what it accepts, in words) for the capability table; ``supports_combination``
contributes at most one reason (vLLM's hook returns one string), the first failing condition;
a prerequisite (the backend's module imports) is a ``requires`` check: when it fails, vLLM
records only the import error.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Iterable

from ...rules import Candidate, Check
from ..changes import CHANGES
from ..query import LayerQuery

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_F16 = ("float16", "bfloat16")


class M(namedtuple("M", "base")):
    """``MultipleOf(base)``: any multiple of ``base`` is a valid kernel block size."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"M{self.base}"


def said(text: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """Give a capability function its words for the capability table (``said(">= 32", fn)``)."""
    fn.__doc__ = text
    return fn


def _value(x: Any, q: LayerQuery) -> Any:
    return x(q) if callable(x) and not isinstance(x, (tuple, frozenset, M)) else x


def _sizes(sizes: Iterable[Any]) -> list[int]:
    return [s.base if isinstance(s, M) else s for s in sizes]


def supports_block(sizes: Iterable[Any], block_size: int | None) -> bool:
    """``AttentionBackend.supports_block_size``: with hybrid blocks, a multiple of any kernel size."""
    if block_size is None:
        return True
    sizes = _sizes(sizes)
    return not sizes or any(block_size % s == 0 for s in sizes)


def preferred_block(sizes: Iterable[Any], default: int = 16) -> int:
    """``AttentionBackend.get_preferred_block_size``: the default if supported, else the smallest size."""
    sizes = list(sizes)
    if not sizes or supports_block(sizes, default):
        return default
    return min(_sizes(sizes))


def describe(x: Any) -> str:
    """Words for a capability (for the capability table)."""
    if callable(x) and not isinstance(x, (tuple, frozenset, M)):
        return (x.__doc__ or x.__name__).strip().split("\n")[0]
    if isinstance(x, (tuple, list, frozenset)):
        return ", ".join(repr(v) if isinstance(v, M) else str(v) for v in x) or "any"
    return str(x)


class Backend(namedtuple("Backend", "name candidate block_sizes preferred cg_support")):
    """A backend: its ``candidate`` (checks), its kernel ``block_sizes(q)`` and ``preferred(q, default)``
    block size, and its CUDA-graph support level ``cg_support(q)``."""

    __slots__ = ()


CG_LEVELS = ("NEVER", "UNIFORM_SINGLE_TOKEN_DECODE", "UNIFORM_BATCH", "ALWAYS")


def combo(reason: str, bad: Callable[[LayerQuery], bool]) -> tuple[str, Callable[[LayerQuery], bool]]:
    """One ``supports_combination`` condition: when ``bad(q)`` is true the backend answers ``reason``."""
    return (reason, bad)


def backend(
    name: str,
    *,
    dtypes: Any = _F16,
    kv_dtypes: Any = (),
    kv_ok: Callable[[LayerQuery, str], bool] | None = None,
    head_sizes: Any = (),
    head_ok: Callable[[LayerQuery, int], bool] | None = None,
    block_sizes: Any = None,
    preferred: Callable[[LayerQuery, int], int] | None = None,
    mla: bool = False,
    sparse: bool = False,
    sink: Any = False,
    mm_prefix: Any = False,
    per_head_scales: Any = False,
    cc: Callable[[LayerQuery], bool] | None = None,
    cc_text: str = "any",
    attn_types: tuple[str, ...] = ("decoder",),
    sliding_window: bool = False,
    rswa: bool = False,
    non_causal: Any = False,
    batch_invariant: bool = False,
    kv_connector: bool = True,
    pcp: bool = False,
    dcp: bool = False,
    adaptive: bool = True,
    combination: Iterable[tuple[str, Callable[[LayerQuery], bool]]] = (),
    requires: Iterable[tuple[str, str]] = (),
    cg_support: Any = "UNIFORM_BATCH",
    doc: str = "",
) -> Backend:
    """Declare one backend; see the module docstring. ``requires``: (kernel, import error text)."""
    combination = tuple(combination)
    if block_sizes is None:
        block_sizes = (M(1),)

    def head(q: LayerQuery) -> bool:
        if head_ok is not None:
            return head_ok(q, q.head_size)
        sizes = _value(head_sizes, q)
        return not sizes or q.head_size in sizes

    def kv(q: LayerQuery) -> bool:
        if q.kv_cache_dtype is None:
            return True
        if kv_ok is not None:
            return kv_ok(q, q.kv_cache_dtype)
        allowed = _value(kv_dtypes, q)
        return not allowed or q.kv_cache_dtype in allowed

    def mla_match(q: LayerQuery) -> Any:
        if q.use_mla == mla:
            return True
        return "MLA not supported" if q.use_mla else "non-MLA not supported"

    def sparse_match(q: LayerQuery) -> Any:
        if q.use_sparse == sparse:
            return True
        return "sparse not supported" if q.use_sparse else "non-sparse not supported"

    def attn_type(q: LayerQuery) -> Any:
        return q.attn_type in attn_types or f"attention type {q.attn_type} not supported"

    def combination_check(q: LayerQuery) -> Any:
        for reason, bad in combination:
            if bad(q):
                return reason
        return True

    checks = (
        Check("head_size not supported", head, {"head sizes": describe(head_ok or head_sizes)}),
        Check("dtype not supported", lambda q: q.dtype in _value(dtypes, q), {"dtypes": describe(dtypes)}),
        Check("kv_cache_dtype not supported", kv, {"kv dtypes": describe(kv_ok or kv_dtypes)}),
        Check(
            "block_size not supported",
            lambda q: supports_block(_value(block_sizes, q), q.block_size),
            {"block sizes": describe(block_sizes)},
        ),
        Check(
            "partial multimodal token full attention not supported",
            lambda q: not q.use_mm_prefix or _value(mm_prefix, q),
            {"mm_prefix": describe(mm_prefix)},
        ),
        Check("MLA mismatch", mla_match, {"MLA": mla}),
        Check(
            "attention sinks not supported",
            lambda q: not q.has_sink or _value(sink, q),
            {"sinks": describe(sink)},
        ),
        Check("sparse mismatch", sparse_match, {"sparse": sparse}),
        Check(
            "per-head quant scales not supported",
            lambda q: not q.use_per_head_quant_scales or _value(per_head_scales, q),
            {"per-head scales": describe(per_head_scales)},
        ),
        Check(
            "compute capability not supported",
            lambda q: cc is None or q.cc is None or cc(q),
            {"compute capability": cc_text},
        ),
        Check("attention type not supported", attn_type, {"attention types": ", ".join(attn_types)}),
        Check(
            "sliding window not supported",
            # the check exists from 0.26 (AttentionBackend.supports_sliding_window; CHANGES.SLIDING_WINDOW_CHECK)
            lambda q: (
                not q.has_sliding_window or sliding_window or not q.changed(CHANGES.SLIDING_WINDOW_CHECK)
            ),
            {"sliding window": sliding_window},
        ),
        Check("R-SWA not supported", lambda q: not q.use_rswa or rswa, {"R-SWA": rswa}),
        Check(
            "non-causal attention not supported",
            lambda q: not q.use_non_causal or _value(non_causal, q),
            {"non-causal": describe(non_causal)},
        ),
        Check(
            "non-causal MLA attention with DCP not supported",
            lambda q: not (q.use_mla and q.use_non_causal and q.use_dcp),
        ),
        Check(
            "batch invariance not supported",
            lambda q: not q.use_batch_invariant or _value(batch_invariant, q),
            {"batch invariant": describe(batch_invariant)},
        ),
        Check(
            "KV connector not supported",
            # the check exists from 0.23 (AttentionBackend.supports_kv_connector; CHANGES.KV_CONNECTOR_CHECK)
            lambda q: not q.use_kv_connector or kv_connector or not q.changed(CHANGES.KV_CONNECTOR_CHECK),
            {"KV connector": kv_connector},
        ),
        Check("PCP not supported", lambda q: not q.use_pcp or pcp, {"PCP": pcp}),
        Check("DCP not supported", lambda q: not q.use_dcp or dcp, {"DCP": dcp}),
        Check(
            "device-cpu query lens mismatch not supported, this is needed for adaptive verification",
            lambda q: not q.use_adaptive_verification or adaptive,
        ),
        Check(
            "unsupported combination",
            combination_check,
            {"other limits": "; ".join(r for r, _ in combination) or "none"},
        ),
    )
    prereqs = tuple(
        Check(text, lambda q, _k=kernel: q.has(_k), {"needs": kernel}) for kernel, text in requires
    )

    def kernel_sizes(q: LayerQuery) -> list[Any]:
        return list(_value(block_sizes, q))

    def pref(q: LayerQuery, default: int = 16) -> int:
        if preferred is not None:
            return preferred(q, default)
        return preferred_block(kernel_sizes(q), default)

    def cg(q: LayerQuery) -> str:
        return _value(cg_support, q)

    return Backend(name, Candidate(name, checks, doc, prereqs), kernel_sizes, pref, cg)
