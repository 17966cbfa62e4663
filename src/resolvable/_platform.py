"""The hardware and software stack a resolution is made for, as a frozen value.

Invariants:

* a ``Platform`` is immutable and hashable; rules read its predicates and never probe the
  machine, so resolving for an H100 gives the same answer on a laptop;
* the engine holds facts, not one engine's gates: a pack defines the predicates its engine
  gates on with ``define_fact`` (the SGLang pack's ``is_sm90``: capability major 9 **and** a
  torch CUDA build >= 12.3); ``cuda_major_in(majors, min_cuda)`` is the neutral fact such a
  predicate reads (the SGLang pack's ``is_sm100``, ``is_sm120`` and ``is_blackwell``, its
  CUDA >= 12.8 gates, are defined the same way);
* every fact is validated and normalised when a ``Platform`` is built (``Platform(...)``,
  ``replace``, ``from_dict``): capability and CUDA version are ``(major, minor)`` tuples of
  ints, the driver version a tuple of ints, kernels a ``frozenset`` of strings, the bool facts
  real bools, the counts ints; anything else is an ``InvalidArgumentError`` naming the fact;
* ``vars(platform)`` is read-only (``HiddenDict``), so the shared presets cannot be altered by a
  caller or a rule;
* ``Platform.detect()`` never raises: it falls back to a CPU platform and says why in
  ``detected_by``. ``RESOLVABLE_PLATFORM=<preset>`` makes it return that preset (simulation).
"""

from __future__ import annotations

import _thread
import os
from collections.abc import Mapping

from ._frozen import HiddenDict, cached
from ._record import field, record, record_fields
from .errors import InvalidArgumentError, UnknownPresetError, closest

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["PLATFORM_ENV_VAR", "Platform", "define_fact"]

PLATFORM_ENV_VAR = "RESOLVABLE_PLATFORM"

VENDORS = ("cuda", "hip", "xpu", "npu", "musa", "mps", "hpu", "cpu")
_NVIDIA_KERNELS = frozenset({"flashinfer", "triton_kernels"})


