"""Shared code of tools/nvmeof-compare and tools/nvmeof-qualify (Python 3 standard library only)."""
