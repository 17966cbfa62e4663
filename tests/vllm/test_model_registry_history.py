"""vLLM's model registry per release (issue 32 item 1): ``config/model_registry_history.json``
(``tools/extract_vllm_model_info.py --history``, one extraction per wheel 0.20.0-0.34.0), read
through ``ctx.release.holds`` by ``config/model_info.py``.

One golden test per fact class of the history: membership (a class added later is refused with
the release that added it; a class removed is refused with vLLM's "was supported until" words),
the Transformers backend's fallback for a class the release lacks (``_try_resolve_transformers``,
``CHANGES.TRANSFORMERS_BACKEND_ATTN_IMPLEMENTATION``), ``supports_pp`` and ``supports_lora`` per
release. Then the history against the wheels: where the wheel is in ``/work/wheels`` its
``registry.py`` is read (membership from the source, and its sha256); where it is not, the
membership the pack computes is checked against the stored per-release digest.
"""

from __future__ import annotations

import functools
import glob
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from config_cases import cfg_refusal, cfg_res, llama

from harness_tools import load_tool
from resolvable._changes import ReleaseView, TracedReleaseView
from resolvable.vllm import load_model
from resolvable.vllm._base import VLLM_RELEASES
from resolvable.vllm.changes import CHANGES
from resolvable.vllm.config import model_info

ROOT = Path(__file__).resolve().parents[2]
HISTORY = ROOT / "src/resolvable/vllm/config/model_registry_history.json"
WHEELS = Path(os.environ.get("RESOLVABLE_VLLM_WHEELS", "/work/wheels"))

#: Every release the history was read from (oracle venvs /work/oracle-vllm/v<V>).
RELEASES = [
    *("0.20.0", "0.20.1", "0.20.2", "0.21.0", "0.22.0", "0.22.1", "0.23.0", "0.24.0", "0.25.0"),
    *("0.25.1", "0.26.0", "0.27.0", "0.27.1", "0.28.0", "0.29.0", "0.30.0", "0.31.0", "0.32.0"),
    *("0.33.0", "0.34.0"),
]


@functools.cache
def _tool():
    """tools/extract_vllm_model_info.py, loaded once (``harness_tools.load_tool``)."""
    return load_tool("extract_vllm_model_info", "tools/extract_vllm_model_info.py")


def view(release: str) -> ReleaseView:
    return ReleaseView(release, CHANGES)


def membership(release: str) -> set[str]:
    """The classes the pack says ``release``'s ``ModelRegistry`` holds."""
    names = set(model_info.architectures()) | set(model_info.history()["registered"])
    return {a for a in names if model_info.is_registered(a, view(release))}


def arch_config(arch: str, **extra) -> dict:
    return llama(architectures=[arch], model_type="custom", **extra)


# --- the data ---------------------------------------------------------------------------------


def test_the_history_covers_every_modelled_release_and_0_20():
    assert model_info.history()["releases"] == RELEASES
    assert set(VLLM_RELEASES) <= set(RELEASES)


def test_the_stored_digest_is_the_datas():
    data = json.loads(HISTORY.read_text())
    assert _tool().history_digest(data) == data["digest"]


def test_the_history_stays_small_on_disk():
    """Measured 2026-12-05: about 20 kB for 20 releases (model_info.json: 15 kB)."""
    assert HISTORY.stat().st_size < 40_000


@pytest.mark.parametrize("release", RELEASES)
def test_membership_equals_the_wheels(release):
    """With the wheel: the pack's membership is the class names of the wheel's ``registry.py``
    (``_VLLM_MODELS``, read from the source) and the file is the one the history was read from.
    Without it: the membership equals the stored per-release digest of the extraction."""
    data = model_info.history()
    got = membership(release)
    assert _tool().names_digest(got) == data["registered_sha256"][release]
    found = sorted(glob.glob(str(WHEELS / f"vllm-{release}-*.whl")))
    if found:
        source = _tool().registry_source(found[0])
        assert hashlib.sha256(source).hexdigest() == data["registry_sha256"][release]
        assert _tool().registered_in_source(source) == got


