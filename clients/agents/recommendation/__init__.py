"""Agents for recommendation tasks: scripted, oracle, random and popularity, what they read
from the user's words, and a person at the terminal (`taurec play`)."""
