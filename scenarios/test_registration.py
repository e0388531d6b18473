"""How the switch loads the polyfill and the relay script, and what happens when it cannot
(Design Doc 許可のスイッチ, 登録から実行まで; ADR-0044 Decision 3 and its open question)."""

import pytest
from playwright.sync_api import expect

from harness import contract
from harness.checks import REGISTRATION_RECEIVER, check, finding, picture
from harness.clients import InPageClient
from harness.pages import START_FAILURE_TITLE, ai_scripts, tone

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
    finding(
        REGISTRATION_RECEIVER,
        "native and polyfill" if set(native["tools"]) >= contract.names_of(tool) else "polyfill only",
    )
    with check("registration.polyfill-always"):
        assert native["wrapped"], "document.modelContext is still the browser's own object: the polyfill was not loaded"


# When the feature wrote its key, and when the browser's own WebMCP took the first registration
# (the polyfill wraps it, where the page has both), on the page's performance clock.
WATCH_THE_ORDER = """(() => {
  const seen = (window.__harnessOrder = { stored: null, registered: null });
  const setItem = Storage.prototype.setItem;
  Storage.prototype.setItem = function (key, value) {
    if (seen.stored === null && String(key).startsWith('fd-ai-operations:')) seen.stored = performance.now();
    return setItem.call(this, key, value);
  };
  const register = globalThis.ModelContext?.prototype.registerTool;
  if (register) {
    ModelContext.prototype.registerTool = function (...args) {
      seen.registered ??= performance.now();
      return register.apply(this, args);
    };
  }
})();"""
# The scripts the page loaded, with when each was asked for and when it had arrived.
SCRIPT_TIMES = """() => performance.getEntriesByType('resource').filter((e) => e.initiatorType === 'script')
  .map((e) => ({ name: e.name, start: e.startTime, end: e.responseEnd }))"""


@pytest.mark.rules("switch.on-order")
def test_turning_on_stores_the_expiry_then_loads_the_scripts_then_registers(
    open_tool, scripts_when_off, tool, browser_config
):
    """オンにすると、localStorage に期限を書き、polyfill と relay のスクリプトを読み込み、操作を登録する(この順)。"""
    off = scripts_when_off(tool)
    tool_page = open_tool(tool, navigate=False)
    tool_page.page.add_init_script(WATCH_THE_ORDER)
    tool_page.goto(tool_page.url)
    tool_page.turn_on()
    wait_for_operations(tool)(tool_page)
    seen = tool_page.page.evaluate("window.__harnessOrder")
    scripts = [entry for entry in tool_page.page.evaluate(SCRIPT_TIMES) if entry["name"] not in off]
    assert scripts, "turning the switch on loaded no script that a page left off does not load"
    with check("switch.on-order", subject="the expiry, then the scripts"):
        assert seen["stored"] is not None, "turning the switch on wrote nothing under fd-ai-operations:"
        first = min(scripts, key=lambda entry: entry["start"])
        assert seen["stored"] <= first["start"], (
            f"{first['name']} was asked for {seen['stored'] - first['start']:.0f} ms before the expiry was written"
        )
    if not browser_config.webmcp_flag:
        return  # without the browser's own WebMCP, nothing can register before the polyfill has loaded
    with check("switch.on-order", subject="the scripts, then the registration"):
        last = max(scripts, key=lambda entry: entry["end"])
        assert seen["registered"] is not None and last["end"] <= seen["registered"], (
            f"an operation was registered {last['end'] - (seen['registered'] or 0):.0f} ms before {last['name']} had loaded"
        )


def expect_turned_back_off(tool_page) -> None:
    """The switch back off with the Notice 「AI からの操作を始められません」 and its reason — an alert
    (isAlert) in the danger tone, under the switch — and no stored ON (a reload would otherwise
    try again)."""
    notice = tool_page.start_failure
    expect(notice).to_be_visible()
    expect(notice).not_to_have_text(START_FAILURE_TITLE)  # a reason follows the title
    expect(tool_page.switch).not_to_be_checked()
    assert tool_page.storage.raw() is None, f"{tool_page.storage.key} was kept: {tool_page.storage.raw()!r}"
    assert tone(notice) == "danger", f"the Notice reads {tone(notice)}, not danger"
    box, switch = notice.bounding_box(), tool_page.switch.bounding_box()
    assert (
        box["y"] >= switch["y"] + switch["height"] - 2
        and box["x"] < switch["x"] + switch["width"]
        and switch["x"] < box["x"] + box["width"]
    ), f"the Notice ({box}) is not under the switch ({switch})"


@pytest.mark.rules("switch.start-failure")
def test_script_that_cannot_load_turns_the_switch_back_off(open_tool, scripts_when_off, tool):
    probe, scripts = ai_scripts(open_tool, tool, wait_for_operations(tool), scripts_when_off(tool))
    probe.turn_off()

    tool_page = open_tool(tool)
    tool_page.page.route(lambda url: url in scripts, lambda route: route.abort())
    tool_page.switch.click()
    with check("switch.start-failure"):
        expect_turned_back_off(tool_page)
        picture("switch.start-failure", tool_page.page.get_by_role("banner"))


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
