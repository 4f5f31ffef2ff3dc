#!/usr/bin/env bash
# Build .gpucheck/, what scripts/gpu_check.sh needs on a GPU machine that has Python, torch, CuPy
# and transformers but no spaCy and no package index (the device machines lent to some sessions,
# issue #38): the spaCy stack installed here at its versions here, as one tarball of a
# site-packages folder for that machine's Python (shared libraries stripped of their debug
# symbols, spaCy's tests left out: 26 MB instead of 58 MB of wheels), EWT
# train and dev (corpus/ewt, `python -m spacy_lal convert ewt`) and 20,000 rows of GloVe.
#
#   scripts/gpu_bundle.sh [PYTHON_VERSION]     # default 3.12
#
# Needs the project's environment (.venv) and network access to the package index (or its cache).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${1:-3.12}
BUNDLE=.gpucheck
PACKAGES="spacy thinc blis srsly cymem murmurhash preshed catalogue confection wasabi weasel spacy-legacy
spacy-loggers pydantic pydantic_core annotated-types typing-inspection cloudpathlib smart_open"
pins=$(for p in $PACKAGES; do python -c "import importlib.metadata as m; print('$p==' + m.version('$p'))"; done)
rm -rf "$BUNDLE"
mkdir -p "$BUNDLE"
wheels=$(mktemp -d)
site=$(mktemp -d)
trap 'rm -rf "$wheels" "$site"' EXIT
platforms="--platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_24_x86_64
--platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform manylinux1_x86_64"
# shellcheck disable=SC2086
python -m pip download -q --no-deps --only-binary=:all: --python-version "$PY" --implementation cp $platforms \
  -d "$wheels" $pins
# shellcheck disable=SC2086
python -m pip install -q --no-deps --only-binary=:all: --python-version "$PY" --implementation cp $platforms \
  --target "$site" "$wheels"/*.whl
find "$site" -name "*.so" -exec strip --strip-unneeded {} +
rm -rf "$site/spacy/tests" "$site/bin"

find "$site" -name __pycache__ -prune -exec rm -rf {} +
tar czf "$BUNDLE/site.tgz" -C "$site" .
cp corpus/ewt/train.spacy corpus/ewt/dev.spacy "$BUNDLE/"
python -m spacy_lal vectors "$BUNDLE/vectors" --rows 20000 >/dev/null
du -sh "$BUNDLE"
