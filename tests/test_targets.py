"""Target profiles: the built-in ones load, a malformed one gives one clear error, and what a
profile does not say makes the scenarios that need it 未確認 (skipped)."""

import re

import pytest

from harness.targets import HOOKS, Document, TargetError, check_reachable, load_profile


@pytest.mark.parametrize("name", ["reference", "localhost", "production"])
def test_builtin_profiles_load(name):
    target = load_profile(name)
    assert target.tools and set(target.ai_tools) <= set(target.tools)


def test_base_url_overrides_the_profile():
    target = load_profile("localhost", base_url="http://127.0.0.1:4321")
    assert target.page_url("slides").startswith("http://127.0.0.1:4321/")
    assert target.widget_origin == "http://127.0.0.1:4321"


@pytest.mark.parametrize(
    "text, message",
    [
        ("name = [", "not valid TOML"),
        ('name = "x"\nbase_url = "http://x"\n', "needs a [tools.<tool>]"),
        ('base_url = "http://x"\n[tools.paint]\npage = "/p"\n', "unknown tool 'paint'"),
        (
            'base_url = "http://x"\nai_tools = ["python"]\n',
            "ai_tools names unknown tools ['python'] (tools are node, ",
        ),
        ('base_url = "http://x"\nai_tools = "slides"\n', "ai_tools must be a list of tool names"),
        ('base_url = "http://x"\n[tools.slides]\npath = "/p"\n', "needs page"),
        ('base_url = "http://x"\n[tools.slides]\npage = "/p"\ntitle = "t"\n', "title gave way to document"),
        ('base_url = "http://x"\n[tools.slides]\npage = "/p"\ndocument = "deck"\n', "document must be { id"),
        ('base_url = "http://x"\n[tools.slides]\npage = "/p"\ndocument = { name = "n" }\n', "document must be { id"),
        (
            'base_url = "http://x"\n[tools.slides]\npage = "/p"\ndocument = { id = "", name = "n" }\n',
            "non-empty strings",
        ),
        (
            'base_url = "http://x"\n[tools.slides]\npage = "/p"\ndocument = { id = "i", name = "n", title = "t" }\n',
            "document must be { id",
        ),
        (
            'base_url = "http://x"\n[tools.node]\npage = "/n"\ndocument = { id = 3, name = "n" }\n',
            "document must be { name",
        ),
        (
            'base_url = "http://x"\n[tools.slides]\npage = "/p"\nother_document = { id = "i", name = "n" }\n',
            "other_document without other_page",
        ),
        ('base_url = "http://x"\n[tools.slides]\npage = "/p"\nhold_loading = "xhr"\n', "hold_loading must be"),
        ('base_url = "http://x"\n[tools.slides]\npage = "/p"\nhold_loading = 1\n', "hold_loading must be"),
        (
            'base_url = "http://x"\n[tools.slides]\npage = "/p"\nhold_loading = ["fetch", "idb"]\n',
            "hold_loading must be",
        ),
        ('base_url = "http://x"\n[tools.drawio]\npage = "/p"\nview = ""\n', "view must be a Playwright selector"),
        (
            'base_url = "http://x"\n[tools.excalidraw]\npage = "/p"\nview = ["canvas"]\n',
            "view must be a Playwright selector",
        ),
        (
            'base_url = "http://x"\n[tools.excalidraw]\npage = "/p"\ntheme_picker = "select"\n',
            "unknown keys ['theme_picker']",
        ),
        ('base_url = "http://x"\n[tools.node]\npage = "/n"\nview = "main"\n', "unknown keys ['view']"),
    ],
)
def test_malformed_profile_gives_one_clear_error(tmp_path, text, message):
    profile = tmp_path / "mine.toml"
    profile.write_text(text, encoding="utf-8")
    with pytest.raises(TargetError, match=re.escape(message)):
        load_profile(str(profile))


def test_unknown_target_name_lists_the_known_ones():
    with pytest.raises(TargetError, match="reference"):
        load_profile("staging")


def test_unreachable_target_names_the_url():
    target = load_profile("localhost", base_url="http://127.0.0.1:9")
    with pytest.raises(TargetError, match=r"unreachable at http://127\.0\.0\.1:9/"):
        check_reachable(target, timeout=2)


def profile_with(tmp_path, section: str):
    profile = tmp_path / "mine.toml"
    profile.write_text(f'base_url = "http://x"\n[tools.slides]\npage = "/s"\n{section}\n', encoding="utf-8")
    return load_profile(str(profile))


def test_documents_are_the_profiles():
    target = load_profile("reference")
    assert target.document("slides") == Document(id="intro", name="はじめてのスライド")
    assert target.document("drawio", "other_page") == Document(id="empty", name="空の図")
    assert target.document("node") == Document(name="demo-node")  # the embed id


@pytest.mark.parametrize("how", ["fetch", "child-frame", "**/samples/*.md", "http://x/deck.json"])
def test_hold_loading_is_a_kind_or_a_url_glob(tmp_path, how):
    assert profile_with(tmp_path, f'hold_loading = "{how}"').hook("slides", "hold_loading") == how


def test_hold_loading_may_name_several_kinds(tmp_path):
    target = profile_with(tmp_path, 'hold_loading = ["fetch", "indexeddb", "**/deck.json"]')
    assert target.hook("slides", "hold_loading") == ("fetch", "indexeddb", "**/deck.json")


@pytest.mark.parametrize("hook, value", [("view", "main .marpit section"), ("theme_picker", "role=combobox")])
def test_selector_hooks_are_given_as_they_are(tmp_path, hook, value):
    assert profile_with(tmp_path, f'{hook} = "{value}"').hook("slides", hook) == value


def test_reference_gives_every_hook_of_its_canvas_tools():
    target = load_profile("reference")
    for hook, tools in HOOKS.items():
        for tool in tools:
            assert target.hook(tool, hook)


@pytest.mark.parametrize("name", ["localhost", "production"])
def test_real_profiles_leave_out_what_is_not_known(name):
    target = load_profile(name)
    assert all(pages.document is None for pages in target.tools.values())
    assert not any(getattr(target.tools[tool], hook) for hook, tools in HOOKS.items() for tool in tools)


@pytest.mark.parametrize(
    "ask",
    [
        lambda target: target.document("slides"),
        lambda target: target.document("slides", "other_page"),
        lambda target: target.hook("slides", "view"),
        lambda target: target.hook("slides", "hold_loading"),
        lambda target: target.hook("slides", "theme_picker"),
    ],
)
def test_what_the_profile_does_not_say_is_unverified(tmp_path, ask):
    with pytest.raises(pytest.skip.Exception, match=r"^未確認: the profile gives no \w+ for slides$"):
        ask(profile_with(tmp_path, ""))
