#!/usr/bin/env bash
# Install the app into a virtual environment (.venv) and start it on its bundled example.
# Opens at http://localhost:8501 (extra arguments go to `streamlit run`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/venv.sh requirements.txt
exec .venv/bin/python -m streamlit run app.py "$@"
