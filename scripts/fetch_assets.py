"""Fetch the project's treebanks at fixed revisions, or link a local copy of them.

    python scripts/fetch_assets.py assets --local ../shared/assets
    python scripts/fetch_assets.py assets --local ../shared/assets --only nltk-text

For each repository: if a folder of that name is in one of the folders listed in the environment
variable ``SPACY_LAL_ASSETS`` (separated by ``os.pathsep``) or in ``--local``, ``assets/<name>``
becomes a symbolic link to it (no network); otherwise the repository's archive at the pinned
commit is downloaded from GitHub (or from the mirror in ``SPACY_LAL_ASSETS_URL``, laid out as
GitHub's ``<owner>/<repo>/archive/<commit>.tar.gz``) and unpacked there. Existing
``assets/<name>`` folders are kept. When a repository is neither found nor downloaded, the script
says what is missing and where to put it, and exits with status 1.
"""
import argparse
import hashlib
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
    # PropBank 3.4's frame files (CC BY-SA 4.0): the roleset inventory, and the examples of
    # `convert propbank-examples` (project.yml: propbank-silver)
    "propbank-frames": ("propbank/propbank-frames", "c66e0ccf28b53f00051b187db83e937b5bee2e32"),
}
# name: (GitHub repository, pinned commit, folder in it, {file: SHA-256}); fetched with --only NAME
FILE_SETS = {
    "nltk-text": ("nltk/nltk_data", "5db857e6f7df11eabb5e5665836db9ec8df07e28", "packages/corpora", {
        "inaugural.xml": "8d6da7303d51048363c5d7bd5d05a4533fb1f754203186ebe037312c01454829",
        "inaugural.zip": "7c5fb5793e31fbeae12bf1aa0ffda5336468f07cedb50654c6d31ca384e2046b",
        "movie_reviews.xml": "c632dc0b8b807cf57f06cee3f42afa5e077e2a23294ed99af971b055635e77ef",
        "movie_reviews.zip": "a41211ae685019137410268134db6a1a14428c89b671eb83056151a878539008",
        "product_reviews_1.xml": "345a9ddd142ec80c23bc46eb8113d76c68921879d6c70b39a9f2bcdbc1065f90",
        "product_reviews_1.zip": "627bfb0bb7c87586246d99b4402c3d7e4fb77ac14559d8695c283bd6850615ac",
        "product_reviews_2.xml": "e8d45d7c4dbc8bff7608a37054eb3823fc7320407109a844d4388e90fc2fec87",
        "product_reviews_2.zip": "272b08fe130882e5867aa7ecc69a65616099183c4ccc10374a62c271801b0bc1",
        "pros_cons.xml": "e6b04bf140abd4317c84323ebfba01a65bdc012e2b55b5b5fd15ca4074557fe2",
        "pros_cons.zip": "b5bca541ba5b2e614cde2213ddcca027416f6997067c90e45c173bf55c6fade8",
        "sentence_polarity.xml": "24920f85640238550649a583c1e3bb71ed53a1b3a004f0ddb6ae49051097364b",
        "sentence_polarity.zip": "6e1ed4405b65c7eabf1d199a7f7c437091ac21da0ea7467b410a74062574566b",
        "state_union.xml": "3dde54ebc3ea12ba3ed737f65b1f4ae5dac3a65982dbf2be12af666159f4dd4c",
        "state_union.zip": "366c1dc82b2abf896f42b2ec50ba802a0141a29f75d29ca48a7a243ce5bfbe8d",
        "subjectivity.xml": "1217bcfdb1517e161ab9162c1f2f0b58c6551e52b2e3f7a0ec7d920735487b01",
        "subjectivity.zip": "741f3371e1a4375051b874fd82fd55857b90975473c91c19a3101cbe17fc4d8c",
    }),
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


def file_url(name: str, file: str) -> str:
    repo, commit, folder, _ = FILE_SETS[name]
    base = os.environ.get(URL_ENV) or GITHUB
    return f"{base.rstrip('/')}/{repo}/raw/{commit}/{folder}/{file}"


def fetch_files(name: str, dest: Path, local: Optional[Path] = None) -> str:
    """A FILE_SETS entry: link a local folder of that name, or download and check every file."""
    target = dest / name
    if target.exists():
        return f"{name}: already in {target}"
    folders = local_folders(local)
    for folder in folders:
        if (folder / name).is_dir():
            target.symlink_to((folder / name).resolve(), target_is_directory=True)
            return f"{name}: linked {target} -> {(folder / name).resolve()}"
    files = FILE_SETS[name][3]
    url = file_url(name, "")
    try:
        # Download beside the target and move it in whole: a failed file leaves nothing behind.
        with tempfile.TemporaryDirectory(dir=dest) as tmp:
            folder = Path(tmp) / name
            folder.mkdir()
            for file, sha256 in files.items():
                url = file_url(name, file)
                with urllib.request.urlopen(url, timeout=120) as response:
                    data = response.read()
                digest = hashlib.sha256(data).hexdigest()
                if digest != sha256:
                    raise ValueError(f"{file} has SHA-256 {digest}, not the pinned {sha256}")
                (folder / file).write_bytes(data)
            shutil.move(str(folder), str(target))
    except (OSError, ValueError) as error:
        raise AssetError(_missing_files(name, dest, local, folders, url, error)) from error
    return f"{name}: downloaded {len(files)} files from {file_url(name, '')}"


def _missing_files(
    name: str, dest: Path, local: Optional[Path], folders: List[Path], url: str, error: BaseException
) -> str:
    repo, commit, path, files = FILE_SETS[name]
    reason = getattr(error, "reason", None) or error
    looked = ", ".join(str(folder) for folder in folders) or "nowhere"
    if ASSETS_ENV not in os.environ:
        looked += f" ({ASSETS_ENV} is not set)"
    return (
        f"{name} is missing: no local copy in {looked}, and the download of {url} failed ({reason}).\n"
        f"Put the {len(files)} files {', '.join(files)} of https://github.com/{repo}/tree/{commit}/{path}\n"
        f"in a folder named {name}\n"
        f"  - in {local if local is not None else '../shared/assets'} (the project's vars.local_assets), or\n"
        f"  - in a folder of your choice, named by the environment variable {ASSETS_ENV}, or\n"
        f"  - as {dest / name} itself,\n"
        "and run the step again."
    )


def fetch(name: str, dest: Path, local: Optional[Path] = None) -> str:
    if name in FILE_SETS:
        return fetch_files(name, dest, local)
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
    parser.add_argument(
        "--only", action="append", choices=list(REPOSITORIES) + list(FILE_SETS), metavar="NAME",
        help=f"fetch only these (default: the treebanks, {', '.join(REPOSITORIES)}; also {', '.join(FILE_SETS)})",
    )
    args = parser.parse_args(argv)
    args.dest.mkdir(parents=True, exist_ok=True)
    failed = 0
    for name in args.only or REPOSITORIES:
        try:
            print(fetch(name, args.dest, args.local))
        except AssetError as error:
            print(f"fetch_assets: {error}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
