"""The case's one set of numbers: the box, the parts inside it and where they sit (mm).

tools/case.py builds the printable parts from these (make case), and host_tests/test_case.py
checks against the same numbers that every opening sits over its part and that no part runs
into the case. Plain Python with no imports, so a maker can read and change it: measure your
parts (the "measure" notes), change the numbers, run `make case` and `make test`.

Axes, looking at the device's face with the buttons nearest you: x to the right, y away from
you (up the face), z out of the face. z = 0 is the back of the case, z = TOTAL_H its face.
A box is (x0, y0, z0, x1, y1, z1); a point (x, y, z).
"""
# -- the case -------------------------------------------------------------------------------------
W, L = 80.0, 115.0        # outside, x by y
BASE_H = 24.0             # the base (a tray): back and walls; the lid sits on its walls
LID_T = 2.0               # the lid (the face), printed face down
TOTAL_H = BASE_H + LID_T  # 26 mm
WALL, FLOOR = 2.0, 2.0
CORNER_R = 4.0            # outside corner radius
FIT = 0.3                 # clearance between printed parts that slide together
RIM_W, RIM_H = 1.6, 3.0   # the lid's rim, inside the base's walls: keeps the two aligned
INNER = (WALL, WALL, FLOOR, W - WALL, L - WALL, BASE_H)   # the cavity

# Screws: M2 x 8 mm self-tapping (pan head) through the lid into posts in the base's corners
POST_D, PILOT_D, SCREW_D, SCREW_HEAD_D = 7.0, 1.7, 2.4, 4.2
POSTS = [(5.5, 5.5), (W - 5.5, 5.5), (5.5, L - 5.5), (W - 5.5, L - 5.5)]
# The same screws hold the Pico, the button holder (two posts hanging from the lid)

# -- the Raspberry Pi Pico: face down on four posts, micro-USB through the bottom wall --------
# Its own datasheet's numbers: board 21 x 51 x 1.0, holes 2.1 mm at 2.0 from the ends and
# 4.8 from the long edges; the micro-USB socket 8.0 wide, 2.8 tall, 1.3 past the board's end;
# BOOTSEL 5.5 mm from the edge by pins 1-20 and 14.5 mm from the USB end (measure yours).
PICO_W_, PICO_L, PICO_T = 21.0, 51.0, 1.0
PICO_X = 49.5             # its left edge (the edge of pins 21-40, as it lies face down)
PICO_Y = WALL + 0.2 + 1.3  # its USB end, the socket's face 0.2 mm inside the wall
PICO_STANDOFF = 5.5       # floor to the board's component side (it faces the floor)
PICO_Z = FLOOR + PICO_STANDOFF   # the component side
PICO = (PICO_X, PICO_Y, PICO_Z, PICO_X + PICO_W_, PICO_Y + PICO_L, PICO_Z + PICO_T)
PICO_HOLES = [(PICO_X + dx, PICO_Y + dy) for dx in (4.8, PICO_W_ - 4.8)
              for dy in (2.0, PICO_L - 2.0)]
PICO_POST_D = 3.2          # the holes by the USB socket are 1.7 mm from its sides
PICO_USB = (PICO_X + PICO_W_ / 2 - 4.0, PICO_Y - 1.3, PICO_Z - 2.8,
            PICO_X + PICO_W_ / 2 + 4.0, PICO_Y + 4.2, PICO_Z)
# Face down, the edge of pins 1-20 is the right one: BOOTSEL is 5.5 mm in from it
BOOTSEL = (PICO_X + PICO_W_ - 5.5, PICO_Y + 14.5, PICO_Z - 2.5)   # its top (towards the floor)
BOOTSEL_HOLE_D = 2.5      # a straightened paper clip
PICO_PARTS_DEPTH = 2.8    # the component side's tallest part (the USB socket)
PICO_WIRES_H = 4.0        # solder joints and wires on the board's back

# -- the charger module (TP4056 with protection, USB-C): on a ledge, USB-C through the bottom --
CHARGER_W, CHARGER_L, CHARGER_T = 17.5, 28.0, 1.6   # measure yours
CHARGER_X = 9.5
CHARGER_Y = WALL + 0.2 + 0.5          # its USB end (the socket sticks out 0.5 mm)
CHARGER_LEDGE = 1.5
CHARGER_Z = FLOOR + CHARGER_LEDGE      # the board's underside
CHARGER = (CHARGER_X, CHARGER_Y, CHARGER_Z, CHARGER_X + CHARGER_W, CHARGER_Y + CHARGER_L,
           CHARGER_Z + CHARGER_T)
CHARGER_USB = (CHARGER_X + CHARGER_W / 2 - 4.5, CHARGER_Y - 0.5, CHARGER_Z + CHARGER_T,
               CHARGER_X + CHARGER_W / 2 + 4.5, CHARGER_Y + 7.3, CHARGER_Z + CHARGER_T + 3.3)
