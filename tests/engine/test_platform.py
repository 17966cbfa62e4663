"""Platform values: presets, predicates with SGLang's exact semantics, detection."""

from __future__ import annotations

import dataclasses
import json

import pytest

from resolvable import Platform, _detect
from resolvable.errors import UnknownPresetError

PRED = ("is_sm80", "is_sm90", "is_sm100", "is_sm120", "is_blackwell")

# preset -> (vendor, device string, device_sm, {predicate: expected}) for every preset.
EXPECTED = {
    "a100": ("cuda", "cuda", 80, {"is_sm80"}),
    "a100-40g": ("cuda", "cuda", 80, {"is_sm80"}),
    "a10g": ("cuda", "cuda", 86, {"is_sm80"}),
    "l4": ("cuda", "cuda", 89, {"is_sm80"}),
    "rtx4090": ("cuda", "cuda", 89, {"is_sm80"}),
    "t4": ("cuda", "cuda", 75, set()),
    "h100-pcie": ("cuda", "cuda", 90, {"is_sm90"}),
    "l40s": ("cuda", "cuda", 89, {"is_sm80"}),
    "h100": ("cuda", "cuda", 90, {"is_sm90"}),
    "h200": ("cuda", "cuda", 90, {"is_sm90"}),
    "h20": ("cuda", "cuda", 90, {"is_sm90"}),
    "b200": ("cuda", "cuda", 100, {"is_sm100", "is_blackwell"}),
    "b300": ("cuda", "cuda", 103, {"is_sm100", "is_blackwell"}),
    "gb200": ("cuda", "cuda", 100, {"is_sm100", "is_blackwell"}),
    "gh200": ("cuda", "cuda", 90, {"is_sm90"}),
    "gb300": ("cuda", "cuda", 103, {"is_sm100", "is_blackwell"}),
    "gb10": ("cuda", "cuda", 121, {"is_sm120", "is_blackwell"}),
    "thor": ("cuda", "cuda", 110, {"is_blackwell"}),
    "rtx5090": ("cuda", "cuda", 120, {"is_sm120", "is_blackwell"}),
    "rtxpro6000": ("cuda", "cuda", 120, {"is_sm120", "is_blackwell"}),
    "mi300x": ("hip", "cuda", 94, set()),
    "mi325x": ("hip", "cuda", 94, set()),
    "mi355x": ("hip", "cuda", 95, set()),
    "xpu": ("xpu", "xpu", 0, set()),
    "xpu-noxmx": ("xpu", "xpu", 0, set()),
    "npu": ("npu", "npu", 0, set()),
    "cpu": ("cpu", "cpu", 0, set()),
    "cpu-amx": ("cpu", "cpu", 0, set()),
    "cpu-arm": ("cpu", "cpu", 0, set()),
}


def test_expected_table_covers_every_preset():
    assert set(Platform.presets()) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_preset_predicates(name):
    vendor, device, sm, true_preds = EXPECTED[name]
    p = Platform.preset(name)
    assert p.name == name
    assert p.vendor == vendor
    assert p.device == device
    assert p.device_sm == sm
    for pred in PRED:
        assert getattr(p, pred) is (pred in true_preds), f"{name}.{pred}"
    vendor_preds = {"cuda": "is_cuda", "hip": "is_hip", "xpu": "is_xpu", "npu": "is_npu", "cpu": "is_cpu"}
    for v, attr in vendor_preds.items():
        assert getattr(p, attr) is (v == vendor), f"{name}.{attr}"
    assert p.is_musa is False and p.is_mps is False and p.is_hpu is False


def test_one_memory_figure_per_device():
    """A preset's memory is what torch reports (``_platform._preset_values`` cites each figure);
    for a device ``device_memory`` also names, the two tables agree, so a log read by name and the
    preset give the same total."""
    from resolvable.device_memory import GIB, device_total_bytes

    named = 0
    for name, preset in Platform.presets().items():
        by_name = device_total_bytes(preset.device_name, None)
        if by_name is not None:
            named += 1
            assert by_name == int(preset.memory_gib * GIB), name
    assert named >= 18
    # torch's figures, not the marketing or nvidia-smi ones (T4: 15360 MiB in nvidia-smi)
    assert Platform.preset("t4").memory_gib == 14.56 and Platform.preset("a10g").memory_gib == 22.0


def test_no_preset_sits_at_a_sglang_memory_band_bound():
    """sglang's memory bands read nvidia-smi's ``memory.total``, a few hundred MiB above torch's
    figure: no preset is within 1 GiB of a bound, so its band is the same with either figure."""
    from resolvable.sglang.passes.memory import MEMORY_BANDS

    bounds = [limit / 1024 for limit, *_ in MEMORY_BANDS if limit != float("inf")]
    for name, preset in Platform.presets().items():
        if preset.memory_gib is not None:
            assert all(abs(preset.memory_gib - b) > 1 for b in bounds), name


