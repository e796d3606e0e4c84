"""ragmon: a production trace monitor for RAG chat assistants."""

__version__ = "0.1.0"
