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
   it replaces listing it). Written atomically and fsynced after each full scan; read
   only when it is a regular file (not a link, FIFO or device) of sane size.
3. a full scan. External dirs are always scanned fresh and never enter the snapshot;
   their skills are third-party, so names and descriptions that fail the injection scan
   are left out and reported.
"""

from __future__ import annotations

import bisect
import itertools
import json
import logging
import os
import stat
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from hermes_core.records import PromptSection
from hermes_core.text.files import read_bytes_file, write_durably

from . import front_matter
from .files import not_regular

log = logging.getLogger("hermes_prompt.skills")

ORDER = 300
LRU_SIZE = 8
SNAPSHOT_NAME = ".skills_prompt_snapshot.json"
SNAPSHOT_VERSION = 3
HEAD_BYTES = 8192  # front matter lives at the top; never read whole skill files
MAX_DESCRIPTION = 240
DEFAULT_INDEX_MAX_CHARS = 64_000  # ~16k tokens; 1,000 skills fit with ~30-char descriptions
MIN_DESCRIPTION = 24  # below this a description says nothing: names only
MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024
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
        snap = json.loads(read_bytes_file(home / SNAPSHOT_NAME, max_bytes=MAX_SNAPSHOT_BYTES, follow_symlinks=False))
    except (OSError, ValueError, RecursionError):
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
    data = json.dumps(snap, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            write_durably(fd, data)  # a crash after the rename must not leave an empty snapshot
        finally:
            os.close(fd)
        os.replace(tmp, home / SNAPSHOT_NAME)
    except OSError as exc:
        log.debug("skills snapshot not written: %s", exc)
        tmp.unlink(missing_ok=True)


# -- assembly -------------------------------------------------------------------------------------


def render(skills: list[Skill], categories: dict[str, str], platform: str,
           max_chars: int = DEFAULT_INDEX_MAX_CHARS) -> str:
    """The seed's format: categories, then ``- name: description``, both sorted, within ``max_chars``.

    Over the budget, descriptions are shortened to the longest common cap that fits
    (cut at a word, ending in ``…``), so every skill keeps its name and the start of its
    description; below :data:`MIN_DESCRIPTION` only names are listed, and if even the
    names do not fit, the last ones are left out with a note saying how many.
    """
    by_category: dict[str, list[Skill]] = {}
    for skill in skills:
        if not skill[PLATFORMS] or platform in skill[PLATFORMS]:
            by_category.setdefault(skill[CATEGORY], []).append(skill)
    if not by_category:
        return ""
    cap = _description_cap(by_category, categories, max_chars)
    lines = [HEADER + "<available_skills>"]
    size, omitted = len(lines[0]) + len("\n</available_skills>") + 120, 0
    for category in sorted(by_category):
        desc = _shorten(categories.get(category) or "", cap)
        line = f"  {category}: {desc}" if desc else f"  {category}:"
        for name, description, *_rest in sorted(by_category[category], key=lambda s: s[NAME]):
            description = _shorten(description, cap)
            entry = f"    - {name}: {description}" if description else f"    - {name}"
            if size + len(line) + len(entry) + 2 > max_chars:
                omitted += 1
                continue
            if line:
                lines.append(line)
                size += len(line) + 1
                line = ""
            lines.append(entry)
            size += len(entry) + 1
    if omitted:
        lines.append(f"  [… {omitted} more skill(s) not listed: the index is capped at {max_chars:,} chars "
                     "(skills.index_max_chars)]")
    lines.append("</available_skills>")
    return "\n".join(lines)


def _description_cap(by_category: dict[str, list[Skill]], categories: dict[str, str], max_chars: int) -> int:
    """The largest description length (<= MAX_DESCRIPTION) at which the index fits, or 0."""
    fixed = len(HEADER) + 160
    lengths = []
    for category, members in by_category.items():
        fixed += len(category) + 5
        lengths.append(len(categories.get(category) or ""))
        for skill in members:
            fixed += len(skill[NAME]) + 9
            lengths.append(len(skill[DESCRIPTION]))
    if fixed + sum(lengths) <= max_chars:
        return MAX_DESCRIPTION
    lengths.sort()
    prefix = list(itertools.accumulate(lengths, initial=0))

    def size(cap: int) -> int:  # the descriptions' total at this cap: shorter ones whole, the rest cut
        shorter = bisect.bisect_left(lengths, cap)
        return fixed + prefix[shorter] + cap * (len(lengths) - shorter)

    low, high = 0, MAX_DESCRIPTION  # size grows with the cap: binary search
    while low < high:
        mid = (low + high + 1) // 2
        if size(mid) <= max_chars:
            low = mid
        else:
            high = mid - 1
    return low if low >= MIN_DESCRIPTION else 0


def _shorten(text: str, cap: int) -> str:
    if len(text) <= cap:
        return text
    if cap == 0:
        return ""
    cut = text[: cap - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > cap // 2 else cut).rstrip(" ,;:.-") + "…"


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


def build_skills_index(home: Path, external_dirs: tuple[str, ...] = (), platform: str = "cli",
                       max_chars: int = DEFAULT_INDEX_MAX_CHARS) -> tuple[str, tuple[Finding, ...], str]:
    """``(rendered index, findings, layer)`` where layer is ``lru``, ``snapshot`` or ``cold``."""
    root = home / "skills"
    key = (str(root), external_dirs, platform, max_chars)
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
    text = render(_merge(local, external, findings), categories, platform, max_chars)
    value = (text, tuple(findings))
    with _lru_lock:
        _lru[key] = value
        _lru.move_to_end(key)
        while len(_lru) > LRU_SIZE:
            _lru.popitem(last=False)
    return text, value[1], layer


def skills_section(home: Path, external_dirs: tuple[str, ...], platform: str,
                   max_chars: int = DEFAULT_INDEX_MAX_CHARS) -> PromptSection:
    text, findings, layer = build_skills_index(home, external_dirs, platform, max_chars)
    return PromptSection("skills", text, order=ORDER, source=f"{home / 'skills'} ({layer})", findings=list(findings))
