#!/usr/bin/env bash
# Install the app into a virtual environment (.venv) and start it on its bundled example.
# The project itself is installed there too (editable: `pip install -e .`), so `.venv/bin/python` runs the
# library and the scripts the app hands out (a release's rerun script) from any folder, and `.venv/bin/dpsynth`
# is the command line. Serves at http://localhost:8501 (extra arguments go to `streamlit run`). It asks nothing
# on first start (.streamlit/config.toml: showEmailPrompt = false); with a display it opens the browser there,
# without one (DISPLAY and WAYLAND_DISPLAY unset, as on a server) it runs headless: open the address yourself.
set -euo pipefail
cd "$(dirname "$0")/.."
first=0
[ -x .venv/bin/python ] || first=1
if [ "$first" = 1 ]; then
  echo "First start: installing the app's packages into .venv (a few minutes; pip shows each package)..."
  DPSYNTH_PIP_PROGRESS=1 bash scripts/venv.sh requirements.txt
else
  bash scripts/venv.sh requirements.txt
fi
if ! .venv/bin/python -c "import importlib.metadata as m; m.version('dpsynth')" >/dev/null 2>&1; then
  echo "Installing dpsynth itself into .venv (editable)..."
  .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -e .
fi
exec .venv/bin/python -m streamlit run app.py "$@"
