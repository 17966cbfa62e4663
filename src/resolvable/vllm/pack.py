"""The vLLM pack as the command line sees it: ``PACK``, a ``resolvable.packs.Pack``.

Invariant: this is the only module of the pack that ``resolvable.cli`` reaches (through
``resolvable.packs.get("vllm")``); every member names the module that holds it, imported on
first use, so building ``PACK`` imports nothing of the pack.
"""

from __future__ import annotations

from ..packs import Pack, member

TYPE_CHECKING = False  # typing is not imported at run time (import cost)
if TYPE_CHECKING:
    import argparse
    from typing import Any

_PKG = "resolvable.vllm"


class VllmPack(Pack):
    name = "vllm"
    title = "vLLM"
    frontend = "vllm"
    release_option = "--vllm-version"
    tp_field = "tensor_parallel_size"
    context_field = "max_model_len"
    fit_trials = (("kv_cache_dtype", ("fp8",), ""),)
    startup_label = member(f"{_PKG}.config.startup", "STARTUP_LABEL")
    startup_phase = member(f"{_PKG}.config.startup", "STARTUP_PHASE")
    not_known_offline = member(f"{_PKG}.config.startup", "NOT_KNOWN_OFFLINE")
    env_vars = member(f"{_PKG}.api", "ENV_VARS")
    # vLLM's docs (deployment/docker.md): the OpenAI server images; their entrypoint is `vllm serve`
    images = ("vllm/vllm-openai", "vllm/vllm-openai-rocm", "vllm/vllm-tpu", "vllm/vllm-cpu")
    image_command = ("vllm", "serve")
    distribution_images = (
        "llm-d/llm-d", "lmcache/vllm-openai", "rocm/vllm", "intel/vllm", "aibrix/vllm-openai",
        "kserve/huggingfaceserver", "red-hat-ai-services/vllm", "rhaiis/vllm", "neuralmagic/",
    )  # fmt: skip

    # releases
    registry = member(_PKG, "registry")
    release = member(f"{_PKG}.api", "vllm_release")
    installed_version = member(f"{_PKG}.api", "installed_vllm_version")
    parse_only_releases = member(f"{_PKG}.flags", "parse_only_releases")
    flag_releases = member(f"{_PKG}.flags", "releases")
    removed_between = member(f"{_PKG}.flags", "removed_between")
    read_release_flags = member(f"{_PKG}.release_flags", "read_flags")
    changes = member(f"{_PKG}.changes", "CHANGES")
    rule_releases = member(f"{_PKG}.api", "rule_releases")

    # input: vLLM's own argv pre-processing, flag table per release, launch commands
    flag_table = member(f"{_PKG}.flags", "load_table")
    preprocess = member(f"{_PKG}.cli_args", "preprocess")
    unknown_message = member(f"{_PKG}.cli_args", "unknown_message")
    from_namespace = member(f"{_PKG}.cli_args", "from_namespace")
    parse_argv = member(f"{_PKG}.cli_args", "parse")
    resolution_kwargs = member(f"{_PKG}.cli_args", "resolution_kwargs")
    parse_launch = member(f"{_PKG}.launch", "parse_launch")
    recognises = member(f"{_PKG}.launch", "is_vllm_command")
    env_from_os = member(f"{_PKG}.api", "env_from_os")
    classify_env = member(f"{_PKG}.environ", "classify")
    load_model = member(_PKG, "load_model")
    catalog = member(_PKG, "catalog")
    platform = member(f"{_PKG}.platforms", "platform")
    with_gpus = member(f"{_PKG}.config.parallel", "with_gpus")
    grid_platforms = member(f"{_PKG}.lint_cases", "GRID_PLATFORMS")  # matrix and lint presets

    # resolution
    args_class = member(_PKG, "VllmArgs")
    kind_fields = member(_PKG, "KIND_FIELDS")
    resolve_vllm_args = member(_PKG, "resolve_vllm_args")
    resolve_launch = resolve_vllm_args
    release_keyword = "vllm_version"
    check_startup = member(f"{_PKG}.config.startup", "check_startup")
    with_checked_fix = member(f"{_PKG}.config.fixes", "with_checked_fix")
    engine_config = member(f"{_PKG}.config.report", "engine_config")
    use_mla = member(f"{_PKG}.layers", "use_mla")
    kinds_of = member(f"{_PKG}.layers", "kinds_of")

    # tables
    capability_table = member(f"{_PKG}.capabilities", "capability_table")
    capability_markdown = member(f"{_PKG}.capabilities", "capability_markdown")
    capability_columns = member(f"{_PKG}.capabilities", "COLUMNS")
    memory_capacity = member(f"{_PKG}.memory", "capacity")

    # translation to other engines' flags (resolvable compare)
    peer_sglang = member(f"{_PKG}.peer_sglang", "TABLE")

    @property
    def translations(self) -> dict[str, Any]:
        return {"sglang": self.peer_sglang}

    # one launch, one verdict: vLLM's pre-processing and flag table of the release, --gpus
    def build_launch(self, **inputs: Any) -> Any:
        from .launch import build_launch

        return build_launch(self, **inputs)

    def add_tool_options(self, parser: Any, command: str) -> tuple[str, ...]:
        """``--kernels NAME=0|1,...``: the installed-kernel facts, overridden (explain, resolve)."""
        parser.add_argument(
            "--kernels",
            metavar="NAME=0|1,...",
            help="override installed-kernel facts (resolvable's own option)",
        )
        return ("kernels",)

    def launch_config(self, launch: Any) -> Any:
        from .launch import launch_config

        return launch_config(self, launch)

    def launch_platform(self, launch: Any) -> Any:
        from .launch import launch_platform

        return launch_platform(self, launch)

    def resolve_kwargs(self, launch: Any) -> dict[str, Any]:
        from .launch import resolve_kwargs

        return resolve_kwargs(self, launch)

    def memory_report(self, res: Any, hf: Any, launch: Any) -> Any:
        from .launch import memory_report

        return memory_report(self, res, hf, launch)

    def lint_attempts(self, release: str) -> list[tuple[str, Any]]:
        from .lint_cases import lint_attempts

        return lint_attempts(self, release)

    def lint_architectures(self) -> list[str]:
        from .lint_cases import lint_architectures

        return lint_architectures(self)

    def not_applicable(self, res: Any, hf: Any = None) -> frozenset[str]:
        """The MLA-only fields without MLA layers, the sparse-MLA ones without the DeepSeek sparse
        indexer (``vllm.applicable``)."""
        from .applicable import not_applicable

        return not_applicable(res, hf)

    change_since = member(f"{_PKG}.since", "change_since")

    def checked_fix(self, exc: Any, hf: Any, platform: Any, env: Any, user: Any, *, release: Any) -> Any:
        """The fix search speaks flags, not ``--attention-config`` JSON: such a launch's refusal
        keeps its fix unchecked (as the vLLM front-end always did)."""
        if "attention_config" in user or "kernels" in user:
            return exc
        return super().checked_fix(exc, hf, platform, env, user, release=release)

    @property
    def startup_log(self) -> Any:
        """The start-up log reader (``recognises``, ``read``, ``launch``) for ``check-log``."""
        import importlib

        return importlib.import_module(f"{_PKG}.startup_log")

    def add_cli_args(self, parser: argparse.ArgumentParser, release: str | None = None) -> None:
        from .cli_args import add_cli_args

        add_cli_args(parser, release)

    def parse_flags(
        self, namespace: argparse.Namespace, release: str | None = None
    ) -> tuple[dict[str, Any], list[str]]:
        parsed = self.from_namespace(namespace, self.flag_table(release), [], model=None)
        return self.resolution_kwargs(parsed), list(parsed.shown)


PACK = VllmPack()
