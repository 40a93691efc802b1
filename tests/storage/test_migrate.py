"""``hermes-core storage migrate``: files -> postgres -> files gives back every byte, and re-runs are safe."""

from __future__ import annotations

import json
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml
from hermes_context_lcm.engine import LCMEngine
from hermes_context_lcm.query import parse_query
from hermes_context_lcm.settings import LCMSettings
from hermes_context_lcm.store import SQLiteStore

from hermes_core.apps.transcripts import load_transcript
from hermes_core.cli import main
from hermes_core.config.models import HermesConfig
from hermes_core.plugin.context import PluginContext
from hermes_core.testing.engine_conformance import corpus_dir
from hermes_core.testing.postgres import DSN_ENV

CORPUS = corpus_dir(Path(__file__).resolve())
MEMORY = "uses tabs\n§\nprefers UTC\r\n§\n\n§\nreplies in 日本語 ✓\n"  # hand-edited: CRLF and an empty entry
USER = "name is Ada\n§\nrole: SRE\n"


def make_home(root: Path, namespace: str) -> Path:
    home = root / uuid.uuid4().hex[:6]
    home.mkdir()
    (home / "config.yaml").write_text(yaml.safe_dump(
        {"storage": {"backend": "files", "dsn_env": DSN_ENV, "namespace": namespace}}))
    return home


def fill(home: Path) -> None:
    """MEMORY.md / USER.md and an lcm.db holding the whole corpus, with real summaries and layouts."""
    (home / "memories").mkdir()
    (home / "memories" / "MEMORY.md").write_bytes(MEMORY.encode())
    (home / "memories" / "USER.md").write_bytes(USER.encode())
    assert CORPUS is not None
    paths = sorted(CORPUS.glob("*.json"))
    for path in paths[:2]:  # two sessions through the engine: summaries, parents, layouts
        config = HermesConfig.model_validate({"model": {"context_length": 16_000}})
        engine = LCMEngine(PluginContext(home=home, config=config, settings=LCMSettings()))
        engine.on_session_start(path.stem)
        engine.compress(load_transcript(path).messages, current_tokens=10**6)
        engine.close()
    store = SQLiteStore(home / "lcm.db")
    for path in paths[2:]:
        store.append(path.stem, load_transcript(path).messages)
    store.close()


def dump(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    conn = sqlite3.connect(db)
    try:
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in ("messages", "summaries",
                                                                                        "layouts")}
    finally:
        conn.close()


def migrate(home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    monkeypatch.setenv("HERMES_HOME", str(home))
    code = main(["storage", "migrate", *args, "--json"])
    out = capsys.readouterr()
    return code, json.loads(out.out) if code == 0 else out.err


@pytest.mark.skipif(CORPUS is None, reason="transcript corpus not found")
def test_round_trip_on_the_corpus_is_byte_exact_and_rerunnable(tmp_path: Path, namespace: str, pg_dsn: str,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    source, back = make_home(tmp_path, namespace), make_home(tmp_path, namespace)
    fill(source)
    original = dump(source / "lcm.db")
    assert len(original["messages"]) > 1000 and original["summaries"] and original["layouts"]

    code, first = migrate(source, monkeypatch, capsys, "--to", "postgres")
    assert code == 0 and first["lcm"]["verified"] and first["lcm"]["copied"]["messages"] == len(original["messages"])
    assert [m["action"] for m in first["memory"]["targets"]] == ["copied", "copied"]
    code, again = migrate(source, monkeypatch, capsys, "--to", "postgres")  # a re-run copies nothing
    assert code == 0 and again["lcm"]["copied"] == {"messages": 0, "summaries": 0, "layouts": 0}
    assert [m["action"] for m in again["memory"]["targets"]] == ["same", "same"]

    code, out = migrate(back, monkeypatch, capsys, "--to", "files")
    assert code == 0 and out["lcm"]["verified"]
    assert dump(back / "lcm.db") == original  # every column of every row, ids included
    assert (back / "memories" / "MEMORY.md").read_bytes() == MEMORY.encode()
    assert (back / "memories" / "USER.md").read_bytes() == USER.encode()
    code, out = migrate(back, monkeypatch, capsys, "--to", "files")
    assert code == 0 and out["lcm"]["copied"]["messages"] == 0

    # The copy is searchable the way the original is.
    for db in (source, back):
        store = SQLiteStore(db / "lcm.db")
        hits = store.search_messages(parse_query("error"), limit=5)
        store.close()
        assert hits
    assert SQLiteStore(back / "lcm.db").search_messages(parse_query("error"), limit=5) == hits

    # A destination holding different memory is refused, not overwritten.
    (back / "memories" / "USER.md").write_text("name is Bob\n")
    code, err = migrate(back, monkeypatch, capsys, "--to", "files")
    assert code == 1 and "refusing to overwrite" in err and "USER.md" in err
    assert (back / "memories" / "USER.md").read_text() == "name is Bob\n"


def test_migrate_to_a_down_database_is_one_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    home = make_home(tmp_path, "x")
    monkeypatch.setenv(DSN_ENV, "postgresql://postgres:pw@127.0.0.1:1/postgres")
    code, err = migrate(home, monkeypatch, capsys, "--to", "postgres")
    assert code == 1 and "unavailable" in err and ":pw@" not in err and "Traceback" not in err
