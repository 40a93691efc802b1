"""``doctor``: the seed's debugging guide as checks, each finding with a one-line fix.

The checks read and probe; they never change a file. Order follows the guide: config,
memory (enabled, files, permissions, locks, disk), engine and providers, the auxiliary
model, context files, and the system prompt's size by part.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from hermes_core.text.tokens import estimate_text_tokens

if TYPE_CHECKING:
    from hermes_core.config.models import HermesConfig
    from hermes_core.plugin.host import PluginHost

Level = Literal["ok", "info", "warn", "error"]
MEMORY_FILES = {"memory": "MEMORY.md", "user": "USER.md"}
LOW_DISK_BYTES = 50 * 1024 * 1024
PROMPT_SHARE_WARN = 0.25  # a system prompt above this share of the window crowds out the conversation


@dataclass
class Finding:
    check: str
    level: Level
    message: str
    fix: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class PromptPart:
    name: str
    chars: int
    tokens: int
    source: str = ""


@dataclass
class DoctorReport:
    findings: list[Finding]
    prompt_parts: list[PromptPart]

    @property
    def ok(self) -> bool:
        return not any(f.level == "error" for f in self.findings)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "findings": [f.to_dict() for f in self.findings],
                "prompt_parts": [asdict(p) for p in self.prompt_parts]}


def run_doctor(home: Path, config_file: Path, *, cwd: Path | None = None, aux_timeout: float = 3.0) -> DoctorReport:
    """Run every check against ``home`` and ``config_file``; never raises for what it finds."""
    from hermes_core.config.models import ConfigError, HermesConfig, load_config

    findings: list[Finding] = []
    try:
        loaded = load_config(config_file, home=home)
        config = loaded.config
        findings.append(Finding("config", "ok", f"{config_file} is valid" if config_file.exists()
                                else f"no {config_file}; using the defaults"))
        findings += [Finding("config", "warn", w, "fix the key's spelling or remove it") for w in loaded.warnings]
    except ConfigError as exc:
        config = HermesConfig()
        first = str(exc).splitlines()[0]
        findings.append(Finding("config", "error", str(exc), f"edit {config_file}: {first.split(': ', 1)[-1]}"))
    findings += list(check_memory(home, config))
    findings += list(check_compression(config))
    host, plugin_findings = _build_host(config, home)
    findings += plugin_findings
    parts: list[PromptPart] = []
    if host is not None:
        try:
            findings += list(check_auxiliary(config, aux_timeout))
            prompt_findings, parts = check_prompt(host, cwd or Path.cwd())
            findings += prompt_findings
        finally:
            host.close()
    return DoctorReport(findings, parts)


# -- memory ------------------------------------------------------------------------------


def check_memory(home: Path, config: HermesConfig) -> Iterator[Finding]:
    mem = config.memory
    if not (mem.memory_enabled or mem.user_profile_enabled):
        yield Finding("memory", "warn", "memory is off: memory_enabled and user_profile_enabled are both false",
                      "set memory.memory_enabled: true in config.yaml")
        return
    yield Finding("memory", "ok", "memory is enabled"
                  + ("" if mem.user_profile_enabled else " (user profile off)")
                  + ("" if mem.memory_enabled else " (agent notes off)"))
    directory = home / "memories"
    if not directory.exists():
        yield Finding("memory", "info", f"{directory} does not exist yet; it is created on the first write")
        return
    yield from _check_permissions(directory, is_dir=True)
    yield from _check_lock(directory)
    for target, filename in MEMORY_FILES.items():
        path = directory / filename
        if not path.exists():
            yield Finding("memory", "info", f"{filename} does not exist yet ({target} is empty)")
            continue
        yield from _check_memory_file(path)
        for leftover in sorted(directory.glob(f".{filename}.*.tmp")):
            yield Finding("memory", "warn", f"{leftover.name}: temp file left by an interrupted write",
                          f"rm {leftover} (the next write removes it too)")
    try:
        free = shutil.disk_usage(directory).free
    except OSError:
        return
    if free < LOW_DISK_BYTES:
        yield Finding("memory", "warn", f"only {free // (1024 * 1024)} MiB free on the disk holding {directory}",
                      "free disk space, or memory writes will fail")


def _check_permissions(path: Path, *, is_dir: bool) -> Iterator[Finding]:
    needed = os.R_OK | os.W_OK | (os.X_OK if is_dir else 0)
    mode = stat.S_IMODE(path.stat().st_mode)
    wanted = "700" if is_dir else "600"
    if not os.access(path, needed):
        what = "readable, writable and searchable" if is_dir else "readable and writable"
        yield Finding("permissions", "error", f"{path} is not {what} by you (mode {mode:o})",
                      f"chmod {wanted} {path}")
    elif mode & 0o077:
        yield Finding("permissions", "warn", f"{path} is accessible to other users (mode {mode:o}); memory is personal",
                      f"chmod {wanted} {path}")


def _check_memory_file(path: Path) -> Iterator[Finding]:
    yield from _check_permissions(path, is_dir=False)
    from hermes_core.text.files import FileRefused, read_bytes_file

    try:
        data = read_bytes_file(path, max_bytes=64 * 1024 * 1024, follow_symlinks=False)
    except FileRefused as exc:
        yield Finding("memory", "error", f"cannot use {path}: {exc.problem}", exc.fix)
        return
    except OSError as exc:
        yield Finding("memory", "error", f"cannot read {path}: {exc.strerror or exc}", f"chmod 600 {path}")
        return
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        yield Finding("memory", "error", f"{path.name} is not valid UTF-8 (offset {exc.start}); writes are refused",
                      f"re-save {path} as UTF-8, or move it away")
        return
    yield Finding("memory", "ok", f"{path.name}: {len(data):,} bytes, readable and writable")


def _check_lock(directory: Path) -> Iterator[Finding]:
    """Writers lock the memory directory itself; a lock held right now by another process is worth a warning."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        return
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        yield Finding("locks", "error", f"cannot open {directory} to lock it: {exc.strerror or exc}; writes will fail",
                      f"chmod 700 {directory}")
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        yield Finding("locks", "warn", f"the lock on {directory} is held by a running process; writes wait for it",
                      "if no hermes process is running, find the holder with `fuser " + str(directory) + "`")
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


