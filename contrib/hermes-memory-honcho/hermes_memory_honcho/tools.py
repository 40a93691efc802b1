"""The model-facing tools: arguments as pydantic models, schemas derived from them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Args(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ProfileArgs(_Args):
    peer: Literal["user", "assistant"] = Field("user", description="whose profile: the user's or your own")


class SearchArgs(_Args):
    query: str = Field(..., min_length=1, max_length=4000, description="what to look for in past conversations")
    limit: int = Field(8, ge=1, le=20, description="how many excerpts to return")


class ContextArgs(_Args):
    query: str = Field("", max_length=2000, description="optional focus for what to recall")


class ConcludeArgs(_Args):
    conclusion: str = Field(..., min_length=1, max_length=4000,
                            description="one durable fact about the user, in a full sentence")


TOOLS: dict[str, tuple[type[_Args], str]] = {
    "honcho_profile": (ProfileArgs, "Read the profile card Honcho keeps about the user (or about you): "
                                    "short curated facts. Cheap; no reasoning on Honcho's side."),
    "honcho_search": (SearchArgs, "Search past conversations across sessions for excerpts matching a query. "
                                  "Returns raw excerpts with who said them and when."),
    "honcho_context": (ContextArgs, "Get Honcho's current view of this conversation: the session summary and "
                                    "what it has learned about the user, optionally focused by a query."),
    "honcho_conclude": (ConcludeArgs, "Record a durable fact about the user in Honcho (a preference, a "
                                      "correction, a personal detail). Not for task progress."),
}


def _strip_titles(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip_titles(v) for k, v in node.items() if k != "title"}
    if isinstance(node, list):
        return [_strip_titles(v) for v in node]
    return node


def tool_schemas() -> list[dict[str, Any]]:
    """OpenAI function objects for the four tools."""
    schemas = []
    for name, (model, description) in TOOLS.items():
        params = _strip_titles(model.model_json_schema())
        params.setdefault("required", [])
        schemas.append({"name": name, "description": description, "parameters": params})
    return schemas
