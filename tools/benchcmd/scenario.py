"""bench run: scenario files, protocol lines with the replies expected, PASS/FAIL per line."""
import argparse
import json
import os

from common.link import DEFAULT_CODE, NoReply


class ScenarioError(Exception):
    """A scenario file that is not well formed: "FILE:LINE: why"."""


def parse_scenario(path):
    """-> [(line number, protocol line, expected dict or None)]."""
    steps = []
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            text = raw.strip()
            if not text or text.startswith("#"):
                continue
            if text.startswith("=>"):
                if not steps or steps[-1][2] is not None:
                    raise ScenarioError("%s:%d: an expectation must follow a protocol line"
                                        % (path, n))
                try:
                    want = json.loads(text[2:])
                except ValueError as e:
                    raise ScenarioError("%s:%d: the expectation is not JSON: %s" % (path, n, e))
                if not isinstance(want, dict):
                    raise ScenarioError("%s:%d: the expectation must be a JSON object" % (path, n))
                steps[-1] = (steps[-1][0], steps[-1][1], want)
            else:
                steps.append((n, text, None))
    return steps


def same(want, got):
    if isinstance(want, bool) or isinstance(got, bool) or want is None or got is None:
        return want is got
    if isinstance(want, str):
        return isinstance(got, str) and glob(want, got)
    if isinstance(want, (int, float)):
        return isinstance(got, (int, float)) and want == got
    if isinstance(want, dict):
        return isinstance(got, dict) and not differences(want, got)
    if isinstance(want, list):
        return (isinstance(got, list) and len(want) == len(got)
                and all(same(w, g) for w, g in zip(want, got)))
    return want == got


def glob(pattern, text):
    """* in pattern stands for any text; nothing else is special."""
    parts = pattern.split("*")
    if len(parts) == 1:
        return pattern == text
    if not text.startswith(parts[0]) or not text.endswith(parts[-1]):
        return False
    at = len(parts[0])
    stop = len(text) - len(parts[-1])
    for p in parts[1:-1]:
        i = text.find(p, at, stop)
        if i < 0:
            return False
        at = i + len(p)
    return at <= stop


def differences(want, got):
    """What in the reply `got` does not match the expectation `want` (a list of texts)."""
    out = []
    for k, v in want.items():
        if k not in got:
            out.append("no %s in the reply" % json.dumps(k))
        elif not same(v, got[k]):
            out.append("%s is %s, expected %s" % (k, json.dumps(got[k]), json.dumps(v)))
    return out


def run_scenario(link, path):
    """-> (passed, failed, skipped)."""
    name = os.path.relpath(path)
    steps = parse_scenario(path)
    passed = failed = skipped = 0
    for i, (n, text, want) in enumerate(steps):
        where = "%s:%d" % (name, n)
        if text.startswith("!") and not link.sim:
            print("SKIP  %s  %s  (simulator only)" % (where, text))
            skipped += 1
            continue
        if text == "unlock " + DEFAULT_CODE and link.code:
            text = "unlock " + link.code   # the device's code in place of the default
        try:
            got = link.request(text)
        except NoReply as e:
            print("FAIL  %s  %s\n      %s; the %d line(s) after it not run"
                  % (where, text, e, len(steps) - i - 1))
            return passed, failed + 1, skipped
        if want is None:
            why = ["an error: %s" % got["error"]] if "error" in got else []
        else:
            why = differences(want, got)
        if why:
            failed += 1
            print("FAIL  %s  %s\n      %s\n      reply: %s" % (where, text, "; ".join(why),
                                                             json.dumps(got)))
        else:
            passed += 1
            print("PASS  %s  %s" % (where, text))
    return passed, failed, skipped


def arguments(p):
    p.add_argument("scenario", nargs="+", type=scenario_file,
                   help="scenario files: protocol lines, each optionally followed by => and "
                        "the reply expected")


def scenario_file(path):
    """An argument type: every file readable and well formed before anything is sent."""
    try:
        parse_scenario(path)
    except OSError as e:
        raise argparse.ArgumentTypeError("cannot read %s: %s" % (path, e.strerror or e))
    except ScenarioError as e:
        raise argparse.ArgumentTypeError(str(e))
    return path


def run(link, args):
    total = [0, 0, 0]
    for i, path in enumerate(args.scenario):
        if i:
            link.restart()
        p, f, s = run_scenario(link, path)
        print("%s: %d passed, %d failed%s\n" % (os.path.relpath(path), p, f,
                                                ", %d skipped" % s if s else ""))
        total = [total[0] + p, total[1] + f, total[2] + s]
    verdict = "PASS" if total[1] == 0 else "FAIL"
    print("%s: %d lines passed, %d failed%s in %d scenario%s" % (
        verdict, total[0], total[1], ", %d skipped" % total[2] if total[2] else "",
        len(args.scenario), "" if len(args.scenario) == 1 else "s"))
    return 0 if total[1] == 0 else 1
