"""The web tests' admin fixtures, for the admin console's open games; a fresh sign-in limiter per test."""

import pytest

from pbem.web.signin import limiter as signin_limiter
from tests.web.conftest import _reset_limiter, admin_client, admin_user  # noqa: F401


@pytest.fixture(autouse=True)
def _reset_signin_limiter():
    signin_limiter.reset()
    yield
    signin_limiter.reset()
