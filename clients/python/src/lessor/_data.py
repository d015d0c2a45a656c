"""Data in and out (docs/artifacts.md), what Client and AsyncClient share that does no network I/O:
which files of a working directory a bundle holds, the bundle itself (a tar archive compressed
with gzip), and where an artifact the server names may be written.

The rules are the CLI's (cli/workdir.mjs, cli/artifacts.mjs), so a directory ships the same from
``lessor run --workdir`` and from ``Client.run(workdir=...)``: never ``.git``, ``.env*``,
``.dev.vars``, ``node_modules`` or ``__pycache__`` at any depth; what ``.gitignore`` files match
(the root's and nested ones, git's precedence: the deepest file with a matching line decides, by
its last matching line, and nothing under a directory left out is looked at); what
``.lessorignore`` files match (the same syntax; a ``!`` line there never brings back what
``.gitignore`` left out); and symbolic links that lead out of the directory.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from ._errors import LessorError

#: Names no bundle ever holds, at any depth (patterns without a slash, as in a .gitignore).
ALWAYS_LEFT_OUT = (".git", ".env*", ".dev.vars", "node_modules", "__pycache__")
#: The files whose lines say what else to leave out, read in every directory.
IGNORE_FILES = (".gitignore", ".lessorignore")
#: The longest artifact path the contract allows, in UTF-8 bytes.
PATH_MAX_BYTES = 1024
#: A download in progress is written beside its target under this suffix, then renamed.
PARTIAL_SUFFIX = ".lessor-partial"
#: Rows of the left-out summary, and paths shown in each.
SUMMARY_GROUPS = 12
SUMMARY_EXAMPLES = 3


@dataclass(frozen=True)
class _Rules:
    base: str  # the directory the file sits in, relative to the root ("" for the root)
    source: str  # "always", or the file's path relative to the root
    spec: pathspec.GitIgnoreSpec


@dataclass
class Walk:
    """What a walk of a working directory found: the entries a bundle holds (sorted, ``/``-separated,
    a directory before what it holds), their files' count and bytes, and what was left out and why."""

    root: Path
    entries: list[str] = field(default_factory=list)
    files: int = 0
    bytes: int = 0
    left_out: list[tuple[str, str]] = field(default_factory=list)  # (path, the rule and its file)


_ALWAYS = _Rules("", "always", pathspec.GitIgnoreSpec.from_lines(ALWAYS_LEFT_OUT))


def _matched(chain: list[_Rules], rel: str) -> str | None:
    """The rule that leaves ``rel`` out (a directory's with a trailing ``/``), as git decides it, or None."""
    for rules in reversed(chain):
        probe = rel[len(rules.base) + 1 :] if rules.base else rel
        result = rules.spec.check_file(probe)
        if result.include is True:
            raw = rules.spec.patterns[result.index].pattern if result.index is not None else "?"
            pattern = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
            return f"{pattern} ({rules.source})"
        if result.include is False:
            return None
    return None


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def link_stays_inside(root: Path, link: Path) -> bool:
    """A symbolic link's target is relative and resolves inside ``root`` (an absolute target names a
    path on this machine, which the machine that unpacks the bundle does not have)."""
    target = os.readlink(link)
    if os.path.isabs(target):
        return False
    if not _within(Path(os.path.normpath(link.parent / target)), root):
        return False
    try:
        return _within(link.resolve(strict=True), root)
    except (OSError, RuntimeError):
        return True  # a link to nothing that would be inside: kept as the link it is


def walk_workdir(directory: str | os.PathLike[str]) -> Walk:
    """Decides what the bundle of ``directory`` holds (the module's rules)."""
    root = Path(directory).resolve()
    if not root.is_dir():
        raise ValueError(f"workdir: {directory} is not a directory")
    walk = Walk(root)

    def visit(rel_dir: str, git: list[_Rules], lessor: list[_Rules]) -> None:
        here = root / rel_dir if rel_dir else root
        names = sorted(os.listdir(here))
        git, lessor = list(git), list(lessor)
        for name in IGNORE_FILES:
            file = here / name
            if name in names and stat.S_ISREG(file.lstat().st_mode):
                lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
                rules = _Rules(rel_dir, f"{rel_dir}/{name}" if rel_dir else name, pathspec.GitIgnoreSpec.from_lines(lines))
                (git if name == ".gitignore" else lessor).append(rules)
        for name in names:
            rel = f"{rel_dir}/{name}" if rel_dir else name
            full = here / name
            mode = full.lstat().st_mode
            probe = f"{rel}/" if stat.S_ISDIR(mode) else rel
            reason = _matched([_ALWAYS], probe) or _matched(git, probe) or _matched(lessor, probe)
            if reason:
                walk.left_out.append((probe, reason))
            elif stat.S_ISLNK(mode):
                if link_stays_inside(root, full):
                    walk.entries.append(rel)
                else:
                    walk.left_out.append((rel, "symbolic link out of the directory"))
            elif stat.S_ISDIR(mode):
                walk.entries.append(rel)
                visit(rel, git, lessor)
            elif stat.S_ISREG(mode):
                walk.entries.append(rel)
                walk.files += 1
                walk.bytes += full.lstat().st_size
            else:
                walk.left_out.append((rel, "not a file, directory or link"))

    visit("", [], [])
    return walk


