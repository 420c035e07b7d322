# Runs at power-on. Everything lives in carddraw/ (compiled to .mpy by make deploy); this file
# stays source because MicroPython only runs main.py.
from carddraw import app

app.main()
