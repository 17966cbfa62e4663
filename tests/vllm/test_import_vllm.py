"""`import resolvable.vllm` stays as light as the SGLang pack: standard library only, nothing heavy."""

from __future__ import annotations

import ast
import subprocess
import sys

_PROBE = "import sys\nbefore = set(sys.modules)\nimport resolvable.vllm\nprint(repr(sorted(set(sys.modules) - before)))"


def test_import_resolvable_vllm_is_light():
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    loaded = set(ast.literal_eval(out))
    third_party = [
        m
        for m in loaded
        if m.split(".")[0] not in sys.stdlib_module_names and m.split(".")[0] != "resolvable"
    ]
    assert third_party == []
    for heavy in ("torch", "transformers", "argparse", "typing", "json", "pathlib", "subprocess", "hashlib"):
        assert heavy not in loaded, f"`import resolvable.vllm` imports {heavy}"
    assert "resolvable.sglang.passes" not in {
        m.rsplit(".", 1)[0] for m in loaded
    }  # only the shared model loader


def test_bundled_models_are_the_sglang_packs_files():
    from resolvable.sglang.models import catalog as sglang_catalog
    from resolvable.sglang.models import load_model as sglang_load
    from resolvable.vllm import catalog, load_model

    assert catalog() == sglang_catalog()
    for name in catalog():
        # the same file; the SGLang pack then applies sglang's config-class defaults on top
        # (resolvable/sglang/config_defaults.py), kept apart in ``raw``
        assert dict(load_model(name)) == dict(sglang_load(name).raw)