def test_vendor_specific_facts_of_presets():
    assert Platform.preset("mi300x").is_gfx942 and not Platform.preset("mi300x").is_gfx95
    assert Platform.preset("mi355x").is_gfx95 and not Platform.preset("mi355x").is_gfx942
    assert Platform.preset("mi325x").is_gfx942 and Platform.preset("mi325x").memory_gib == 255.98
    assert Platform.preset("xpu").has_xmx is True
    assert Platform.preset("xpu-noxmx").has_xmx is False
    assert Platform.preset("cpu-amx").has_amx is True
    assert Platform.preset("cpu").has_amx is False
    assert Platform.preset("cpu-arm").is_arm64_host is True
    assert Platform.preset("cpu").is_arm64_host is False
    assert Platform.preset("h100").has_kernel("flashinfer")
    assert not Platform.preset("mi300x").has_kernel("flashinfer")


def test_sm90_needs_cuda_12_3():
    hopper_122 = Platform.preset("h100").replace(cuda_version=(12, 2))
    assert hopper_122.capability == (9, 0)
    assert hopper_122.is_sm90 is False
    assert Platform.preset("h100").replace(cuda_version=(12, 3)).is_sm90 is True


def test_sm90_needs_major_9():
    assert Platform(vendor="cuda", capability=(8, 9), cuda_version=(12, 9)).is_sm90 is False
    assert Platform(vendor="cuda", capability=(9, 0), cuda_version=(13, 0)).is_sm90 is True
    assert Platform(vendor="cuda", capability=(9, 0), cuda_version=None).is_sm90 is False
    assert Platform(vendor="cuda", capability=None, cuda_version=(12, 9)).is_sm90 is False


def test_sm100_needs_major_10_and_cuda_12_8():
    assert Platform(vendor="cuda", capability=(10, 0), cuda_version=(12, 8)).is_sm100 is True
    assert Platform(vendor="cuda", capability=(10, 3), cuda_version=(12, 8)).is_sm100 is True
    old = Platform(vendor="cuda", capability=(10, 0), cuda_version=(12, 7))
    assert old.is_sm100 is False
    assert old.is_blackwell is False
    assert Platform(vendor="cuda", capability=(12, 0), cuda_version=(12, 9)).is_sm100 is False


def test_sm120_is_major_12():
    assert Platform(vendor="cuda", capability=(12, 0), cuda_version=(12, 8)).is_sm120 is True
    assert Platform(vendor="cuda", capability=(12, 1), cuda_version=(12, 8)).is_sm120 is True
    assert Platform(vendor="cuda", capability=(12, 0), cuda_version=(12, 6)).is_sm120 is False
    assert Platform(vendor="cuda", capability=(10, 0), cuda_version=(12, 8)).is_sm120 is False


@pytest.mark.parametrize("major", [10, 11, 12])
def test_blackwell_is_majors_10_to_12(major):
    assert Platform(vendor="cuda", capability=(major, 0), cuda_version=(12, 8)).is_blackwell is True


@pytest.mark.parametrize("major", [8, 9, 13])
def test_not_blackwell_outside_majors_10_to_12(major):
    assert Platform(vendor="cuda", capability=(major, 0), cuda_version=(12, 9)).is_blackwell is False


def test_sm11x_is_blackwell_but_neither_sm100_nor_sm120():
    thor = Platform(vendor="cuda", capability=(11, 0), cuda_version=(12, 9))
    assert thor.is_blackwell is True
    assert thor.is_sm100 is False
    assert thor.is_sm120 is False


def test_nvidia_predicates_are_gated_on_the_cuda_vendor():
    fake = Platform(vendor="hip", capability=(9, 0), cuda_version=(12, 9))
    assert fake.is_sm90 is False
    assert fake.is_blackwell is False


def test_device_sm_on_mi300x_is_94_and_device_is_cuda():
    mi300x = Platform.preset("mi300x")
    assert mi300x.device_sm == 94
    assert mi300x.device == "cuda"
    assert mi300x.is_sm90 is False  # device_sm is not gated on CUDA, the sm predicates are


def test_device_sm_without_capability_is_zero():
    assert Platform(vendor="cuda").device_sm == 0


def test_preset_name_is_normalised():
    assert Platform.preset("H100") == Platform.preset("h100")
    assert Platform.preset(" xpu_noxmx ") == Platform.preset("xpu-noxmx")


