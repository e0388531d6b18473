"""What the canvas scenarios (slides, excalidraw, drawio) add to the agent (harness/agent.py):
what the open document is."""

from __future__ import annotations

from harness.agent import short
from harness.targets import Document


def assert_is_open_document(read: dict, document: Document) -> None:
    """The read's `document` is the one the page opened: the profile's id and name."""
    assert isinstance(read.get("document"), dict), f"the read's result names no document: {short(read)}"
    opened = {"id": document.id, "name": document.name}
    named = {key: read["document"].get(key) for key in opened}
    assert named == opened, f"the read names the document {read['document']}, the page opened {opened}"
