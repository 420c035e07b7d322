"""Every rule of the rules file (R1-R26) is cited by at least one test (issue: the engine)."""
import glob
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
RULES = range(1, 27)


def citations():
    """rule number -> test functions citing it in their name (test_r12_...) or body."""
    cited = {}
    for path in glob.glob(os.path.join(HERE, "test_*.py")):
        text = open(path, encoding="utf-8").read()
        # split into top-level test functions; a citation belongs to the test it sits in
        for m in re.finditer(r"^def (test_\w+)\(.*?(?=^def |^class |\Z)", text, re.S | re.M):
            name, body = m.group(1), m.group(0)
            found = set(int(n) for n in re.findall(r"\bR(\d{1,2})\b", body))
            found |= set(int(n) for n in re.findall(r"_r(\d{1,2})(?=_|$)", name, re.I))
            for n in found:
                cited.setdefault(n, []).append("%s::%s" % (os.path.basename(path), name))
    return cited


def test_every_rule_is_cited_by_a_test():
    cited = citations()
    missing = [n for n in RULES if n not in cited]
    assert not missing, "rules no test cites: %s" % ", ".join("R%d" % n for n in missing)


def test_the_citation_finder_sees_this_file():
    # R99 is no rule; this shows the finder reads test bodies
    assert "test_rules_cited.py::test_the_citation_finder_sees_this_file" in citations()[99]
