#!/usr/bin/env bash
# Install the app into a virtual environment (.venv) and start it on its bundled example.
# Serves at http://localhost:8501 (extra arguments go to `streamlit run`). It asks nothing on first start
# (.streamlit/config.toml: showEmailPrompt = false); with a display it opens the browser there, without one
# (DISPLAY and WAYLAND_DISPLAY unset, as on a server) it runs headless: open the address yourself.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/venv.sh requirements.txt
exec .venv/bin/python -m streamlit run app.py "$@"