@record(frozen=True)  # a frozen dataclass in behaviour (see _record: import cost)
class Platform(HiddenDict):
    """Facts about one machine. Build one with ``Platform.preset(name)`` or ``Platform(...)``."""

    vendor: str
    name: str = "custom"
    #: (major, minor) compute capability; on ROCm what torch reports, e.g. (9, 4) for MI300X.
    capability: tuple[int, int] | None = None
    #: CUDA version torch was built with (not the driver's).
    cuda_version: tuple[int, int] | None = None
    #: AMD GCN architecture, e.g. "gfx942".
    gcn_arch: str | None = None
    #: Host CPU architecture: "x86_64" or "aarch64".
    cpu_arch: str = "x86_64"
    cpu_amx: bool = False
    #: Intel GPU with XMX (reported as fp64 support: PVC/LNL/BMG).
    xpu_xmx: bool = False
    device_name: str | None = None
    memory_gib: float | None = None
    device_count: int = 1
    driver_version: tuple[int, ...] | None = None
    #: Optional kernel packages installed: "flashinfer", "triton_kernels", ...
    kernels: frozenset[str] = frozenset()
    #: How this value was obtained (preset, torch, nvidia-smi, fallback reason). Not a fact:
    #: excluded from equality and from the fingerprint.
    detected_by: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.vendor, str) or self.vendor not in VENDORS:
            raise UnknownPresetError(
                f"unknown platform vendor {self.vendor!r}; choose one of {list(VENDORS)}"
            )
        for name, value in _normalised_facts(self):
            object.__setattr__(self, name, value)

    def __copy__(self) -> Platform:  # immutable: a copy is the same value
        return self

    def __deepcopy__(self, memo: Any) -> Platform:
        return self

    # Predicates are cached per value (a Platform never changes): rules read them on every resolution.

    # -- vendor predicates ------------------------------------------------------------
    @cached
    def is_cuda(self) -> bool:
        return self.vendor == "cuda"

    @cached
    def is_hip(self) -> bool:
        return self.vendor == "hip"

    @cached
    def is_xpu(self) -> bool:
        return self.vendor == "xpu"

    @cached
    def is_npu(self) -> bool:
        return self.vendor == "npu"

    @cached
    def is_musa(self) -> bool:
        return self.vendor == "musa"

    @cached
    def is_mps(self) -> bool:
        return self.vendor == "mps"

    @cached
    def is_hpu(self) -> bool:
        return self.vendor == "hpu"

    @cached
    def is_cpu(self) -> bool:
        """The CPU engine (SGLANG_USE_CPU_ENGINE=1 on an x86 or arm64 host)."""
        return self.vendor == "cpu"

    @cached
    def is_arm64_host(self) -> bool:
        return self.cpu_arch in ("aarch64", "arm64")

    # -- NVIDIA generations (spec §1: capability major AND torch CUDA version) ------------
    def cuda_major_in(self, majors: tuple[int, ...], min_cuda: tuple[int, int]) -> bool:
        """A CUDA device whose capability major is one of ``majors``, with a torch CUDA build of at
        least ``min_cuda``: the neutral fact under a pack's generation predicate (``define_fact``)."""
        return self._cuda_major_in(majors, min_cuda)

    def _cuda_major_in(self, majors: tuple[int, ...], min_cuda: tuple[int, int]) -> bool:
        return (
            self.vendor == "cuda"
            and self.capability is not None
            and self.capability[0] in majors
            and self.cuda_version is not None
            and tuple(self.cuda_version[:2]) >= min_cuda
        )

    @cached
    def is_sm80(self) -> bool:
        return self._cuda_major_in((8,), (11, 0))

    # -- other facts ----------------------------------------------------------------------
    @cached
    def has_amx(self) -> bool:
        return self.vendor == "cpu" and self.cpu_amx

    @cached
    def has_xmx(self) -> bool:
        return self.vendor == "xpu" and self.xpu_xmx

    @cached
    def is_gfx95(self) -> bool:
        return self.vendor == "hip" and "gfx95" in (self.gcn_arch or "")

    @cached
    def is_gfx942(self) -> bool:
        return self.vendor == "hip" and "gfx942" in (self.gcn_arch or "")

    @cached
    def device_sm(self) -> int:
        """major*10+minor on CUDA/ROCm/MUSA (not gated on CUDA: 94 on MI300X), else 0."""
        if self.vendor in ("cuda", "hip", "musa") and self.capability is not None:
            return self.capability[0] * 10 + self.capability[1]
        return 0

    @cached
    def device(self) -> str:
        """SGLang's auto-detected ``--device`` string (ROCm reports "cuda")."""
        return {"hip": "cuda"}.get(self.vendor, self.vendor)

    def has_kernel(self, name: str) -> bool:
        return name in self.kernels

    # -- construction ---------------------------------------------------------------------
    def replace(self, **changes: Any) -> Platform:
        """A copy with some facts changed (``name`` becomes "<name>+custom" unless given)."""
        changes.setdefault("name", self.name if self.name.endswith("+custom") else f"{self.name}+custom")
        values = {f.name: getattr(self, f.name) for f in _FIELDS}
        unknown = [k for k in changes if k not in values]
        if unknown:
            raise UnknownPresetError(
                f"unknown platform facts {sorted(unknown, key=repr)}; known: {sorted(values)}"
            )
        values.update(changes)
        return self.__class__(**values)

    def to_dict(self) -> dict[str, Any]:
        # Every fact is immutable (str, int, float, bool, tuples of ints, frozenset), so reading
        # the attributes gives what dataclasses.asdict would (its deep copies are equal values).
        data = {f.name: getattr(self, f.name) for f in _FIELDS}
        data.pop("detected_by")
        data["kernels"] = sorted(self.kernels)
        for key in ("capability", "cuda_version", "driver_version"):
            if data[key] is not None:
                data[key] = list(data[key])
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Platform:
        """The platform ``to_dict`` wrote; malformed data is an ``InvalidArgumentError`` (or
        ``UnknownPresetError`` for an unknown fact or vendor) naming what is wrong."""
        if not isinstance(data, Mapping):
            raise InvalidArgumentError(
                f"Platform.from_dict: expected a mapping of facts, got {type(data).__name__}"
            )
        known = {f.name for f in record_fields(cls)}
        unknown = [k for k in data if k not in known]
        if unknown:
            raise UnknownPresetError(
                f"unknown platform facts {sorted(unknown, key=repr)}; known: {sorted(known)}"
            )
        if "vendor" not in data:
            raise InvalidArgumentError("Platform.from_dict: the 'vendor' fact is missing")
        values = dict(data)
        if values.get("kernels") is None:
            values["kernels"] = frozenset()
        elif isinstance(values["kernels"], list):
            values["kernels"] = (
                frozenset(values["kernels"]) if _all_str(values["kernels"]) else values["kernels"]
            )
        return cls(**values)

    @classmethod
    def preset(cls, name: str) -> Platform:
        """A named production stack, e.g. ``Platform.preset("h100")``; see ``Platform.presets()``."""
        key = str(name).strip().lower().replace("_", "-")
        try:
            return (_PRESETS or _build_presets())[key]
        except KeyError:
            hint = closest(key, _PRESETS)
            extra = f" Did you mean {hint!r}?" if hint else ""
            raise UnknownPresetError(
                f"unknown platform preset {name!r}.{extra} Valid presets: {', '.join(_PRESETS)}"
            ) from None

    @staticmethod
    def presets() -> Mapping[str, Platform]:
        """Name → preset (the presets are immutable values; the mapping is a fresh copy)."""
        return dict(_PRESETS or _build_presets())

    @classmethod
    def detect(cls, env: Mapping[str, str] | None = None) -> Platform:
        """This machine's platform. Honors ``RESOLVABLE_PLATFORM``; never raises."""
        from ._detect import detect

        if env is not None and not isinstance(env, Mapping):
            raise InvalidArgumentError(
                f"Platform.detect: env must be a mapping of environment variables, got {type(env).__name__}"
            )
        return detect(os.environ if env is None else env)

    def describe(self, *, with_device_name: bool = True) -> str:
        """One line of facts, for tables and `explain` headers."""
        bits = [self.vendor]
        if self.device_name and with_device_name:
            bits.append(self.device_name)
        if self.capability is not None:
            bits.append(f"cc {self.capability[0]}.{self.capability[1]}")
        if self.cuda_version is not None:
            bits.append(f"CUDA {self.cuda_version[0]}.{self.cuda_version[1]}")
        if self.gcn_arch:
            bits.append(self.gcn_arch)
        if self.vendor == "cpu":
            bits.append(self.cpu_arch + (" AMX" if self.cpu_amx else " no-AMX"))
        if self.vendor == "xpu":
            bits.append("XMX" if self.xpu_xmx else "no-XMX")
        if self.kernels:
            bits.append("+" + ",".join(sorted(self.kernels)))
        return " ".join(bits)