def test_unknown_preset_lists_names_and_suggests_closest():
    with pytest.raises(UnknownPresetError) as info:
        Platform.preset("h10O")
    message = str(info.value)
    assert "'h10O'" in message
    assert "Did you mean 'h100'?" in message
    for name in ("a100", "b200", "mi300x", "cpu-amx"):
        assert name in message
    assert isinstance(info.value, ValueError)


def test_unknown_preset_without_close_match_still_lists_names():
    with pytest.raises(UnknownPresetError) as info:
        Platform.preset("quantum-annealer-9000")
    assert "Did you mean" not in str(info.value)
    assert "h100" in str(info.value)


def test_unknown_vendor_is_refused():
    with pytest.raises(UnknownPresetError, match="vendor"):
        Platform(vendor="gpu")  # type: ignore[arg-type]


def test_replace_changes_facts_and_marks_the_name():
    h100 = Platform.preset("h100")
    custom = h100.replace(cuda_version=(12, 2))
    assert custom.name == "h100+custom"
    assert custom.cuda_version == (12, 2)
    assert custom != h100
    assert h100.cuda_version == (12, 9)  # the preset is untouched
    assert custom.replace(device_count=1).name == "h100+custom"  # no double suffix
    assert h100.replace(name="mine", memory_gib=1.0).name == "mine"


def test_lists_are_normalised_to_tuples_and_frozensets():
    p = Platform(vendor="cuda", capability=[9, 0], cuda_version=[12, 4], kernels=["flashinfer"])  # type: ignore[arg-type]
    assert p.capability == (9, 0)
    assert p.cuda_version == (12, 4)
    assert p.kernels == frozenset({"flashinfer"})
    assert p.is_sm90


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_to_dict_from_dict_round_trip(name):
    p = Platform.preset(name)
    data = json.loads(json.dumps(p.to_dict()))
    back = Platform.from_dict(data)
    assert back == p
    assert hash(back) == hash(p)
    assert back.to_dict() == p.to_dict()
    assert "detected_by" not in data


def test_from_dict_rejects_unknown_facts():
    data = Platform.preset("h100").to_dict()
    data["warp_size"] = 32
    with pytest.raises(UnknownPresetError, match="warp_size"):
        Platform.from_dict(data)


def test_platform_is_frozen_and_hashable():
    h100 = Platform.preset("h100")
    with pytest.raises(dataclasses.FrozenInstanceError):
        h100.vendor = "hip"  # type: ignore[misc]
    copy = Platform.from_dict(h100.to_dict())
    assert {h100, copy} == {h100}
    assert {h100: 1}[copy] == 1
    assert len(set(Platform.presets().values())) == len(EXPECTED)


def test_detected_by_is_not_a_fact():
    h100 = Platform.preset("h100")
    other = dataclasses.replace(h100, detected_by="somewhere else")
    assert other == h100
    assert hash(other) == hash(h100)


def test_describe_mentions_key_facts():
    text = Platform.preset("h100").describe()
    assert "cuda" in text and "cc 9.0" in text and "CUDA 12.9" in text
    assert "gfx942" in Platform.preset("mi300x").describe()
    assert "AMX" in Platform.preset("cpu-amx").describe()


# -- detection ---------------------------------------------------------------------------


def test_detect_honors_the_env_var():
    p = Platform.detect(env={"RESOLVABLE_PLATFORM": "h100"})
    assert p == Platform.preset("h100")
    assert p.name == "h100"
    assert p.is_sm90
    assert "RESOLVABLE_PLATFORM=h100" in p.detected_by


def test_detect_env_var_is_case_insensitive():
    assert Platform.detect(env={"RESOLVABLE_PLATFORM": "MI300X"}) == Platform.preset("mi300x")


def _no_device(monkeypatch):
    for probe in ("_from_torch", "_from_nvidia_smi", "_from_rocm_smi"):
        monkeypatch.setattr(_detect, probe, lambda: None)


def _boom(*args, **kwargs):
    raise RuntimeError("driver exploded")


def test_detect_never_raises_when_every_probe_fails(monkeypatch):
    for probe in ("_from_torch", "_from_nvidia_smi", "_from_rocm_smi"):
        monkeypatch.setattr(_detect, probe, _boom)
    p = Platform.detect(env={})
    assert p.vendor == "cpu"
    assert "RuntimeError" in p.detected_by
    assert "driver exploded" in p.detected_by
    assert "fallback to CPU" in p.detected_by


