"""The spec index: every sentence, list item, table row and code block of the Design Doc and ADR-0044,
each mapped to the rules that state it or to the reason nothing checks it (harness/spec_index.toml).

A unit's id is its source and a hash of its text, so an edited sentence gets a new id: a new version
of the spec shows up as units missing from the index (tests/test_spec_index.py names them) and
entries whose id is gone.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from harness.paths import ROOT

# The copies the index is kept against (spec/README.md), and the user's own folder beside the checkout.
SPEC_DIR = ROOT / "spec"
USER_SPEC_DIR = ROOT.parent / "shared" / "spec"
SOURCES = {"dd": "design-doc-ai-operations.ja.txt", "adr": "adr-0044-webmcp-registration.ja.txt"}
INDEX = Path(__file__).with_name("spec_index.toml")

# Why a unit maps to no rule. "not-yet" is the work list: checkable in a browser, no rule states it yet.
REASONS = {
    "overview": "describes, introduces or gives a reason; prescribes nothing of its own",
    "code-structure": "which module, file, import or type holds what: not observable end to end",
    "other-doc": "decided by another document (ADR-0045, ADR-0037, a tool's Design Doc, packages/ui)",
    "tool-internals": "what the tool does inside an operation, beyond its result: the tool's own concern",
    "needs-real-agent": "about the agent's side (a real AI agent, its SDK's waiting): not observable from the page",
    "deployment": "how the site is built, pinned and served, not how a page behaves",
    "record": "the ADR's record of its decision: context, measurements, options, consequences",
    "not-yet": "checkable end to end, but no rule in harness/rules.py states it yet",
}

BOILERPLATE = {"コンテンツにスキップ"}
BULLET = re.compile(r"^(?:[•-]|\d+[.)])\s+")
CODE_START = re.compile(r"^(?:type \w|sequenceDiagram\b)")  # at column 0: the Design Doc's type and diagram blocks
PIPE_SEPARATOR = re.compile(r"^\|[\s|:-]+\|$")
OPENING, CLOSING = "(「（", ")」）"
INLINE_BULLET = re.compile(r"^-\s+")  # the ADR's text has list items run into the previous line: 「…。 - 次の項目」


@dataclass(frozen=True)
class Unit:
    id: str
    source: str
    section: str
    text: str


@dataclass(frozen=True)
class Entry:
    text: str
    rules: tuple[str, ...] = ()
    unchecked: str | None = None


def spec_text(source: str) -> str:
    path = SPEC_DIR / SOURCES[source]
    if not path.is_file():
        raise FileNotFoundError(f"{path}: spec text not found")
    return path.read_text(encoding="utf-8")


def units(source: str, text: str | None = None) -> list[Unit]:
    """The units of one spec text (`source` is "dd" or "adr"; `text` defaults to the spec file)."""
    seen: Counter[str] = Counter()
    result = []
    for section, unit_text in _Cutter().cut(spec_text(source) if text is None else text):
        digest = f"{source}-{hashlib.sha1(unit_text.encode()).hexdigest()[:8]}"
        seen[digest] += 1
        # The same sentence twice (「…も、同じである。」) gets its occurrence number from the second on.
        unit_id = digest if seen[digest] == 1 else f"{digest}-{seen[digest]}"
        result.append(Unit(unit_id, source, section, unit_text))
    return result


def all_units() -> list[Unit]:
    return [unit for source in SOURCES for unit in units(source)]


class _Cutter:
    """Cuts a text line by line: headings set the section; paragraphs and list items are split into
    sentences at 「。」; a table row or a code block is one unit whatever its 「。」."""

    def __init__(self) -> None:
        self.pieces: list[tuple[str, str]] = []
        self.section = ""
        self.prose: str | None = None  # a paragraph or list item still collecting lines
        self.code: list[str] | None = None
        self.pipe_columns = 0  # columns of the open `| a | b |` table (the ADR's), 0 outside one
        self.pipe_row: str | None = None  # a row of it broken over lines, not yet complete
        self.spaced_table = False  # inside a table of space-separated columns (the Design Doc's)

    def cut(self, text: str) -> list[tuple[str, str]]:
        lines = text.splitlines()
        for index, line in enumerate(lines):
            before = lines[index - 1] if index else ""
            after = lines[index + 1] if index + 1 < len(lines) else ""
            self._line(line, " ".join(line.split()), before.strip(), after)
        self._end_prose()
        self._end_code()
        return self.pieces

    def _line(self, line: str, text: str, before: str, after: str) -> None:
        """`before` is the previous line stripped, `after` the next line as it stands (its indent counts)."""
        if self.code is not None:
            # A list item or a heading ends a code block, and so does a blank line unless the block goes on indented.
            if BULLET.match(text) or text.endswith("¶") or (not text and not after[:1].isspace()):
                self._end_code()
            else:
                if text:
                    self.code.append(text)
                return
        if not text:
            self._end_prose()
            self.spaced_table = False
            return
        if text in BOILERPLATE:
            return
        if text.endswith("¶"):
            self._heading(text[:-1].strip())
        elif CODE_START.match(line):
            self._end_prose()
            self.code = [text]
        elif self._pipe_row(text):
            pass
        elif self.spaced_table and not BULLET.match(text):
            self._emit(text)
        elif not before and "。" not in text and not BULLET.match(text):
            if after.strip() and not BULLET.match(after.strip()):
                self._end_prose()
                self.spaced_table = True  # a header line directly followed by rows
                self._emit(text)
            else:
                self._heading(text)  # a line alone between blank lines
        elif BULLET.match(text):
            self._end_prose()
            self.spaced_table = False
            self.prose = BULLET.sub("", text)
        else:
            # A line without a marker continues the paragraph or list item (the ADR breaks lines mid-sentence).
            self.prose = text if self.prose is None else f"{self.prose} {text}"

    def _pipe_row(self, text: str) -> bool:
        if self.pipe_row is not None:
            row = f"{self.pipe_row} {text}"
        elif text.startswith("|") or (self.pipe_columns and text.endswith("|")):
            self._end_prose()
            if PIPE_SEPARATOR.match(text):
                return True
            row = text
        else:
            self.pipe_columns = 0
            return False
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        if not self.pipe_columns:
            self.pipe_columns = len(cells)  # the header row
        if len(cells) < self.pipe_columns or not row.endswith("|"):
            self.pipe_row = row
            return True
        self.pipe_row = None
        self._emit(" | ".join(cells))
        return True

    def _heading(self, text: str) -> None:
        self._end_prose()
        self.section = text

    def _end_prose(self) -> None:
        if self.prose is not None:
            for sentence in _sentences(self.prose):
                self._emit(INLINE_BULLET.sub("", sentence.strip()))
        self.prose = None

    def _end_code(self) -> None:
        if self.code:
            self._emit(" ".join(self.code))
        self.code = None

    def _emit(self, text: str) -> None:
        if text:
            self.pieces.append((self.section, text))


def _sentences(text: str) -> list[str]:
    """Split after each 「。」 outside brackets: 「全文(detail。…の xml)は、…読める。」 is one sentence."""
    sentences, start, depth = [], 0, 0
    for position, char in enumerate(text):
        depth += (char in OPENING) - (char in CLOSING)
        if char == "。" and depth <= 0:
            sentences.append(text[start : position + 1])
            start = position + 1
    return [*sentences, text[start:]]


def load_index(path: Path = INDEX) -> dict[str, Entry]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return {
        unit_id: Entry(entry.get("text", ""), tuple(entry.get("rules", ())), entry.get("unchecked"))
        for unit_id, entry in data.items()
    }


def toml_entry(unit: Unit) -> str:
    """A unit as the index's entry would start, to paste into spec_index.toml and complete."""
    text = unit.text.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{unit.id}]  # {unit.source}: {unit.section}\ntext = "{text}"'


