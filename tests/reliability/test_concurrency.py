"""Resolving from many threads, and registering while others resolve.

The guarantee tested here (and documented in docs/reliability.md):

* ``resolve`` keeps no shared mutable state except the registry's plan cache, so any number of
  threads may resolve against the same registry at once; each result equals the result of the
  same resolution run alone (same ``to_dict``, same error);
* a ``Registry`` holds its rules as an immutable snapshot that registration replaces
  atomically under a lock. A resolution takes one snapshot when it starts, so a registration
  that happens while other threads resolve is safe: each resolution sees either the rule set
  from before or the one from after the registration, never a mix, and never a stale plan
  once the registration has returned;
* ``registry.freeze()`` makes every later registration raise ``RegistrationError``;
  resolution is unaffected;
* ``ContextSlot.publish`` from many threads leaves one complete context in the slot.

Not guaranteed: the order in which concurrent registrations land (they are serialized, in
whatever order the threads reach the lock), and anything about rules that themselves keep
mutable global state.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from resolvable import ContextSlot, HFConfig, Platform, Registry, Stage, arg, resolve
from resolvable.errors import RegistrationError, ResolvableError
from resolvable.sglang import registry as sglang_registry
from resolvable.sglang import resolve_server_args
from resolvable.sglang.grid import VARIANTS, cases, models
from resolvable.sglang.models import bundled

THREADS = 8


@contextlib.contextmanager
def frequent_switches() -> Iterator[None]:
    """Make the interpreter switch threads every microsecond, to shake out interleavings."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def _outcome(fn: Callable[[], Any]) -> Any:
    try:
        return fn().to_dict()
    except ResolvableError as exc:
        return ("error", type(exc).__name__, str(exc))


def _grid_jobs() -> list[tuple[str, Callable[[], Any]]]:
    jobs: list[tuple[str, Callable[[], Any]]] = []
    variants = {k: VARIANTS[k] for k in ("default", "tp8", "page16", "kv-fp8")}
    for m, p, v, hf, platform, flags in cases(
        models(), ["h100", "b200", "mi300x", "mi355x", "cpu-amx", "npu"], variants
    ):
        jobs.append(
            (
                f"{m}@{p}:{v}",
                lambda hf=hf, platform=platform, flags=flags: resolve_server_args(
                    hf, platform, trace=True, **flags
                ),
            )
        )
    # Architectures no plan was cached for: threads build and cache plans concurrently.
    for i in range(64):
        hf = HFConfig({"architectures": [f"Fresh{i}ForCausalLM"], "num_attention_heads": 8})
        jobs.append((f"fresh{i}", lambda hf=hf: resolve_server_args(hf, Platform.preset("h100"))))
    return jobs


def test_threads_resolving_the_grid_agree_with_a_sequential_run() -> None:
    jobs = _grid_jobs()
    sequential = {name: _outcome(fn) for name, fn in jobs}
    with frequent_switches(), ThreadPoolExecutor(THREADS) as pool:
        # Each thread takes a different slice, in a different order.
        futures = [
            pool.submit(lambda k=k: {n: _outcome(f) for n, f in jobs[k::THREADS][:: -1 if k % 2 else 1]})
            for k in range(THREADS)
        ]
        threaded: dict[str, Any] = {}
        for f in futures:
            threaded.update(f.result())
    assert threaded.keys() == sequential.keys()
    different = [n for n in sequential if threaded[n] != sequential[n]]
    assert not different, f"{len(different)} cases differ under threads, e.g. {different[:3]}"
    assert sum(1 for v in sequential.values() if isinstance(v, dict)) > len(jobs) // 2


# -- registering while resolving, on a separate engine --------------------------------------------


@dataclasses.dataclass
class ToyArgs:
    backend: str | None = arg(
        None, resolvable=True, leaf="attn.backend", choices=("fa3", "triton", "flashinfer")
    )
    page_size: int | None = arg(None, resolvable=True, leaf="cache.page_size")
    marker: int = arg(0, resolvable=True, leaf="debug.marker")


ARCH = "ToyForCausalLM"
ADDED = 40


def _toy_registry() -> Registry:
    reg = Registry(ToyArgs, stages=[Stage("model", isolated=True), "passes"], name="toy", version="1")

    @reg.for_arch(ARCH)
    def toy_model(ctx):
        return {"backend": "fa3", "page_size": 16}

    return reg


def _added_rule(i: int) -> Callable[[Any], dict[str, Any]]:
    def added(ctx):
        return {"marker": i, "page_size": 16 + i, "backend": "triton" if i % 2 else "flashinfer"}

    added.__qualname__ = added.__name__ = f"added_{i}"
    return added


def _check_consistent(res: Any) -> int:
    """The resolution saw exactly added_1..added_k for some k; return k."""
    names = [d.rule for d in res.declarations if d.rule.startswith("added_")]
    k = len(names)
    assert names == [f"added_{i}" for i in range(1, k + 1)], names
    if k:
        assert (res["marker"], res["page_size"]) == (k, 16 + k)
        assert res["backend"] == ("triton" if k % 2 else "flashinfer")
    else:
        assert res["marker"] == 0
    return k