_FIELDS = record_fields(Platform)


def _all_str(values: Any) -> bool:
    return all(isinstance(v, str) for v in values)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _version(name: str, value: Any, size: int | None) -> tuple[int, ...] | None:
    """A version fact as a tuple of non-negative ints: exactly ``size`` of them, or at least one."""
    if value is None:
        return None
    shape = "(major, minor)" if size == 2 else "a tuple of ints"
    if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list)):
        hint = f", e.g. ({value}, 0)" if size == 2 and _is_int(value) else ""
        raise InvalidArgumentError(f"Platform {name}={value!r}: expected {shape}{hint}")
    items = tuple(value)
    if (
        (size is not None and len(items) != size)
        or not items
        or not all(_is_int(v) and v >= 0 for v in items)
    ):
        raise InvalidArgumentError(
            f"Platform {name}={value!r}: expected {shape} of non-negative integers"
            + (f", e.g. {(items[0], 0)!r}" if size == 2 and len(items) == 1 and _is_int(items[0]) else "")
        )
    return items


def _normalised_facts(p: Platform) -> list[tuple[str, Any]]:
    """Check every fact of ``p``; return the (name, value) pairs to store in normalised form."""
    out: list[tuple[str, Any]] = []
    for name in ("capability", "cuda_version"):
        value = getattr(p, name)
        fixed = _version(name, value, 2)
        if fixed is not value:
            out.append((name, fixed))
    driver = _version("driver_version", p.driver_version, None)
    if driver is not p.driver_version:
        out.append(("driver_version", driver))
    kernels = p.kernels
    if isinstance(kernels, (str, bytes)) or not isinstance(kernels, (set, frozenset, list, tuple)):
        raise InvalidArgumentError(
            f"Platform kernels={kernels!r}: expected a set of kernel package names, e.g. "
            "frozenset({'flashinfer'})"
        )
    if not _all_str(kernels):
        raise InvalidArgumentError(f"Platform kernels={kernels!r}: every kernel name must be a string")
    if type(kernels) is not frozenset:
        out.append(("kernels", frozenset(kernels)))
    for name in ("cpu_amx", "xpu_xmx"):
        if not isinstance(getattr(p, name), bool):
            raise InvalidArgumentError(
                f"Platform {name}={getattr(p, name)!r}: expected True or False (a bool, not a string or number)"
            )
    for name in ("name", "cpu_arch", "detected_by"):
        if not isinstance(getattr(p, name), str):
            raise InvalidArgumentError(f"Platform {name}={getattr(p, name)!r}: expected a string")
    for name in ("gcn_arch", "device_name"):
        if getattr(p, name) is not None and not isinstance(getattr(p, name), str):
            raise InvalidArgumentError(f"Platform {name}={getattr(p, name)!r}: expected a string or None")
    if not _is_int(p.device_count) or p.device_count < 1:
        raise InvalidArgumentError(f"Platform device_count={p.device_count!r}: expected a positive integer")
    memory = p.memory_gib
    if memory is not None and (
        isinstance(memory, bool)
        or not isinstance(memory, (int, float))
        or memory != memory
        or memory in (float("inf"), float("-inf"))
        or memory < 0
    ):
        raise InvalidArgumentError(
            f"Platform memory_gib={memory!r}: expected a finite, non-negative number of GiB or None"
        )
    return out


