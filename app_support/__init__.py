"""Streamlit-only helpers for the app: session state, cached wrappers around core calls, the sidebar.

Pages import from here and from ``dpsynth_core``; nothing in ``dpsynth_core`` imports this.
"""
