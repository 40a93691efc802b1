"""Platform hints (seed 3.6): how to format replies, and how to send files, per channel.

Every messaging platform understands the ``MEDIA:`` directive: a line ``MEDIA:/path/to/file``
in a reply is turned by the platform adapter into a native attachment (photo, voice note,
document). The hint says so wherever attachments are possible.
"""

from __future__ import annotations

from typing import Any

from hermes_core.records import PromptSection

ORDER = 200

_MEDIA = (
    "To send a file (image, audio, video, document), put MEDIA:/absolute/path/to/file on its own line; "
    "it is delivered as a native attachment."
)

PLATFORM_HINTS: dict[str, str] = {
    "cli": (
        "You are in a terminal (CLI). Try not to use markdown but simple text renderable inside a terminal. "
        "File paths you mention can be opened by the user directly; MEDIA: lines are shown as paths."
    ),
    "tui": (
        "You are in the Hermes terminal UI. Light markdown (lists, code blocks) renders; avoid tables and "
        "images. MEDIA: lines are shown as clickable paths."
    ),
    "cron": (
        "You are running as a scheduled (cron) job. There is no user present: you cannot ask questions or "
        "wait for confirmation, so act autonomously, make reasonable choices and finish the task. Your final "
        f"message is delivered as the job's report. {_MEDIA}"
    ),
    "telegram": (
        "You are on Telegram. Please do not use markdown as it does not render: write plain text with line "
        f"breaks. You can send media files natively. {_MEDIA}"
    ),
    "discord": (
        "You are on Discord. Markdown renders (bold, lists, code blocks); keep messages under 2000 characters "
        f"or they are split. {_MEDIA}"
    ),
    "slack": (
        "You are on Slack. Use Slack mrkdwn: *bold*, _italic_, `code`, ``` blocks; no headings or tables. "
        f"{_MEDIA}"
    ),
    "whatsapp": (
        "You are on WhatsApp. Use plain text with *bold* and _italic_ only; no headings, tables or links with "
        f"labels. Keep replies short. {_MEDIA}"
    ),
    "signal": f"You are on Signal. Use plain text only, no markdown. Keep replies short. {_MEDIA}",
    "weixin": (
        "You are on Weixin/WeChat. Markdown formatting is supported in moderation (bold, lists); avoid tables "
        f"and long code blocks, and keep paragraphs short for a phone screen. {_MEDIA}"
    ),
    "wecom": f"You are on WeCom (WeChat Work). Use short paragraphs and simple markdown. {_MEDIA}",
    "feishu": f"You are on Feishu/Lark. Simple markdown renders; avoid tables. {_MEDIA}",
    "matrix": f"You are on Matrix. Markdown renders. {_MEDIA}",
    "mattermost": f"You are on Mattermost. Markdown renders, including tables. {_MEDIA}",
    "sms": (
        "You are replying by SMS. Keep responses concise and use plain text only — no markdown, no code "
        "blocks. Stay within 1600 characters (one long SMS). MMS attachments are possible: put "
        "MEDIA:/absolute/path/to/file on its own line."
    ),
    "email": (
        "You are replying by email. Write clear, well-structured responses suitable for email: a short "
        "greeting, paragraphs, plain lists; no markdown tables. To attach a file, put "
        "MEDIA:/absolute/path/to/file on its own line; it is sent as an email attachment."
    ),
    "api_server": (
        "You are serving an API client. Reply in plain markdown; the caller renders it. MEDIA: lines are "
        "returned to the client as attachment references."
    ),
}


def platform_section(platform: str) -> PromptSection:
    """The hint for ``platform``; an unknown platform gets no hint and a reported skip."""
    key = (platform or "cli").strip().lower()
    hint = PLATFORM_HINTS.get(key)
    if hint is None:
        finding: dict[str, Any] = {
            "kind": "skipped", "reason": f"no platform hint for '{key}'",
            "known": sorted(PLATFORM_HINTS),
        }
        return PromptSection("platform", "", order=ORDER, source=key, findings=[finding])
    return PromptSection("platform", hint, order=ORDER, source=key)
