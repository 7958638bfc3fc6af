"""The web tests' admin fixtures, for the admin console's open games (each app counts log-ins afresh)."""

from tests.web.conftest import admin_client, admin_user  # noqa: F401
