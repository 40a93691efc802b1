"""``hermes-core replay FILE``: watch the runtime work on a real conversation, offline."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_core.apps.transcripts import TranscriptError
from hermes_core.cli.output import CommandError, emit_json, progress, table

if TYPE_CHECKING:
    from hermes_core.apps.replay import ReplayResult
    from hermes_core.apps.transcripts import Transcript


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("replay", help="replay a transcript through a live session and show the timeline")
    p.add_argument("file", type=Path, help="transcript: OpenAI chat JSON list, {'messages': [...]}, or JSONL")
    p.add_argument("--context-length", type=int, metavar="N", help="pretend the model's window is N tokens")
    p.add_argument("--engine", metavar="NAME", help="context engine to use (default: context.engine)")
    p.add_argument("--json", action="store_true", help="machine-readable result")
    p.add_argument("--plot", type=Path, metavar="FILE.svg", help="draw prompt tokens per request as SVG")
    p.add_argument("--live", action="store_true",
                   help="use $HERMES_HOME itself and its external memory provider: the transcript's memory writes "
                        "and engine state are kept (default: a scratch copy that is thrown away, external memory "
                        "providers off)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from hermes_core.apps.transcripts import load_transcript
    from hermes_core.config.paths import config_path, hermes_home

    if args.context_length is not None and args.context_length <= 0:
        raise CommandError("--context-length must be a positive number of tokens", code=2)
    if args.plot and not args.plot.resolve().parent.is_dir():
        raise CommandError(f"--plot: directory {args.plot.parent} does not exist", code=2)
    if args.plot and args.plot.suffix.lower() != ".svg":
        raise CommandError(f"--plot: {args.plot.name}: only SVG is drawn (no imaging library is a dependency); "
                           f"use a .svg name, then convert it if you need {args.plot.suffix or 'another format'} "
                           "(e.g. rsvg-convert -o plot.png plot.svg)", code=2)
    try:
        transcript = load_transcript(args.file)
    except TranscriptError as exc:
        raise CommandError(str(exc)) from None
    if args.live:
        return replay_and_report(args, transcript)
    if not args.config and config_path().is_file():  # errors name the user's file, not the scratch copy
        args.config = str(config_path())
    with scratch_home(hermes_home()) as scratch:
        return replay_and_report(args, transcript, scratch)


@contextmanager
def scratch_home(home: Path) -> Iterator[Path]:
    """A throw-away ``$HERMES_HOME`` seeded from ``home``: config, identity, memories, skills, plugins.

    Replaying someone's session must not write its memory calls into the user's own store.
    Small files are copied; skills and drop-in plugins (read here) are linked.
    """
    with tempfile.TemporaryDirectory(prefix="hermes-replay-") as tmp:
        scratch = Path(tmp)
        for name in ("config.yaml", "SOUL.md"):
            if (home / name).is_file():
                shutil.copy2(home / name, scratch / name)
        if (home / "memories").is_dir():
            shutil.copytree(home / "memories", scratch / "memories", ignore=_not_plain_files)
        for name in ("skills", "plugins"):
            if (home / name).is_dir():
                (scratch / name).symlink_to(home / name, target_is_directory=True)
        previous = os.environ.get("HERMES_HOME")
        os.environ["HERMES_HOME"] = str(scratch)
        try:
            yield scratch
        finally:
            if previous is None:
                os.environ.pop("HERMES_HOME", None)
            else:
                os.environ["HERMES_HOME"] = previous


def _not_plain_files(directory: str, names: list[str]) -> set[str]:
    """What the scratch copy leaves out: locks, temp files, and anything that is not a regular
    file or a directory (copying a FIFO would hang; a link would be followed out of the home)."""
    import stat

    skipped = set(shutil.ignore_patterns("*.lock", "*.tmp")(directory, names))
    for name in names:
        try:
            mode = os.lstat(os.path.join(directory, name)).st_mode
        except OSError:
            skipped.add(name)
            continue
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            skipped.add(name)
    return skipped


def replay_and_report(args: argparse.Namespace, transcript: Transcript, scratch: Path | None = None) -> int:
    from hermes_core.apps.replay import Replayer
    from hermes_core.cli.common import host_from_args

    turned_off = [] if scratch is None else _external_providers(args)
    host = host_from_args(args, extra_overrides={"memory.provider": ""} if scratch is not None else None)
    try:
        replayer = Replayer(transcript, host, session_id=f"replay-{args.file.stem}")
    except TranscriptError as exc:
        host.close()
        raise CommandError(str(exc)) from None
    interrupted = False
    try:
        for _ in progress(replayer.steps(), replayer.total_requests, label="replay"):
            pass
    except KeyboardInterrupt:
        interrupted = True
        print(file=sys.stderr)
    result = replayer.finish(interrupted=interrupted)
    if args.plot:
        args.plot.write_text(render_svg(result), encoding="utf-8")
    if args.json:
        emit_json({**result.to_dict(), "home": "live" if scratch is None else "scratch",
                   "external_providers_off": turned_off})
    else:
        print_timeline(result)
        if scratch is None:
            print("home: live ($HERMES_HOME); memory writes and engine state from this replay were kept")
        if turned_off:
            print(f"external memory provider(s) {', '.join(turned_off)} turned off for this replay, so the "
                  "transcript is not sent to them (--live uses them)")
        if args.plot:
            print(f"plot written to {args.plot}")
    if interrupted:
        return 130
    return 0 if result.ok else 1


def _external_providers(args: argparse.Namespace) -> list[str]:
    """The external memory providers config.yaml selects (after migrations, as the host would)."""
    from hermes_core.cli.common import config_file
    from hermes_core.config.raw import BUILTIN_PROVIDER, ConfigError, load_raw_config, split_names

    try:
        memory = load_raw_config(config_file(args)).get("memory")
    except (ConfigError, CommandError):
        return []
    names = split_names(memory.get("provider") if isinstance(memory, dict) else None)
    return [n for n in names if n != BUILTIN_PROVIDER]


LEGEND = (
    "Columns: TURN = user turn; USER = its first words; CALLS = requests sent to the model in the turn;",
    "  PEAK TOKENS = the turn's largest request (system prompt + tool schemas + messages, estimated the same",
    "  way in every figure below); MSGS = history length after the turn; COMPACTIONS = compactions before a",
    "  request of the turn; MEM WRITES = writes of hermes-core's memory tool; SYSTEM PROMPT = 'changed' when",
    "  it was rebuilt (after a compaction, the only time it may change).",
    "Words: 'preflight' compaction = ran before sending a request that would not fit; 'post-response' = after",
    "  a reply whose usage passed the threshold. 'API-valid' = the request passes the checks an OpenAI-",
    "  compatible API applies (every tool call answered, no orphan results, roles in order).",
)


def print_timeline(result: ReplayResult) -> None:
    print(f"{result.source}: engine {result.engine}, context {result.context_length:,} tokens, "
          f"compaction threshold {result.threshold_tokens:,}")
    rows = [
        (t.turn, t.user, t.requests, f"{t.prompt_tokens:,}", t.messages, len(t.compactions), len(t.memory_writes),
         "changed" if t.system_prompt_changed else "")
        for t in result.turns
    ]
    table(rows, ("TURN", "USER", "CALLS", "PEAK TOKENS", "MSGS", "COMPACTIONS", "MEM WRITES", "SYSTEM PROMPT"))
    print()
    for line in LEGEND:
        print(line)
    empty = _empty_columns(result)
    events = [
        f"turn {t.turn}, before call {c['before_request']}: {c['trigger']} compaction "
        f"{c['tokens_before']:,} -> {c['tokens_after']:,} tokens, {c['messages_before']} -> {c['messages_after']} "
        f"messages, summary: {c['summary_source']}"
        for t in result.turns for c in t.compactions
    ]
    events += [f"turn {t.turn}: memory {w['action']} ({w['target']})" for t in result.turns for w in t.memory_writes]
    events += [f"turn {t.turn}: delegation reported to providers: {task}"
               for t in result.turns for task in t.delegations]
    events += [f"turn {t.turn}: {note}" for t in result.turns for note in t.invalid_requests + t.notes]
    events += [f"turn {t.turn}: {note}" for t in result.turns for note in t.over_window]
    events += [f"note: {note}" for note in result.notes + empty]  # warnings were logged once already
    if result.engine_status.get("blocked"):
        events.append(f"engine: automatic compaction is blocked: {result.engine_status['blocked']}")
    if events:
        print()
        for line in events:
            print(f"  {line}")
    print()
    valid = "all API-valid" if not result.invalid_requests else f"{result.invalid_requests} NOT API-valid"
    changes = result.system_prompt_changes
    stability = "system prompt unchanged" if not changes else (
        f"system prompt changed {changes}x, each right after a compaction" if not result.unexplained_prompt_changes
        else f"system prompt changed {changes}x, {result.unexplained_prompt_changes}x WITHOUT a compaction"
    )
    status = "interrupted: state saved; " if result.interrupted else ""
    plural = "" if result.compactions == 1 else "s"
    window = f"; {result.over_window_requests} OVER THE WINDOW" if result.over_window_requests else ""
    print(f"{status}{result.requests} requests, {valid}{window}; {result.compactions} compaction{plural}; "
          f"{stability}; {result.duration_s:.2f}s")


def _empty_columns(result: ReplayResult) -> list[str]:
    """Why a column is all zeros, so an empty column reads as information, not a bug."""
    notes = []
    if not any(t.memory_writes for t in result.turns):
        if not result.memory_tool_calls:
            notes.append("MEM WRITES is 0 everywhere: the transcript never calls hermes-core's 'memory' tool "
                         "(its own tools are replayed from the recorded results, not run)")
        else:
            notes.append(f"MEM WRITES is 0 everywhere: the transcript's {result.memory_tool_calls} 'memory' "
                         "call(s) were reads or were refused (see --json)")
    if not result.compactions:
        peak = max((t.prompt_tokens for t in result.turns), default=0)
        notes.append(f"COMPACTIONS is 0 everywhere: the largest request ({peak:,} tokens) stayed under the "
                     f"threshold ({result.threshold_tokens:,}); try --context-length to see compaction")
    return notes


def render_svg(result: ReplayResult, width: int = 820, height: int = 360) -> str:
    """Prompt tokens per request as a line, compactions as red markers, threshold dashed."""
    points = [tokens for turn in result.turns for tokens in turn.request_tokens]
    left, right, top, bottom = 70, 20, 40, 50
    plot_w, plot_h = width - left - right, height - top - bottom
    ticks = nice_ticks(max([*points, result.threshold_tokens, 1]))
    y_max = ticks[-1]
    n = max(len(points), 2)

    def x(i: float) -> float:  # i: 1-based request number
        return left + (i - 1) / (n - 1) * plot_w

    def y(v: float) -> float:
        return top + plot_h - v / y_max * plot_h

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
        f'font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{left}" y="20" font-size="13">{escape(Path(result.source).name)}: prompt tokens per request '
        f'({escape(result.engine)}, context {result.context_length:,})</text>',
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="black"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="black"/>',
    ]
    for value in ticks:
        out.append(f'<text x="{left - 6}" y="{y(value) + 4:.1f}" text-anchor="end">{value:,}</text>')
        out.append(f'<line x1="{left}" y1="{y(value):.1f}" x2="{left + plot_w}" y2="{y(value):.1f}" stroke="#eee"/>')
    out.append(f'<text x="{left + plot_w / 2}" y="{height - 12}" text-anchor="middle">request</text>')
    if result.threshold_tokens:
        ty = y(result.threshold_tokens)
        out.append(f'<line x1="{left}" y1="{ty:.1f}" x2="{left + plot_w}" y2="{ty:.1f}" stroke="#999" '
                   f'stroke-dasharray="4 3"/>')
        out.append(f'<text x="{left + plot_w}" y="{ty - 4:.1f}" text-anchor="end" fill="#666">threshold '
                   f'{result.threshold_tokens:,}</text>')
    first = 1
    for turn in result.turns:  # user turns as ticks on the x axis
        out.append(f'<line x1="{x(first):.1f}" y1="{top + plot_h}" x2="{x(first):.1f}" y2="{top + plot_h + 6}" '
                   f'stroke="black"/><text x="{x(first):.1f}" y="{top + plot_h + 18}" text-anchor="middle">'
                   f'T{turn.turn}</text>')
        first += len(turn.request_tokens)
    if points:
        path = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(points, 1))
        out.append(f'<polyline points="{path}" fill="none" stroke="#1f77b4" stroke-width="1.5"/>')
    for turn in result.turns:
        for c in turn.compactions:
            cx = x(c["before_request"])
            out.append(f'<line x1="{cx:.1f}" y1="{top}" x2="{cx:.1f}" y2="{top + plot_h}" stroke="#d62728" '
                       f'stroke-dasharray="2 2"><title>{escape(c["trigger"])} compaction: '
                       f'{c["tokens_before"]:,} -> {c["tokens_after"]:,} tokens</title></line>')
            out.append(f'<circle cx="{cx:.1f}" cy="{y(c["tokens_after"]):.1f}" r="4" fill="#d62728"/>')
    lx, ly = left + 10, top + 8  # legend, top left inside the plot
    out.append(f'<rect x="{lx - 4}" y="{ly - 10}" width="250" height="50" fill="white" stroke="#ccc"/>')
    out.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 20}" y2="{ly}" stroke="#1f77b4" stroke-width="1.5"/>'
               f'<text x="{lx + 26}" y="{ly + 4}">prompt tokens per request (estimated)</text>')
    out.append(f'<line x1="{lx}" y1="{ly + 14}" x2="{lx + 20}" y2="{ly + 14}" stroke="#999" stroke-dasharray="4 3"/>'
               f'<text x="{lx + 26}" y="{ly + 18}">compaction threshold</text>')
    out.append(f'<circle cx="{lx + 10}" cy="{ly + 28}" r="4" fill="#d62728"/>'
               f'<text x="{lx + 26}" y="{ly + 32}">compaction (tokens after it)</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def nice_ticks(top: float, count: int = 5) -> list[int]:
    """Round y-axis ticks from 0 to at least ``top``: steps of 1, 2, 2.5 or 5 times a power of ten."""
    import math

    raw = max(top, 1) / (count - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    step = max(1, int(step))
    n = math.ceil(top / step)
    if n * step == top:
        n += 1  # keep the highest line off the frame
    return [k * step for k in range(n + 1)]
