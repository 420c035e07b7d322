"""The rules the code cites resolve to docs/rules.md: it defines R1-R26 once each and in order,
every rule the code (firmware/, tools/, web/) or a test cites is defined there, and every rule
there is cited by the code or a test (each is in fact cited by a test: the engine's issue)."""
import glob
import os
import re

from conftest import ROOT

HERE = os.path.dirname(os.path.abspath(__file__))
RULES_MD = os.path.join(ROOT, "docs", "rules.md")
RULE = re.compile(r"\bR(\d{1,2})\b")
# a rule's definition: a paragraph that starts "**R12. Yellow.**"
DEFINED = re.compile(r"^\*\*R(\d+)\. [^*\n]+\*\*", re.M)
CODE = ("firmware", "tools", "web")
SUFFIXES = (".py", ".mjs", ".js", ".html", ".css", ".txt")
# part designators, not rules: R1-R5 are the resistors of the bill of materials and schematic
NOT_RULES = (os.path.join("tools", "maker") + os.sep, os.path.join("tools", "schematic.py"))


def defined():
    """The rule numbers docs/rules.md defines, in the order it defines them."""
    with open(RULES_MD, encoding="utf-8") as f:
        return [int(n) for n in DEFINED.findall(f.read())]


def code_citations():
    """rule number -> the files of the code that cite it."""
    cited = {}
    for top in CODE:
        for folder, _, names in os.walk(os.path.join(ROOT, top)):
            for name in names:
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, ROOT)
                if not name.endswith(SUFFIXES) or rel.startswith(NOT_RULES):
                    continue
                with open(path, encoding="utf-8") as f:
                    for n in RULE.findall(f.read()):
                        cited.setdefault(int(n), set()).add(rel)
    return cited


def citations():
    """rule number -> test functions citing it in their name (test_r12_...) or body."""
    cited = {}
    for path in glob.glob(os.path.join(HERE, "test_*.py")):
        text = open(path, encoding="utf-8").read()
        # split into top-level test functions; a citation belongs to the test it sits in
        for m in re.finditer(r"^def (test_\w+)\(.*?(?=^def |^class |\Z)", text, re.S | re.M):
            name, body = m.group(1), m.group(0)
            found = set(int(n) for n in RULE.findall(body))
            found |= set(int(n) for n in re.findall(r"_r(\d{1,2})(?=_|$)", name, re.I))
            for n in found:
                cited.setdefault(n, []).append("%s::%s" % (os.path.basename(path), name))
    return cited


def test_the_rules_page_defines_r1_to_r26_once_each_in_order():
    assert defined() == list(range(1, 27))


def test_every_rule_the_code_cites_is_defined_on_the_rules_page():
    cited = code_citations()
    assert len(cited) >= 20  # the finder reads the code
    unknown = {"R%d" % n: sorted(where) for n, where in cited.items() if n not in defined()}
    assert not unknown, "cited by the code, not in docs/rules.md: %s" % unknown


def test_every_rule_a_test_cites_is_defined_on_the_rules_page():
    own = "test_rules_cited.py::"
    unknown = {"R%d" % n: names for n, names in citations().items()
               if n not in defined() and not all(name.startswith(own) for name in names)}
    assert not unknown, "cited by a test, not in docs/rules.md: %s" % unknown


def test_every_rule_on_the_page_is_cited_by_the_code_or_a_test():
    cited = set(code_citations()) | set(citations())
    missing = [n for n in defined() if n not in cited]
    assert not missing, "rules nothing cites: %s" % ", ".join("R%d" % n for n in missing)


def test_every_rule_is_cited_by_a_test():
    cited = citations()
    missing = [n for n in defined() if n not in cited]
    assert not missing, "rules no test cites: %s" % ", ".join("R%d" % n for n in missing)


def test_the_citation_finder_sees_this_file():
    # R99 is no rule; this shows the finder reads test bodies
    assert "test_rules_cited.py::test_the_citation_finder_sees_this_file" in citations()[99]


def test_the_definition_finder_sees_a_rule_and_not_a_citation():
    text = "**R3. The lead's ranks.** One green...\nas R3 says, **R4** alone is no definition"
    assert [int(n) for n in DEFINED.findall(text)] == [3]
