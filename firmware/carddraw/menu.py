# A menu's lines (the options, the referee menu, the deck adjustment): a title, a window of
# rows around the cursor, and a hint. Pure. Imported by those menus' on-demand modules only, so
# it is not in the heap after boot.
from carddraw.config import ROWS

MENU_ROWS = ROWS - 2   # a menu shows this many rows between its title and its hint


def menu_lines(title, labels, values, cursor, editing, hint):
    """A menu: the title, a window of rows around the cursor (the chosen row marked with >, a
    value being edited in <>), then the hint, or how to edit while editing."""
    rows = []
    for index in range(len(labels)):
        value = values[index]
        if editing and index == cursor:
            value = "<%s>" % value
        rows.append("%s%-10s%5s" % (">" if index == cursor else " ", labels[index], value))
    top = 0
    if len(rows) > MENU_ROWS:
        top = min(max(0, cursor - MENU_ROWS + 1), len(rows) - MENU_ROWS)
    return [title] + rows[top:top + MENU_ROWS] + ["RANK- HELP+ D:ok" if editing else hint]
