"""Public entry points validate their arguments; wrong-typed input is refused, never kept.

Guarantees:

* a value for a field is typed as the engine types it: a string for a bool, int or float field
  is an ``InvalidArgumentError`` naming the argument (``disable_cuda_graph="false"`` can never
  mean True), a bool is not an int, an int is a float;
* ``env``, ``platform``, ``hf``, ``user_set``, ``trace`` and ``release`` are checked, each
  error naming the argument. ``platform`` may be a ``Platform`` or a preset name;
* ``Platform(...)`` validates and normalises its facts; ``Platform.from_dict`` and
  ``Resolution.from_dict`` refuse malformed data with a ``ResolvableError``.
"""

from __future__ import annotations

import copy
import json

import pytest

from resolvable import Platform, Resolution, resolve
from resolvable.errors import InvalidArgumentError, ResolvableError
from resolvable.sglang import ServerArgs, registry, resolve_server_args

LLAMA = {"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "num_attention_heads": 32}
H100 = Platform.preset("h100")


@pytest.mark.parametrize(
    "field, value",
    [
        ("disable_cuda_graph", "false"),
        ("disable_cuda_graph", "true"),
        ("disable_cuda_graph", 1),
        ("page_size", "16"),
        ("page_size", 16.0),
        ("page_size", True),
        ("mem_fraction_static", "0.8"),
        ("mem_fraction_static", False),
        ("tp_size", "8"),
        ("attention_backend", 3),
        ("attention_backend", b"fa3"),
        ("model_path", 5),
    ],
)
def test_wrong_typed_values_are_refused_naming_the_argument(field: str, value: object) -> None:
    with pytest.raises(InvalidArgumentError, match=rf"argument {field}: expected") as info:
        resolve_server_args(LLAMA, H100, **{field: value})
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "field, value", [("mem_fraction_static", 1), ("disable_cuda_graph", False), ("page_size", 16)]
)
def test_values_of_the_right_type_are_kept(field: str, value: object) -> None:
    res = resolve_server_args(LLAMA, H100, **{field: value})
    assert res[field] == value


def test_the_false_string_never_means_true() -> None:
    with pytest.raises(InvalidArgumentError):
        resolve_server_args(LLAMA, H100, disable_cuda_graph="false")
    assert resolve_server_args(LLAMA, H100, disable_cuda_graph=False)["disable_cuda_graph"] is False


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"env": 5}, "env must be a mapping"),
        ({"env": ["SGLANG_USE_AITER=1"]}, "env must be a mapping"),
        ({"env": {"SGLANG_USE_AITER": 1}}, "env: 'SGLANG_USE_AITER'=1"),
        ({"platform": 5}, "platform must be a Platform"),
        ({"platform": "h1000"}, "unknown platform preset 'h1000'"),
        ({"trace": "yes"}, "trace must be True or False"),
        ({"sglang_version": 5}, "release"),
    ],
)
def test_entry_point_arguments_are_named(kwargs: dict, match: str) -> None:
    base = {"platform": H100}
    base.update(kwargs)
    with pytest.raises(ResolvableError, match=match):
        resolve_server_args(LLAMA, **base)


def test_a_platform_preset_name_is_accepted() -> None:
    assert resolve_server_args(LLAMA, "h100") == resolve_server_args(LLAMA, H100)


def test_engine_resolve_checks_its_arguments() -> None:
    with pytest.raises(InvalidArgumentError, match="hf must be a model config"):
        resolve(registry, {}, 5, H100)
    with pytest.raises(InvalidArgumentError, match="argument names must be strings"):
        resolve(registry, {1: 2}, LLAMA, H100)
    with pytest.raises(InvalidArgumentError, match="registry must be a Registry"):
        resolve("sglang", {}, LLAMA, H100)


