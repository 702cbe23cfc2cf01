"""pytest-codegen: a pytest plugin that grades LLM-generated code and reports pass@k."""

__version__ = "0.1.0"