def _nvidia(name: str, device: str, cc: tuple[int, int], mem: float, driver: tuple[int, ...]) -> Platform:
    return Platform(
        vendor="cuda",
        name=name,
        capability=cc,
        cuda_version=(12, 9),
        device_name=device,
        memory_gib=mem,
        device_count=8,
        driver_version=driver,
        kernels=_NVIDIA_KERNELS,
        detected_by="preset",
    )


#: name → preset, filled on first use (``_build_presets``): building and validating the
#: two dozen presets is import time that a resolution for one platform does not need.
_PRESETS: dict[str, Platform] = {}


_PRESETS_LOCK = _thread.allocate_lock()


def _build_presets() -> dict[str, Platform]:
    """Fill ``_PRESETS`` once and return it: built whole under a lock, then installed by one
    ``dict.update`` (atomic for string keys), so a reader sees no presets or all of them, and
    every caller gets the same preset objects."""
    with _PRESETS_LOCK:
        if not _PRESETS:
            _PRESETS.update(_preset_values())
    return _PRESETS


def _preset_values() -> dict[str, Platform]:
    """The one preset table: every engine's packs see these presets and no others.

    ``memory_gib`` is the device's total memory as torch reports it
    (``torch.cuda.get_device_properties().total_memory``, in GiB): what vLLM's
    ``get_device_total_memory`` and both engines' KV-cache sizing read, and what ``Platform.detect``
    reads on a real machine. Each figure names its source: a published start-up log or torch OOM
    line, or the vendor's specification where no torch figure was found (said so). For the devices
    ``device_memory._TORCH_TOTAL_GIB`` also names, the two figures are equal
    (tests/engine/test_platform.py). sglang's memory bands read nvidia-smi's ``memory.total``, a few
    hundred MiB above torch's figure; no preset lies within 1 GiB of a band bound, so the bands it
    falls in are the same either way (tests/engine/test_platform.py).
    """
    return {
        # vllm-project/vllm#4408 (A100 80GB): "GPU 0 has a total capacity of 79.15 GiB"
        "a100": _nvidia("a100", "NVIDIA A100-SXM4-80GB", (8, 0), 79.15, (575, 57)),
        # device_memory table (A100 40GB; TianheWu/CoSeR#10 prints 39.50 GiB on an "A100", a
        # different driver's reserve): unverified to the hundredth
        "a100-40g": _nvidia("a100-40g", "NVIDIA A100-SXM4-40GB", (8, 0), 39.39, (575, 57)),
        # huggingface/local-gemma#25: "A10G reports ~22GB"; device_memory table 22.0
        "a10g": _nvidia("a10g", "NVIDIA A10G", (8, 6), 22.0, (575, 57)),
        # device_memory table (the memory corpus's L4 logs); published torch OOMs on 24 GB
        # Ada cards read 22.03-22.07 GiB
        "l4": _nvidia("l4", "NVIDIA L4", (8, 9), 22.05, (575, 57)),
        # AlphaGPU/leetgpu-challenges#52 (Tesla T4): "GPU 0 has a total capacity of 14.56 GiB";
        # the same in tests/memory/corpus/vllm-s4-healthmaps-qwen25-7b-t4-oom.json
        "t4": _nvidia("t4", "Tesla T4", (7, 5), 14.56, (575, 57)),
        # tests/memory/corpus/vllm-memoryawarerlhf-qwen25-3b-4090-fp16.json (RTX 4090): vLLM's
        # "Free memory on device (23.21/23.65 GiB)"
        "rtx4090": _nvidia("rtx4090", "NVIDIA GeForce RTX 4090", (8, 9), 23.65, (575, 57)),
        # the H100's 80 GB (PCIe and SXM report alike; see "h100")
        "h100-pcie": _nvidia("h100-pcie", "NVIDIA H100 PCIe", (9, 0), 79.19, (575, 57)),
        # device_memory table: L40/L40S 44.4 (tests/memory/corpus/vllm-mapcoder-…: vLLM's
        # total_gpu_memory=44.42GiB; Wan-Video/Wan2.1#205, an L40S: 44.53 GiB)
        "l40s": _nvidia("l40s", "NVIDIA L40S", (8, 9), 44.4, (575, 57)),
        # torch's "GPU 0 has a total capacity of 79.19 GiB" on an H100 80GB HBM3; vLLM prints
        # 79.18 ("Free memory on device (78.57/79.18 GiB)", tests/memory/corpus/vllm-llmd-*.json)
        "h100": _nvidia("h100", "NVIDIA H100 80GB HBM3", (9, 0), 79.19, (575, 57)),
        # 141 GB HBM3e: torch 139.8 GiB (docs/memory.md: vllm-project/recipes#12 pins it at
        # 6.99 / 0.05 on the H20-3e, the same memory)
        "h200": _nvidia("h200", "NVIDIA H200", (9, 0), 139.8, (575, 57)),
        # device_memory table (H20 96 GB): unverified to the hundredth
        "h20": _nvidia("h20", "NVIDIA H20", (9, 0), 95.0, (575, 57)),
        # device_memory table (B200 180 GB; published torch OOMs on B200 read 178.35-178.36 GiB)
        "b200": _nvidia("b200", "NVIDIA B200", (10, 0), 178.4, (575, 57)),
        # device_memory table (B300 288 GB): unverified, no published torch figure found
        "b300": _nvidia("b300", "NVIDIA B300", (10, 3), 268.0, (580, 65)),
        # Grace superchips: their own names, never read as B200/H200/B300 (device_memory matches
        # names at a word start).
        # NVIDIA/srt-slurm#172 (GB200): "GPU 3 has a total capacity of 184.00 GiB"
        "gb200": _nvidia("gb200", "NVIDIA GB200", (10, 0), 184.0, (575, 57)).replace(
            cpu_arch="aarch64", name="gb200"
        ),
        # Lightning-AI/litgpt#1892 (GH200, 96 GB HBM3): "GPU 0 has a total capacity of 94.88 GiB"
        "gh200": _nvidia("gh200", "NVIDIA GH200 480GB", (9, 0), 94.88, (575, 57)).replace(
            cpu_arch="aarch64", name="gh200"
        ),
        # GB300: the B300's 288 GB HBM3e, so the B300's figure (unverified)
        "gb300": _nvidia("gb300", "NVIDIA GB300", (10, 3), 268.0, (580, 65)).replace(
            cpu_arch="aarch64", name="gb300"
        ),
        # Jetson AGX Thor (Blackwell, SM 11.0): the vendor's 128 GB of unified LPDDR5X; no published
        # torch figure found (a GB10's 128 GB read 121.69), so unverified
        "thor": _nvidia("thor", "NVIDIA Jetson AGX Thor", (11, 0), 128, (575, 57)),
        # DGX Spark: one GB10 (Blackwell, SM 12.1) whose memory is unified with the Grace host;
        # tests/memory/corpus/vllm-vllmrouter-gpt-oss-20b-gb10-util025.json (TW-10519/VLLM-ROUTER):
        # vLLM's "Free memory on device (…/121.69 GiB)"; DGX OS ships CUDA 13.0 with driver 580.
        "gb10": _nvidia("gb10", "NVIDIA GB10", (12, 1), 121.69, (580, 95)).replace(
            cpu_arch="aarch64", name="gb10", device_count=1, cuda_version=(13, 0)
        ),
        # Wan-Video/Wan2.1#465 (RTX 5090): "GPU 0 has a total capacity of 31.37 GiB"
        "rtx5090": _nvidia("rtx5090", "NVIDIA GeForce RTX 5090", (12, 0), 31.37, (575, 57)),
        # tests/memory/corpus/vllm-s4-vediosifter-…json (RTX PRO 6000 Blackwell): vLLM's
        # "Free memory on device (93.47/94.97 GiB)"
        "rtxpro6000": _nvidia("rtxpro6000", "NVIDIA RTX PRO 6000 Blackwell", (12, 0), 94.97, (575, 57)),
        # device_memory table (MI300X 192 GB: 191.98 GiB); unverified against a published log
        "mi300x": Platform(
            vendor="hip",
            name="mi300x",
            capability=(9, 4),
            gcn_arch="gfx942",
            device_name="AMD Instinct MI300X",
            memory_gib=191.98,
            device_count=8,
            detected_by="preset",
        ),
        # MI325X: the MI300X's gfx942 with 256 GB HBM3e (vLLM names it by PCI id 0x74a5,
        # ``platforms/rocm.py : _ROCM_DEVICE_ID_NAME_MAP``); 255.98 GiB by analogy with the MI300X's
        # 192 GB → 191.98 GiB, unverified
        "mi325x": Platform(
            vendor="hip",
            name="mi325x",
            capability=(9, 4),
            gcn_arch="gfx942",
            device_name="AMD Instinct MI325X",
            memory_gib=255.98,
            device_count=8,
            detected_by="preset",
        ),
        # device_memory table (MI355X 288 GB: 287.98 GiB), unverified against a published log
        "mi355x": Platform(
            vendor="hip",
            name="mi355x",
            capability=(9, 5),
            gcn_arch="gfx950",
            device_name="AMD Instinct MI355X",
            memory_gib=287.98,
            device_count=8,
            detected_by="preset",
        ),
        # Intel Data Center GPU Max 1550 and Arc A770, Ascend 910B: the vendor's figures
        # (128 GB, 16 GB, 64 GB); no published torch figure found
        "xpu": Platform(
            vendor="xpu",
            name="xpu",
            xpu_xmx=True,
            device_name="Intel Data Center GPU Max 1550",
            memory_gib=128,
            detected_by="preset",
        ),
        "xpu-noxmx": Platform(
            vendor="xpu",
            name="xpu-noxmx",
            xpu_xmx=False,
            device_name="Intel Arc A770",
            memory_gib=16,
            detected_by="preset",
        ),
        "npu": Platform(
            vendor="npu",
            name="npu",
            device_name="Ascend 910B",
            memory_gib=64,
            device_count=8,
            detected_by="preset",
        ),
        "cpu": Platform(vendor="cpu", name="cpu", cpu_arch="x86_64", cpu_amx=False, detected_by="preset"),
        "cpu-amx": Platform(
            vendor="cpu",
            name="cpu-amx",
            cpu_arch="x86_64",
            cpu_amx=True,
            device_name="Intel Xeon (Sapphire Rapids)",
            detected_by="preset",
        ),
        "cpu-arm": Platform(vendor="cpu", name="cpu-arm", cpu_arch="aarch64", detected_by="preset"),
    }


