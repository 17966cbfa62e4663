"""Real public deployment files (tests/deploy/corpus/, each with its repository, path and commit
in SOURCES) give their launches: every file, and each launch exactly as the golden file states it.

The golden file (tests/deploy/corpus_launches.json) was written by ``python
tests/deploy/test_deploy_corpus.py --regen`` and then checked by hand against each source file;
the traps the issue names are also asserted one by one below, so a regenerated golden file
cannot quietly accept a regression in them.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

from resolvable.deploy import read

HERE = os.path.dirname(__file__)
CORPUS = os.path.join(HERE, "corpus")
GOLDEN = os.path.join(HERE, "corpus_launches.json")


def _sources() -> dict[str, tuple[str, str, str]]:
    out = {}
    with open(os.path.join(CORPUS, "SOURCES"), encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                name, repo, path, commit = line.rstrip("\n").split("\t")
                out[name] = (repo, path, commit)
    return out


SOURCES = _sources()
FILES = sorted(f for f in os.listdir(CORPUS) if f != "SOURCES")


def _launches(name: str) -> list[dict]:
    out = []
    for launch in read(os.path.join(CORPUS, name)):
        record = launch.to_dict()
        assert record.pop("file") == os.path.join(CORPUS, name)
        out.append(record)
    return out


def test_every_corpus_file_has_a_source():
    assert len(FILES) >= 25
    assert set(FILES) == set(SOURCES)
    for name, (repo, path, commit) in SOURCES.items():
        assert repo.count("/") == 1 and path and len(commit) == 40, name


@pytest.mark.parametrize("name", FILES)
def test_corpus_file_gives_its_golden_launches(name):
    with open(GOLDEN, encoding="utf-8") as fh:
        golden = json.load(fh)
    assert _launches(name) == golden[name]


def _by_name(name: str) -> list:
    return read(os.path.join(CORPUS, name))


def test_wide_ep_decode_computes_the_data_parallel_size_from_the_group_size():
    (launch,) = _by_name("llmd-wide-ep-decode-lws.yaml")
    argv = list(launch.argv)
    assert argv[argv.index("--data-parallel-size") + 1] == "16"  # $((LWS_GROUP_SIZE * DP_SIZE_LOCAL)) = 2 * 8
    assert argv[argv.index("--tensor-parallel-size") + 1] == "1"  # $TP_SIZE from env
    assert argv[argv.index("--data-parallel-start-rank") + 1] == "$START_RANK"
    assert set(launch.runtime) == {"LWS_WORKER_INDEX", "LWS_LEADER_ADDRESS", "START_RANK"}
    assert (launch.nodes, launch.gpus_per_node, launch.release) == (2, 8, None)
    kv = argv[argv.index("--kv_transfer_config") + 1]
    assert json.loads(kv) == {
        "kv_connector": "NixlConnector",
        "kv_role": "kv_both",
    }  # JSON over several lines
    assert launch.line_of("--enable-expert-parallel") == 80


def test_production_stack_renders_the_chart_rules():
    (launch,) = _by_name("ps-values-02-basic-config.yaml")
    argv = list(launch.argv)
    assert "--no-enable-prefix-caching" in argv and "--no-enable-chunked-prefill" in argv
    (tp2,) = _by_name("ps-values-25-v100-multi-gpu-tp2.yaml")
    assert "--gpu_memory_utilization" in tp2.argv  # the chart's own spelling
    (minimal,) = _by_name("ps-values-01-minimal-example.yaml")
    assert "--no-enable-prefix-caching" not in minimal.argv  # no vllmConfig block: nothing rendered


def test_lmcache_tag_is_not_a_vllm_release():
    (launch,) = _by_name("ps-values-05-cpu-offloading.yaml")
    assert launch.release is None and "lmcache/vllm-openai" in launch.release_from
    assert launch.argv[0] == "/opt/venv/bin/vllm"


def test_ome_runtime_abbreviations_and_controller_values():
    (launch,) = _by_name("ome-qwen-7b-chat-rt.yaml")
    assert "--mem-fraction-static" in launch.argv and "--mem-frac" not in launch.argv
    assert launch.runtime == {"MODEL_PATH": "the OME controller sets the model's path at run time"}
    assert (launch.release, launch.modelled, launch.nearest) == ("0.5.5.post3", True, None)  # its own release
    multi = _by_name("ome-deepseek-rdma-rt.yaml")
    assert "--nccl-init-addr" in multi[0].argv  # --nccl-init abbreviates it
    assert "PARALLELISM_SIZE" in multi[0].runtime


def test_kserve_llminferenceservice_reads_vllm_additional_args():
    (launch,) = _by_name("kserve-llmisvc-single-gpu.yaml")
    assert launch.argv[:3] == ("vllm", "serve", "/mnt/models")
    assert "--tool-call-parser=qwen3_coder" in launch.argv and "--enable-auto-tool-choice" in launch.argv
    assert launch.model == "Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"


def test_gpu_product_from_node_labels():
    (launch,) = _by_name("gke-vllm-gemma-3-27b-it-a100-40gb.yaml")
    assert launch.gpu == "nvidia-tesla-a100" and launch.gpus_per_node == 2
    assert "--model=google/gemma-3-27b-it" in launch.argv  # $(MODEL_ID) from env


if __name__ == "__main__" and sys.argv[1:] == ["--regen"]:
    data = {name: _launches(name) for name in FILES}
    with open(GOLDEN, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)
        fh.write("\n")
    print(f"wrote {GOLDEN}: {sum(len(v) for v in data.values())} launches from {len(data)} files")
