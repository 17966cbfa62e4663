"""Container images to engine releases, through each pack's image data (``Pack.images``,
``Pack.distribution_images``, ``Pack.tag_release``).

``read_image("vllm/vllm-openai:v0.34.0")`` → ``Image(engine="vllm", release="0.34.0", ...)``.
Invariants:

* a registry host (``docker.io/``, ``ghcr.io/``) and a digest (``@sha256:…``) are not part of the
  repository; a missing tag is ``latest``;
* an official image's tag names the release (``v0.5.5.post3-cu129-amd64`` → 0.5.5, variant
  ``cu129-amd64``); ``latest``/``nightly`` name none: the release is *assumed* (the newest
  modelled) and ``pinned`` is False;
* a distribution image (llm-d, LMCache, KServe, vendor builds) names its own version: the engine
  release is unknown (None) and ``release_from`` says so; the engine comes from the command;
* a release outside the modelled range is reported as read, with ``modelled`` False and the
  nearest modelled release in ``nearest`` (used only when the operator asks for it).
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import packs


@dataclass(frozen=True)
class Image:
    ref: str
    repository: str
    tag: str
    engine: str | None
    release: str | None
    release_from: str
    official: bool
    pinned: bool
    modelled: bool
    nearest: str | None = None
    variant: str = ""

    @property
    def platform_hint(self) -> str | None:
        """The platform family an image variant is built for (``rocm…``/``mi30x`` → hip,
        ``xpu``, ``npu``, ``cpu``, ``tpu``), or None (CUDA, or not said)."""
        text = f"{self.repository} {self.variant}".lower()
        for word, family in (("rocm", "hip"), ("mi30", "hip"), ("mi35", "hip"), ("xpu", "xpu"),
                             ("npu", "npu"), ("tpu", "tpu"), ("cpu", "cpu")):  # fmt: skip
            if word in text:
                return family
        return None


def split_ref(ref: str) -> tuple[str, str]:
    """(repository without a registry host, tag) of an image reference."""
    ref = ref.strip().split("@", 1)[0]
    name, tag = ref, "latest"
    slash = ref.rfind("/")
    colon = ref.rfind(":")
    if colon > slash:
        name, tag = ref[:colon], ref[colon + 1 :]
    parts = name.split("/")
    if len(parts) > 1 and ("." in parts[0] or ":" in parts[0] or parts[0] == "localhost"):
        parts = parts[1:]
    return "/".join(parts), tag or "latest"


def _matches(repository: str, prefixes: tuple[str, ...]) -> bool:
    return any(repository.startswith(p) for p in prefixes)


def read_image(ref: str) -> Image:
    """What an image reference says about the engine and its release (see the module docstring)."""
    repository, tag = split_ref(ref)
    if "$" in ref or "{{" in ref:  # kustomize/helm/env placeholders: the image is chosen at deploy time
        return Image(ref, repository, tag, None, None,
                     f"the image {ref!r} is a placeholder filled in at deploy time; the release is unknown",
                     False, True, False)  # fmt: skip
    for name in packs.names():
        pack = packs.get(name)
        if repository in pack.images:
            return _official(ref, repository, tag, pack)
    for name in packs.names():
        pack = packs.get(name)
        if _matches(repository, pack.distribution_images):
            version = _engine_version_in_tag(tag, pack)
            if version is not None:  # rocm/vllm:rocm6.3.1_vllm_0.8.5_20250513 names vLLM's release
                modelled = version in pack.releases
                return Image(ref, repository, tag, pack.name, version,
                             f"image tag {tag!r} (a {repository} build of {pack.title} {version})",
                             False, True, modelled, None if modelled else pack.nearest_release(version))  # fmt: skip
            return Image(ref, repository, tag, pack.name, None,
                         f"{repository}:{tag} is a distribution image: its tag is {repository}'s version; "
                         f"the {pack.title} release inside it is unknown",
                         False, True, False)  # fmt: skip
    return Image(
        ref, repository, tag, None, None, f"{repository} is not an image resolvable knows", False, True, False
    )


def _engine_version_in_tag(tag: str, pack: packs.Pack) -> str | None:
    import re

    match = re.search(rf"(?:^|[_-]){re.escape(pack.name)}[_-]?v?(\d+\.\d+\.\d+)", tag)
    return match.group(1) if match else None


def _official(ref: str, repository: str, tag: str, pack: packs.Pack) -> Image:
    release = pack.tag_release(tag)
    if release is None and "@" in ref and ":" not in ref.split("@", 1)[0].rsplit("/", 1)[-1]:
        return Image(ref, repository, "", pack.name, None,
                     f"the image is pinned by digest: the {pack.title} release is unknown",
                     True, True, False)  # fmt: skip
    variant = tag.split("-", 1)[1] if "-" in tag else ""
    if release is None:
        newest = pack.releases[-1]
        return Image(ref, repository, tag, pack.name, newest,
                     f"image tag {tag!r} is unpinned: assumed {pack.title} {newest}, the newest modelled release",
                     True, False, True, None, variant)  # fmt: skip
    modelled = release in pack.releases
    how = f"image tag {tag!r}"
    if not modelled:
        how += (f": {pack.title} {release} is outside the modelled range "
                f"{pack.releases[0]}–{pack.releases[-1]}")  # fmt: skip
    return Image(ref, repository, tag, pack.name, release, how, True, True, modelled,
                 None if modelled else pack.nearest_release(release), variant)  # fmt: skip
