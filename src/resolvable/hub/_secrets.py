"""Secrets never reach output: the hub token, credentials in a URL and authorisation headers
are replaced by ``***`` in every message this package builds (``redact``).

Invariants: ``redact(text)`` removes (1) the value of every token variable the hub client reads
(``HF_TOKEN``, ``HUGGING_FACE_HUB_TOKEN``, and the stored token file's contents when it is read),
wherever it appears and also its escaped forms (``\\r\\n`` written out); (2) the ``user:password@``
part of any ``scheme://`` URL; (3) the value after ``Authorization:``/``Bearer``/``Basic``;
(4) anything shaped like a Hugging Face token (``hf_`` and 20+ letters or digits). It is
idempotent and never lengthens a line break into output (its input is already one line).
"""

from __future__ import annotations

import os
import re

__all__ = ["redact", "remember_secret", "strip_credentials"]

_URL_CREDENTIALS = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)[^/\s@]*@")
_AUTH_VALUE = re.compile(r"(?i)\b(authorization\s*[:=]\s*|bearer\s+|basic\s+)[^\s,;'\")]+")
_HF_TOKEN_SHAPE = re.compile(r"\bhf_[A-Za-z0-9]{20,}")

#: Token values read from files during this process (the stored token), redacted like env ones.
_REMEMBERED: set[str] = set()


def remember_secret(value: str) -> None:
    """Redact ``value`` from now on (a token read from a file rather than the environment)."""
    if value and len(value) >= 4:
        _REMEMBERED.add(value)


def _secrets() -> list[str]:
    found = set(_REMEMBERED)
    for var in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"):
        value = os.environ.get(var)
        if value and len(value.strip()) >= 4:
            found.update({value, value.strip()})
            found.update(part for part in re.split(r"[\r\n]+", value) if len(part.strip()) >= 4)
    forms = set()
    for value in found:
        forms.update({value, repr(value)[1:-1], value.encode("unicode_escape").decode("ascii")})
    return sorted(forms, key=len, reverse=True)  # longest first: a token's escaped form whole


def strip_credentials(url: str) -> str:
    """``url`` without a ``user:password@`` part."""
    return _URL_CREDENTIALS.sub(r"\1", url)


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``***`` (see the module docstring)."""
    for secret in _secrets():
        if secret in text:
            text = text.replace(secret, "***")
    text = _URL_CREDENTIALS.sub(r"\1***@", text)
    text = _AUTH_VALUE.sub(r"\1***", text)
    return _HF_TOKEN_SHAPE.sub("hf_***", text)
