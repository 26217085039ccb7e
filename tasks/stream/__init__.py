"""The "stream" kind (BIEL): stream tasks and their generator, and the rules of a stream
(session, rule-based customer, feedback) as pure code that the server plays and the
evaluator replays."""
