"""Launches from the files operators keep them in (a source layer: file → launches).

``read(path)`` returns the ``FileLaunch`` records of every engine launch in a deployment file:
Kubernetes objects (``kubernetes``), KServe and OME resources, production-stack and llm-d
ModelService helm values (``helm``), docker-compose files (``compose``) and shell scripts or
READMEs with ``docker run``/``vllm serve``/``python -m …`` lines (``scripts``).

Invariants: the file is read once, bounded (``_yaml.MAX_BYTES``), as text; YAML goes through
``_yaml.load_documents`` (safe, guarded); no shell and no template engine is run; a file that
holds no launch, or cannot be read, is a one-line ``DeployError`` naming the file and the fix.
This package reaches the engines only through ``resolvable.packs`` (never a pack's module), and
the command line reaches it through this module.
"""

from __future__ import annotations

from ._yaml import MAX_BYTES, DeployError
from .launch import FileLaunch

__all__ = ["DeployError", "FileLaunch", "read", "read_text"]

_SCRIPT_SUFFIXES = (".sh", ".bash", ".md", ".txt", ".zsh")


def read(path: str) -> list[FileLaunch]:
    """The launches in the file at ``path``."""
    import os

    if not os.path.isfile(path):
        raise DeployError(f"{path}: no such file (pass a deployment file: YAML, compose, or a shell script)")
    size = os.path.getsize(path)
    if size > MAX_BYTES:
        raise DeployError(
            f"{path}: {size // (1024 * 1024)} MiB, larger than {MAX_BYTES // (1024 * 1024)} MiB; "
            "a deployment file is far smaller (pass the file that holds the launch)"
        )
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise DeployError(f"{path}: cannot read it ({exc.strerror})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise DeployError(f"{path}: not UTF-8 text; a deployment file is text") from None
    return read_text(text, path)


def read_text(text: str, name: str) -> list[FileLaunch]:
    """The launches in ``text``, read as the file ``name`` (its suffix picks script or YAML)."""
    from . import compose, helm, kubernetes, scripts
    from ._yaml import load_documents

    lower = name.lower()
    if lower.endswith(_SCRIPT_SUFFIXES) or lower.endswith("dockerfile") or text.startswith("#!"):
        found = scripts.launches(text, name)
        kind = "shell commands"
    else:
        docs = load_documents(text, name)
        found = []
        kinds = set()
        for doc in docs:
            if kubernetes.is_kubernetes(doc):
                kinds.add("Kubernetes objects")
            elif compose.is_compose(doc):
                kinds.add("compose services")
                found += compose.launches(doc, name)
            elif helm.is_production_stack(doc):
                kinds.add("production-stack values")
                found += helm.production_stack(doc, name)
            elif helm.is_modelservice(doc):
                kinds.add("llm-d ModelService values")
                found += helm.modelservice(doc, name)
        found = kubernetes.launches(docs, name) + found
        kind = ", ".join(sorted(kinds)) or "no Kubernetes object, compose file or known helm values"
    if not found:
        from .. import packs

        engines = " or ".join(packs.get(n).title or n for n in packs.names())
        images = ", ".join(packs.get(n).images[0] for n in packs.names() if packs.get(n).image_command)
        raise DeployError(
            f"{name}: no engine launch found in its {kind}: expected a container whose command starts "
            f"{engines}, or an image whose entrypoint does ({images})"
        )
    return found
