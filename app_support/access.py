"""Who is looking: a reviewer (a link's token), a publisher, or someone who must sign in first.

A reviewer link (``/?review=TOKEN``) turns the session into review mode for good: only the
Review and Learn pages exist for it (``st.navigation`` serves no other page, so a publisher page's
address leads back to Review), no sidebar of the data in use. When the server listens beyond this
computer (``server.address`` not a loopback address), whenever an account exists (a loopback server behind a
proxy or a tunnel) or when ``DPSYNTH_REQUIRE_LOGIN=1``, the publisher pages need a signed-in account. A link
revoked while a reviewer's tab is open ends that review session at its next interaction.
Accounts, tokens and the releases a link opens live in the core (``dpsynth_core.workspace.access``).
"""

from __future__ import annotations

import math

import streamlit as st

from app_support import state
from dpsynth_core.workspace.access import SignInPaused

REVIEW = "review_releases"  # the release ids this session's reviewer link opens
TOKEN = "review_token"
ACCOUNT = "signed_in_account"


def role() -> str:
    """ "reviewer", "publisher", "sign in" or "invalid link"."""
    ss = st.session_state
    token = st.query_params.get("review")
    if token and token != ss.get(TOKEN):
        ids = state.workspace().access.releases_for(token)
        if ids is None:
            return "invalid link"
        ss[REVIEW], ss[TOKEN] = ids, token
    if REVIEW in ss:
        if token is None or token == ss[TOKEN]:  # a link revoked since ends the session at its next interaction
            if state.workspace().access.releases_for(ss[TOKEN]) is None:
                del ss[REVIEW], ss[TOKEN]
                return "invalid link"
        if st.query_params.get("review") != ss[TOKEN]:
            st.query_params["review"] = ss[TOKEN]  # kept in the address, so a reload stays in review mode
        return "reviewer"
    if ACCOUNT not in ss and state.workspace().access.login_needed(st.get_option("server.address")):
        return "sign in"
    return "publisher"


def sign_in_page() -> None:
    st.title("Sign in")
    st.markdown(
        "This app's publisher pages need an account (it is served beyond the publisher's computer, or "
        "accounts were made for it). "
        "Reviewers open the link they were given instead."
    )
    if not state.workspace().access.accounts():
        st.info("No account yet. On the server, create one with `python -m dpsynth_core account add NAME`.")
    with st.form("sign_in"):
        name = st.text_input("Account", key="sign_in_name")
        password = st.text_input("Password", type="password", key="sign_in_password")
        if st.form_submit_button("Sign in", type="primary"):
            try:
                right = state.workspace().access.sign_in(name, password, client=st.context.ip_address or "")
            except SignInPaused as paused:
                st.error(f"Too many failed sign-ins: try again in {math.ceil(paused.seconds)} seconds.")
                return
            if right:
                st.session_state[ACCOUNT] = name
                st.rerun()
            st.error("That account and password do not match.")


def invalid_link_page() -> None:
    st.title("This reviewer link does not open anything")
    st.error("It was revoked, or it is incomplete: ask the publisher for a new one.")


def review_sidebar() -> None:
    with st.sidebar:
        st.markdown("### Review mode")
        st.caption(
            "You are seeing releases shared with you: synthetic data with its differential-privacy "
            "guarantee, its card and its reports. Nothing here shows the real data."
        )
