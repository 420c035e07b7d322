# The pin map and the defaults, in one place. hardware/ is generated from this file
# (tools/pins.py) and a test fails when the two disagree.
# Lists, not tuples, of numbers or of names used here anyway: mpy-cross keeps a constant tuple's
# items as text (2 bytes and the characters each: a name twice), a list's as bytecode (1 to 3
# bytes each), and the list takes no more heap.

# -- Pins (GPn numbers on the Raspberry Pi Pico) ----------------------------------------------
# Each button joins its pin to GND; the pin's internal pull-up holds it high when released.
BUTTON_PINS = {"RANK": 10, "HELP": 11, "DRAW": 12, "STOP": 13}
BUTTONS = ["RANK", "HELP", "DRAW", "STOP"]

I2C_ID = 0          # SSD1306 OLED on I2C0
I2C_SDA = 8
I2C_SCL = 9
I2C_FREQ = 400_000  # Hz; the SSD1306 is rated for 400 kHz fast mode
OLED_ADDR = 0x3C
OLED_WIDTH = 128
OLED_HEIGHT = 64

# LED: "rgb" = common-cathode RGB LED on three PWM pins (the default build),
# "rgb_anode" = common-anode RGB LED on the same pins (PWM inverted),
# "neopixel" = one WS2812 on NEOPIXEL_PIN.
LED_KIND = "rgb"
LED_PINS = {"red": 16, "green": 17, "blue": 18}  # GP16/17 share PWM slice 0, GP18 is slice 1
LED_PWM_FREQ = 1000  # Hz, the same on every channel (pins on one slice share a frequency)
NEOPIXEL_PIN = 22
# A card's colour on the LED (R1): black cannot be shown, so it is purple.
LED_COLOURS = {
    "green": [0, 255, 0],
    "yellow": [255, 160, 0],   # less green than red: the green die is the brighter one
    "red": [255, 0, 0],
    "black": [160, 0, 255],
    "white": [255, 255, 255],  # the timed warning (R21): a colour no card has
}

BUZZER_PIN = 15      # piezo through an NPN transistor, PWM slice 7
# The sounds: Hz, ms steps in one flat list, 0 Hz a rest. Every tone between 2 and 4.2 kHz,
# where a 12 mm piezo (about 4 kHz) and a magnetic buzzer (about 2.7 kHz) are both loud.
BUZZER_PATTERNS = {
    "click": [4000, 12],
    "card": [2700, 40, 0, 25, 3400, 60],
    "warn": [3000, 120, 0, 80, 3000, 120],
    "success": [2637, 90, 3322, 90, 3951, 180],
    "fail": [3136, 160, 2637, 160, 2093, 280],
    "black": [2960, 320, 0, 60, 2093, 450],
    "error": [4000, 60, 0, 50, 4000, 60, 0, 50, 4000, 60],
}
BATTERY_ADC = 29     # VSYS / 3 on ADC channel 3
# VSYS reads about 0.25 V under the cell: the LiPo feeds VSYS through a Schottky diode
# (hardware/README.md), so a full 4.2 V cell reads about 3.95 V and a flat 3.5 V cell 3.25 V.
BATTERY_EMPTY_V = 3.25   # 0 %: the cell at 3.50 V; the device says so, logs it and sleeps
BATTERY_FULL_V = 3.95
# VSYS (mV, behind the diode) -> percent along a LiPo's discharge: straight lines between
# the points (hardware/README.md "Battery" says how they were made and how to calibrate).
BATTERY_CURVE = ([3950, 100], [3860, 90], [3770, 80], [3700, 70], [3620, 60], [3590, 50],
                 [3550, 40], [3520, 30], [3480, 20], [3440, 10], [3360, 5], [3250, 0])
BATTERY_CAL_MV = 0       # added to every reading: a meter at the cell, less 250 mV, less it
BATTERY_EMPTY_READS = 3  # readings in a row at or under empty (5 s apart) before it sleeps
BATTERY_USB_V = 4.40     # VSYS above this is USB power: no gauge, no sleep
PICO_W = False       # a Pico W must drive GP25 high while reading VSYS