# Its two LEDs (red: charging, blue or green: full), side by side, this far from the USB end
CHARGER_LED_FROM_USB = 12.0           # measure yours: the window allows +-2.5 mm
CHARGER_LEDS = [(CHARGER_X + CHARGER_W / 2 + dx, CHARGER_Y + CHARGER_LED_FROM_USB,
                 CHARGER_Z + CHARGER_T + 0.6) for dx in (-3.0, 3.0)]
CHARGER_PARTS_H = 4.0                 # its tallest parts, the USB-C socket included
CHG_WINDOW = (10.0, 6.0)              # the light pipe's inside, x by y; clear glue fills it
PIPE_WALL = 1.2
PIPE_GAP = 0.3                        # between the pipe's end and the charger's parts

# Cable plugs: the moulded part round the plug must reach the socket through the wall
USB_C_PLUG = (12.5, 7.0)       # width, height of a USB-C plug's moulding (the opening: + 0.5)
MICRO_USB_PLUG = (11.0, 7.5)

# -- the LiPo cell (603040: 6.0 x 30 x 40 mm, 800 mAh) in a bay under the display -------------
CELL_T, CELL_W, CELL_L = 6.0, 30.0, 45.0   # 40 mm plus its protection board and lead
CELL_SWELL = 1.0                            # room to swell over the years
CELL = (W / 2 - CELL_W / 2, 64.0, FLOOR, W / 2 + CELL_W / 2, 64.0 + CELL_L, FLOOR + CELL_T)
BAY_RIB_H, BAY_RIB_T, BAY_FIT = 3.0, 1.2, 1.0

# -- on the lid: display, LED, buzzer, buttons ----------------------------------------------------
LID_UNDER = BASE_H                      # the lid's underside (z)
# OLED module: board 27.3 x 27.8, glass 26.7 x 19.3 on it (1.7 thick with its tape), active
# area 21.74 x 10.86, its centre OLED_ACTIVE_DY above the board's centre (measure yours: the
# pins at the top edge); pressed face down into corner guides under the lid
OLED_W, OLED_H, OLED_PCB_T, OLED_GLASS_T = 27.3, 27.8, 1.2, 1.7
OLED_GLASS = (26.7, 19.3)
OLED_GLASS_DY = -1.0                    # the glass's centre below the board's centre
OLED_ACTIVE = (21.74, 10.86)
OLED_ACTIVE_DY = 0.0                    # the active area's centre above the glass's centre
OLED_CENTRE = (W / 2, 91.0)
OLED_PINS_DEPTH = 9.0                   # the header's pins and wires behind the board
OLED_WINDOW_MARGIN = 0.8                # window = active area + this on every side
OLED_GUIDE_H = 5.0

LED_XY = (64.0, 100.0)                  # 5 mm RGB LED, in a boss under the lid
LED_D, LED_FLANGE_D, LED_BODY_H = 5.0, 5.8, 7.6   # body above the 1.0 mm flange
LED_BOSS_H = 3.0                        # the flange rests this far under the lid
LED_HOLE_D = 5.2
LED_LEADS_DEPTH = 8.0                   # legs, resistors, heat-shrink

BUZZER_XY = (16.0, 100.0)               # 12 mm buzzer (TDK PS1240: 12.2 x 6.5), face up
BUZZER_D, BUZZER_H, BUZZER_PINS_H = 12.2, 6.5, 3.0
BUZZER_SOUND_D = 2.0                    # the buzzer's own opening in its face
SOUND_HOLES = [(0.0, 0.0), (3.0, 0.0), (-3.0, 0.0), (0.0, 3.0), (0.0, -3.0)]
SOUND_HOLE_D = 1.6
RING_H, RING_T = 3.0, 1.2

# Buttons: 12 x 12 mm tactile switches (Omron B3F-4055) with round caps (Omron B32-10x0),
# in a printed holder screwed to two posts under the lid; the caps stand proud of the face
BUTTON_PITCH = 18.0
BUTTON_Y = 64.0
BUTTON_XS = [W / 2 + (i - 1.5) * BUTTON_PITCH for i in range(4)]   # RANK HELP DRAW STOP
SWITCH_BODY, SWITCH_BODY_H = 12.0, 3.5
SWITCH_LEGS = [(dx, dy) for dx in (-6.25, 6.25) for dy in (-2.5, 2.5)]
SWITCH_LEG_DEPTH = 3.5                  # below the switch's seat
CAP_D, CAP_TOP = 11.5, 11.0             # the cap's top above the switch's seat (measure)
CAP_PROUD = 1.5                         # the cap's top above the face
BUTTON_HOLE_D = CAP_D + 1.0
HOLDER_T = 2.0
HOLDER = (6.0, BUTTON_Y - 10.0, 74.0, BUTTON_Y + 10.0)   # x0, y0, x1, y1
SEAT_Z = TOTAL_H + CAP_PROUD - CAP_TOP  # the holder's top: where the switches sit
HOLDER_POSTS = [(W / 2 - BUTTON_PITCH, BUTTON_Y), (W / 2 + BUTTON_PITCH, BUTTON_Y)]
HOLDER_POST_D = 5.0
WIRES_UNDER_HOLDER = 3.0

