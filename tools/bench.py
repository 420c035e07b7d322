"""Bench tests of the device over USB, or of the simulator: scenarios, self-test, randomness, log.

    python tools/bench.py run SCENARIO...      protocol lines with expected replies: PASS/FAIL
    python tools/bench.py selftest [--yes]     LED colours, display pattern, every button
    python tools/bench.py random N             N draws on the device, chi-square against R9
    python tools/bench.py logs [--out DIR]     the action log saved as .jsonl and .csv, its
                                               hash chain verified, then acknowledged
    python tools/bench.py --sim ...            the same against the simulator (node tools/sim)
    python tools/bench.py --port /dev/ttyACM0 ...   a given port (default: found by USB id)
    python tools/bench.py --code RHDS ...      the referee code, for what needs bench mode

Bench mode: what chooses, shows or fakes a card (seed, test draws, test led) and the export's
acknowledgement (log ack) work only after `unlock CODE` on the device's console, CODE being
the referee code as letters R H D S. With --code the tool sends `unlock CODE` before its
work (selftest, random, logs) and `lock` after it; in scenarios, each `unlock RHRH` line
(the default code) is sent with --code's code instead. --sim uses the default code RHRH
unless told. Without a code on a board, `selftest` cannot test the LED, `random` cannot draw
and `logs` saves the log but cannot acknowledge it. Wrong codes count toward the lock's
wait, as on the buttons.

Scenario files: one bench-protocol line per line (press NAME, long NAME, wait MS, show,
seed N, log, test ..., unlock CODE, lock), each optionally followed by its expected reply:
    show
    => {"screen": "active", "deck": [3, 2, 1, 0]}
The expectation is a JSON object; every key in it must be in the reply with the same value
(other keys of the reply are not looked at; objects inside compare the same way, lists
element by element). In a string, * stands for any text: {"error": "unknown command*"},
{"lines": ["Set-up", "*", "*", "*", "*", "*", "*", "*"]}. A line without an
expectation passes unless its reply is an error. `log` is matched on its last reply line.
Lines starting with ! act on the simulator's hardware (!press NAME, !long NAME, !hold NAME,
!release NAME, !advance MS, !led, !screen) and are skipped on a real board. # starts a comment.
With --sim every scenario file starts on a freshly booted simulator (with --flash, on the same
flash, as after a power cut); on a board they run one after another on the device as it is.

Exit status: 0 all passed, 1 something failed, 2 no board / no reply / bad usage.
"""
import sys

from benchcmd import draws, logs, scenario, selftest
from common import cli
from common.link import DEFAULT_CODE, NoReply, connect, unlock
# The bench's library, read by code that checks replies and draws the bench's way (the native
# runtime's scenario replay, the rng's tests) and by the bench's own tests: one import for all
from benchcmd.draws import ALPHA, COLOURS  # noqa: F401
from benchcmd.scenario import differences, glob, parse_scenario, same  # noqa: F401
from common.chi2 import chi2_sf, chi_square  # noqa: F401
from common.link import Link, SerialLink, SimLink, line_seconds  # noqa: F401

# name -> (its module: arguments(parser), run(link, args), maybe refusal(args); its help),
# as mpremote keeps its commands
COMMANDS = {
    "run": (scenario, "run scenario files"),
    "selftest": (selftest, "LED, display and buttons through the test commands"),
    "random": (draws, "chi-square test of N draws on the device"),
    "logs": (logs, "download the action log as .jsonl and .csv, verify its hash chain, "
                   "acknowledge the export"),
}


def parser():
    p = cli.parser("bench", __doc__)
    p.add_argument("--port", help="serial port of the Pico (default: found by its USB id)")
    p.add_argument("--sim", action="store_true", help="test the simulator instead of a board")
    p.add_argument("--seed", type=cli.whole("seed", 0, 999999999),
                   help="--sim: the simulator's random seed (0 to 999999999)")
    p.add_argument("--flash", help="--sim: keep the simulated flash in this folder")
    p.add_argument("--code", type=cli.code_arg,
                   help="the referee code (R H D S, 4 to 8 letters): `unlock CODE` is sent "
                        "first, for what needs bench mode (default with --sim: RHRH)")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (command, text) in COMMANDS.items():
        command.arguments(sub.add_parser(name, help=text))
    return p


def main(argv=None):
    p = parser()
    args = p.parse_args(argv)
    if args.sim and args.port:
        p.error("--sim and --port: choose one")
    if not args.sim and (args.seed is not None or args.flash):
        p.error("--seed and --flash are for --sim")
    command = COMMANDS[args.command][0]
    why = command.refusal(args) if hasattr(command, "refusal") else None
    if why:                                         # before any board or simulator is asked
        sys.stderr.write("bench %s: %s\n" % (args.command, why))
        return 2
    link = connect(args)
    if link is None:
        return 2
    link.code = args.code or (DEFAULT_CODE if args.sim else None)
    bench_mode = link.code and args.command != "run"   # scenarios say where they unlock
    try:
        if bench_mode:
            why = unlock(link)
            if why:
                sys.stderr.write("bench mode refused: %s\n" % why)
                return 2
        done = command.run(link, args)
        if bench_mode:
            link.request("lock")                    # bench mode ends with the work
        return done
    except NoReply as e:
        sys.stderr.write("%s: is the carddraw app running on the board (not the REPL)?\n" % e)
        return 2
    except KeyboardInterrupt:
        return 130
    finally:
        link.close()


if __name__ == "__main__":
    sys.exit(main())