def test_registering_while_other_threads_resolve_is_safe() -> None:
    reg = _toy_registry()
    h100 = Platform.preset("h100")
    toy = HFConfig({"architectures": [ARCH]})
    stop = threading.Event()
    started = threading.Barrier(THREADS + 1, timeout=60)
    seen: list[int] = []
    errors: list[BaseException] = []

    def resolver(t: int) -> None:
        n = 0
        try:
            while True:
                last = stop.is_set()  # every registration had returned before this resolution
                hf = toy if n % 3 else HFConfig({"architectures": [f"Other{t}x{n}"]})  # some plans are new
                res = resolve(reg, {}, hf, h100)
                k = _check_consistent(res)
                if hf is toy:
                    assert res.declarations[0].rule.endswith("toy_model")
                seen.append(k)
                if n == 0:
                    started.wait()
                n += 1
                if last:
                    assert k == ADDED, f"a resolution started after the last registration saw {k} rules"
                    return
        except BaseException as exc:  # reported below
            errors.append(exc)
            started.abort()

    with frequent_switches():
        threads = [threading.Thread(target=resolver, args=(t,)) for t in range(THREADS)]
        for th in threads:
            th.start()
        with contextlib.suppress(threading.BrokenBarrierError):  # a failed resolver is reported below
            started.wait()  # every resolver is running
        for i in range(1, ADDED + 1):
            reg.rule("passes")(_added_rule(i))
            # Once register() has returned, every new resolution sees the rule (no stale plan).
            assert _check_consistent(resolve(reg, {}, toy, h100)) == i
        stop.set()
        for th in threads:
            th.join(timeout=60)
    assert not errors, errors[0]
    assert not any(th.is_alive() for th in threads)
    assert seen and max(seen) == ADDED
    assert len(set(seen)) > 1, "the resolvers never overlapped with a registration"


def test_freeze_refuses_further_registration_and_keeps_resolving() -> None:
    reg = _toy_registry()
    reg.rule("passes")(_added_rule(1))
    h100 = Platform.preset("h100")
    toy = HFConfig({"architectures": [ARCH]})
    before = resolve(reg, {}, toy, h100).to_dict()
    reg.freeze()
    with pytest.raises(RegistrationError, match="frozen"):
        reg.rule("passes")(_added_rule(2))
    with pytest.raises(RegistrationError, match="frozen"):
        reg.for_arch("OtherForCausalLM")(_added_rule(3))
    with pytest.raises(RegistrationError, match="frozen"):
        reg.constant("OtherForCausalLM", {"marker": 7})
    with pytest.raises(RegistrationError, match="frozen"):
        reg.for_arch_matching(lambda a: True, label="any")(_added_rule(4))
    assert resolve(reg, {}, toy, h100).to_dict() == before
    assert _check_consistent(resolve(reg, {}, toy, h100)) == 1


def test_freeze_while_threads_register_lets_at_most_the_registration_in_flight_through() -> None:
    reg = _toy_registry()
    refused: list[int] = []
    finished: list[int] = []

    def register(t: int) -> None:
        for j in range(300):
            try:
                reg.rule("passes")(_added_rule(1000 * t + j))
            except RegistrationError as exc:
                assert "frozen" in str(exc)
                refused.append(t)
                return
        finished.append(t)  # all registered before freeze() (or the last one was in flight)

    with frequent_switches():
        threads = [threading.Thread(target=register, args=(t,)) for t in range(4)]
        for th in threads:
            th.start()
        reg.freeze()
        count = len(reg.rules)
        for th in threads:
            th.join(timeout=60)
    # Registrations are serialized by the registry's lock; one may be past the frozen check
    # when freeze() runs, and it lands. After that, every registration is refused.
    assert len(reg.rules) <= count + 1
    assert sorted(refused + finished) == [0, 1, 2, 3]
    with pytest.raises(RegistrationError):
        reg.rule("passes")(_added_rule(99_999))


def test_shared_sglang_registry_is_not_frozen_by_these_tests() -> None:
    assert "ToyForCausalLM" not in sglang_registry.architectures()


def test_concurrent_publish_into_one_slot_leaves_one_complete_context() -> None:
    names = [
        "llama-3.1-8b",
        "deepseek-v3",
        "gpt-oss-120b",
        "qwen3.5-397b-a17b",
        "granite-4.0-h-small",
        "gemma-3-27b",
        "qwen3-30b-a3b",
        "glm-4.5",
    ]
    resolutions = [resolve_server_args(bundled(m), Platform.preset("b200")) for m in names]
    slot = ContextSlot()
    observed: list[Any] = []

    def publish(res: Any) -> None:
        for _ in range(20):
            slot.publish(res)
            current = slot.current
            observed.append(current)

    with frequent_switches(), ThreadPoolExecutor(THREADS) as pool:
        list(pool.map(publish, resolutions))
    fingerprints = {r.fingerprint() for r in resolutions}
    assert slot.current is not None and slot.current.fingerprint in fingerprints
    for ctx in observed:
        assert ctx.fingerprint in fingerprints
        assert ctx.to_dict() == ctx.resolution.publish().to_dict()
