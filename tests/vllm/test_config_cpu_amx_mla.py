"""``CHANGES.CPU_AMX_MLA`` (0.29): MLA on an AMX CPU. 0.28's ``CpuPlatform`` has the reference
``CPU_MLA`` kernel only, so ``check_and_update_config`` turns chunked prefill and prefix caching off
(budget ``max(max_model_len, 2048)``) and the block size is 16 for every MLA model; 0.29 selects
``AMX_MLA`` on AMX hosts and keeps them. Found on dev seed 7003 (cases 38, 240: DeepSeek-R1 and
Kimi-K2 on ``cpu-amx``, 0.28.0)."""

from __future__ import annotations

import pytest
from config_cases import res


def test_mla_on_amx_cpu_is_the_reference_kernel_on_0_28():
    r = res("kimi-k2-instruct", "cpu-amx", "0.28.0")
    assert (r["block_size_config"], r["enable_chunked_prefill"], r["enable_prefix_caching"]) == (
        16,
        False,
        False,
    )
    assert r["max_num_batched_tokens"] == max(r["max_model_len"], 2048)


@pytest.mark.parametrize("release", ("0.29.0", "0.34.0"))
def test_mla_on_amx_cpu_keeps_chunked_prefill_from_0_29(release):
    r = res("kimi-k2-instruct", "cpu-amx", release)
    assert (r["enable_chunked_prefill"], r["enable_prefix_caching"]) == (True, True)
    # without AMX every release takes the reference kernel
    r = res("kimi-k2-instruct", "cpu", release)
    assert (r["block_size_config"], r["enable_chunked_prefill"]) == (16, False)
