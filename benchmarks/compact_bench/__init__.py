"""compact-bench: offline, deterministic measurement of what a compaction keeps.

A seeded generator writes long agent sessions (OpenAI chat format) with a planted ledger
of facts by class; each *arm* (no compaction, truncation, observation masking, the
compressor with the deterministic or a lossy fake summarizer, with or without verified
summaries) plays the session as a runtime would, compacting whenever the context reaches
the threshold; the retained context is scored by exact matching, no judge. See
``run.py`` for the command line and BENCHMARKS.md for results.
"""
