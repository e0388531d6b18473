"""Target profiles: the built-in ones load, a malformed one gives one clear error."""

import re

import pytest

from harness.targets import TargetError, check_reachable, load_profile


@pytest.mark.parametrize("name", ["reference", "localhost", "production"])
def test_builtin_profiles_load(name):
    target = load_profile(name)
    assert target.tools and set(target.ai_tools) <= set(target.tools)


def test_base_url_overrides_the_profile():
    target = load_profile("localhost", base_url="http://127.0.0.1:4321")
    assert target.page_url("slides").startswith("http://127.0.0.1:4321/")
    assert target.widget_origin == "http://127.0.0.1:4321"


@pytest.mark.parametrize("text, message", [
    ("name = [", "not valid TOML"),
    ('name = "x"\nbase_url = "http://x"\n', "needs a [tools.<tool>]"),
    ('base_url = "http://x"\n[tools.paint]\npage = "/p"\n', "unknown tool 'paint'"),
    ('base_url = "http://x"\n[tools.slides]\npath = "/p"\n', "needs page"),
])
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