def test_membership_grows_and_shrinks_as_the_extractions_counted():
    """Counts of ``ModelRegistry.models`` per release (the extractions, imports or not)."""
    counts = {r: len(membership(r)) for r in ("0.20.0", "0.21.0", "0.24.0", "0.30.0", "0.34.0")}
    assert counts == {"0.20.0": 344, "0.21.0": 356, "0.24.0": 359, "0.30.0": 386, "0.34.0": 426}


def test_import_reads_no_history():
    code = "import sys, resolvable.vllm; print('model_registry_history' in str(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    assert model_info.history.cache_info().currsize <= 1


# --- membership -------------------------------------------------------------------------------


def test_a_class_added_later_is_refused_naming_the_release_that_added_it():
    """``DeepseekV41ForCausalLM``: registered from 0.30.0 on; transformers has no class of that name,
    so 0.29 (``_raise_for_unsupported``) refuses it."""
    cfg = arch_config("DeepseekV41ForCausalLM")
    err = cfg_refusal(cfg, version="0.29.0")
    assert "Model architectures ['DeepseekV41ForCausalLM'] are not supported for now." in str(err)
    assert "DeepseekV41ForCausalLM is registered in vLLM from 0.30.0 on" in str(err)
    assert cfg_res(cfg, version="0.30.0")["runner_type"] == "generate"


def test_a_removed_class_gets_vllms_previously_supported_words():
    """``AquilaForCausalLM``: registered up to 0.24.0; 0.25's ``_PREVIOUSLY_SUPPORTED_MODELS``
    names 0.24.0 as the last release that served it."""
    cfg = arch_config("AquilaForCausalLM")
    assert cfg_res(cfg, version="0.24.0")["runner_type"] == "generate"
    err = cfg_refusal(cfg, version="0.34.0")
    assert str(err).startswith(
        "Model architecture AquilaForCausalLM was supported in vLLM until v0.24.0, and is not supported anymore."
    )


def test_a_class_transformers_serves_is_not_refused_before_vllm_registers_it():
    """``HrmTextForCausalLM`` (bundled hrm-text): registered from 0.25.0; before, the Transformers
    backend serves transformers' backend-compatible class of that name."""
    hf = load_model("hrm-text")
    assert model_info.transformers_serves("HrmTextForCausalLM", view("0.21.0")) is True
    assert cfg_res(hf.to_dict(), version="0.21.0")["runner_type"] == "generate"


def test_attn_implementation_classes_are_served_by_transformers_since_0_30():
    """``BambaForCausalLM`` (registered up to 0.23.0): transformers' class can only set its
    attention implementation, which ``_try_resolve_transformers`` accepts from 0.30 on."""
    cfg = arch_config("BambaForCausalLM")
    err = cfg_refusal(cfg, version="0.29.0")
    assert "BambaForCausalLM was supported in vLLM until v0.23.0" in str(err)
    assert cfg_res(cfg, version="0.30.0")["runner_type"] == "generate"
    assert "TRANSFORMERS_BACKEND_ATTN_IMPLEMENTATION" in {c.name for c in CHANGES.introduced("0.30.0")}


def test_a_class_that_left_and_came_back():
    """``ExaoneMoEForCausalLM``: in 0.20.0-0.26.0, gone in 0.27.0-0.31.0, back from 0.32.0."""
    assert model_info.registered_ranges("ExaoneMoEForCausalLM") == "0.20.0-0.26.0, from 0.32.0 on"
    held = [model_info.is_registered("ExaoneMoEForCausalLM", view(r)) for r in ("0.26.0", "0.27.0", "0.32.0")]
    assert held == [True, False, True]


