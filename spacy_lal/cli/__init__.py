"""Sub-commands of `python -m spacy_lal`; one module per command, and what they share: every
error a command reports is one line (:func:`error_line`), and help text shows no
reStructuredText markup (:func:`plain`)."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Optional, Union

__all__ = ["error_line", "plain", "undecodable"]

_ROLE = re.compile(r":(?:func|mod|class|meth|attr|data|obj|exc):`~?")


def plain(text: Optional[str]) -> Optional[str]:
    """Help text as a terminal shows it: RST literals ``x`` and roles :func:`x` as `x`."""
    if text is None:
        return None
    return _ROLE.sub("`", text).replace("``", "`")


def undecodable(paths: Iterable[Union[str, Path, None]]) -> Optional[str]:
    """Where the first of ``paths`` that is not UTF-8 stops being UTF-8 (file, line, byte), or
    None; paths that cannot be read (or are None or directories) are passed over."""
    for path in paths:
        if path is None:
            continue
        try:
            data = Path(path).read_bytes()
        except OSError:
            continue
        try:
            data.decode("utf8")
        except UnicodeDecodeError as error:
            line = data.count(b"\n", 0, error.start) + 1
            byte = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
            return (
                f"{path}, line {line}: not UTF-8 at byte {byte} of the line "
                f"({data[error.start:error.start + 1]!r}); give UTF-8 text"
            )
    return None


def error_line(error: BaseException, paths: Iterable[Union[str, Path, None]] = ()) -> str:
    """One line for an error a command reports: a file that is not UTF-8 named with its line
    (looked up among ``paths``: a decoding error does not know its file), a file error as
    ``FILE: reason``, anything else its message with the whitespace runs made single spaces."""
    if isinstance(error, UnicodeDecodeError):
        return undecodable(paths) or f"an input is not UTF-8 ({error.reason} at byte offset {error.start})"
    if isinstance(error, OSError) and error.filename is not None and error.strerror:
        return f"{error.filename}: {error.strerror}"
    return " ".join(str(error).split()) or type(error).__name__
