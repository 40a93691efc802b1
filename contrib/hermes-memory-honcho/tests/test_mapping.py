"""Session naming per strategy, Honcho-safe ids, message splitting and clipping."""

from __future__ import annotations

from pathlib import Path

from hermes_memory_honcho.mapping import CONTINUED, clip, safe_id, session_name, split_message


def test_safe_id_keeps_clean_ids_and_disambiguates_sanitised_ones() -> None:
    assert safe_id("abc-DEF_1") == "abc-DEF_1"
    assert safe_id("a/b") != safe_id("a_b")
    assert safe_id("a/b").startswith("a_b-")
    long = safe_id("x" * 300)
    assert len(long) <= 100 and long != safe_id("x" * 301)
    assert safe_id("///") .startswith("hermes")


def test_strategies(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    sub = repo / "pkg" / "src"
    sub.mkdir(parents=True)
    other = tmp_path / "elsewhere" / "src"
    other.mkdir(parents=True)
    assert session_name("per-session", "2026-11-30 abc", sub, "ws") == safe_id("2026-11-30 abc")
    assert session_name("global", "s1", sub, "ws") == session_name("global", "s2", other, "ws") == "ws-global"
    assert session_name("per-repo", "s1", sub, "ws") == session_name("per-repo", "s2", repo, "ws")
    assert session_name("per-repo", "s1", sub, "ws").startswith("repo-")
    # two directories with the same basename do not share a session
    assert session_name("per-directory", "s", sub, "ws") != session_name("per-directory", "s", other, "ws")
    assert session_name("per-directory", "s", sub, "ws").startswith("src-")
    # outside a repository per-repo falls back to the directory
    assert session_name("per-repo", "s", other, "ws") == session_name("per-directory", "s", other, "ws")


def test_split_message_is_lossless_and_bounded() -> None:
    text = " ".join(f"word{i}" for i in range(3000))
    chunks = split_message(text, 1000)
    assert len(chunks) > 1 and all(len(c) <= 1000 for c in chunks)
    assert all(c.startswith(CONTINUED) for c in chunks[1:])
    assert chunks[0] + "".join(c[len(CONTINUED):] for c in chunks[1:]) == text
    assert split_message("short", 1000) == ["short"]
    unbroken = "y" * 2500
    assert "".join(c.removeprefix(CONTINUED) for c in split_message(unbroken, 1000)) == unbroken


def test_clip_cuts_at_a_word_and_marks_it() -> None:
    assert clip("short", 100) == "short"
    out = clip("alpha beta gamma delta epsilon", 20)
    assert len(out) <= 20 and out.endswith(" …") and "gam" not in out.replace("gamma", "")
