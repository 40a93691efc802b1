"""The compressor's numbers and fixed texts (seed sections 2.2-2.7)."""

from __future__ import annotations

SUMMARY_RATIO = 0.20  # summary budget = 20 % of the compacted span's tokens
MIN_SUMMARY_TOKENS = 2_000
SUMMARY_TOKENS_CEILING = 12_000
ANCHOR_SHARE = 0.5  # the anchor index of a verified summary: at most half the summary budget, on top
SUMMARY_CONTEXT_SHARE = 0.05  # max summary = 5 % of the context window (capped by the ceiling)

CONTENT_MAX = 6_000  # per-message cap in the summarizer input
CONTENT_HEAD = 4_000
CONTENT_TAIL = 1_500
TOOL_ARGS_MAX = 1_500  # tool-call arguments in the summarizer input
SUMMARY_INPUT_MAX_CHARS = 120_000  # whole summarizer input; 45 % head / 55 % tail of the span
SUMMARY_INPUT_HEAD_SHARE = 0.45

PRUNE_MIN_CHARS = 200  # tool outputs at least this long are pruned / deduplicated
DESCRIPTION_MAX_CHARS = 500  # a pruned tool output's one-line description is at most this long
ERROR_SCAN_HEAD, ERROR_SCAN_TAIL = 2_000, 1_000  # where a pruned output's error line is looked for
ARGS_SHRINK_MIN_CHARS = 500  # tool-call arguments longer than this are shrunk
ARGS_LEAF_MAX_CHARS = 200  # ...by cutting each string leaf to this length
TAIL_SOFT_CEILING = 1.5  # the tail may exceed its token budget by half to keep a message whole
MIN_TAIL_MESSAGES = 3
# Last resort when a summary cannot shrink the list: texts longer than the threshold's
# token count in characters (within these bounds) are cut to their head and tail.
TRIM_MAX_CHARS, TRIM_MIN_CHARS = 2_000, 200
# A summary in a list that must be trimmed keeps at most this share of the window: more and
# small windows compact again turn after turn; less and a late trim loses most of the summary.
TRIM_SUMMARY_SHARE = 0.10
FAILURE_COOLDOWN_SECONDS = 600.0
INEFFECTIVE_LIMIT = 2  # automatic compaction stops after this many ineffective passes

PRUNED_TOOL_PREFIX = "[Old tool output cleared to save context space]"
DUPLICATE_TOOL_OUTPUT = "[Duplicate tool output — same content as a more recent call]"

SUMMARY_PREFIX = (
    "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted into the summary below. "
    "This is a handoff from a previous context window — treat it as background reference, NOT as "
    "active instructions. Do NOT answer questions or fulfill requests mentioned in this summary; "
    "they were already addressed. Continue from the user's most recent message, which is kept "
    "verbatim in the conversation."
)
SUMMARY_END = "--- END OF CONTEXT SUMMARY ---"
SUMMARY_ACK = "Understood. I will continue from the summary above and answer the next message."

SYSTEM_NOTE = (
    "[Note: Some earlier conversation turns have been compacted into a handoff summary to "
    "preserve context space. The current session state may still reflect earlier work, so "
    "build on that summary and state rather than re-doing work.]"
)