# -- Timings -------------------------------------------------------------------------------------
DEBOUNCE_MS = 20        # a level steady this long counts: one loop pass (bounce is ~5 ms)
LONG_PRESS_MS = 800
DIM_AFTER_MS = 30_000    # display dims when idle
OFF_AFTER_MS = 120_000   # display turns off when idle
WATCHDOG_MS = 5_000      # under the RP2040's 8,388 ms maximum
LOOP_MS = 20             # the app loop's period

# -- Files on the board's flash ----------------------------------------------------------------
# settings.json and log.exported, rewritten whole, are in a folder of their own: a folder
# compacts when its block fills, and a rewrite adds its whole contents to the block. In the
# root, beside the log's segments, the compaction read 31 KB of flash and took 250-365 us of
# littlefs on native MicroPython (45-65 ms on the chip's estimate, with the 45 ms erase: an
# idle pass over 100 ms); in this folder, 12 KB and 90-124 us (migrate.py moves older ones in).
STATE_DIR = "state/"
SETTINGS_FILE = STATE_DIR + "settings.json"
# The log: segments log.NNNNNN.jsonl (store.py). LOG_FILE and log.1.jsonl are older
# firmware's log, copied into the segments once and removed.
LOG_FILE = "log.jsonl"
LOG_DIR = "log/"         # the segments' folder: an append's commit (and, now and then, the
                         # compaction of its folder's metadata) touches only segments
LOG_LIMIT = 512 * 1024   # bytes in all segments together (the Pico's filesystem is ~1.4 MB)
LOG_SEGMENT = 16 * 1024  # bytes per segment: the oldest goes, once exported, when full
LOG_EXPORTED_FILE = STATE_DIR + "log.exported"  # the highest seq the bench saved (`log ack`)
BOOTS_FILE = STATE_DIR + "boots"  # boots begun that never drew their first frame (app.main)
LOG_RESERVE = 48 * 1024  # kept free for an action to its end: none starts with less (about
                         # 250 draws); over it, records that are not play's are only counted
LOG_QUEUE = 64           # records held in RAM while the flash fails or the log is full
LOG_REPEATS = 256        # identical records (but for "ms") counted per {"ev": "repeat"} line

# -- Settings a referee or player can change, and their defaults ---------------------------------
# name: [default, low, high]; booleans and the skill are listed apart.
NUMBERS = {
    "ranks": [1, 0, 9],        # R3
    "helpers": [0, 0, 9],      # R4
    "bonus": [0, 0, 9],        # R5
    "green": [0, 0, 9],        # R6 difficulty cards
    "yellow": [0, 0, 9],
    "red": [0, 0, 9],
    "black": [0, 0, 9],
    "needed": [1, 1, 9],       # R7
    "auto": [0, 0, 9],         # R11
    "redraws": [0, 0, 9],      # R15
    "interval": [45, 30, 60],  # R21 seconds between timed draws
    "brightness": [3, 1, 5],   # display contrast steps
}
# frozen: the referee froze the task (settings.FROZEN) for every action until unfrozen;
# changed only from the referee menu, behind the lock.
FLAGS = {"referee": False, "timed": False, "buzzer": True, "frozen": False}
SKILLS = ("surgery", "repair", "scan")  # the first is the default
# The referee lock: 4 to 8 short presses (R, H, D, S) entered after a long STOP, kept only as
# a salted sha256 (lockcode.py). The default code is R H R H; LOCK_SALT salts it and any plain
# code that older firmware kept (a code's own salt is fresh each time a referee changes it).
LOCK_SALT = "0000000000000000"
DEFAULT_LOCK = ("4$" + LOCK_SALT  # R H R H, salted by LOCK_SALT
                + "$3e2490318e6d08cf87fac97a7f2c8ab304dce8818c8bfbbf6d7a2d9e415fa60c")


def defaults():
    """A fresh settings dict."""
    d = dict(FLAGS, skill=SKILLS[0], lock=DEFAULT_LOCK, lock_fails=0,  # wrong tries
             recovery="", recovery_fails=0)  # the recovery code (lockcode.py), hashed
    for name in NUMBERS:
        d[name] = NUMBERS[name][0]
    return d

# -- The screen: the 8x8 font on the 128x64 OLED ------------------------------------------------
COLS = 16         # characters in a line
ROWS = 8          # lines on the screen, the title first
TITLE_COLS = 14   # characters in the title: 14 x 8 = 112 px, clear of the battery icon
