"""The parity harness: legacy procedural code vs declarative rules, case by case."""

from __future__ import annotations

import dataclasses

from resolvable import Force, Platform, RecordingArgs, Registry, Stage, arg, check_parity, resolve
from resolvable.errors import ConflictError

H100, B200 = Platform.preset("h100"), Platform.preset("b200")


@dataclasses.dataclass
class Args:
    backend: str | None = arg(None, resolvable=True, choices=("fa3", "triton", "trtllm"))
    page: int | None = arg(None, resolvable=True)
    deterministic: bool = arg(False)


DEFAULTS = {"backend": None, "page": None, "deterministic": False}


def legacy(inputs):
    """The procedural original: mutates the args in place."""
    user, platform = inputs
    args = RecordingArgs({**DEFAULTS, **user})
    if args.backend is None:
        args.backend = "trtllm" if platform.is_sm100 else "fa3"
    if args.backend == "trtllm":
        args.page = 64  # overrides the user, like sglang's page snaps
    if args.page is None:
        args.page = 1
    if args.deterministic and args.backend == "trtllm":
        raise ValueError("deterministic inference does not support trtllm")
    return {k: getattr(args, k) for k in DEFAULTS}


def registry(page_bug: bool = False) -> Registry:
    reg = Registry(Args, [Stage("model"), "pages", "checks"])

    @reg.rule("model")
    def default_backend(ctx):
        if ctx.args.backend is None:
            return {"backend": "trtllm" if ctx.platform.is_sm100 else "fa3"}
        return {}

    @reg.rule("pages")
    def trtllm_pages(ctx):
        if ctx.args.backend == "trtllm":
            return {"page": 64 if page_bug else Force(64, "trtllm needs 64-token pages")}
        return {}

    @reg.rule("pages")
    def page_default(ctx):
        return {"page": 1} if ctx.args.page is None else {}

    @reg.rule("checks")
    def deterministic_check(ctx):
        if ctx.args.deterministic and ctx.args.backend == "trtllm":
            raise ConflictError("deterministic inference does not support trtllm")
        return {}

    return reg


CASES = [
    (f"{p.name} {u}", (u, p))
    for p in (H100, B200)
    for u in ({}, {"page": 16}, {"backend": "triton"}, {"deterministic": True})
]


def _declarative(reg):
    return lambda inputs: resolve(reg, inputs[0], {"architectures": ["X"]}, inputs[1])


def test_faithful_rules_have_parity():
    report = check_parity(CASES, legacy, _declarative(registry()))
    assert report.ok, str(report)
    assert (report.compared, report.refused_by_both) == (8, 1)


def test_a_divergence_names_the_case_field_and_rule():
    # Without Force, the user's --page 16 blocks the trtllm page snap: legacy says 64.
    report = check_parity(CASES, legacy, _declarative(registry(page_bug=True)))
    assert not report.ok
    (d,) = report.divergences
    assert (d.case, d.field, d.legacy, d.declarative) == ("b200 {'page': 16}", "page", 64, 16)
    assert report.by_field() == {"page": 1}
    assert "b200 {'page': 16}: page: legacy=64 declarative=16" in str(report)


def test_one_sided_refusal_is_a_divergence():
    def never_refuses(inputs):
        user, platform = inputs
        return legacy(({**user, "deterministic": False}, platform))

    report = check_parity(CASES, never_refuses, _declarative(registry()))
    (d,) = report.divergences
    assert d.field is None and d.legacy == "accepts" and d.declarative.startswith("refuses")
    assert d.decided_by == "registry.<locals>.deterministic_check"
    assert report.by_field() == {"<refusal>": 1}


def test_fields_limit_the_comparison_and_types_matter():
    def wrong_type(inputs):
        out = legacy(inputs)
        out["page"] = float(out["page"])  # 1.0 == 1 but is not the same value for an engine
        return out

    report = check_parity(CASES, wrong_type, _declarative(registry()))
    assert report.by_field() == {"page": 7}
    assert check_parity(CASES, wrong_type, _declarative(registry()), fields=["backend"]).ok
