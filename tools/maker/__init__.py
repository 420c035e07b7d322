"""What the maker's tools share (pins, schematic, case, deploy), each part small:
    maker.pico        the Raspberry Pi Pico's header, I2C blocks, PWM slices, ADC pins, and the
                      values of the parts this design uses
    maker.drawing     wiring.svg and the Wokwi circuit, from pins.py's rows
    maker.figures     hardware/README.md's figures from config.py: battery, display, tones,
                      the power budget
    maker.bom         the bill of materials, by the schematic's designators
    maker.solids      the case's printable parts (manifold3d) from hardware/case/dimensions.py
    maker.boardcheck  which MicroPython a board runs, against what deploy copies; mpy-cross
"""
