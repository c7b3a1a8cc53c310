"""Schemathesis hooks for LinkRunway: each operation gets a real key of a kind it accepts (its
x-linkrunway-key-kinds), so the generated requests reach the handlers instead of stopping at 401. (Not cached: the key
depends on the operation.)"""
import os

import schemathesis


@schemathesis.auth(refresh_interval=None)
class KeyOfAcceptedKind:
    def get(self, case, context):
        kinds = case.operation.definition.raw.get("x-linkrunway-key-kinds", [])
        if "admin" in kinds:
            return os.environ["LINKRUNWAY_ADMIN_KEY"]
        if "publishable" in kinds:
            return os.environ["LINKRUNWAY_PUBLISHABLE_KEY"]
        return None

    def set(self, case, data, context):
        if data:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}
