"""The files `rationale ingest` reads: folders expanded, exclusions applied, text decoded."""

from __future__ import annotations

import codecs
from collections.abc import Sequence
from fnmatch import fnmatchcase
from pathlib import Path

from service.errors import UnsupportedFormat

#: Byte order marks of the Unicode encodings a file may be saved in besides UTF-8 (Windows
#: tools write UTF-16 with a BOM: PowerShell's `>`, Notepad's "Unicode").
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def decode(raw: bytes) -> str:
    """Return a file's text: UTF-8, or UTF-16/UTF-32 when it opens with their byte order mark.

    Raises:
        UnsupportedFormat: the bytes are none of these (a binary file, another encoding).
    """
    encoding = next((name for bom, name in _BOMS if raw.startswith(bom)), "utf-8")
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        name = "UTF-8" if encoding == "utf-8" else f"{encoding.upper()} (by its byte order mark)"
        raise UnsupportedFormat(f"not {name} text ({exc.reason} at byte {exc.start})") from exc


def excluded(relative: Path, patterns: Sequence[str]) -> bool:
    """Return True when a file's name or its path under the folder matches one of `patterns`.

    Globs as `fnmatch` reads them, case-sensitive, `/` between folders: `SOURCE.md` and `*.md`
    match a name at any depth, `docs/*` a path (trial 17: `rationale ingest` of a corpus folder
    ingested its `SOURCE.md`, whose table then answered a question about a session).
    """
    path = relative.as_posix()
    return any(fnmatchcase(relative.name, p) or fnmatchcase(path, p) for p in patterns)


def expand(paths: Sequence[Path], exclude: Sequence[str] = ()) -> list[Path]:
    """Return the files to ingest: each file given, and every file under each folder given.

    Hidden files and folders (a name starting with `.`) under a folder are skipped, and so are
    files `excluded` by `exclude` (a file named outright is matched by its name). Each file
    comes once, in the order given (a folder's files sorted).

    Args:
        paths: files and folders.
        exclude: glob patterns of files to skip.

    Returns:
        The files, without repeats.
    """
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files += sorted(
                p
                for p in path.rglob("*")
                if p.is_file()
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
                and not excluded(p.relative_to(path), exclude)
            )
        elif not excluded(Path(path.name), exclude):
            files.append(path)
    return list(dict.fromkeys(files))
