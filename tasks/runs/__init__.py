"""Sealed runs as data: the run plan (what one contestant may play, and its token) and the
signed run register of every episode start and end."""
