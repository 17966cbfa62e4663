"""The ``verify_quantization`` series against the sglang wheels (0.5.15 … 0.5.23).

For each release, the rule the pack applies is asked for its arguments (its registry,
compatible pairs, ROCm list, requantization methods) and these are compared with what the
wheel's ``layers/quantization/__init__.py`` (the base dict and each platform's ``update``) and
``configs/model_config.py`` (``_verify_quantization``, ``REQUANTIZATION_METHODS``) hold, read
with ``ast`` (never imported). CI has no wheels, so the comparison runs where one is
(``pip download --no-deps sglang==V -d /work/wheels``); the checks below the wheel section
run everywhere.
"""

from __future__ import annotations

import ast
import zipfile

import pytest

from required_inputs import sglang_wheel
from resolvable import Platform
from resolvable.sglang import registry
from resolvable.sglang.passes import quantization

RELEASES = ("0.5.15", "0.5.16", "0.5.17", "0.5.18", "0.5.19", "0.5.20", "0.5.21", "0.5.22", "0.5.23")
#: One preset per platform the registry tells apart (kind → platform).
PLATFORMS = {
    "cuda": Platform.preset("h100"),
    "cpu": Platform.preset("cpu"),
    "gfx95": Platform.preset("mi355x"),
    "hip": Platform.preset("mi300x"),
    "xpu": Platform.preset("xpu"),
    "npu": Platform.preset("npu"),
    "mps": Platform(vendor="mps", name="mps"),
}
#: The names the wheels' ``if`` tests use, and the platforms each is true on.
_TRUE_ON = {
    "is_cuda": {"cuda"},
    "is_cpu": {"cpu"},
    "is_hip": {"gfx95", "hip"},
    "_is_mxfp_supported": {"gfx95"},
    "_is_gfx95_supported": {"gfx95"},
    "is_xpu": {"xpu"},
    "is_npu": {"npu"},
    "is_mps": {"mps"},
}


def _wheel_source(release: str, member: str) -> str:
    """``member`` of the sglang wheel of ``release`` (missing wheel: fails in CI, skips elsewhere)."""
    with zipfile.ZipFile(sglang_wheel(release)) as wheel:
        return wheel.read(f"sglang/srt/{member}").decode()


def _holds(test: ast.expr, kind: str) -> bool:
    if isinstance(test, ast.BoolOp):
        values = [_holds(v, kind) for v in test.values]
        return any(values) if isinstance(test.op, ast.Or) else all(values)
    if isinstance(test, ast.Call) and not test.args:
        test = test.func
    if isinstance(test, ast.Name) and test.id in _TRUE_ON:
        return kind in _TRUE_ON[test.id]
    raise AssertionError(f"an `if` test this reader does not know: {ast.unparse(test)}")


def _wheel_registry(source: str, kind: str) -> list[str]:
    """``QUANTIZATION_METHODS`` on ``kind``: the base dict, then the updates in file order."""
    methods: dict[str, None] = {}
    for node in ast.parse(source).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            target = node.target if isinstance(node, ast.AnnAssign) else node.targets[0]
            if getattr(target, "id", "") == "BASE_QUANTIZATION_METHODS":
                methods = dict.fromkeys(k.value for k in node.value.keys)
        if isinstance(node, ast.If) and ast.unparse(node.test) != "TYPE_CHECKING":
            for stmt in node.body:
                call = stmt.value if isinstance(stmt, ast.Expr) else None
                update = (
                    isinstance(call, ast.Call)
                    and ast.unparse(call.func) == "BASE_QUANTIZATION_METHODS.update"
                )
                if update and _holds(node.test, kind):
                    methods.update(dict.fromkeys(k.value for k in call.args[0].keys))
    return list(methods)


def _wheel_model_config(source: str) -> tuple[set[str], dict[str, tuple[str, ...]], tuple[str, ...]]:
    """(ROCm list, compatible pairs, REQUANTIZATION_METHODS) of ``model_config.py``."""
    tree = ast.parse(source)
    requantize: tuple[str, ...] = ()
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "REQUANTIZATION_METHODS":
            requantize = tuple(ast.literal_eval(node.value))
    verify = next(
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "_verify_quantization"
    )
    lists = {
        n.targets[0].id: ast.literal_eval(n.value)
        for n in verify.body
        if isinstance(n, ast.Assign)
        and getattr(n.targets[0], "id", "")
        in ("rocm_supported_quantization", "compatible_quantization_methods")
    }
    compatible = {k: tuple(v) for k, v in lists["compatible_quantization_methods"].items()}
    return set(lists["rocm_supported_quantization"]), compatible, requantize


def _rule_arguments(release: str, monkeypatch) -> dict:
    """The arguments the pack's rule passes to ``_verify_quantization`` in ``release`` (issue 16:
    one rule, whose per-release arguments follow the named changes: ``release_arguments``)."""
    return quantization.release_arguments(registry.release_view(release))


@pytest.mark.parametrize("release", RELEASES)
def test_registry_per_platform_is_the_wheels(release, monkeypatch):
    """The "Must be one of" list of every platform, in sglang's order."""
    source = _wheel_source(release, "layers/quantization/__init__.py")
    methods = _rule_arguments(release, monkeypatch)["methods"]
    for kind, platform in PLATFORMS.items():
        expected = _wheel_registry(source, kind)
        assert methods.methods(platform) == expected, (release, kind)


@pytest.mark.parametrize("release", RELEASES)
def test_rocm_list_compatible_pairs_and_requantization_are_the_wheels(release, monkeypatch):
    source = _wheel_source(release, "configs/model_config.py")
    rocm, compatible, requantize = _wheel_model_config(source)
    args = _rule_arguments(release, monkeypatch)
    assert set(args.get("rocm", quantization.ROCM_METHODS)) == rocm
    assert dict(args.get("compatible", quantization.COMPATIBLE)) == compatible
    assert tuple(args.get("requantize", ())) == requantize


# -- without wheels ---------------------------------------------------------------------------


def test_every_release_has_one_rule():
    for release in registry.releases:
        rules = [
            r.name
            for r in registry.rules
            if r.series == "verify_quantization" and r.releases.contains(release)
        ]
        assert len(rules) == 1, (release, rules)


def test_a_platform_update_keeps_a_base_key_in_place():
    """dict.update keeps an existing key's position: on NPU before 0.5.20 ``gptq`` stays where the
    base dict has it and only mxfp4 is appended; from 0.5.20 both are appended, gptq first."""
    npu = PLATFORMS["npu"]

    def methods(release: str):
        return quantization.release_arguments(registry.release_view(release))["methods"]

    before = methods("0.5.16").methods(npu)
    assert before.index("gptq") == before.index("gptq_marlin") - 1 and before[-1] == "mxfp4"
    assert methods("0.5.20").methods(npu)[-2:] == ["gptq", "mxfp4"]
    assert methods("0.5.20").methods(PLATFORMS["mps"])[-2:] == ["mlx_q4", "mlx_q8"]