# -- engine, providers, auxiliary model -----------------------------------------------------


def check_compression(config: HermesConfig) -> Iterator[Finding]:
    ctx = config.context
    if ctx.threshold_percent > 0.9:
        yield Finding("compression", "warn", f"context.threshold_percent is {ctx.threshold_percent}: compaction "
                      "starts so late that a long tool result can overflow the window",
                      "set context.threshold_percent: 0.5 (the default)")


def _build_host(config: HermesConfig, home: Path) -> tuple[PluginHost | None, list[Finding]]:
    from hermes_core.plugin.host import build_host

    try:
        host = build_host(config, home=home)
    except Exception as exc:  # a selection or load failure is exactly what doctor reports
        first = str(exc).splitlines()[0]
        fix = ("fix that value in config.yaml (`hermes-core config check` names every bad key)" if ": plugins." in first
               else "fix context.engine / memory.provider in config.yaml, or run `hermes-core plugins`")
        return None, [Finding("plugins", "error", f"cannot start the plugins: {first}", fix)]
    findings = [Finding("plugins", "ok", f"context engine '{host.engine.name}' loaded; memory providers: "
                        + (", ".join(p.name for p in host.memory.providers) or "none"))]
    for info in host.plugin_infos():
        if info.status == "failed":
            findings.append(Finding("plugins", "error", f"{info.kind} '{info.name}' ({info.distribution}) failed: "
                                    f"{info.error}", f"reinstall {info.distribution or info.name}, or add it to "
                                    "plugins.disabled"))
    findings += [Finding("plugins", "warn", w, "see `hermes-core plugins` for what is installed")
                 for w in host.warnings]
    findings += list(check_providers(host))
    findings += list(check_engine(host))
    return host, findings


def check_engine(host: PluginHost) -> Iterator[Finding]:
    """The context engine's own health, when its status reports one (``state`` / ``summary``)."""
    try:
        status = host.engine_status()
    except Exception as exc:  # a broken status method is itself a finding
        yield Finding("context engine", "warn", f"{host.engine.name}: get_status() raised {type(exc).__name__}: {exc}")
        return
    if "state" not in status:
        return
    level = PROVIDER_LEVELS.get(str(status["state"]), "warn")
    fix = "" if level in ("ok", "info") else str(status.get("fix") or "see the engine's README")
    yield Finding("context engine", level, str(status.get("summary") or f"{host.engine.name}: {status['state']}"), fix)


PROVIDER_LEVELS: dict[str, Level] = {"ok": "ok", "starting": "info", "degraded": "warn", "unavailable": "error"}


def check_providers(host: PluginHost) -> Iterator[Finding]:
    """Each memory provider's own health (``get_status(probe=True)``: one bounded request), and what
    isolation saw: a status call that failed or overran, calls that failed, a worker that had to restart."""
    statuses = {str(s.get("provider")): s for s in host.memory.status(probe=True)}
    for provider, health in zip(host.memory.providers, host.memory.health(), strict=True):
        status = statuses.get(provider.name)
        if status is None:
            yield Finding("memory provider", "warn", f"{provider.name}: get_status() failed: {health['last_problem']}",
                          f"report this to the {provider.name} provider's authors")
        else:
            state = str(status.get("state", "ok"))
            level = PROVIDER_LEVELS.get(state, "warn")
            summary = str(status.get("summary") or f"{provider.name}: {state}")
            fix = "" if level in ("ok", "info") else (
                f"check plugins.{provider.name} in config.yaml and that the service is reachable; "
                "turns are kept and delivered when it recovers")
            yield Finding("memory provider", level, summary, fix)
        if health["worker_restarts"]:
            yield Finding("memory provider", "error", f"{provider.name}: its background worker died "
                          f"{health['worker_restarts']} time(s) and was restarted ({health['last_problem']})",
                          f"report this to the {provider.name} provider's authors")