def left_out_summary(left_out: list[tuple[str, str]]) -> str:
    """What was left out, for a person: a line per rule, the most frequent first, a few paths each."""
    if not left_out:
        return ""
    groups: dict[str, list[str]] = {}
    for path, reason in left_out:
        groups.setdefault(reason, []).append(path)
    ordered = sorted(groups.items(), key=lambda g: (-len(g[1]), g[0]))
    lines = ["left out:"]
    for reason, paths in ordered[:SUMMARY_GROUPS]:
        shown = ", ".join(paths[:SUMMARY_EXAMPLES]) + (", ..." if len(paths) > SUMMARY_EXAMPLES else "")
        lines.append(f"  {reason}: {len(paths)} ({shown})")
    rest = ordered[SUMMARY_GROUPS:]
    if rest:
        lines.append(f"  {len(rest)} more rules: {sum(len(p) for _, p in rest)}")
    return "\n".join(lines)


@dataclass(frozen=True)
class Bundle:
    """A packed working directory: a temporary file the caller removes (``remove()``) once it is sent."""

    path: Path
    size: int
    sha256: str
    walk: Walk

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


def pack_workdir(directory: str | os.PathLike[str]) -> Bundle:
    """The bundle of ``directory``: its entries (``walk_workdir``) in a tar archive compressed with
    gzip, each under its path relative to the directory, links kept as links."""
    walk = walk_workdir(directory)
    fd, name = tempfile.mkstemp(prefix="lessor-bundle-", suffix=".tar.gz")
    os.close(fd)
    path = Path(name)
    try:
        with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
            for rel in walk.entries:
                tar.add(walk.root / rel, arcname=rel, recursive=False)
        digest = hashlib.sha256()
        with path.open("rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
        return Bundle(path, path.stat().st_size, digest.hexdigest(), walk)
    except BaseException:
        path.unlink(missing_ok=True)
        raise


def is_artifact_path(p: object) -> bool:
    """``p`` is a path the contract allows an artifact (docs/artifacts.md "Paths")."""
    if not isinstance(p, str) or not p or len(p.encode("utf-8", "surrogatepass")) > PATH_MAX_BYTES:
        return False
    if p.startswith("/") or any(c == "\\" or ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in p):
        return False
    return all(s not in ("", ".", "..") for s in p.split("/"))


def artifact_target(directory: str | os.PathLike[str], p: object) -> Path:
    """Where artifact ``p`` goes under ``directory``; a LessorError when the server named a path that
    is not an artifact's, or one that would leave the directory (through a link already there too)."""
    root = Path(directory).resolve()
    if is_artifact_path(p):
        assert isinstance(p, str)
        target = root.joinpath(*p.split("/"))
        if _within(target.parent.resolve(), root) and target.name:
            return target
    raise LessorError("unsafe_path", f"lessor named an artifact {p!r}: not a path inside {directory}; refused", {"path": p})


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def keep_download(partial: Path, target: Path, path: str, *digests: str) -> Path:
    """A finished download renamed into place when its bytes match every digest given (the list's,
    the answer's ``Lessor-Sha256``); else removed, and LessorError ``checksum_mismatch``."""
    digest = file_sha256(partial)
    if any(digest != d for d in digests):
        partial.unlink(missing_ok=True)
        raise LessorError("checksum_mismatch", f"{path}: its bytes do not match their SHA-256; not kept", {"path": path})
    os.replace(partial, target)
    return target


class OutputsIncomplete(LessorError):
    """Some of what a job left in ``$LESSOR_OUT`` did not come back: the lease's ``outputs_incomplete``
    (``details.missing``), or a download whose bytes did not match their SHA-256 (``details.failed``).
    What came back is in the directory; ``details.exit_code`` is the job's."""