@pytest.mark.parametrize(
    "user_set, match",
    [(["nope"], "user_set names 'nope'"), ("page_size", "collection of field names"), (5, "collection")],
)
def test_user_set_is_checked(user_set: object, match: str) -> None:
    with pytest.raises(InvalidArgumentError, match=match):
        ServerArgs(model_path="llama-3.1-8b", platform=H100, user_set=user_set)


# -- Platform facts --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "facts, match",
    [
        ({"capability": 9}, r"capability=9: expected \(major, minor\), e.g. \(9, 0\)"),
        ({"capability": (9,)}, "capability"),
        ({"capability": (9, 0, 1)}, "capability"),
        ({"capability": ("9", "0")}, "capability"),
        ({"capability": (9, True)}, "capability"),
        ({"capability": "9.0"}, "capability"),
        ({"cuda_version": (12,)}, "cuda_version"),
        ({"cuda_version": (12, -1)}, "cuda_version"),
        ({"driver_version": "575"}, "driver_version"),
        ({"kernels": "flashinfer"}, "kernels='flashinfer'"),
        ({"kernels": [1]}, "kernels"),
        ({"kernels": None}, "kernels"),
        ({"cpu_amx": "no"}, "cpu_amx='no'"),
        ({"cpu_amx": 1}, "cpu_amx"),
        ({"xpu_xmx": "false"}, "xpu_xmx"),
        ({"device_count": 0}, "device_count"),
        ({"device_count": "8"}, "device_count"),
        ({"memory_gib": float("nan")}, "memory_gib"),
        ({"memory_gib": "80"}, "memory_gib"),
        ({"name": None}, "name"),
        ({"gcn_arch": 942}, "gcn_arch"),
        ({"vendor": 5}, "vendor"),
    ],
)
def test_platform_facts_are_validated(facts: dict, match: str) -> None:
    with pytest.raises(ResolvableError, match=match):
        Platform(**{"vendor": "cuda", **facts})


def test_platform_facts_are_normalised() -> None:
    p = Platform(
        vendor="cuda", capability=[9, 0], cuda_version=[12, 9], driver_version=[575], kernels=["flashinfer"]
    )
    assert p.capability == (9, 0) and p.cuda_version == (12, 9) and p.driver_version == (575,)
    assert p.kernels == frozenset({"flashinfer"}) and p.has_kernel("flashinfer")
    assert p.is_sm90 and p == Platform.preset("h100").replace(
        name="custom",
        device_name=None,
        memory_gib=None,
        device_count=1,
        driver_version=(575,),
        kernels=frozenset({"flashinfer"}),
    )
    assert Platform(vendor="cpu", cpu_amx=False).has_amx is False


@pytest.mark.parametrize(
    "data",
    [
        5,
        None,
        [],
        {},
        {"vendor": "cuda", "bogus": 1},
        {"vendor": "cuda", "capability": [9]},
        {"vendor": "cuda", "kernels": "flashinfer"},
        {"vendor": "cuda", "kernels": 5},
        {"vendor": "cuda", "cpu_amx": "no"},
        {"vendor": None},
        {1: 2},
    ],
)
def test_platform_from_dict_refuses_malformed_data(data: object) -> None:
    with pytest.raises(ResolvableError):
        Platform.from_dict(data)  # type: ignore[arg-type]


def test_platform_round_trips_through_a_dict() -> None:
    for name, preset in Platform.presets().items():
        assert Platform.from_dict(json.loads(json.dumps(preset.to_dict()))) == preset, name


# -- Resolution.from_dict ------------------------------------------------------------------


def _paths(node: object, prefix: tuple = ()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield (*prefix, key)
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node[:2]):
            yield (*prefix, i)
            yield from _paths(value, (*prefix, i))


