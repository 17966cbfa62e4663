"""``Pack.rule_releases`` for vLLM (issue 26): the release range of the rule that declared a value,
narrowed by the named changes it asked (``Resolution.releases_of``), as the SGLang pack answers it,
and shown by ``explain --engine vllm`` next to each step."""

from __future__ import annotations

from resolvable import packs
from resolvable.cli import main


def _resolved(release: str = "0.34.0"):
    pack = packs.get("vllm")
    return pack, pack.resolve(pack.load_model("llama-3.1-8b"), pack.platform("h100"), {}, release=release)


def test_vllm_rule_releases_is_the_registry_range_narrowed_by_the_changes_asked():
    pack, res = _resolved()
    decl = next(d for d in res.declarations if "gpu_memory_utilization" in d.fields)
    rule = next(r for r in pack.registry.rules if r.name == decl.rule and r.location == decl.location)
    bare = pack.rule_releases(decl.rule, decl.location)
    assert bare == rule.releases
    narrowed = pack.rule_releases(decl.rule, decl.location, res)
    asked = res.releases_of(decl.rule, decl.location)
    assert not asked.unbounded and narrowed.since == asked.since  # 0.34's change of the default
    assert narrowed.describe(pack.releases) == "since 0.34.0"
    # on an older release the same rule's range is the older side of that change
    _, old = _resolved("0.33.0")
    decl_old = next(d for d in old.declarations if "gpu_memory_utilization" in d.fields)
    assert pack.rule_releases(decl_old.rule, decl_old.location, old).contains("0.33.0")
    assert not pack.rule_releases(decl_old.rule, decl_old.location, old).contains("0.34.0")
    # not a registered rule: None, as for the SGLang pack
    assert pack.rule_releases("user", None, res) is None
    assert packs.get("sglang").rule_releases("user", None) is None


def test_the_pack_of_a_resolution_is_the_one_whose_registry_made_it():
    pack, res = _resolved()
    assert packs.of_resolution(res) is pack
    assert packs.of_resolution(object()) is None


def test_explain_engine_vllm_shows_the_rule_release_ranges(capsys):
    code = main(["explain", "--engine", "vllm", "--platform", "h100", "--", "vllm", "serve", "Qwen/Qwen3-8B"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "(vllm since 0.34.0)" in out and "(vllm since 0.33.0)" in out
    assert "(sglang " not in out
