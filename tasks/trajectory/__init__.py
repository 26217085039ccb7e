"""Trajectory format v1, the episode log every kind writes: its records, the dialogue acts
a message may carry, fast reading with file:line problems, and the hash chain and HMAC
that make a log tamper-evident."""