def test_resolution_from_dict_refuses_every_malformed_field() -> None:
    """Every key of a saved resolution replaced by a value of another type: a ResolvableError
    or a resolution that serialises again; never TypeError, KeyError or AttributeError."""
    res = resolve_server_args("llama-3.1-8b" and LLAMA, H100, trace=True)
    saved = json.loads(json.dumps(res.to_dict()))
    assert Resolution.from_dict(saved) == res
    replacements = [5, "x", None, [], {}, [1, 2], True, {"a": 1}]
    tried = 0
    for path in _paths(saved):
        for bad in replacements:
            data = copy.deepcopy(saved)
            node = data
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = bad
            data.pop("fingerprint", None)
            tried += 1
            try:
                again = Resolution.from_dict(data)
            except ResolvableError:
                continue
            json.dumps(again.to_dict())
            again.fingerprint()
    assert tried > 500
    for bad in (5, None, [], "x", {"format": 1}):
        with pytest.raises(ResolvableError):
            Resolution.from_dict(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"env": 5}, "env must be a mapping"),
        ({"platform": 5}, "platform must be a Platform"),
        ({"block_size": "16"}, "argument block_size: expected"),
        ({"enforce_eager": "false"}, "argument enforce_eager: expected a bool"),
        ({"tensor_parallel_size": "2"}, "argument tensor_parallel_size"),
        ({"trace": "x"}, "trace must be True or False"),
    ],
)
def test_vllm_entry_point_arguments_are_named(kwargs: dict, match: str) -> None:
    from resolvable.vllm.api import resolve_vllm_args

    base = {"platform": H100}
    base.update(kwargs)
    with pytest.raises(ResolvableError, match=match):
        resolve_vllm_args({**LLAMA, "num_hidden_layers": 2}, **base)


def _published_free_resolution() -> Resolution:
    return resolve_server_args(LLAMA, H100)


PUBLIC_MISUSE = {
    "load_hf_config(5)": lambda: __import__("resolvable").load_hf_config(5),
    "load_hf_config('')": lambda: __import__("resolvable").load_hf_config(""),
    "publish(5)": lambda: __import__("resolvable").publish(5),
    "publish(res, live=5)": lambda: __import__("resolvable").publish(_published_free_resolution(), live=5),
    "ContextSlot().publish(5)": lambda: __import__("resolvable").ContextSlot().publish(5),
    "res.diff(5)": lambda: _published_free_resolution().diff(5),
    "res.adjust(5)": lambda: _published_free_resolution().adjust(5, page_size=16),
    "res.adjust(page_size='16')": lambda: _published_free_resolution().adjust("x", page_size="16"),
    "Platform.detect(env=5)": lambda: Platform.detect(env=5),
    "Platform.replace(bogus=1)": lambda: H100.replace(bogus=1),
    "resolve_server_args(load_time='no')": lambda: resolve_server_args(LLAMA, H100, load_time="no"),
    "resolve_server_args(startup='yes')": lambda: resolve_server_args(LLAMA, H100, startup="yes"),
    "Resolution.from_dict(schema=5)": lambda: Resolution.from_dict(
        _published_free_resolution().to_dict(), schema=5
    ),
    "check_parity(5, …)": lambda: __import__("resolvable").check_parity(5, len, len),
    "check_parity(cases, 5, …)": lambda: __import__("resolvable").check_parity([], 5, len),
    "HFConfig.get_typed(kind=5)": lambda: (
        __import__("resolvable").HFConfig(LLAMA).get_typed("hidden_size", 5)
    ),
}


@pytest.mark.parametrize("call", sorted(PUBLIC_MISUSE))
def test_public_entry_points_refuse_misuse_with_a_value_error(call: str) -> None:
    with pytest.raises(ResolvableError) as info:
        PUBLIC_MISUSE[call]()
    assert str(info.value).isprintable()


@pytest.mark.parametrize(
    "text", ["[" * 100_000, '{"backend":' * 5_000, "x" * 1_000_000], ids=["deep", "nested", "long"]
)
def test_vllm_attention_config_text_is_bounded(text: str) -> None:
    from resolvable.vllm.api import resolve_vllm_args

    with pytest.raises(ResolvableError, match="--attention-config"):
        resolve_vllm_args({**LLAMA, "num_hidden_layers": 2}, H100, attention_config=text)
