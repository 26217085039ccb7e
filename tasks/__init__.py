"""Tasks and what every layer agrees on: one folder per task kind (its schema, generator and
pure rules), the kind registry, suites, the trajectory (episode log) format, and sealed
runs as data. Nothing here does I/O beyond reading and writing these files."""
