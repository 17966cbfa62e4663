"""What a user or a hub may name, and where in the cache a name may lead.

Invariants: nothing that a server or a user string controls becomes a path unchecked.

* ``check_repo_id``: ``org/name``, ASCII letters, digits, ``-``, ``_``, ``.``; no ``..`` or ``--``,
  no part starting or ending with ``-`` or ``.`` (the Hub's own rule for repo names,
  ``huggingface_hub/utils/_validators.py: validate_repo_id``), at most 96 characters a part;
* ``check_revision``: a 40-hex commit, or a safe ref — ``/``-separated parts of letters, digits,
  ``-``, ``_``, ``.``, none empty, ``.`` or ``..``, none starting with ``.`` or ending with
  ``.lock`` (git's ``check-ref-format``), at most 255 characters;
* ``check_commit``: exactly 40 hex digits (what a server sends as ``X-Repo-Commit``);
* ``check_etag``: the blob name a server sends (``ETag``/``X-Linked-Etag``, quotes and ``W/``
  stripped): 1 to 128 letters, digits, ``-`` or ``_`` — a git sha1 or an LFS sha256 in practice;
* ``inside(root, *parts)``: the path, resolved (symbolic links followed), and refused unless it
  lies inside ``root`` resolved — checked for every path the fetch writes.

Each failure is a ``HubInputError`` (a ``HubError``, so a ``ConfigError``, so a ``ValueError``) with a one-line
message naming the input and the fix.
"""

from __future__ import annotations

import os
import re

from .._files import shown
from ..errors import ConfigError
from ._secrets import redact

__all__ = [
    "HubError",
    "HubInputError",
    "check_commit",
    "check_etag",
    "check_repo_id",
    "check_revision",
    "inside",
]

_COMMIT = re.compile(r"[0-9a-f]{40}")
_REPO_PART = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?")
_REF_PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")
_ETAG = re.compile(r"[A-Za-z0-9_-]{1,128}")


class HubError(ConfigError):
    """A model could not be fetched from the hub (one line: the repo, what happened, the fix);
    the message is redacted (no token, URL credentials or authorisation header)."""

    def __init__(self, message: str = "") -> None:
        super().__init__(redact(str(message)))


class HubInputError(HubError):
    """A repo id, revision, commit or ETag that cannot safely name a file in the cache."""


def check_repo_id(repo_id: str) -> str:
    parts = repo_id.split("/") if isinstance(repo_id, str) else []
    if (
        len(parts) != 2
        or not all(_REPO_PART.fullmatch(p) for p in parts)
        or ".." in repo_id
        or "--" in repo_id
    ):
        raise HubInputError(
            f"{shown(repo_id)} is not a hub repo id: write it as org/name with ASCII letters, digits, "
            "'-', '_' and '.' (no '..' or '--'), or pass --model-config PATH for a local config.json"
        )
    return repo_id


def check_revision(revision: str) -> str:
    if isinstance(revision, str) and _COMMIT.fullmatch(revision):
        return revision
    parts = revision.split("/") if isinstance(revision, str) else []
    if (
        not parts
        or len(revision) > 255
        or not all(_REF_PART.fullmatch(p) and not p.endswith(".lock") for p in parts)
        or ".." in revision
    ):
        raise HubInputError(
            f"--revision {shown(revision)}: not a commit (40 hex digits) or a branch or tag name "
            "(letters, digits, '-', '_', '.', parts joined by '/', no '..'); pass an existing branch, "
            "tag or commit"
        )
    return revision


def check_commit(commit: str | None, endpoint: str, name: str) -> str:
    if not isinstance(commit, str) or not _COMMIT.fullmatch(commit.strip()):
        raise HubInputError(
            f"the hub at {endpoint} answered for {name} without a valid commit id (X-Repo-Commit "
            f"{shown((commit or '')[:80])!r}, expected 40 hex digits): check HF_ENDPOINT"
        )
    return commit.strip()


def check_etag(etag: str | None, endpoint: str, name: str) -> str:
    value = (etag or "").strip()
    if value.startswith("W/"):
        value = value[2:]
    value = value.strip('"')
    if not _ETAG.fullmatch(value):
        raise HubInputError(
            f"the hub at {endpoint} answered for {name} with an ETag that cannot name a cache file "
            f"({shown((etag or '')[:80])!r}; expected a hash): check HF_ENDPOINT"
        )
    return value


def inside(root: str, *parts: str) -> str:
    """``root/parts...`` resolved; a ``HubInputError`` unless it lies inside ``root`` resolved."""
    base = os.path.realpath(root)
    path = os.path.realpath(os.path.join(base, *parts))
    if os.path.commonpath([base, path]) != base or path == base:
        raise HubInputError(
            f"{shown(os.path.join(root, *parts))}: would lie outside the hub cache {shown(root)}; "
            "refusing to write it (check the cache for symbolic links, or HF_HUB_CACHE)"
        )
    return path
