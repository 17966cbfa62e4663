"""HFConfig is a read-only view of config.json; every bad input is a ConfigError naming the file."""

from __future__ import annotations

import json
import os

import pytest

import resolvable._hfconfig as hfconfig_module
from resolvable import HFConfig, load_hf_config
from resolvable.errors import ConfigError

LLAMA = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "num_attention_heads": 32,
    "rope_scaling": {"type": "yarn", "factor": 4.0},
    "layer_types": ["full", "sliding"],
    "nested_list": [{"a": 1}, [2, 3]],
}


def write(path, content):
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


# -- the read-only wrapper ---------------------------------------------------------------


def test_attribute_and_key_access():
    hf = HFConfig(LLAMA)
    assert hf.model_type == "llama"
    assert hf["num_attention_heads"] == 32
    assert hf.get("missing") is None
    assert hf.get("missing", 7) == 7
    assert "model_type" in hf
    assert hf.architecture == "LlamaForCausalLM"
    assert hf.architectures == ("LlamaForCausalLM",)
    assert hf.rope_scaling.factor == 4.0
    assert hf["rope_scaling"]["type"] == "yarn"


def test_missing_attribute_raises_attribute_error():
    with pytest.raises(AttributeError, match="no key 'nope'"):
        HFConfig(LLAMA).nope  # noqa: B018
    with pytest.raises(KeyError):
        HFConfig(LLAMA)["nope"]


def test_read_only():
    hf = HFConfig(LLAMA)
    with pytest.raises(AttributeError):
        hf.model_type = "mistral"
    with pytest.raises(AttributeError):
        hf.brand_new = 1
    with pytest.raises(TypeError):
        hf["model_type"] = "mistral"  # type: ignore[index]
    with pytest.raises(AttributeError):
        hf.rope_scaling.factor = 8.0
    assert hf.model_type == "llama" and hf.rope_scaling.factor == 4.0


def test_input_is_copied_not_aliased():
    data = json.loads(json.dumps(LLAMA))
    hf = HFConfig(data)
    data["model_type"] = "changed"
    data["rope_scaling"]["factor"] = 99
    data["layer_types"].append("x")
    assert hf.model_type == "llama"
    assert hf.rope_scaling.factor == 4.0
    assert hf.layer_types == ("full", "sliding")


def test_lists_become_tuples_and_nested_dicts_are_wrapped():
    hf = HFConfig(LLAMA)
    assert hf.layer_types == ("full", "sliding")
    assert isinstance(hf.layer_types, tuple)
    first, second = hf.nested_list
    assert isinstance(first, HFConfig) and first.a == 1
    assert second == (2, 3)
    assert hf.to_dict() == LLAMA  # thawed back to plain JSON shapes


def test_text_config_of_a_multimodal_wrapper():
    hf = HFConfig(
        {
            "architectures": ["LlavaForConditionalGeneration"],
            "text_config": {"model_type": "llama", "num_hidden_layers": 4},
        }
    )
    assert isinstance(hf.text_config, HFConfig)
    assert hf.text_config.model_type == "llama"
    assert hf.text_config.num_hidden_layers == 4
    with pytest.raises(AttributeError):
        hf.text_config.num_hidden_layers = 5


def test_llm_config_is_a_text_config_too():
    hf = HFConfig({"architectures": ["InternVLChatModel"], "llm_config": {"model_type": "qwen2"}})
    assert hf.text_config.model_type == "qwen2"


def test_text_config_of_a_plain_model_is_itself():
    hf = HFConfig(LLAMA)
    assert hf.text_config is hf


def test_equality_and_unhashable():
    assert HFConfig(LLAMA) == HFConfig(json.loads(json.dumps(LLAMA)))
    assert HFConfig(LLAMA) != HFConfig({"architectures": ["Other"]})
    with pytest.raises(TypeError):
        hash(HFConfig(LLAMA))


def test_get_typed():
    hf = HFConfig({"n": 3, "flag": True, "name": "x"})
    assert hf.get_typed("n", int) == 3
    assert hf.get_typed("absent", int, 5) == 5
    with pytest.raises(ConfigError, match="'name' must be int"):
        hf.get_typed("name", int)
    with pytest.raises(ConfigError):
        hf.get_typed("flag", int)  # a bool is not an int here


def test_wrapping_a_non_mapping_raises():
    with pytest.raises(ConfigError, match="JSON object"):
        HFConfig([1, 2])  # type: ignore[arg-type]


def test_non_finite_floats_are_refused_in_memory():
    with pytest.raises(ConfigError, match="finite"):
        HFConfig({"x": float("nan")})