def _fallback_note(config: HermesConfig) -> str:
    """What happens to summaries meanwhile: only the built-in engines are known to fall back."""
    engine = config.context.engine
    if engine in ("compressor", "lcm"):
        return f"meanwhile the {engine} engine writes offline deterministic summaries instead"
    return f"meanwhile it is up to the '{engine}' engine what a failed summary does"


def check_auxiliary(config: HermesConfig, timeout: float) -> Iterator[Finding]:
    aux = config.auxiliary
    if not (aux.base_url and aux.model):
        yield Finding("auxiliary", "info", "no auxiliary model configured: summaries use the offline deterministic "
                      "summarizer", "set auxiliary.base_url and auxiliary.model for LLM summaries")
        return
    import httpx

    url = aux.base_url.rstrip("/") + "/models"
    key = os.environ.get(aux.api_key_env, "")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        response = httpx.get(url, headers=headers, timeout=timeout)
    except httpx.HTTPError as exc:
        yield Finding("auxiliary", "error", f"auxiliary model at {aux.base_url} unreachable: {type(exc).__name__}: "
                      f"{exc}", f"start the server or fix auxiliary.base_url; {_fallback_note(config)}")
        return
    if response.status_code in (401, 403):
        yield Finding("auxiliary", "error", f"auxiliary model at {aux.base_url} refused the key "
                      f"(HTTP {response.status_code})", f"export {aux.api_key_env}=<a valid key>")
    elif response.status_code >= 500:
        yield Finding("auxiliary", "warn", f"auxiliary model at {aux.base_url} answered HTTP {response.status_code}",
                      "check the server's logs")
    else:
        yield Finding("auxiliary", "ok", f"auxiliary model {aux.model} at {aux.base_url} is reachable")


# -- the system prompt --------------------------------------------------------------------


def check_prompt(host: PluginHost, cwd: Path) -> tuple[list[Finding], list[PromptPart]]:
    from hermes_core.records import PromptContext
    from hermes_core.session.prompt import build_system_prompt

    ctx = PromptContext(home=host.home, cwd=cwd, platform=host.config.prompt.platform,
                        model=host.config.model.name, config=host.config,
                        memory_blocks=tuple(host.memory.system_prompt_blocks()))
    sections = build_system_prompt(host, ctx).sections
    findings = [_section_finding(s.name, s.source, item) for s in sections for item in s.findings]
    parts = [PromptPart(s.name, len(s.text), estimate_text_tokens(s.text), s.source) for s in sections if s.text]
    total = sum(p.tokens for p in parts)
    window = host.config.model.context_length
    level: Level = "warn" if total > window * PROMPT_SHARE_WARN else "ok"
    largest = max(parts, key=lambda p: p.tokens, default=None)
    message = f"system prompt ~{total:,} tokens ({total / window:.0%} of the {window:,}-token window)"
    if largest is not None:
        message += f"; largest part: {largest.name} (~{largest.tokens:,} tokens)"
    findings.append(Finding("prompt size", level, message, "trim SOUL.md / the project context file, or disable "
                            "unused skills" if level == "warn" else ""))
    return findings, parts


def _section_finding(section: str, source: str, item: dict[str, Any]) -> Finding:
    """A prompt section's finding (blocked, truncated, skipped) as a doctor finding."""
    kind = str(item.get("kind") or "note")
    where = item.get("path") or source or section
    if kind == "truncated" and "omitted" in item:
        detail = f"{int(item.get('chars', 0)):,} chars, {int(item['omitted']):,} cut from the middle"
    else:
        detail = str(item.get("message") or item.get("reason") or "")
    if item.get("pattern_ids"):
        detail += f" (patterns: {', '.join(map(str, item['pattern_ids']))})"
    if kind == "blocked" and section == "identity" and item.get("scope", "file") == "file":
        detail += "; the whole SOUL.md was withheld, so the agent runs with the default identity"
    special = detail.startswith("not a regular file")
    unreadable = kind == "skipped" and (special or Path(str(where)).is_file())
    fixes = {"blocked": f"review {where}: remove the flagged lines, or rephrase them if they are legitimate",
             "truncated": "shorten the file or raise prompt.context_file_max_chars",
             "skipped": (f"replace {where} with a regular text file" if special
                         else f"check that {where} is a readable UTF-8 text file" if unreadable else "")}
    level: Level = "warn" if kind == "blocked" or unreadable else "info"
    label = "" if kind == "info" else f"{kind} "
    return Finding("context files", level, f"{section}: {label}{where}: {detail}".rstrip(": "),
                   str(item.get("fix") or fixes.get(kind, "")))