# -- the back: reset button, and the slide switch in the left wall -------------------------------
RESET_XY = (42.0, 32.0)                 # 6 x 6 mm tactile switch (Omron B3F-1000), face down
RESET_BODY, RESET_BODY_H, RESET_PLUNGER_D = 6.0, 3.5, 3.5
RESET_HOLE_D = 4.0                      # pressed with a pen: too deep for a finger by chance
POCKET_WALL, POCKET_H = 1.2, 2.5

SWITCH_Y = 45.0                         # slide switch SS12D00G4 (SPDT), actuator out of the wall
SLIDE_BODY = (3.6, 8.6, 3.5)            # x (into the case), y (along the travel), z
SLIDE_KNOB = (4.0, 1.5, 1.5)            # out of its body, along y, along z
SLIDE_TRAVEL = 2.0                      # the knob's travel, end to end
SLIDE_Z = FLOOR                         # the body rests on the floor against the wall
SLOT_FIT = 0.5


# -- derived: every part as a box where it sits (the test's and the renderer's list) ---------------
def parts():
    """{name: box} of every part, assembled."""
    ox, oy = OLED_CENTRE
    lz = LID_UNDER
    out = {
        "pico": PICO,
        "pico_usb": PICO_USB,
        "pico_wires": (PICO[0], PICO[1], PICO[5], PICO[3], PICO[4], PICO[5] + PICO_WIRES_H),
        "charger": (CHARGER[0], CHARGER[1], CHARGER[2], CHARGER[3], CHARGER[4],
                    CHARGER[5] + CHARGER_PARTS_H),
        "cell": CELL[:5] + (CELL[5] + CELL_SWELL,),
        "oled": (ox - OLED_W / 2, oy - OLED_H / 2,
                 lz - OLED_GLASS_T - OLED_PCB_T - OLED_PINS_DEPTH,
                 ox + OLED_W / 2, oy + OLED_H / 2, lz - OLED_GLASS_T),
        "oled_glass": (ox - OLED_GLASS[0] / 2, oy + OLED_GLASS_DY - OLED_GLASS[1] / 2,
                       lz - OLED_GLASS_T, ox + OLED_GLASS[0] / 2,
                       oy + OLED_GLASS_DY + OLED_GLASS[1] / 2, lz),
        "led": (LED_XY[0] - LED_FLANGE_D / 2, LED_XY[1] - LED_FLANGE_D / 2,
                lz - LED_BOSS_H - LED_LEADS_DEPTH, LED_XY[0] + LED_FLANGE_D / 2,
                LED_XY[1] + LED_FLANGE_D / 2, lz - LED_BOSS_H),
        "reset": (RESET_XY[0] - RESET_BODY / 2, RESET_XY[1] - RESET_BODY / 2, FLOOR,
                  RESET_XY[0] + RESET_BODY / 2, RESET_XY[1] + RESET_BODY / 2,
                  FLOOR + RESET_BODY_H + 3.0),   # its legs, bent up, and two wires
        "slide": (WALL, SWITCH_Y - SLIDE_BODY[1] / 2, SLIDE_Z, WALL + SLIDE_BODY[0] + 2.0,
                  SWITCH_Y + SLIDE_BODY[1] / 2, SLIDE_Z + SLIDE_BODY[2]),
    }
    under = SEAT_Z - HOLDER_T          # the holder's underside
    for i, x in enumerate(BUTTON_XS):
        n, y = i + 1, BUTTON_Y
        out["switch%d" % n] = (x - SWITCH_BODY / 2, y - SWITCH_BODY / 2, SEAT_Z,
                               x + SWITCH_BODY / 2, y + SWITCH_BODY / 2, SEAT_Z + SWITCH_BODY_H)
        out["switch%d_wires" % n] = (x - SWITCH_BODY / 2, y - SWITCH_BODY / 2,
                                     SEAT_Z - SWITCH_LEG_DEPTH - WIRES_UNDER_HOLDER,
                                     x + SWITCH_BODY / 2, y + SWITCH_BODY / 2, under)
        for j, (dx, dy) in enumerate(SWITCH_LEGS):   # through the holder's slots
            out["switch%d_leg%d" % (n, j + 1)] = (x + dx - 0.4, y + dy - 0.4, under,
                                                  x + dx + 0.4, y + dy + 0.4, SEAT_Z)
    return out


def cylinders():
    """{name: (x, y, z0, z1, diameter)}: the round parts that pass through the case (a box
    would claim corners they do not have)."""
    out = {"led_body": (LED_XY[0], LED_XY[1], LID_UNDER - LED_BOSS_H,
                        LID_UNDER - LED_BOSS_H + LED_BODY_H, LED_D),
           "buzzer": (BUZZER_XY[0], BUZZER_XY[1], LID_UNDER - BUZZER_H - BUZZER_PINS_H,
                      LID_UNDER, BUZZER_D)}
    for i, x in enumerate(BUTTON_XS):
        out["cap%d" % (i + 1)] = (x, BUTTON_Y, SEAT_Z + SWITCH_BODY_H, TOTAL_H + CAP_PROUD, CAP_D)
    return out