#: name → the function of each fact a pack defined (``define_fact``).
_DEFINED: dict[str, Any] = {}


def define_fact(name: str, fn: Any) -> None:
    """Define the platform predicate ``name`` as ``fn(platform)``, for a pack whose engine gates
    on it (the SGLang pack's ``is_sm90``): it reads like a built-in fact, ``platform.is_sm90``,
    cached per value, and traced under that name. Defining a name twice with another function, or
    a name the engine already has, is a ``RegistrationError`` naming both."""
    from ._frozen import cached
    from .errors import RegistrationError

    if not name.isidentifier() or name.startswith("_"):
        raise RegistrationError(f"platform fact {name!r}: use a public identifier such as 'is_sm90'")
    where = f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', fn)!s}"
    previous = _DEFINED.get(name)
    if previous is not None:
        if previous is fn or f"{previous.__module__}.{previous.__qualname__}" == where:
            return  # the same definition again (a module imported twice)
        raise RegistrationError(
            f"platform fact {name!r} is defined by {previous.__module__}.{previous.__qualname__}; "
            f"{where} cannot define it again (one meaning per name)"
        )
    if name in vars(Platform) or name in {f.name for f in _FIELDS}:
        raise RegistrationError(
            f"platform fact {name!r}: Platform already has {name!r}; {where} must pick another name"
        )
    _DEFINED[name] = fn
    descriptor = cached(fn)
    descriptor.__set_name__(Platform, name)
    setattr(Platform, name, descriptor)
