#!/usr/bin/env bash
# The README's test command: build the release, install it as users do (the wheels, no -e) into
# a fresh virtual environment, check it (scripts/check_release.py), and run the tests against
# the installed package from outside the checkout: the default suite, then the slow one
# (training, the behavioural bar, the demo workflow). Any skip but a GPU test's fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
venv=.release/venv
rm -rf .release && python3 -m venv "$venv"
"$venv/bin/pip" install -q torch==2.13.0 build "Cython>=3.0" numpy setuptools wheel
PATH="$root/$venv/bin:$PATH" bash scripts/build_release.sh .release/dist
"$venv/bin/python" scripts/check_release.py files .release/dist
wheel=$(ls .release/dist/spacy_lal-*.whl)
"$venv/bin/pip" install -q "$wheel[test]" .release/dist/en_lal_ewt-*.whl .release/dist/en_lal_ewt_trf-*.whl

# From an empty folder, with the checkout kept off sys.path (PYTHONSAFEPATH: no cwd for -m),
# so that every import of spacy_lal is the installed one; conftest refuses a checkout import.
work=$(mktemp -d)
cd "$work"
export PYTHONSAFEPATH=1 SPACY_LAL_INSTALLED=1 SPACY_LAL_STRICT_SKIPS=1 PATH="$root/$venv/bin:$PATH"
python "$root/scripts/check_release.py" installed
pytest=(python -m pytest -c "$root/pyproject.toml" --rootdir "$root" -p no:cacheprovider)
# The slowest tests are listed: the default suite's time is a bar (issue #53), and this is where
# it is seen.
"${pytest[@]}" "$root/tests" --durations=25
"${pytest[@]}" "$root/tests" -m slow
