"""Issue 20 items 4 and 5: the start-up check tells the truth (platform-family backends,
architectures a release does not implement, checked fixes, unread environment variables), and the
library takes every field of the release's ServerArgs, typed as sglang types it."""

from __future__ import annotations

import pytest

from resolvable import ConflictError, Platform
from resolvable.errors import InvalidArgumentError
from resolvable.sglang import ServerArgs, check_startup, load_model, resolve_server_args
from resolvable.sglang.passes.startup import implemented_architectures

H100 = Platform.preset("h100")
LLAMA = load_model("llama-3.1-8b")


# -- item 5: every ServerArgs field, typed as sglang types it --------------------------------------
def test_resolve_server_args_takes_a_real_sglang_field_and_records_it():
    res = resolve_server_args(LLAMA, H100, enable_torch_compile=True, cuda_graph_max_bs_decode=32)
    assert dict(res.not_modelled) == {"enable_torch_compile": True, "cuda_graph_max_bs_decode": 32}
    plain = resolve_server_args(LLAMA, H100)
    assert res.fingerprint() == plain.fingerprint()  # not modelled: no value changes
    assert res.to_dict()["not_modelled"] == {"enable_torch_compile": True, "cuda_graph_max_bs_decode": 32}
    assert type(res).from_dict(res.to_dict()).not_modelled == res.not_modelled


def test_server_args_object_takes_a_real_sglang_field():
    sa = ServerArgs(model_path="llama-3.1-8b", hf_config=LLAMA, platform=H100, enable_torch_compile=True)
    assert sa.enable_torch_compile is True
    assert dict(sa.resolution.not_modelled) == {"enable_torch_compile": True}
    assert sa.attention_backend == resolve_server_args(LLAMA, H100)["attention_backend"]


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        (
            {"disable_cuda_graph": "false"},
            r"argument disable_cuda_graph: expected bool, got str 'false'.*as bool\); pass True or False",
        ),
        ({"tp_size": "2"}, r"argument tp_size: expected int, got str '2'"),
        ({"mem_fraction_static": "0.8"}, r"argument mem_fraction_static: expected float, got str '0.8'"),
        (
            {"cuda_graph_max_bs_decode": "32"},
            r"argument cuda_graph_max_bs_decode: expected int, got str '32'",
        ),
        ({"enable_torch_compile": 1}, r"argument enable_torch_compile: expected bool, got int 1"),
        (
            {"enable_torch_compil": True},
            r"unknown argument 'enable_torch_compil'.*did you mean 'enable_torch_compile'",
        ),
        (
            {"cuda_graph_max_bs": 8},
            r"cuda_graph_max_bs is not a field of sglang 0.5.23: it was removed in 0.5.20, use --cuda-graph-max-bs-decode",
        ),
    ],
)
def test_a_value_of_the_wrong_type_is_refused_naming_the_field(fields, words):
    with pytest.raises(InvalidArgumentError, match=words):
        resolve_server_args(LLAMA, H100, **fields)
    with pytest.raises(InvalidArgumentError, match=words):
        ServerArgs(model_path="llama-3.1-8b", hf_config=LLAMA, platform=H100, **fields)


def test_fields_follow_the_named_release():
    # 0.5.20 added --uno-lora-path; 0.5.15's ServerArgs has no such field
    assert resolve_server_args(LLAMA, H100, uno_lora_path="x", sglang_version="0.5.20").not_modelled
    with pytest.raises(
        InvalidArgumentError, match=r"uno_lora_path is not a field of sglang 0.5.15: it was added in 0.5.20"
    ):
        resolve_server_args(LLAMA, H100, uno_lora_path="x", sglang_version="0.5.15")


# -- item 4: start-up check truth ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("backend", "words"),
    [
        ("ascend", "No module named 'torch_npu'"),
        ("intel_xpu", "cannot import name 'flash_mla_decode' from 'sgl_kernel'"),
        ("intel_amx", "has no attribute 'decode_attention_cpu'"),
    ],
)
def test_a_backend_of_another_platform_family_is_refused_at_startup(backend, words):
    res = resolve_server_args(LLAMA, H100, attention_backend=backend)  # ServerArgs accepts it
    with pytest.raises(ConflictError, match=words) as info:
        check_startup(res, LLAMA)
    assert info.value.phase == "startup" and info.value.rule == "backend_platform_family"
    home = {"ascend": "npu", "intel_xpu": "xpu", "intel_amx": "cpu-amx"}[backend]
    check_startup(resolve_server_args(LLAMA, Platform.preset(home), attention_backend=backend), LLAMA)


T5 = {
    "architectures": ["T5ForConditionalGeneration"],
    "model_type": "t5",
    "d_model": 512,
    "num_heads": 8,
    "num_layers": 6,
    "vocab_size": 32128,
    "is_encoder_decoder": True,
}


@pytest.mark.parametrize("release", ["0.5.15", "0.5.23"])
def test_an_architecture_the_release_does_not_implement_is_refused(release):
    assert "T5ForConditionalGeneration" not in implemented_architectures()[release]
    with pytest.raises(
        ConflictError, match=r"T5ForConditionalGeneration has no SGlang implementation"
    ) as info:
        resolve_server_args(T5, H100, startup=True, sglang_version=release)
    assert info.value.phase == "startup"


def test_the_registry_lists_follow_the_wheels_per_release():
    from resolvable.sglang import SGLANG_RELEASES
    from resolvable.sglang.passes.startup import OLDEST_ARCHITECTURE_LIST

    archs = implemented_architectures()
    assert list(archs) == list(SGLANG_RELEASES[SGLANG_RELEASES.index(OLDEST_ARCHITECTURE_LIST) :])
    assert archs["0.5.15"] <= archs["0.5.23"] | archs["0.5.15"]
    from resolvable.sglang.models import bundled, catalog

    for name in catalog():  # every bundled sample is implemented by the newest release
        assert bundled(name).architecture in archs["0.5.23"], name


def test_a_checked_fix_never_proposes_a_backend_the_platform_cannot_run():
    b200 = Platform.preset("b200")
    from resolvable.sglang.fixes import with_checked_fix

    hf = load_model("deepseek-v3")
    user = {"tp_size": 8, "enable_deterministic_inference": True}
    with pytest.raises(ConflictError) as info:
        resolve_server_args(hf, b200, **user)
    fix = with_checked_fix(info.value, hf, b200, None, user).fix
    proposed = fix.split("pass --attention-backend ", 1)[1].split(",  ")[0].split(", or")[0]
    assert "ascend" not in proposed and "intel_xpu" not in proposed, fix
