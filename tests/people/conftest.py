"""The web tests' admin fixtures, for the admin console's open games."""

from tests.web.conftest import _reset_limiter, admin_client, admin_user  # noqa: F401