# -- loading -------------------------------------------------------------------------------


def test_load_file(tmp_path):
    path = write(tmp_path / "config.json", LLAMA)
    hf = load_hf_config(path)
    assert hf.architecture == "LlamaForCausalLM"
    assert hf.source == str(path)
    assert load_hf_config(str(path)) == hf


def test_load_directory(tmp_path):
    write(tmp_path / "config.json", LLAMA)
    hf = load_hf_config(tmp_path)
    assert hf.model_type == "llama"
    assert hf.source == str(tmp_path / "config.json")


def test_load_utf8_with_bom(tmp_path):
    path = write(tmp_path / "config.json", b"\xef\xbb\xbf" + json.dumps(LLAMA).encode())
    assert load_hf_config(path).model_type == "llama"


def assert_config_error(location, *, names, match=None, **kwargs):
    with pytest.raises(ConfigError) as info:
        load_hf_config(location, **kwargs)
    message = str(info.value)
    assert str(names) in message, message
    if match is not None:
        assert match in message, message
    assert isinstance(info.value, ValueError)
    return message


def test_missing_file(tmp_path):
    missing = tmp_path / "nope" / "config.json"
    assert_config_error(missing, names=missing, match="no such file")


def test_directory_without_config_json(tmp_path):
    (tmp_path / "weights.safetensors").write_bytes(b"")
    assert_config_error(tmp_path, names=tmp_path, match="no config.json")


def test_directory_whose_config_json_is_a_directory(tmp_path):
    (tmp_path / "config.json").mkdir()
    assert_config_error(tmp_path, names=tmp_path)


BAD_CONTENT = {
    "invalid_json": ('{"architectures": ["X"],', "invalid JSON"),
    "nan": ('{"architectures": ["X"], "x": NaN}', "NaN"),
    "infinity": ('{"architectures": ["X"], "x": Infinity}', "Infinity"),
    "negative_infinity": ('{"architectures": ["X"], "x": -Infinity}', "Infinity"),
    "overflowing_float": ('{"architectures": ["X"], "x": 1e400}', "inf"),
    "non_utf8": (b'{"architectures": ["\xff\xfe"]}', "UTF-8"),
    "utf16": ('{"architectures": ["X"]}'.encode("utf-16"), "UTF-8"),
    "array_top_level": ('[{"architectures": ["X"]}]', "JSON object"),
    "string_top_level": ('"LlamaForCausalLM"', "JSON object"),
    "null_top_level": ("null", "JSON object"),
    "empty": ("", "empty"),
    "whitespace_only": ("   \n\t ", "empty"),
    "architectures_string": ('{"architectures": "LlamaForCausalLM"}', "architectures"),
    "architectures_numbers": ('{"architectures": [1, 2]}', "architectures"),
    "architectures_empty_name": ('{"architectures": [""]}', "architectures"),
    "architectures_object": ('{"architectures": {"a": "LlamaForCausalLM"}}', "architectures"),
    "deep_nesting_objects": ('{"a": ' * 200 + "1" + "}" * 200, "nested"),
    "deep_nesting_arrays": ("[" * 100_000 + "]" * 100_000, ""),
}


@pytest.mark.parametrize("case", sorted(BAD_CONTENT))
def test_bad_content_is_a_config_error_naming_the_file(tmp_path, case):
    content, fragment = BAD_CONTENT[case]
    path = write(tmp_path / "config.json", content)
    assert_config_error(path, names=path, match=fragment)


def test_bad_content_in_a_directory_names_the_config_file(tmp_path):
    write(tmp_path / "config.json", "{not json")
    assert_config_error(tmp_path, names=tmp_path / "config.json", match="invalid JSON")


def test_too_large_file(tmp_path, monkeypatch):
    path = write(tmp_path / "config.json", LLAMA)
    monkeypatch.setattr(hfconfig_module, "MAX_CONFIG_BYTES", 16)
    assert_config_error(path, names=path, match="too large")


def test_file_just_under_the_limit_loads(tmp_path, monkeypatch):
    path = write(tmp_path / "config.json", LLAMA)
    monkeypatch.setattr(hfconfig_module, "MAX_CONFIG_BYTES", path.stat().st_size)
    assert load_hf_config(path).model_type == "llama"


def test_symlink_loop(tmp_path):
    loop = tmp_path / "loop.json"
    os.symlink(loop, loop)
    assert_config_error(loop, names=loop)