def test_the_traced_view_records_the_member_range():
    """A release read through ``holds``: the asked change spans the member's range, so explain
    narrows the releases of the answer to those that register the class."""
    asked: list = []
    reads: list = []
    traced = TracedReleaseView(view("0.30.0"), reads, asked)
    assert model_info.is_registered("DeepseekV41ForCausalLM", traced)
    assert [(c.since, c.until) for c in asked] == [("0.30.0", None)]
    assert ("release: vllm ≥ 0.30.0 (DeepseekV41ForCausalLM, listed in vLLM's model registry)", True) in reads


# --- facts that differ per release ----------------------------------------------------------


def test_supports_pp_per_release():
    """``AriaForConditionalGeneration`` implements ``SupportsPP`` from 0.34.0 on: PP 2 is
    refused at 0.33.0 and served at 0.34.0."""
    assert [
        model_info.registered("AriaForConditionalGeneration", view(r)).pp for r in ("0.33.0", "0.34.0")
    ] == [
        False,
        True,
    ]
    cfg = arch_config("AriaForConditionalGeneration")
    err = cfg_refusal(cfg, version="0.33.0", pipeline_parallel_size=2)
    assert "Pipeline parallelism is not supported for this model" in str(err)
    assert cfg_res(cfg, version="0.34.0", pipeline_parallel_size=2)["pipeline_parallel_size"] == 2


def test_supports_lora_per_release():
    """``BertForSequenceClassification`` implements ``SupportsLoRA`` from 0.33.0 on; with
    ``LORA_MODEL_SUPPORT_CHECK`` (0.33) the check refuses a class without it."""
    info = [
        model_info.registered("BertForSequenceClassification", view(r)).lora for r in ("0.32.0", "0.33.0")
    ]
    assert info == [False, True]
    assert model_info.registered("DeepseekV4ForCausalLM", view("0.28.0")).lora is False
    assert model_info.registered("DeepseekV4ForCausalLM", view("0.29.0")).lora is True


def test_without_a_release_the_newest_answers():
    assert model_info.registered("AquilaForCausalLM") is None
    assert model_info.registered("AriaForConditionalGeneration").pp is True
    assert model_info.is_registered("DeepseekV41ForCausalLM")


def test_bamba_prefix_caching_mode_all_while_registered():
    """``SupportsMambaPrefixCaching``: the extraction lists ``BambaForCausalLM`` in 0.20-0.23 (the
    releases that register it), so before ``MAMBA_ALIGN_BY_DEFAULT`` prefix caching gives it mode
    ``all``, as the other classes of ``caching.MAMBA_PREFIX_CACHING_ARCHS``."""
    cfg = arch_config("BambaForCausalLM")
    assert cfg_res(cfg, version="0.23.0", enable_prefix_caching=True)["mamba_cache_mode"] == "all"


def test_the_cli_refuses_a_class_of_a_later_release(capsys, tmp_path):
    """``resolvable explain --vllm-version 0.21.0 -- vllm serve DIR`` on a checkpoint of a class
    vLLM registers from 0.30.0 on: exit 1 (would not start), the release that added it named;
    the same command at 0.30.0 starts (exit 0)."""
    from resolvable.cli import main

    (tmp_path / "config.json").write_text(json.dumps(arch_config("DeepseekV41ForCausalLM")))
    code = main(["explain", "--vllm-version", "0.21.0", "--", "vllm", "serve", str(tmp_path)])
    out = capsys.readouterr()
    assert code == 1
    assert "DeepseekV41ForCausalLM is registered in vLLM from 0.30.0 on" in out.out + out.err
    assert "Traceback" not in out.out + out.err
    assert main(["explain", "--vllm-version", "0.30.0", "--", "vllm", "serve", str(tmp_path)]) == 0


def test_the_transformers_pooling_fallback_before_the_class_is_registered():
    """``XLMRobertaForTokenClassification``: registered from 0.26.0; at 0.25.1 the Transformers
    backend's pooling class serves it (``transformers_backend_pools`` asks that release)."""
    arch = "XLMRobertaForTokenClassification"
    assert model_info.transformers_backend_pools(arch, "auto", view("0.25.1")) is True
    assert model_info.transformers_backend_pools(arch, "auto", view("0.26.0")) is False
