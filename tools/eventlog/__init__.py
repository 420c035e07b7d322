"""tools/event.py's parts: reading and checking the logs (records), the SQLite database
(database), the game team's questions answered (report), and the two sources of logs beside
files: a simulated event (simulated) and devices plugged in one after another (devices)."""
