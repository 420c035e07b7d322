"""The tools' command lines: a bad argument is refused in one line that names it and what is
allowed, with exit status 2 (argparse's own error prints the whole usage first)."""
import argparse
import sys

# the package's __init__ has run first: firmware/ is on sys.path
from carddraw.settings import LOCK_KEYS, LOCK_MAX, LOCK_MIN


class OneLineParser(argparse.ArgumentParser):
    """Bad input: one line starting with the tool's own name (self.prog), exit status 2.
    Subcommands' parsers are of this class too (argparse makes them with the parent's)."""

    def error(self, message):
        if message.startswith("unrecognized arguments"):
            message += " (%s --help lists the arguments)" % self.prog
        sys.stderr.write("%s: %s\n" % (self.prog, message))
        sys.exit(2)


def parser(prog, doc):
    """A tool's parser: its docstring's first paragraph as the description, the rest (usage
    examples, exit statuses) after the arguments in --help."""
    head, _, rest = doc.partition("\n\n")
    return OneLineParser(prog=prog, description=head, epilog=rest or None,
                         formatter_class=argparse.RawDescriptionHelpFormatter)


def whole(name, low, high):
    """An argument type: a whole number from low to high."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError("must be a whole number from %d to %d, not %r"
                                             % (low, high, text))
        if not low <= value <= high:
            raise argparse.ArgumentTypeError("must be from %d to %d, not %d" % (low, high, value))
        return value
    parse.__name__ = name
    return parse


def code_arg(text):
    """--code: the referee code as letters of the buttons (either case), within the lengths
    the firmware's settings accept."""
    code = text.upper()
    if not LOCK_MIN <= len(code) <= LOCK_MAX or any(c not in LOCK_KEYS for c in code):
        raise argparse.ArgumentTypeError("the referee code is %d to %d letters of %s, not %r"
                                         % (LOCK_MIN, LOCK_MAX, ", ".join(LOCK_KEYS), text[:20]))
    return code
