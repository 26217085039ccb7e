"""The `evaluator` command line: each command's options and output, over the scoring library
in the rest of this package; `command_line.py` is what `taurec` shares with it."""
