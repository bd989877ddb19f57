"""The engine: pure decisions. State and an observation in, new state and a plan out.

No network, no clock, no global randomness: time and a seeded numpy ``Generator``
are passed in (DESIGN §2). A test checks that nothing here imports I/O modules.
Entry point: :func:`gauntlet.engine.decide.decide`.
"""
