"""docker-compose files: every service whose image or command starts an engine.

Compose interpolation (``${VAR:-default}``) is applied to ``image``, ``command``, ``entrypoint``
and ``environment`` (only defaults are known from the file: ``expand.expand_compose``). A string
``command`` is split as Compose splits it (shell words, no shell). GPUs: ``gpus:`` or
``deploy.resources.reservations.devices`` with the ``gpu`` capability (``count: all`` → "all",
``device_ids`` → their number).
"""

from __future__ import annotations

import shlex

from ._yaml import DeployError, line_of
from .expand import Scope, expand_compose
from .launch import FileLaunch, Node, build

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def is_compose(doc: Any) -> bool:
    return isinstance(doc, dict) and isinstance(doc.get("services"), dict) and "kind" not in doc


def _words(value: Any, scope: Scope, where: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [expand_compose(str(v), scope) for v in value]
    try:
        return shlex.split(expand_compose(str(value), scope))
    except ValueError as exc:
        raise DeployError(f"{where}: cannot split the command: {exc}") from None


def _gpus(service: Any) -> int | str | None:
    if "gpus" in service:
        value = service["gpus"]
        return "all" if value == "all" else (len(value) if isinstance(value, list) else None)
    devices = (
        (((service.get("deploy") or {}).get("resources") or {}).get("reservations") or {}).get("devices")
    ) or []
    for device in devices:
        if isinstance(device, dict) and "gpu" in (device.get("capabilities") or []):
            if device.get("count") == "all":
                return "all"
            if "count" in device and str(device["count"]).isdigit():
                return int(device["count"])
            if device.get("device_ids"):
                return len(device["device_ids"])
            return "all"  # no count and no ids: Compose reserves every GPU
    if service.get("runtime") == "nvidia":
        return "all"
    return None


def launches(doc: Any, file: str) -> list[FileLaunch]:
    out = []
    services = doc["services"]
    for name, service in services.items():
        if not isinstance(service, dict):
            continue
        scope = Scope()
        where = f"{file}: service {name}"
        env_in = service.get("environment") or {}
        env: dict[str, str] = {}
        if isinstance(env_in, list):
            for item in env_in:
                key, eq, value = str(item).partition("=")
                if eq:
                    env[key] = expand_compose(value, scope)
        elif isinstance(env_in, dict):
            env = {str(k): expand_compose("" if v is None else str(v), scope) for k, v in env_in.items()}
        entry = _words(service.get("entrypoint"), scope, where)
        command = _words(service.get("command"), scope, where)
        words = entry + command
        cmd = service.get("command")
        lines = [line_of(service, "entrypoint")] * len(entry) + [
            line_of(cmd, i, line_of(service, "command", value=True)) if isinstance(cmd, list)
            else line_of(service, "command", value=True) for i in range(len(command))
        ]  # fmt: skip
        image = expand_compose(str(service["image"]), scope) if service.get("image") else None
        out += build(
            image=image, command=words, lines=lines, env=env, scope=scope, file=file,
            line=line_of(services, name), node=Node(_gpus(service), 1, None), source=f"compose service {name}",
        )  # fmt: skip
    return out
