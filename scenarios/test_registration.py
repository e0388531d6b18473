"""How the switch loads the polyfill and the relay script, and what happens when it cannot
(Design Doc 許可のスイッチ, 登録から実行まで; ADR-0044 Decision 3 and its open question)."""

import pytest
from playwright.sync_api import expect

from harness import contract
from harness.checks import REGISTRATION_RECEIVER, check, finding
from harness.clients import InPageClient
from harness.pages import START_FAILURE_TITLE, ai_scripts

NATIVE_TOOLS = """async () => {
  const getter = Object.getOwnPropertyDescriptor(Document.prototype, 'modelContext')?.get;
  if (!getter) return null;
  const native = getter.call(document);
  return { wrapped: native !== document.modelContext,
           tools: (await native.getTools()).filter((t) => t.window === window).map((t) => t.name) };
}"""


def wait_for_operations(tool):
    return lambda tool_page: InPageClient(tool_page).wait_for_tools(contract.names_of(tool))


@pytest.mark.rules("registration.scripts-when-on")
def test_scripts_load_only_when_the_switch_is_on(open_tool, scripts_when_off, tool):
    tool_page, scripts = ai_scripts(open_tool, tool, wait_for_operations(tool), scripts_when_off(tool))
    with check("registration.scripts-when-on"):
        # Empty when a page left off loads the same scripts as a switched-on one.
        assert scripts, "turning the switch on loaded no script that a page left off does not load"
    tool_page.turn_off()
    tool_page.page.reload()
    expect(tool_page.switch).not_to_be_checked()
    loaded = tool_page.settled_scripts()
    with check("registration.scripts-when-on"):
        assert not loaded & scripts, f"loaded with the switch off: {sorted(loaded & scripts)}"


@pytest.mark.rules("registration.polyfill-always")
def test_polyfill_is_loaded_even_with_native_webmcp(open_tool, tool, browser_config):
    if not browser_config.webmcp_flag:
        pytest.skip("only a browser with native WebMCP can show the polyfill loaded beside it")
    tool_page = open_tool(tool)
    tool_page.turn_on()
    InPageClient(tool_page).wait_for_tools(contract.names_of(tool))
    native = tool_page.page.evaluate(NATIVE_TOOLS)
    # ADR-0044's open question: which implementation received the registration.
    finding(REGISTRATION_RECEIVER,
            "native and polyfill" if set(native["tools"]) >= contract.names_of(tool) else "polyfill only")
    with check("registration.polyfill-always"):
        assert native["wrapped"], "document.modelContext is still the browser's own object: the polyfill was not loaded"


def expect_turned_back_off(tool_page) -> None:
    """The switch back off with the Notice 「AI からの操作を始められません」 and its reason, and no stored ON
    (a reload would otherwise try again)."""
    expect(tool_page.start_failure).to_be_visible()
    expect(tool_page.start_failure).not_to_have_text(START_FAILURE_TITLE)  # a reason follows the title
    expect(tool_page.switch).not_to_be_checked()
    assert tool_page.storage.raw() is None, f"{tool_page.storage.key} was kept: {tool_page.storage.raw()!r}"


@pytest.mark.rules("switch.start-failure")
def test_script_that_cannot_load_turns_the_switch_back_off(open_tool, scripts_when_off, tool):
    probe, scripts = ai_scripts(open_tool, tool, wait_for_operations(tool), scripts_when_off(tool))
    probe.turn_off()

    tool_page = open_tool(tool)
    tool_page.page.route(lambda url: url in scripts, lambda route: route.abort())
    tool_page.switch.click()
    with check("switch.start-failure"):
        expect_turned_back_off(tool_page)


# Another script of the page takes an operation's name first; the browser refuses the second
# registration of a name (WebMCP's InvalidStateError, the polyfill's "already registered").
TAKE_NAME = """(name) => document.modelContext.registerTool({
  name, description: 'registered by another script of the page', inputSchema: { type: 'object', properties: {} },
  execute: () => '{}' })"""


@pytest.mark.rules("switch.start-failure-refused")
def test_refused_registration_turns_the_switch_back_off(tool_page, tool):
    # On and off first: without native WebMCP, document.modelContext exists once the switch has
    # loaded the polyfill.
    client = InPageClient(tool_page)
    tool_page.turn_on()
    client.wait_for_tools(contract.names_of(tool))
    tool_page.turn_off()
    client.wait_for_no_tools()
    taken = contract.reader_of(tool).name
    tool_page.page.evaluate(TAKE_NAME, taken)
    tool_page.switch.click()
    with check("switch.start-failure-refused"):
        expect_turned_back_off(tool_page)
    with check("switch.start-failure-refused", subject="unregistered"):
        client.wait_for_only({taken})  # the other script's registration, none of the tool's


@pytest.mark.rules("switch.start-failure-stored-on")
def test_stored_on_that_cannot_start_turns_the_switch_back_off(open_tool, scripts_when_off, tool):
    # The probe's ON is stored for the origin: a tab opened now starts from it.
    _, scripts = ai_scripts(open_tool, tool, wait_for_operations(tool), scripts_when_off(tool))
    tool_page = open_tool(tool, navigate=False)
    tool_page.page.route(lambda url: url in scripts, lambda route: route.abort())
    tool_page.goto(tool_page.url)
    with check("switch.start-failure-stored-on"):
        expect_turned_back_off(tool_page)
