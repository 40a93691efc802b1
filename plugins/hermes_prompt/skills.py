"""Skills index (seed 3.5): what skills exist, rendered for the prompt, with two caches.

A skill is a folder holding ``SKILL.md`` whose front matter gives ``name``,
``description`` and ``category`` (default: the top-level folder it sits in, else
``general``); an optional ``platforms: [..]`` list limits where it is offered. A
category folder may hold ``DESCRIPTION.md``. Local skills (``$HERMES_HOME/skills``)
win over the read-only ``skills.external_dirs`` when names collide.

Three layers, fastest first:

1. an in-process LRU (8 entries) keyed by the inputs (skills dir, external dirs,
   platform). It is never re-validated, which is what makes it nearly free; whoever
   edits skills calls :func:`invalidate`.
2. a disk snapshot ``$HERMES_HOME/.skills_prompt_snapshot.json`` of the local skills,
   valid while its manifest matches: ``[mtime_ns, size]`` of every SKILL.md and
   DESCRIPTION.md, plus the mtime of every directory walked outside skill folders (a
   directory's mtime changes when an entry is added, removed or renamed, so checking
   it replaces listing it). Written atomically after each full scan.
3. a full scan. External dirs are always scanned fresh and never enter the snapshot;
   their skills are third-party, so names and descriptions that fail the injection scan
   are left out and reported.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from hermes_core.records import PromptSection

from . import front_matter
from .files import not_regular

log = logging.getLogger("hermes_prompt.skills")

ORDER = 300
LRU_SIZE = 8
SNAPSHOT_NAME = ".skills_prompt_snapshot.json"
SNAPSHOT_VERSION = 3
HEAD_BYTES = 8192  # front matter lives at the top; never read whole skill files
MAX_DESCRIPTION = 240
EXCLUDED_DIRS = frozenset({"node_modules", "__pycache__"})
MAX_DIRS = 50_000  # a bound on the walk, whatever symlinks do
HEADER = (
    "## Skills (mandatory)\n"
    "Before replying, scan the skills below. If one clearly matches your task,\n"
    "load it with skill_view(name) and follow its instructions.\n\n"
)

# [name, description, category, folder, platforms]: a list, not a dict, because the snapshot
# of 1,000 skills is parsed on every cold session start and lists parse faster.
Skill = list[Any]
NAME, DESCRIPTION, CATEGORY, FOLDER, PLATFORMS = range(5)
Finding = dict[str, Any]

_lru: OrderedDict[tuple[Any, ...], tuple[str, tuple[Finding, ...]]] = OrderedDict()
_lru_lock = threading.Lock()


def invalidate() -> None:
    """Forget the in-process index (call after creating, editing or deleting a skill)."""
    with _lru_lock:
        _lru.clear()


# -- scanning ------------------------------------------------------------------------------


class _Scan:
    """One walk of one skills root: skills found, manifest, and what was skipped."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.skills: list[Skill] = []
        self.categories: dict[str, str] = {}
        self.category_files: dict[str, str] = {}  # category -> the DESCRIPTION.md its description came from
        self.dirs: dict[str, int] = {}
        self.files: dict[str, dict[str, list[int]]] = {}  # top-level dir -> rest of path -> [mtime, size]
        self.findings: list[Finding] = []
        self.visited = 0

    def run(self) -> _Scan:
        if not self.root.is_dir():
            return self  # no skills dir: nothing to index, nothing to report
        real_root = os.path.realpath(self.root)
        self._walk(str(self.root), real_root, "", frozenset({real_root}))
        return self

    def _skip(self, path: str, reason: str) -> None:
        self.findings.append({"kind": "skipped", "path": path, "reason": reason})

    def _walk(self, path: str, real: str, rel: str, ancestors: frozenset[str]) -> None:
        """Index the skills below a directory that is not itself a skill."""
        self.visited += 1
        if self.visited > MAX_DIRS:
            if self.visited == MAX_DIRS + 1:
                self._skip(path, f"stopped after {MAX_DIRS:,} directories (symlinks multiplying the tree?)")
            return
        try:
            self.dirs[rel or "."] = os.stat(path).st_mtime_ns
            entries = sorted(os.scandir(path), key=lambda e: e.name)
        except OSError as exc:
            self._skip(path, f"unreadable directory: {exc.strerror or type(exc).__name__}")
            return
        for entry in entries:
            name = entry.name
            if name == "DESCRIPTION.md" and rel:
                self._read_category(entry.path, rel)
            if name.startswith(".") or name in EXCLUDED_DIRS:
                continue
            try:
                if not entry.is_dir():
                    continue
                child_real = os.path.realpath(entry.path) if entry.is_symlink() else f"{real}/{name}"
            except OSError:
                continue
            if child_real in ancestors:
                self._skip(entry.path, f"symlink loop (points back to {child_real})")
                continue
            child_rel = f"{rel}/{name}" if rel else name
            if not self._read_skill(entry.path, child_rel):  # a skill's subfolders are support files
                self._walk(entry.path, child_real, child_rel, ancestors | {child_real})

    def _head(self, path: str, rel: str, probe: bool = False) -> str | bool | None:
        """The first bytes of a file as text, recording its manifest entry; None if unusable.

        With ``probe``, a missing file (or a directory in its place) gives False instead of
        a finding: trying the open is cheaper than asking first. The open does not block
        (a FIFO would wait for a writer) and only regular files are read.
        """
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
            try:
                st = os.fstat(fd)
                data = os.read(fd, HEAD_BYTES) if stat.S_ISREG(st.st_mode) else b""
            finally:
                os.close(fd)
        except (FileNotFoundError, NotADirectoryError):
            if probe:
                return False
            self._skip(path, "unreadable: no such file")
            return None
        except OSError as exc:
            self._skip(path, f"unreadable: {exc.strerror or type(exc).__name__}")
            self._record(rel, [-1, -1])  # never matches: retried on every cold build until fixed
            return None
        if probe and stat.S_ISDIR(st.st_mode):
            return False
        self._record(rel, [st.st_mtime_ns, st.st_size])
        if not stat.S_ISREG(st.st_mode):
            self._skip(path, not_regular(st.st_mode))
            return None
        if b"\x00" in data:
            self._skip(path, "binary file (contains NUL bytes)")
            return None
        return data.decode("utf-8-sig", errors="replace")

    def _record(self, rel: str, stamp: list[int]) -> None:
        top, sep, rest = rel.partition("/")
        self.files.setdefault(top if sep else ".", {})[rest if sep else rel] = stamp

    def _meta(self, path: str, rel: str, probe: bool = False) -> dict[str, Any] | bool | None:
        head = self._head(path, rel, probe)
        if not isinstance(head, str):
            return head
        try:
            block, _body = front_matter.split(head)
            return front_matter.parse(block) if block is not None else {}
        except front_matter.FrontMatterError as exc:
            self._skip(path, f"malformed front matter: {exc}")
            return None

    def _read_skill(self, folder: str, rel: str) -> bool:
        """Index ``folder`` if it holds SKILL.md; False when it is not a skill folder."""
        meta = self._meta(f"{folder}/SKILL.md", f"{rel}/SKILL.md", probe=True)
        if meta is False:
            return False
        if not isinstance(meta, dict):
            return True  # a skill, but unusable: already reported
        top = rel.split("/", 1)[0] if "/" in rel else "general"
        platforms = meta.get("platforms")
        self.skills.append([
            _text(meta.get("name")) or os.path.basename(folder),
            _text(meta.get("description")),
            _text(meta.get("category")) or top,
            folder,
            [str(p).lower() for p in platforms] if isinstance(platforms, list) else [],
        ])
        return True

    def _read_category(self, path: str, rel: str) -> None:
        meta = self._meta(path, f"{rel}/DESCRIPTION.md")
        if isinstance(meta, dict) and _text(meta.get("description")):
            self.categories[rel.split("/", 1)[0]] = _text(meta.get("description"))
            self.category_files[rel.split("/", 1)[0]] = path