def test_symlink_loop_inside_a_model_directory(tmp_path):
    model = tmp_path / "model"
    model.mkdir()
    os.symlink(model / "config.json", model / "config.json")
    assert_config_error(model, names=model)


def test_unreadable_file(tmp_path, monkeypatch):
    path = write(tmp_path / "config.json", LLAMA)

    import builtins

    real_open = builtins.open

    def denied(file, *args, **kwargs):
        if os.fspath(file) == str(path):
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)

    real_os_open = os.open

    def os_denied(file, *args, **kwargs):  # the guarded reader opens with os.open (O_NONBLOCK)
        if os.fspath(file) == str(path):
            raise PermissionError(13, "Permission denied")
        return real_os_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", denied)
    monkeypatch.setattr(os, "open", os_denied)
    assert_config_error(path, names=path, match="cannot be read (Permission denied)")


# -- hub cache -------------------------------------------------------------------------------


def make_hub(tmp_path, repo="org/name", rev="0123abcd", config=LLAMA, ref=True):
    hub = tmp_path / "hub"
    repo_dir = hub / ("models--" + repo.replace("/", "--"))
    snap = repo_dir / "snapshots" / rev
    snap.mkdir(parents=True)
    write(snap / "config.json", config)
    if ref:
        (repo_dir / "refs").mkdir()
        (repo_dir / "refs" / "main").write_text(rev + "\n")
    return hub, snap / "config.json"


def test_hub_cache_layout(tmp_path, monkeypatch):
    hub, expected = make_hub(tmp_path)
    monkeypatch.chdir(tmp_path)  # "org/name" must not exist as a relative path
    hf = load_hf_config("org/name", hub_cache=str(hub))
    assert hf.architecture == "LlamaForCausalLM"
    assert hf.source == str(expected)


def test_hub_cache_without_refs_uses_a_snapshot(tmp_path, monkeypatch):
    hub, expected = make_hub(tmp_path, ref=False)
    monkeypatch.chdir(tmp_path)
    assert load_hf_config("org/name", hub_cache=str(hub)).source == str(expected)


def test_hub_cache_follows_refs_main(tmp_path, monkeypatch):
    hub, _ = make_hub(tmp_path, rev="old", config={"architectures": ["Old"]})
    repo_dir = hub / "models--org--name"
    new = repo_dir / "snapshots" / "new"
    new.mkdir()
    write(new / "config.json", {"architectures": ["New"]})
    (repo_dir / "refs" / "main").write_text("new")
    monkeypatch.chdir(tmp_path)
    assert load_hf_config("org/name", hub_cache=str(hub)).architecture == "New"


def test_hub_id_not_in_cache(tmp_path, monkeypatch):
    hub, _ = make_hub(tmp_path)
    monkeypatch.chdir(tmp_path)
    message = assert_config_error("org/other", names="org/other", hub_cache=str(hub))
    assert "hf download org/other" in message


def test_malformed_config_in_hub_cache_names_the_snapshot_file(tmp_path, monkeypatch):
    hub, path = make_hub(tmp_path, config="[]")
    monkeypatch.chdir(tmp_path)
    assert_config_error("org/name", names=path, hub_cache=str(hub), match="JSON object")


def test_hfconfig_survives_deepcopy_and_pickle():
    import copy
    import pickle

    hf = HFConfig({"architectures": ["XForCausalLM"], "text_config": {"layer_types": ["a", "b"]}}, source="s")
    assert copy.deepcopy(hf) == hf
    again = pickle.loads(pickle.dumps(hf))
    assert again == hf and again.source == "s" and again.text_config.layer_types == ("a", "b")


def test_derived_is_computed_once_per_config_and_not_kept_on_failure():
    import pickle

    hf = HFConfig({"architectures": ["LlamaForCausalLM"], "hidden_size": 8})
    calls = []

    def double(cfg):
        calls.append(cfg)
        return cfg["hidden_size"] * 2

    assert hf.derived("double", double) == 16
    assert hf.derived("double", double) == 16
    assert calls == [hf]  # computed once
    other = HFConfig({"architectures": ["LlamaForCausalLM"], "hidden_size": 8})
    assert other.derived("double", double) == 16 and len(calls) == 2  # kept per object, not per value

    def broken(cfg):
        calls.append("broken")
        raise KeyError("nope")

    for _ in range(2):
        with pytest.raises(KeyError):
            hf.derived("broken", broken)
    assert calls.count("broken") == 2  # an exception is not kept
    again = pickle.loads(pickle.dumps(hf))
    assert again.derived("double", double) == 16 and len(calls) == 5  # a copy starts empty
