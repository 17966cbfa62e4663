"""Detect the platform of this machine without importing anything heavy up front.

Order: ``RESOLVABLE_PLATFORM`` (simulation) → torch, if importable → ``nvidia-smi`` →
``rocm-smi`` → ``/proc/cpuinfo``. Every probe is wrapped: detection never raises, and the
returned ``Platform.detected_by`` says which probe answered (and why earlier ones did not).
"""

from __future__ import annotations

import importlib.util
import platform as _host
import shutil
import subprocess
from collections.abc import Mapping

from ._platform import PLATFORM_ENV_VAR, Platform

__all__ = ["detect"]


def detect(env: Mapping[str, str]) -> Platform:
    notes: list[str] = []
    name = env.get(PLATFORM_ENV_VAR)
    if name:
        try:
            return Platform.preset(name).replace(
                name=Platform.preset(name).name, detected_by=f"{PLATFORM_ENV_VAR}={name}"
            )
        except ValueError as exc:
            notes.append(f"ignored {PLATFORM_ENV_VAR}: {exc}")
    for probe in (_from_torch, _from_nvidia_smi, _from_rocm_smi):
        try:
            found = probe()
        except Exception as exc:  # a broken driver or torch install must not stop detection
            notes.append(f"{probe.__name__[6:]} failed: {type(exc).__name__}: {exc}")
            continue
        if found is not None:
            return found.replace(name=found.name, detected_by="; ".join([found.detected_by, *notes]))
        notes.append(f"{probe.__name__[6:]}: no device")
    return _cpu_fallback(notes)


def _kernels() -> frozenset[str]:
    return frozenset(k for k in ("flashinfer", "triton_kernels") if importlib.util.find_spec(k))


def _from_torch() -> Platform | None:
    if importlib.util.find_spec("torch") is None:
        return None
    import torch  # only here: detection is the one place allowed to import it

    if getattr(torch.version, "hip", None) and torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        return Platform(
            vendor="hip",
            name="detected",
            capability=tuple(torch.cuda.get_device_capability(0)),
            gcn_arch=getattr(props, "gcnArchName", "").split(":")[0] or None,
            device_name=props.name,
            memory_gib=round(props.total_memory / 2**30, 1),
            device_count=torch.cuda.device_count(),
            cpu_arch=_host_arch(),
            detected_by="torch (ROCm)",
        )
    if torch.cuda.is_available() and torch.version.cuda:
        props = torch.cuda.get_device_properties(0)
        major, minor = (int(x) for x in torch.version.cuda.split(".")[:2])
        return Platform(
            vendor="cuda",
            name="detected",
            capability=tuple(torch.cuda.get_device_capability(0)),
            cuda_version=(major, minor),
            device_name=props.name,
            memory_gib=round(props.total_memory / 2**30, 1),
            device_count=torch.cuda.device_count(),
            cpu_arch=_host_arch(),
            kernels=_kernels(),
            detected_by="torch (CUDA)",
        )
    if hasattr(torch, "xpu") and torch.xpu.is_available():
        props = torch.xpu.get_device_properties()
        return Platform(
            vendor="xpu",
            name="detected",
            xpu_xmx=bool(getattr(props, "has_fp64", False)),
            device_name=getattr(props, "name", None),
            cpu_arch=_host_arch(),
            detected_by="torch (XPU)",
        )
    return None


def _from_nvidia_smi() -> Platform | None:
    out = _run(
        [
            "nvidia-smi",
            "--query-gpu=name,compute_cap,memory.total,driver_version",
            "--format=csv,noheader,nounits",
        ]
    )
    if not out or not out.strip():
        return None
    rows = [r.split(",") for r in out.strip().splitlines()]
    name, cap, mem, driver = (c.strip() for c in rows[0][:4])
    major, _, minor = cap.partition(".")
    cuda = _cuda_from_smi()
    return Platform(
        vendor="cuda",
        name="detected",
        capability=(int(major), int(minor or 0)),
        cuda_version=cuda,
        device_name=name,
        memory_gib=round(float(mem) / 1024, 1),
        device_count=len(rows),
        driver_version=tuple(int(x) for x in driver.split(".") if x.isdigit()),
        cpu_arch=_host_arch(),
        kernels=_kernels(),
        detected_by="nvidia-smi" + ("" if cuda else " (CUDA toolkit version unknown: no torch)"),
    )


def _cuda_from_smi() -> tuple[int, int] | None:
    out = _run(["nvidia-smi"]) or ""
    marker = "CUDA Version:"
    if marker not in out:
        return None
    text = out.split(marker, 1)[1].split()[0]
    major, _, minor = text.partition(".")
    try:
        return int(major), int(minor or 0)
    except ValueError:
        return None


def _from_rocm_smi() -> Platform | None:
    out = _run(["rocm-smi", "--showproductname"])
    if not out or "GPU" not in out:
        return None
    gfx = next((tok for tok in out.split() if tok.startswith("gfx")), None)
    cap = {"gfx942": (9, 4), "gfx950": (9, 5), "gfx90a": (9, 0)}.get(gfx or "")
    return Platform(
        vendor="hip",
        name="detected",
        capability=cap,
        gcn_arch=gfx,
        cpu_arch=_host_arch(),
        detected_by="rocm-smi",
    )


def _cpu_fallback(notes: list[str]) -> Platform:
    amx = False
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            flags = next((line for line in fh if line.startswith("flags")), "")
        amx = "amx_tile" in flags.split()
        notes.append("/proc/cpuinfo: " + ("AMX" if amx else "no AMX"))
    except OSError as exc:
        notes.append(f"/proc/cpuinfo unreadable: {exc.strerror}")
    arch = _host_arch()
    return Platform(
        vendor="cpu",
        name="detected",
        cpu_arch=arch,
        cpu_amx=amx and arch == "x86_64",
        detected_by="fallback to CPU (" + "; ".join(notes) + ")",
    )


def _run(cmd: list[str]) -> str | None:
    if shutil.which(cmd[0]) is None:
        return None
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=10, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None


def _host_arch() -> str:
    machine = _host.machine().lower()
    return "aarch64" if machine in ("aarch64", "arm64") else "x86_64"