def _text(value: Any) -> str:
    if value is None or isinstance(value, (dict, list)):
        return ""
    text = " ".join(str(value).split())
    return text if len(text) <= MAX_DESCRIPTION else text[: MAX_DESCRIPTION - 1] + "…"


# -- the disk snapshot -----------------------------------------------------------------------


def _manifest_valid(root: Path, manifest: dict[str, Any]) -> bool:
    """One stat per recorded directory and file, nothing listed.

    Files are grouped by top-level directory and stat'ed relative to an open descriptor
    of it: shorter path lookups, measurably faster for a thousand skills.
    """
    stat = os.stat
    try:
        for rel, mtime in manifest["dirs"].items():
            if stat(str(root) if rel == "." else f"{root}/{rel}").st_mtime_ns != mtime:
                return False
        for top, entries in manifest["files"].items():
            fd = os.open(str(root) if top == "." else f"{root}/{top}", os.O_RDONLY | os.O_DIRECTORY)
            try:
                for rest, (mtime, size) in entries.items():
                    st = stat(rest, dir_fd=fd)
                    if st.st_mtime_ns != mtime or st.st_size != size:
                        return False
            finally:
                os.close(fd)
    except (OSError, KeyError, TypeError, ValueError):
        return False
    return True


def load_snapshot(home: Path, root: Path) -> dict[str, Any] | None:
    """The snapshot of ``root``'s skills if it exists and its manifest still matches."""
    try:
        snap = json.loads((home / SNAPSHOT_NAME).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(snap, dict) or snap.get("version") != SNAPSHOT_VERSION or snap.get("root") != str(root):
        return None
    return snap if _manifest_valid(root, snap.get("manifest") or {}) else None


def save_snapshot(home: Path, scan: _Scan) -> None:
    """Write the snapshot atomically (temp file + rename); a read-only home is not an error."""
    if not home.is_dir():
        return
    snap = {
        "version": SNAPSHOT_VERSION, "root": str(scan.root),
        "manifest": {"dirs": scan.dirs, "files": scan.files},
        "skills": scan.skills, "categories": scan.categories, "findings": scan.findings,
    }
    tmp = home / f"{SNAPSHOT_NAME}.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        tmp.write_text(json.dumps(snap, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
        os.replace(tmp, home / SNAPSHOT_NAME)
    except OSError as exc:
        log.debug("skills snapshot not written: %s", exc)
        tmp.unlink(missing_ok=True)


# -- assembly -------------------------------------------------------------------------------------


def render(skills: list[Skill], categories: dict[str, str], platform: str) -> str:
    """The seed's format: categories, then ``- name: description``, both sorted."""
    by_category: dict[str, list[Skill]] = {}
    for skill in skills:
        if not skill[PLATFORMS] or platform in skill[PLATFORMS]:
            by_category.setdefault(skill[CATEGORY], []).append(skill)
    if not by_category:
        return ""
    lines = [HEADER + "<available_skills>"]
    for category in sorted(by_category):
        desc = categories.get(category)
        lines.append(f"  {category}: {desc}" if desc else f"  {category}:")
        for name, description, *_rest in sorted(by_category[category], key=lambda s: s[NAME]):
            lines.append(f"    - {name}: {description}" if description else f"    - {name}")
    lines.append("</available_skills>")
    return "\n".join(lines)


def _merge(local: list[Skill], external: list[list[Skill]], findings: list[Finding]) -> list[Skill]:
    """Local first, then each external dir in config order; the first of a name wins."""
    merged: dict[str, Skill] = {}
    for group, skills in [("local", local)] + [("external", e) for e in external]:
        for skill in skills:
            name = skill[NAME]
            if name in merged:
                findings.append({"kind": "skipped", "path": skill[FOLDER],
                                 "reason": f"{group} skill '{name}' shadowed by {merged[name][FOLDER]}"})
            else:
                merged[name] = skill
    return list(merged.values())


def _flagged(texts: list[str]) -> dict[int, list[str]]:
    """Pattern ids for each text (by index) that fails the injection scan.

    One scan over one line per text keeps this cheap; newlines inside a text (a folder
    name may hold one) are flattened so line numbers map back to texts.
    """
    from hermes_core.text.scanning import pattern_ids, scan_text

    hits = scan_text("\n".join(t.replace("\n", " ") for t in texts))
    return {line - 1: pattern_ids([h for h in hits if h.line == line]) for line in sorted({h.line for h in hits})}


def _unflagged(
    skills: list[Skill], categories: dict[str, str], category_files: dict[str, str], findings: list[Finding]
) -> tuple[list[Skill], dict[str, str]]:
    """What a read-only, third-party dir may show: its skills minus those whose name, description
    or category fail the scan, and its category descriptions minus the flagged ones.

    Local skills are the user's own and are not scanned (that would double the cold build).
    """
    names = sorted(categories)
    flagged = _flagged([f"{s[NAME]}: {s[DESCRIPTION]}" for s in skills] + [s[CATEGORY] for s in skills]
                       + [categories[c] for c in names])
    kept = []
    for n, skill in enumerate(skills):
        parts = {part: flagged[i] for part, i in (("description", n), ("category", len(skills) + n)) if i in flagged}
        if not parts:
            kept.append(skill)
            continue
        ids = list(dict.fromkeys(pid for part_ids in parts.values() for pid in part_ids))
        reason = f"external skill '{skill[NAME]}' not listed: its {' and '.join(parts)} matches {', '.join(ids)}"
        findings.append({"kind": "blocked", "path": skill[FOLDER], "pattern_ids": ids, "reason": reason})
    clean = {}
    for n, name in enumerate(names, 2 * len(skills)):
        if n in flagged:
            reason = f"description of external category '{name}' not listed: it matches {', '.join(flagged[n])}"
            findings.append({"kind": "blocked", "path": category_files[name], "pattern_ids": flagged[n],
                             "reason": reason})
        else:
            clean[name] = categories[name]
    return kept, clean


def build_skills_index(home: Path, external_dirs: tuple[str, ...] = (), platform: str = "cli") -> tuple[
    str, tuple[Finding, ...], str
]:
    """``(rendered index, findings, layer)`` where layer is ``lru``, ``snapshot`` or ``cold``."""
    root = home / "skills"
    key = (str(root), external_dirs, platform)
    with _lru_lock:
        hit = _lru.get(key)
        if hit is not None:
            _lru.move_to_end(key)
            return hit[0], hit[1], "lru"
    snap = load_snapshot(home, root)
    if snap is not None:
        layer, local, categories = "snapshot", snap["skills"], snap["categories"]
        findings: list[Finding] = list(snap.get("findings") or ())
    else:
        scan = _Scan(root).run()
        save_snapshot(home, scan)
        layer, local, categories, findings = "cold", scan.skills, scan.categories, list(scan.findings)
    external = []
    for directory in external_dirs:
        ext = _Scan(Path(directory).expanduser()).run()
        ext_skills, ext_categories = _unflagged(ext.skills, ext.categories, ext.category_files, findings)
        external.append(ext_skills)
        findings.extend(ext.findings)
        for name, desc in ext_categories.items():
            categories.setdefault(name, desc)
    text = render(_merge(local, external, findings), categories, platform)
    value = (text, tuple(findings))
    with _lru_lock:
        _lru[key] = value
        _lru.move_to_end(key)
        while len(_lru) > LRU_SIZE:
            _lru.popitem(last=False)
    return text, value[1], layer


def skills_section(home: Path, external_dirs: tuple[str, ...], platform: str) -> PromptSection:
    text, findings, layer = build_skills_index(home, external_dirs, platform)
    return PromptSection("skills", text, order=ORDER, source=f"{home / 'skills'} ({layer})", findings=list(findings))
