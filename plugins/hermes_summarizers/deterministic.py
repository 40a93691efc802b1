"""A structured summary built from the turns themselves: no model, no network.

It fills the same ten sections the LLM prompt asks for (seed 2.3, step 4) with what can
be read off the turns mechanically: the goal, the user's asks verbatim, the files touched
and how, the tools called and their outcomes, the errors seen, decisions and next steps
the assistant stated, and identifiers worth keeping. It is the default summarizer when
no auxiliary model is configured and the engine's fallback when the model fails.
Linear in the size of its (already capped) input.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from hermes_core.engine.summarizer import SummaryRequest, SummaryResult
from hermes_core.text.messages import ERROR_LINE_RE

SECTIONS = (
    "Goal",
    "Constraints & Preferences",
    "Progress (Done / In Progress / Blocked)",
    "Key Decisions",
    "Resolved Questions",
    "Pending User Asks",
    "Relevant Files",
    "Remaining Work",
    "Critical Context",
    "Tools & Patterns",
)

_PATH_KEYS = ("file_path", "path", "filename", "file", "target_file", "notebook_path", "file_name",
              "dir", "directory", "workdir", "cwd")
_COMMAND_KEYS = ("command", "cmd", "code", "input", "query", "pattern", "url")
_WRITE_HINTS = ("edit", "write", "replace", "patch", "create", "insert", "str_replace", "apply")
_READ_HINTS = ("read", "open", "view", "cat", "glob", "grep", "find", "search")

_PATH_RE = re.compile(
    r"(?<![\w/.-])(?:~|\.{1,2})?(?:/[\w.@+-]+)+/?(?=[\s'\"`),:;]|$)"  # /abs/or/rel paths
    r"|(?<![\w/.-])[\w.-]+(?:/[\w.@+-]+)+\.[A-Za-z0-9]{1,8}(?![\w/])"  # dir/file.ext
    r"|(?<![\w/.-])[\w-]+\.(?:py|rs|go|js|ts|tsx|jsx|ex|exs|rb|java|kt|c|h|cpp|md|json|yaml|yml|toml|sh|sql|html|css)(?![\w/])"
)
_BACKTICK_RE = re.compile(r"`([^`\n]{2,80})`")
_DOTTED_NAME_RE = re.compile(r"\b[A-Z][A-Za-z0-9]+(?:\.[A-Z][A-Za-z0-9]+)+\b")  # Module.Names
_SHA_RE = re.compile(r"\b[0-9a-f]{7,40}\b")
_CONSTRAINT_RE = re.compile(r"\b(must|never|always|don't|do not|dont|should|prefer|make sure|only|avoid|without)\b",
                            re.IGNORECASE)
_DECISION_RE = re.compile(
    r"\b(decided|decide to|instead of|instead,|chose|choose to|rather than|approach is|plan is|switch(?:ed)? to"
    r"|because|so that|the fix is|root cause)\b",
    re.IGNORECASE)
_NEXT_RE = re.compile(r"^\s*(?:[-*]\s*\[ \]|todo\b|next step|next,|remaining|still need|left to do)", re.IGNORECASE)
_SENTENCE_RE = re.compile(r"[^.!?\n]+[.!?]?")

Message = dict[str, Any]
_NO_GOAL = "Not stated in the compacted turns; the user's request is kept verbatim in the conversation."
_PLACEHOLDERS = {"None.", _NO_GOAL}


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _uniq(items: Iterable[str], limit: int, newest: bool = True) -> list[str]:
    """Distinct items, at most ``limit``, keeping the newest (last seen) when ``newest``."""
    seen: dict[str, None] = {}
    for item in items:
        seen.pop(item, None)
        seen[item] = None
    out = list(seen)
    return out[-limit:] if newest else out[:limit]


def _args(call: dict[str, Any]) -> tuple[str, dict[str, Any], str]:
    fn = call.get("function")
    if not isinstance(fn, dict):
        fn = {}
    raw = fn.get("arguments")
    text = raw if isinstance(raw, str) else json.dumps(raw, default=str)
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        parsed = {}
    return str(fn.get("name") or "tool"), parsed if isinstance(parsed, dict) else {}, text


def _key_arg(args: dict[str, Any], raw: str) -> str:
    for key in (*_PATH_KEYS, *_COMMAND_KEYS):
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return _clip(value, 120)
    return _clip(raw, 80) if raw not in ("{}", "") else ""


class _Digest:
    """One pass over the turns, collecting what each section needs."""

    def __init__(self, turns: list[Message]) -> None:
        self.user_asks: list[str] = []
        self.constraints: list[str] = []
        self.decisions: list[str] = []
        self.next_steps: list[str] = []
        self.resolved: list[str] = []
        self.actions: list[str] = []
        self.errors: list[str] = []
        self.files: dict[str, set[str]] = {}
        self.identifiers: list[str] = []
        self.commands: list[str] = []
        self.tools: Counter[str] = Counter()
        self.last_assistant = ""
        self.notes: list[str] = []
        calls: dict[str, tuple[str, str]] = {}
        pending_question = ""
        for msg in turns:
            role = msg.get("role")
            content = msg.get("content")
            text = content if isinstance(content, str) else ""
            if role == "user":
                if text.strip():
                    self.user_asks.append(text.strip())
                    self._scan_prose(text, self.constraints, _CONSTRAINT_RE)
                    pending_question = text.strip() if text.rstrip().endswith("?") else ""
            elif role == "assistant":
                if text.strip():
                    self.last_assistant = text.strip()
                    self._scan_prose(text, self.decisions, _DECISION_RE)
                    self.next_steps.extend(_clip(ln, 200) for ln in text.splitlines() if _NEXT_RE.match(ln))
                    if pending_question:
                        self.resolved.append(f"{_clip(pending_question, 200)} — {_clip(text, 240)}")
                        pending_question = ""
                for call in msg.get("tool_calls") or ():
                    if isinstance(call, dict):
                        self._call(call, calls)
            elif role == "tool":
                self._result(str(msg.get("tool_call_id")), text, calls)
            elif role == "system" and text.startswith("["):
                self.notes.append(text)
            if role in ("user", "assistant") and text:
                self.identifiers.extend(m.group(1).strip() for m in _BACKTICK_RE.finditer(text))
                self.identifiers.extend(_DOTTED_NAME_RE.findall(text))
                self._paths(text, "mentioned")

    def _scan_prose(self, text: str, into: list[str], cue: re.Pattern[str]) -> None:
        for m in _SENTENCE_RE.finditer(text):
            sentence = m.group(0).strip()
            if 12 <= len(sentence) and not sentence.endswith(":") and cue.search(sentence):
                into.append(_clip(sentence, 200))

    def _call(self, call: dict[str, Any], calls: dict[str, tuple[str, str]]) -> None:
        name, args, raw = _args(call)
        self.tools[name] += 1
        target = _key_arg(args, raw)
        calls[str(call.get("id"))] = (name, target)
        lname = name.lower()
        kind = "used"
        if any(h in lname for h in _WRITE_HINTS):
            kind = "edited"
        elif any(h in lname for h in _READ_HINTS):
            kind = "read"
        for key in _PATH_KEYS:
            value = args.get(key)
            if isinstance(value, str) and value.strip() and len(value) < 300:
                self.files.setdefault(value.strip(), set()).add(kind)
        command = next((args[k] for k in ("command", "cmd") if isinstance(args.get(k), str)), None)
        if command:
            self.commands.append(_clip(command, 160))
            self._paths(command, "used")

    def _result(self, call_id: str, text: str, calls: dict[str, tuple[str, str]]) -> None:
        name, target = calls.get(call_id, ("tool", ""))
        _, marker, described = text.partition("; error: ")  # an engine's one-line description
        head = described if marker else text[:2000]
        error_line = " | ".join([ln.strip() for ln in head.splitlines() if ERROR_LINE_RE.search(ln)][:2])
        if error_line:
            self.errors.append(f"{name} {_clip(target, 80)}: {_clip(error_line, 200)}".strip())
        self.actions.append(f"{name} {target} — {'failed' if error_line else 'ok'}".strip())

    def _paths(self, text: str, kind: str) -> None:
        for m in _PATH_RE.finditer(text[:20_000]):
            path = m.group(0).rstrip("/.,:")
            if path.startswith(("/dev/", "/proc/", "/tmp/", "//")) or (path.count("/") < 2 and "." not in path):
                continue
            if "://" not in text[max(0, m.start() - 3): m.start() + 1]:
                self.files.setdefault(path, set()).add(kind)


def _parse_previous(summary: str) -> tuple[dict[str, list[str]], str]:
    """Lines of a previous summary by section heading, plus any unrecognised text."""
    sections: dict[str, list[str]] = {}
    loose: list[str] = []
    current: list[str] | None = None
    for line in summary.splitlines():
        if line.startswith("## "):
            title = line[3:].strip()
            current = sections.setdefault(title, []) if title in SECTIONS else None
            if current is None:
                loose.append(line)
            continue
        text = line.strip().removeprefix("- ")
        if text and text not in _PLACEHOLDERS:
            (current if current is not None else loose).append(text)
    return sections, "\n".join(loose)


def build_summary(request: SummaryRequest, note: str = "") -> str:
    """The ten-section summary of ``request.turns`` within ``request.budget_tokens``."""
    d = _Digest(request.turns)
    prev, loose = _parse_previous(request.previous_summary or "")
    out: dict[str, list[str]] = {name: list(prev.get(name, ())) for name in SECTIONS}

    if not out["Goal"]:
        out["Goal"] = [_clip(d.user_asks[0], 600)] if d.user_asks else [_NO_GOAL]
    out["Constraints & Preferences"] += _uniq(d.constraints, 8)
    progress = [f"Done: {a}" for a in _uniq(d.actions, 15)]
    hidden = len(d.actions) - min(len(d.actions), 15)
    if hidden > 0:
        progress.insert(0, f"Done earlier: {hidden} more tool calls (see Tools & Patterns).")
    if d.last_assistant:
        progress.append(f"In progress (last assistant message): {_clip(d.last_assistant, 400)}")
    progress += [f"Blocked/error: {e}" for e in _uniq(d.errors, 6)]
    if d.last_assistant:  # the earlier in-progress state is history now
        out["Progress (Done / In Progress / Blocked)"] = [
            ln for ln in out["Progress (Done / In Progress / Blocked)"] if not ln.startswith("In progress")]
    out["Progress (Done / In Progress / Blocked)"] += progress
    out["Key Decisions"] += _uniq(d.decisions, 6)
    out["Resolved Questions"] += _uniq(d.resolved, 5)
    if d.user_asks:
        earlier = [f"Earlier ask: {_clip(a, 300)}" for a in d.user_asks[-4:-1]]
        last = d.user_asks[-1]
        last = last if len(last) <= 2000 else last[:2000] + "...[truncated]"
        out["Pending User Asks"] += [*earlier, f"Last user request in the compacted turns (verbatim): {last}"]
    files = [f"{path} ({', '.join(sorted(kinds))})" for path, kinds in d.files.items()]
    out["Relevant Files"] += _uniq(files, 60)
    out["Remaining Work"] += _uniq(d.next_steps, 8)
    # Oldest-first, so that trimming to the budget drops the least needed lines first.
    critical: list[str] = []
    shas = _uniq((m.group(0) for t in request.turns for m in _SHA_RE.finditer(str(t.get("content") or "")[:4000])
                  if any(c.isalpha() for c in m.group(0)) and any(c.isdigit() for c in m.group(0))), 10)
    if shas:
        critical.append(f"Hashes/ids seen: {', '.join(shas)}")
    if loose.strip():
        critical.append(f"From the earlier summary: {_clip(loose, 1500)}")
    idents = _uniq(d.identifiers, 80)
    critical += [f"Identifiers: {', '.join(idents[k:k + 10])}" for k in range(0, len(idents), 10)]
    if request.extra_context.strip():
        critical.append(f"Memory providers asked to keep: {_clip(request.extra_context, 2000)}")
    critical += d.notes
    if note:
        critical.append(note)
    if request.focus_topic:  # last, so trimming to the budget drops other lines first
        critical += _focus_lines(request)
    out["Critical Context"] += critical
    tools = ", ".join(f"{name} x{n}" for name, n in d.tools.most_common(12))
    out["Tools & Patterns"] += ([f"Tool calls: {tools}"] if tools else []) + [
        f"Ran: {c}" for c in _uniq(d.commands, 8)]
    return _render(out, request.budget_tokens * 4)


FOCUS_SHARE = 0.65  # of the summary budget, for lines about the focus topic (seed 4.4: 60-70 %)


def _focus_lines(request: SummaryRequest) -> list[str]:
    """Lines of every turn (tool output included) that mention the focus topic, newest kept
    first within ``FOCUS_SHARE`` of the budget, each its own line in the summary."""
    words = {w.lower() for w in re.findall(r"[\w.-]{3,}", request.focus_topic or "")}
    hits = []
    for turn in request.turns:
        content = turn.get("content")
        for line in (content if isinstance(content, str) else "").splitlines():
            low = line.lower()
            if line.strip() and any(w in low for w in words):
                hits.append(_clip(line, 240))
    budget = int(request.budget_tokens * 4 * FOCUS_SHARE)
    kept, used = [], 0
    for line in reversed(_uniq(hits, 400)):
        if used + len(line) + 20 > budget:
            break
        kept.append(line)
        used += len(line) + 20
    head = f"Focus '{request.focus_topic}': "
    if not kept:
        return [head + "no line of the compacted turns mentions it."]
    return [head + f"{len(kept)} of {len(set(hits))} matching lines kept, oldest first:",
            *(f"Focus: {line}" for line in reversed(kept))]


# When the summary is over budget, the oldest lines go first, in this order of sections,
# each down to its floor; what a continuing assistant cannot re-derive goes last.
_TRIM_ORDER = (
    ("Tools & Patterns", 1), ("Progress (Done / In Progress / Blocked)", 4), ("Key Decisions", 2),
    ("Resolved Questions", 1), ("Remaining Work", 2), ("Constraints & Preferences", 2),
    ("Critical Context", 3), ("Relevant Files", 8), ("Pending User Asks", 1),
    ("Progress (Done / In Progress / Blocked)", 0), ("Relevant Files", 0), ("Critical Context", 0),
)


def _render(sections: dict[str, list[str]], max_chars: int) -> str:
    """Render the sections, dropping lines in ``_TRIM_ORDER`` until the text fits."""
    lines = {k: [ln.removeprefix("- ") for ln in v] for k, v in sections.items()}

    def text() -> str:
        return "\n\n".join(
            f"## {name}\n" + ("\n".join(f"- {ln}" for ln in lines[name]) or "- None.") for name in SECTIONS)

    size = len(text())
    for name, floor in _TRIM_ORDER:
        while size > max_chars and len(lines[name]) > floor:
            size -= len(lines[name].pop(0)) + 3  # "- " and the newline
    rendered = text()
    if len(rendered) > max_chars:
        rendered = rendered[:max_chars] + "\n...[summary truncated to its budget]"
    return rendered


class DeterministicSummarizer:
    """The no-network summarizer: ``summarize(SummaryRequest) -> SummaryResult``.

    ``note`` is added to Critical Context (the engine uses it to say why the fallback ran).
    """

    name = "deterministic"

    def __init__(self, note: str = "") -> None:
        self.note = note

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        return SummaryResult(text=build_summary(request, request.note or self.note), source="deterministic")
