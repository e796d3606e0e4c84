"""Judges: an LLM over any OpenAI-compatible API, or the local rule-and-embedding judge."""
