"""Fetch the project's treebanks at fixed revisions, or link a local copy of them.

    python scripts/fetch_assets.py assets --local ../shared/assets

For each repository: if ``--local`` holds a folder of that name, ``assets/<name>`` becomes a
symbolic link to it (no network); otherwise the repository's archive at the pinned commit is
downloaded from GitHub and unpacked there. Existing ``assets/<name>`` folders are kept.
"""
import argparse
import io
import shutil
import sys
import tarfile
import urllib.request
from pathlib import Path

REPOSITORIES = {
    # name: (GitHub repository, pinned commit)
    "UD_English-EWT": ("UniversalDependencies/UD_English-EWT", "15d613d8447b3478787d4c278730a1e48a945efb"),
    "propbank-release": ("propbank/propbank-release", "4abade0b53ce4a181e1d98b3518101c1a44d395a"),
}


def fetch(name: str, dest: Path, local: Path = None) -> str:
    target = dest / name
    if target.exists():
        return f"{name}: already in {target}"
    if local is not None and (local / name).is_dir():
        target.symlink_to((local / name).resolve(), target_is_directory=True)
        return f"{name}: linked {target} -> {(local / name).resolve()}"
    repo, commit = REPOSITORIES[name]
    url = f"https://github.com/{repo}/archive/{commit}.tar.gz"
    with urllib.request.urlopen(url, timeout=120) as response:
        data = response.read()
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        top = archive.getnames()[0].split("/")[0]
        archive.extractall(dest, filter="data")
    shutil.move(str(dest / top), str(target))
    return f"{name}: downloaded {url}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dest", type=Path, help="folder to put the repositories in (assets/)")
    parser.add_argument("--local", type=Path, default=None, help="folder holding local copies")
    args = parser.parse_args(argv)
    args.dest.mkdir(parents=True, exist_ok=True)
    local = args.local if args.local is not None and args.local.is_dir() else None
    for name in REPOSITORIES:
        print(fetch(name, args.dest, local))
    return 0


if __name__ == "__main__":
    sys.exit(main())