def test_detect_never_raises_when_cpuinfo_is_unreadable(monkeypatch):
    _no_device(monkeypatch)

    def no_open(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(_detect, "open", no_open, raising=False)
    p = Platform.detect(env={})
    assert p.vendor == "cpu"
    assert p.cpu_amx is False
    assert "unreadable" in p.detected_by


def test_detect_ignores_an_unknown_preset_in_the_env(monkeypatch):
    _no_device(monkeypatch)
    p = Platform.detect(env={"RESOLVABLE_PLATFORM": "h1000000"})
    assert p.vendor == "cpu"
    assert "ignored RESOLVABLE_PLATFORM" in p.detected_by


def test_detect_survives_garbage_from_nvidia_smi(monkeypatch):
    monkeypatch.setattr(_detect, "_from_torch", lambda: None)
    monkeypatch.setattr(_detect, "_from_rocm_smi", lambda: None)
    monkeypatch.setattr(_detect, "_run", lambda cmd: "garbage")
    p = Platform.detect(env={})
    assert p.vendor == "cpu"
    assert "nvidia_smi failed" in p.detected_by


def test_detect_parses_nvidia_smi(monkeypatch):
    outputs = {
        "--query-gpu=name,compute_cap,memory.total,driver_version": (
            "NVIDIA H100 80GB HBM3, 9.0, 81559, 575.57.08\nNVIDIA H100 80GB HBM3, 9.0, 81559, 575.57.08\n"
        ),
        None: "| NVIDIA-SMI 575.57.08   Driver Version: 575.57.08   CUDA Version: 12.9 |",
    }
    monkeypatch.setattr(_detect, "_from_torch", lambda: None)
    monkeypatch.setattr(_detect, "_run", lambda cmd: outputs[cmd[1] if len(cmd) > 1 else None])
    p = Platform.detect(env={})
    assert p.vendor == "cuda"
    assert p.capability == (9, 0)
    assert p.cuda_version == (12, 9)
    assert p.device_count == 2
    assert p.is_sm90
    assert p.detected_by.startswith("nvidia-smi")


def test_detect_uses_the_first_probe_that_answers(monkeypatch):
    found = Platform(
        vendor="cuda", name="detected", capability=(10, 0), cuda_version=(12, 8), detected_by="torch (CUDA)"
    )
    monkeypatch.setattr(_detect, "_from_torch", lambda: found)
    monkeypatch.setattr(_detect, "_from_nvidia_smi", _boom)
    p = Platform.detect(env={})
    assert p == found
    assert p.is_sm100
    assert p.detected_by.startswith("torch (CUDA)")


def test_the_engine_holds_no_sglang_gate_a_pack_defines_it():
    """``is_sm90`` (CUDA >= 12.3) and the CUDA >= 12.8 Blackwell gates are the SGLang pack's
    predicates: the engine alone has none of them; the pack defines each from ``cuda_major_in``."""
    import subprocess
    import sys

    gates = ("is_sm90", "is_sm100", "is_sm100_or_sm110", "is_sm120", "is_blackwell")
    code = f"import resolvable; p = resolvable.Platform.preset('b200'); print([hasattr(p, n) for n in {gates!r}])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip()
    assert out == str([False] * len(gates))
    from resolvable.sglang import platform_facts

    for name in gates:
        for preset in ("h100", "b200", "rtx5090", "a100"):
            p = Platform.preset(preset)
            assert getattr(p, name) is getattr(platform_facts, name)(p)
    thor = Platform(vendor="cuda", capability=(11, 0), cuda_version=(12, 8))
    assert thor.is_sm100_or_sm110 is True and Platform.preset("b200").is_sm100_or_sm110 is True
    assert Platform.preset("b200").replace(cuda_version=(12, 6)).is_sm100_or_sm110 is False
    assert Platform.preset("rtx5090").is_sm100_or_sm110 is False


def test_platforms_shows_the_packs_gates_through_the_pack_interface():
    """``resolvable platforms`` reads the generation predicates from ``Pack.platform_facts``
    (the CLI imports no pack module); a pack without any shows none."""
    from resolvable import packs

    sglang = packs.get("sglang")
    assert sglang.platform_facts(Platform.preset("b200")) == {
        "sm90": False,
        "sm100": True,
        "sm120": False,
        "blackwell": True,
    }
    assert list(sglang.platform_facts(Platform.preset("h100"))) == ["sm90", "sm100", "sm120", "blackwell"]
    assert packs.get("vllm").platform_facts(Platform.preset("b200")) == {}


def test_define_fact_refuses_a_second_meaning_and_an_engine_name():
    from resolvable.rules import RegistrationError, define_platform_fact

    with pytest.raises(RegistrationError, match="cannot define it again"):
        define_platform_fact("is_sm90", lambda p: True)
    with pytest.raises(RegistrationError, match="already has 'is_cuda'"):
        define_platform_fact("is_cuda", lambda p: True)
    with pytest.raises(RegistrationError, match="public identifier"):
        define_platform_fact("_hidden", lambda p: True)
