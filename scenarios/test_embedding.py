"""Embedded pages never register, even where the browser would let them (Design Doc
操作を公開するページ; ADR-0045 Decision 3). Both frames below would be allowed to register — a
same-origin frame, and a cross-origin frame with allow="tools" — so non-registration is the
page's own decision (window.self !== window.top)."""

from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from harness import contract, limits
from harness.checks import check, picture
from harness.clients import InPageClient
from harness.pages import (
    SWITCH_LABEL,
    PermissionStorage,
    agent_cluster_header,
    ai_scripts,
    new_tool_page,
    scripts_loaded,
)

SAME_ORIGIN_HOST = "/__harness__/embed-host.html"


def frame_urls(target, fixture_server, tool):
    tool_url = target.page_url(tool)
    host_page = fixture_server.root / "embed-host" / "index.html"
    return {
        "same-origin": (target.url(SAME_ORIGIN_HOST) + f"?allow=tools&src={quote(tool_url, safe='')}", host_page),
        "cross-origin": (f"{fixture_server.other_origin}/embed-host/?allow=tools&src={quote(tool_url, safe='')}", None),
    }


@pytest.mark.rules("embedding.no-registration", "embedding.no-header")
@pytest.mark.parametrize("embedding", ["same-origin", "cross-origin"])
def test_embedded_page_with_stored_on_registers_nothing(
    open_tool, scripts_when_off, context, target, fixture_server, tool, embedding
):
    top, scripts = ai_scripts(
        open_tool, tool, lambda on: InPageClient(on).wait_for_tools(contract.names_of(tool)), scripts_when_off(tool)
    )

    url, host_file = frame_urls(target, fixture_server, tool)[embedding]
    # A tab that follows its requests, its frame's too, so it can wait until they are quiet.
    host = new_tool_page(context, target, tool, url)
    if host_file is not None:
        # A page on the target's own origin that the harness makes: the target needs no help. It
        # asks for the agent cluster the tool page asks for, which its frame then gets.
        headers = agent_cluster_header(host.page, target.page_url(tool))
        host.page.route(
            lambda u: u.startswith(target.url(SAME_ORIGIN_HOST)),
            lambda route: route.fulfill(path=host_file, content_type="text/html", headers=headers),
        )
    host.goto(url)
    frame_element = host.page.locator("iframe")
    frame = frame_element.content_frame
    # The tool page is up in its frame (a busy machine takes its time), then whatever it would
    # load has loaded: HTTP quiet, not networkidle (a WebSocket never lets that come).
    expect(frame.locator("main")).to_be_attached(timeout=limits.TOOL_READY * 1000)
    host.settle()
    frame_handle = frame_element.element_handle().content_frame()
    if not PermissionStorage(frame_handle, tool).says_on():
        # Firefox partitions a cross-origin frame's storage by its top page: the stored ON is not there.
        pytest.skip(f"the {embedding} frame does not see the stored ON (the browser partitions its storage)")
    with check("embedding.no-header"):
        expect(frame.get_by_role("banner")).to_have_count(0)
        expect(frame.get_by_role("switch", name=SWITCH_LABEL)).to_have_count(0)
        picture("embedding.no-header", frame_element, what=embedding)
    registered = frame_handle.evaluate(
        "async () => document.modelContext ? (await document.modelContext.getTools()).filter((t) => !t.window || t.window === window).map((t) => t.name) : []"
    )
    loaded = scripts_loaded(frame_handle)
    with check("embedding.no-registration"):
        assert registered == [], f"the {embedding} embedded page registered {registered}"
        assert not loaded & scripts, f"the embedded page loaded the AI operations' scripts: {sorted(loaded & scripts)}"
        assert top.storage.read() is not None, "the embedded page changed the stored state"
