"""The tools' command lines: a bad argument is refused in one line that names it and what is
allowed, with exit status 2 (argparse's own error prints the whole usage first)."""
import argparse
import re
import sys

# the package's __init__ has run first: firmware/ is on sys.path
from carddraw.settings import LOCK_KEYS, LOCK_MAX, LOCK_MIN


class OneLineParser(argparse.ArgumentParser):
    """Bad input: one line starting with the tool's own name (self.prog), exit status 2.
    Subcommands' parsers are of this class too (argparse makes them with the parent's).
    An option no parser knows is named first, even when argparse would rather say that a
    required argument is missing (`bench --bogus` names --bogus, not the missing COMMAND)."""

    def parse_args(self, args=None, namespace=None):
        self._given = list(sys.argv[1:] if args is None else args)
        return super().parse_args(self._given, namespace)

    def error(self, message):
        unknown = [a for a in getattr(self, "_given", []) if not known(self, a)]
        if unknown and message.startswith("the following arguments are required"):
            message = "unrecognized arguments: %s" % " ".join(unknown)
        if message.startswith("unrecognized arguments"):
            message += " (%s --help lists the arguments)" % self.prog
        sys.stderr.write("%s: %s\n" % (self.prog, message))
        sys.exit(2)


NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")   # a negative number is a value, as argparse takes it


def options(p):
    """Every option string of parser p and of its subcommands' parsers."""
    found = set()
    for action in p._actions:
        found.update(action.option_strings)
        if isinstance(action.choices, dict):   # a subcommand's name -> its parser
            for sub in action.choices.values():
                found |= options(sub)
    return found


def known(p, arg):
    """Whether arg is no option at all (a value, a negative number, '-', '--') or one that
    p or a subcommand knows, abbreviations of long options included."""
    if not arg.startswith("-") or arg in ("-", "--") or NUMBER.match(arg):
        return True
    name = arg.split("=", 1)[0]
    if name.startswith("--"):
        return any(o.startswith(name) for o in options(p))
    return name[:2] in options(p)


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
