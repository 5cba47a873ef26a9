"""Shared code of tools/nvmeof-compare and tools/nvmeof-qualify (Python 3 standard library only)."""


def read_text(path, error):
    """The text of the file at PATH; an unreadable file raises ERROR("PATH: cannot read: why")."""
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        raise error("%s: cannot read: %s" % (path, e.strerror)) from None
