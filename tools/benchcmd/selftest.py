"""bench selftest: the LED's colours, the display's pattern and every button, through the
firmware's test commands; on a board a person answers what they see and presses the buttons,
in the simulator the simulated hardware is read back and pressed."""
import json

BUTTONS = ("RANK", "HELP", "DRAW", "STOP")
LED_TESTS = ("green", "yellow", "red", "black", "off")
BUTTON_MS = 20000        # how long a person has to press each button on a board


def led_looks(colour, rgb):
    """Does the light (r, g, b) look like this LED test colour? (black shows purple)"""
    r, g, b = rgb
    return {"green": g > 0 and not r and not b, "yellow": r > 0 and g > 0 and not b,
            "red": r > 0 and not g and not b, "black": r > 0 and b > 0 and not g,
            "off": not (r or g or b)}[colour]


def ask(question, yes):
    if yes:
        print(question + " y (--yes)")
        return True
    try:
        answer = input(question + " ")
    except EOFError:
        print()
        return False
    return answer.strip().lower() in ("y", "yes")


def arguments(p):
    p.add_argument("--yes", action="store_true", help="answer yes to every question")


def run(link, args):
    results = []

    def check(what, ok, detail=""):
        results.append(ok)
        print("%s  %s%s" % ("PASS" if ok else "FAIL", what, "  (%s)" % detail if detail else ""))

    for colour in LED_TESTS:
        r = link.request("test led " + colour)
        if r.get("ok") != "led":
            check("LED " + colour, False, json.dumps(r))
            continue
        shown = "purple (a black card)" if colour == "black" else colour
        if link.sim:
            rgb = link.request("!led")["rgb"]
            check("LED " + shown, led_looks(colour, rgb) and rgb == r["rgb"],
                  "the pins light rgb%s" % (tuple(rgb),))
        else:
            check("LED " + shown, ask("is the LED %s? [y/n]" % ("off" if colour == "off" else shown),
                                      args.yes))
    r = link.request("test display")
    if r.get("ok") != "display":
        check("display pattern", False, json.dumps(r))
    elif link.sim:
        s = link.request("!screen")
        check("display pattern", s["on"] and s["lit"] == r["lit"],
              "%d of %d pixels lit, the OLED shows %d" % (r["lit"], r["pixels"], s["lit"]))
    else:
        check("display pattern", ask("does the screen show a checkerboard inside a border lit on "
                                     "all four edges? [y/n]", args.yes))
    ms = 5000 if link.sim else BUTTON_MS
    for name in BUTTONS:
        if link.sim:
            link.request("!press " + name)   # the simulated finger: before the test, it plays
        else:                                # out while `test button` waits
            print("press %s on the device (within %d s)" % (name, ms // 1000))
        r = link.request("test button %d" % ms)
        check("button " + name, r.get("ok") == "button" and r.get("button") == name,
              r.get("error") or "%s press of %s" % (r.get("kind"), r.get("button")))
    link.request("test end")
    failed = results.count(False)
    print("%s: %d of %d checks passed" % ("PASS" if not failed else "FAIL", len(results) - failed,
                                          len(results)))
    return 0 if not failed else 1
