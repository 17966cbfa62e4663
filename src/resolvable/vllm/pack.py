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
    startup_label = member(f"{_PKG}.config.startup", "STARTUP_LABEL")
    startup_phase = member(f"{_PKG}.config.startup", "STARTUP_PHASE")
    not_known_offline = member(f"{_PKG}.config.startup", "NOT_KNOWN_OFFLINE")
    env_vars = member(f"{_PKG}.api", "ENV_VARS")

    # releases
    registry = member(_PKG, "registry")
    release = member(f"{_PKG}.api", "vllm_release")
    installed_version = member(f"{_PKG}.api", "installed_vllm_version")
    changes = member(f"{_PKG}.changes", "CHANGES")

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

    @property
    def startup_log(self) -> Any:
        """The start-up log reader (``recognises``, ``read``, ``launch``) for ``check-log``."""
        import importlib

        return importlib.import_module(f"{_PKG}.startup_log")

    def add_cli_args(self, parser: argparse.ArgumentParser, release: str | None = None) -> None:
        from .cli_args import add_cli_args

        add_cli_args(parser, release)

    def parse_flags(self, namespace: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
        parsed = self.from_namespace(namespace, self.flag_table(None), [], model=None)
        return self.resolution_kwargs(parsed), list(parsed.shown)


PACK = VllmPack()
