"""What the canvas scenarios (slides, excalidraw, drawio) add to the agent (harness/agent.py):
what the open document is, and an input made without reading it."""

from __future__ import annotations

from harness import contract
from harness.agent import short
from harness.tools.slides import registered_enum
from harness.targets import Document


def assert_is_open_document(read: dict, document: Document) -> None:
    """The read's `document` is the one the page opened: the profile's id and name."""
    assert isinstance(read.get("document"), dict), f"the read's result names no document: {short(read)}"
    opened = {"id": document.id, "name": document.name}
    named = {key: read["document"].get(key) for key in opened}
    assert named == opened, f"the read names the document {read['document']}, the page opened {opened}"


def schema_valid_input(client, op: contract.Operation) -> dict:
    """An input that `op`'s schema accepts, made without reading the document (there may be none
    open, or none loaded yet): the contract's example, with the theme from the registered enum."""
    if op.name == "slides_set_theme":
        themes = registered_enum(client, op.name, "theme")
        assert themes, "slides_set_theme registered no theme enum"
        return {"theme": themes[0]}
    return dict(op.example)
