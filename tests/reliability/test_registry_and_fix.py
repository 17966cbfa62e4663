"""Issue 29 item 5: the pack registry and ``Fix`` validate their arguments. A pack whose module
raises on import is reported by name and does not break the others; ``Fix`` values are hashable
and render on one line."""

from __future__ import annotations

import sys

import pytest

from resolvable import packs
from resolvable.cli import main
from resolvable.rules import Fix


@pytest.fixture
def broken_pack(monkeypatch):
    """A third pack whose module raises RuntimeError (not ImportError) on import."""

    def fail(name):
        raise RuntimeError("boom at import")

    finder_module = "broken_pack_for_tests"

    class Finder:
        @staticmethod
        def find_spec(name, path=None, target=None):
            if name != finder_module:
                return None
            import importlib.util

            class Loader:
                def create_module(self, spec):
                    return None

                def exec_module(self, mod):
                    fail(mod)

            return importlib.util.spec_from_loader(name, Loader())

    monkeypatch.setattr(sys, "meta_path", [Finder(), *sys.meta_path])
    packs.register("brokenengine", f"{finder_module}:PACK")
    yield "brokenengine"
    packs.unregister("brokenengine")


def test_a_pack_that_raises_on_import_is_named(broken_pack):
    with pytest.raises(packs.PackError, match=r"pack 'brokenengine': cannot import .*RuntimeError: boom"):
        packs.get(broken_pack)


def test_a_broken_pack_does_not_break_recognise_for_the_others(broken_pack, capsys):
    assert packs.recognise(["vllm", "serve", "org/model"]) == "vllm"
    assert packs.recognise(["python", "-m", "sglang.launch_server", "--model-path", "x"]) == "sglang"
    with pytest.raises(packs.PackError, match="brokenengine"):
        packs.recognise(["someengine", "run"])
    code = main(["explain", "--platform", "h100", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"])
    assert code == 0
    capsys.readouterr()


@pytest.mark.parametrize("name", [["vllm"], None, 3, b"vllm"])
def test_get_with_a_non_string_is_a_clear_error(name):
    with pytest.raises(packs.PackError, match="a pack name is a string"):
        packs.get(name)


def test_fix_values_are_hashable_and_validated():
    fix = Fix(set={"attention_backend": ["fa3"]})
    assert hash(fix) == hash(Fix(set={"attention_backend": ("fa3",)}))
    assert fix.set == (("attention_backend", ("fa3",)),)
    assert {fix, fix | Fix(drop=("page_size",))}  # usable in a set
    for bad in ({"a": {"b": 1}}, {"a": {1, 2}}, {1: "x"}):
        with pytest.raises(TypeError, match=r"Fix\("):
            Fix(set=bad)
    with pytest.raises(TypeError, match="note"):
        Fix(set={"a": 1}, note=3)


def test_fix_renders_on_one_line():
    for fix in (
        Fix(set={"attention_backend": "fa3\nX-Injected: 1"}),
        Fix(drop=("page_size",), note="because\r\nof this"),
        Fix(text="two\nlines"),
        Fix.any_of(Fix(set={"a": "x\ny"}), Fix(env={"K": "v\n"})),
    ):
        text = fix.render()
        assert "\n" not in text and "\r" not in text and text.isprintable(), text