@dataclass
class SectionCoverage:
    source: str
    section: str
    units: int = 0
    mapped: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    rules: set[str] = field(default_factory=set)
    rules_with_scenario: set[str] = field(default_factory=set)


def coverage(
    by_rule: dict[str, list[str]] | None = None, index: dict[str, Entry] | None = None, spec: list[Unit] | None = None
) -> list[SectionCoverage]:
    """Per (source, section), in the spec's order: its units, how many map to rules, how many each
    reason leaves unchecked, and which of its rules a scenario checks (`by_rule`: rule id → scenarios,
    collected with pytest --collect-only when not given)."""
    if by_rule is None:
        from harness.faults import scenarios_by_rule

        by_rule = scenarios_by_rule([])
    index = load_index() if index is None else index
    sections: dict[tuple[str, str], SectionCoverage] = {}
    for unit in all_units() if spec is None else spec:
        row = sections.setdefault((unit.source, unit.section), SectionCoverage(unit.source, unit.section))
        row.units += 1
        entry = index.get(unit.id)
        if entry is None:
            row.reasons["not indexed"] += 1
        elif entry.rules:
            row.mapped += 1
            row.rules.update(entry.rules)
        else:
            row.reasons[entry.unchecked or "not indexed"] += 1
    for row in sections.values():
        row.rules_with_scenario = {rule_id for rule_id in row.rules if by_rule.get(rule_id)}
    return list(sections.values())


def coverage_lines(rows: list[SectionCoverage], index: dict[str, Entry] | None = None) -> list[str]:
    """`python -m harness rules --coverage`: a line per section, the totals, then the not-yet units."""
    index = load_index() if index is None else index

    def summary(units: int, mapped: int, reasons: Counter[str], rules: set[str], with_scenario: set[str]) -> str:
        rule_part = f" (rules {len(rules)}, {len(with_scenario)} with a scenario)" if rules else ""
        reason_part = ", ".join(f"{reason} {count}" for reason, count in reasons.most_common())
        counts = f"{units} unit{'s' * (units != 1)}, {mapped} mapped{rule_part}"
        return f"{counts}; {reason_part}" if reason_part else counts

    def total(selected: list[SectionCoverage]) -> str:
        return summary(
            sum(row.units for row in selected),
            sum(row.mapped for row in selected),
            sum((row.reasons for row in selected), Counter()),
            set().union(*(row.rules for row in selected)),
            set().union(*(row.rules_with_scenario for row in selected)),
        )

    lines = [
        f"{row.source:<3} {row.section}: "
        + summary(row.units, row.mapped, row.reasons, row.rules, row.rules_with_scenario)
        for row in rows
    ]
    lines.append("totals")
    lines += [f"  {source}: {total([row for row in rows if row.source == source])}" for source in SOURCES]
    lines.append(f"  all: {total(rows)}")
    not_yet = [unit for unit in all_units() if index.get(unit.id, Entry("")).unchecked == "not-yet"]
    lines.append(f"not-yet ({len(not_yet)}): checkable end to end, no rule states them")
    lines += [f"  {unit.id}  [{unit.section}] {unit.text}" for unit in not_yet]
    return lines
