#!/usr/bin/env bash
# Build what a release publishes into dist/ (or $1): spacy-lal's sdist and, from that sdist, its
# wheel (so a wheel that builds proves the sdist complete), and one wheel per shipped pipeline.
# Builds in the running environment (--no-isolation: no second download of the build
# requirements per artifact), which needs them: `pip install build "Cython>=3.0" numpy setuptools wheel`.
set -euo pipefail
cd "$(dirname "$0")/.."
dist="${1:-dist}"
rm -rf "$dist" && mkdir -p "$dist"
python -m build --no-isolation --outdir "$dist" .
for name in en_lal_ewt en_lal_ewt_trf; do
    python -m build --no-isolation --wheel --outdir "$dist" "pipelines/$name"
    rm -rf "pipelines/$name/build" "pipelines/$name"/*.egg-info
done
ls -l "$dist"
