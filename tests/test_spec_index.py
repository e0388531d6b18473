"""The spec index accounts for every unit of both spec texts (harness/spec_index.py, harness/spec_index.toml)."""

import pytest

from harness import spec_index
from harness.rules import BY_ID, RULES


@pytest.fixture(scope="module")
def spec() -> dict[str, spec_index.Unit]:
    return {unit.id: unit for unit in spec_index.all_units()}


@pytest.fixture(scope="module")
def index() -> dict[str, spec_index.Entry]:
    return spec_index.load_index()


@pytest.mark.parametrize("name", sorted(spec_index.SOURCES.values()))
def test_the_copies_are_the_users_spec(name):
    user = spec_index.USER_SPEC_DIR / name
    if not user.is_file():
        pytest.skip(f"no user's spec beside this checkout ({spec_index.USER_SPEC_DIR}): the copies in spec/ stand")
    assert (spec_index.SPEC_DIR / name).read_bytes() == user.read_bytes(), (
        f"{user} changed: copy it into spec/, then update harness/spec_index.toml as the tests below say"
    )


def test_every_unit_of_the_spec_is_in_the_index(spec, index):
    missing = [spec_index.toml_entry(unit) for unit_id, unit in spec.items() if unit_id not in index]
    assert not missing, (
        f"{len(missing)} units of the spec are not in {spec_index.INDEX.name}; add each with "
        'rules = [...] or unchecked = "<reason>":\n\n' + "\n\n".join(missing)
    )


def test_no_entry_is_stale(spec, index):
    stale = [f"[{unit_id}] {entry.text}" for unit_id, entry in index.items() if unit_id not in spec]
    assert not stale, "no longer units of the spec (changed or removed there):\n" + "\n".join(stale)


def test_entry_text_is_the_units_text(spec, index):
    differing = [
        f"[{unit_id}]\n  index: {entry.text}\n  spec:  {spec[unit_id].text}"
        for unit_id, entry in index.items()
        if unit_id in spec and entry.text != spec[unit_id].text
    ]
    assert not differing, "\n".join(differing)


def test_every_entry_has_rules_or_a_known_reason(index):
    problems = []
    for unit_id, entry in index.items():
        if bool(entry.rules) == (entry.unchecked is not None):
            problems.append(f"[{unit_id}] needs exactly one of rules (not empty) and unchecked")
        problems += [f"[{unit_id}] unknown rule {rule_id}" for rule_id in entry.rules if rule_id not in BY_ID]
        if entry.unchecked is not None and entry.unchecked not in spec_index.REASONS:
            problems.append(f"[{unit_id}] unknown reason {entry.unchecked!r} (known: {', '.join(spec_index.REASONS)})")
    assert not problems, "\n".join(problems)


def test_every_rule_states_a_unit_of_the_spec(index):
    mapped = {rule_id for entry in index.values() for rule_id in entry.rules}
    unstated = [f"{rule.id}: {rule.text}" for rule in RULES if rule.id not in mapped]
    assert not unstated, "rules no unit of the spec maps to:\n" + "\n".join(unstated)


MADE_UP = """コンテンツにスキップ

見出し

最初の文である。二つ目の文は、括弧(途中。ここまで)を含む。
  • 項目の一つ目。
    • 入れ子の項目で、句点が無い
  - 行を
続ける項目。 - 続けて書かれた項目。

名前 値
a 一つ目。二つ目
b 三つ目

type Example = {
  a: string;

  b: number;
};
表¶
| 列 | 説明 |
|---|---|
| x | 一行の |
| y | 折れた
行 |
同じ文。同じ文。
"""


def test_cutter_on_a_made_up_text():
    units = spec_index.units("dd", MADE_UP)
    assert [(unit.section, unit.text) for unit in units] == [
        ("見出し", "最初の文である。"),
        ("見出し", "二つ目の文は、括弧(途中。ここまで)を含む。"),
        ("見出し", "項目の一つ目。"),
        ("見出し", "入れ子の項目で、句点が無い"),
        ("見出し", "行を 続ける項目。"),
        ("見出し", "続けて書かれた項目。"),
        ("見出し", "名前 値"),
        ("見出し", "a 一つ目。二つ目"),  # a table row is one unit, whatever its 「。」
        ("見出し", "b 三つ目"),
        ("見出し", "type Example = { a: string; b: number; };"),
        ("表", "列 | 説明"),
        ("表", "x | 一行の"),
        ("表", "y | 折れた 行"),
        ("表", "同じ文。"),
        ("表", "同じ文。"),
    ]
    assert all(unit.id.startswith("dd-") for unit in units)
    assert units[-1].id == units[-2].id + "-2"  # the same text twice: one id each, in order


def test_an_edited_sentence_gets_a_new_id():
    (before,) = spec_index.units("adr", "本文である。")
    (after,) = spec_index.units("adr", "本文ではない。")
    assert before.id.startswith("adr-") and before.id != after.id


def test_coverage_counts_units_rules_and_reasons():
    spec = spec_index.units(
        "dd", "スイッチ\n\nデフォルトはオフである。理由がある。まだ無い。索引に無い。\n\n記録\n\n残る。\n"
    )
    index = {
        spec[0].id: spec_index.Entry(spec[0].text, rules=("switch.default-off", "switch.control")),
        spec[1].id: spec_index.Entry(spec[1].text, unchecked="overview"),
        spec[2].id: spec_index.Entry(spec[2].text, unchecked="not-yet"),
        spec[4].id: spec_index.Entry(spec[4].text, rules=("log.order",)),
    }
    switch, log = spec_index.coverage({"switch.default-off": ["scenarios/test_switch.py::test_x"]}, index, spec)
    assert (switch.section, switch.units, switch.mapped) == ("スイッチ", 4, 1)
    assert switch.reasons == {"overview": 1, "not-yet": 1, "not indexed": 1}
    assert switch.rules == {"switch.default-off", "switch.control"}
    assert switch.rules_with_scenario == {"switch.default-off"}
    assert (log.section, log.units, log.mapped, log.rules_with_scenario) == ("記録", 1, 1, set())


def test_coverage_lines_end_with_the_not_yet_units(index):
    unit_id = next(iter(index))
    marked = {**index, unit_id: spec_index.Entry(index[unit_id].text, unchecked="not-yet")}
    rows = spec_index.coverage({}, marked)
    lines = spec_index.coverage_lines(rows, marked)
    assert lines[len(rows)] == "totals"
    assert lines[-2] == "not-yet (1): checkable end to end, no rule states them"
    assert lines[-1].split()[0] == unit_id


def test_no_checkable_unit_waits_for_a_rule(index):
    assert [unit_id for unit_id, entry in index.items() if entry.unchecked == "not-yet"] == []


def test_every_rule_has_a_scenario():
    from harness.faults import scenarios_by_rule

    by_rule = scenarios_by_rule([])
    assert [rule.id for rule in RULES if not by_rule.get(rule.id)] == []
