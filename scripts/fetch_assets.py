"""Fetch the project's treebanks at fixed revisions, or link a local copy of them.

    python scripts/fetch_assets.py assets --local ../shared/assets

For each repository: if a folder of that name is in one of the folders listed in the environment
variable ``SPACY_LAL_ASSETS`` (separated by ``os.pathsep``) or in ``--local``, ``assets/<name>``
becomes a symbolic link to it (no network); otherwise the repository's archive at the pinned
commit is downloaded from GitHub (or from the mirror in ``SPACY_LAL_ASSETS_URL``, laid out as
GitHub's ``<owner>/<repo>/archive/<commit>.tar.gz``) and unpacked there. Existing
``assets/<name>`` folders are kept. When a repository is neither found nor downloaded, the script
says what is missing and where to put it, and exits with status 1.
"""
import argparse
import io
import os
import shutil
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path
from typing import List, Optional

REPOSITORIES = {
    # name: (GitHub repository, pinned commit)
    "UD_English-EWT": ("UniversalDependencies/UD_English-EWT", "15d613d8447b3478787d4c278730a1e48a945efb"),
    "propbank-release": ("propbank/propbank-release", "4abade0b53ce4a181e1d98b3518101c1a44d395a"),
}
ASSETS_ENV = "SPACY_LAL_ASSETS"
URL_ENV = "SPACY_LAL_ASSETS_URL"
GITHUB = "https://github.com"


class AssetError(Exception):
    """A repository that is neither in a local folder nor downloadable."""


def local_folders(local: Optional[Path]) -> List[Path]:
    """Where local copies are looked for: ``SPACY_LAL_ASSETS``'s folders, then ``--local``."""
    folders = [Path(p) for p in os.environ.get(ASSETS_ENV, "").split(os.pathsep) if p]
    return list(dict.fromkeys(folders + ([local] if local is not None else [])))


def archive_url(name: str) -> str:
    repo, commit = REPOSITORIES[name]
    base = os.environ.get(URL_ENV) or GITHUB
    return f"{base.rstrip('/')}/{repo}/archive/{commit}.tar.gz"


def fetch(name: str, dest: Path, local: Optional[Path] = None) -> str:
    target = dest / name
    if target.exists():
        return f"{name}: already in {target}"
    folders = local_folders(local)
    for folder in folders:
        if (folder / name).is_dir():
            target.symlink_to((folder / name).resolve(), target_is_directory=True)
            return f"{name}: linked {target} -> {(folder / name).resolve()}"
    url = archive_url(name)
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            data = response.read()
        # Unpack beside the target and move it in whole: a failed download leaves nothing behind.
        with tempfile.TemporaryDirectory(dir=dest) as tmp:
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
                top = archive.getnames()[0].split("/")[0]
                archive.extractall(tmp, filter="data")
            shutil.move(str(Path(tmp) / top), str(target))
    except (OSError, EOFError, tarfile.TarError) as error:  # URLError and timeouts are OSErrors
        raise AssetError(_missing(name, dest, local, folders, url, error)) from error
    return f"{name}: downloaded {url}"


def _missing(
    name: str, dest: Path, local: Optional[Path], folders: List[Path], url: str, error: BaseException
) -> str:
    repo, commit = REPOSITORIES[name]
    reason = getattr(error, "reason", None) or error
    looked = ", ".join(str(folder) for folder in folders) or "nowhere"
    if ASSETS_ENV not in os.environ:
        looked += f" ({ASSETS_ENV} is not set)"
    return (
        f"{name} is missing: no local copy in {looked}, and the download of {url} failed ({reason}).\n"
        f"Put a copy of https://github.com/{repo} at commit {commit} in a folder named {name}\n"
        f"  - in {local if local is not None else '../shared/assets'} (the project's vars.local_assets), or\n"
        f"  - in a folder of your choice, named by the environment variable {ASSETS_ENV}, or\n"
        f"  - as {dest / name} itself (the archive above, unpacked),\n"
        "and run the step again."
    )


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dest", type=Path, help="folder to put the repositories in (assets/)")
    parser.add_argument("--local", type=Path, default=None, help="folder holding local copies")
    args = parser.parse_args(argv)
    args.dest.mkdir(parents=True, exist_ok=True)
    failed = 0
    for name in REPOSITORIES:
        try:
            print(fetch(name, args.dest, args.local))
        except AssetError as error:
            print(f"fetch_assets: {error}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
