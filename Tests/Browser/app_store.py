"""App Store signed data for the browser test, made with the openssl command line: a test authority shaped like Apple's
(a root, an intermediate with Apple's WWDR marker OID, a leaf with the receipt-signing OID), notifications signed with
it as ES256 compact JWS carrying the chain in `x5c`, and an In-App Purchase key for `linkrunway dev fake-app-store-api`.
The server trusts the root through LINKRUNWAY_APP_STORE_ROOT. Apple's payload fields are as its documentation lists
them (https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload).
"""
import base64
import json
import os
import subprocess
import time
import uuid

INTERMEDIATE_OID = "1.2.840.113635.100.6.2.1"
LEAF_OID = "1.2.840.113635.100.6.11.1"


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def openssl(*arguments, data=None):
    return subprocess.run(["openssl", *arguments], input=data, check=True, capture_output=True).stdout


def raw_signature(der):
    """An ECDSA signature from DER (SEQUENCE of two INTEGERs) to the JWS form, r and s of 32 bytes each."""
    assert der[0] == 0x30
    offset = 2 if der[1] < 0x80 else 2 + (der[1] & 0x7f)
    parts = []
    for _ in range(2):
        assert der[offset] == 0x02
        length = der[offset + 1]
        parts.append(der[offset + 2:offset + 2 + length].lstrip(b"\0").rjust(32, b"\0"))
        offset += 2 + length
    return parts[0] + parts[1]


class AppStoreAuthority:
    def __init__(self, directory):
        self.directory = directory
        path = lambda name: os.path.join(directory, name)
        for name in ["root", "intermediate", "leaf"]:
            openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", path(f"{name}.key"))
        # `openssl ca`, since it can date certificates back: Apple's chain is checked at each payload's signedDate.
        with open(path("index.txt"), "w"), open(path("serial"), "w") as serial:
            serial.write("01\n")
        with open(path("ca.cnf"), "w") as file:
            file.write(f"[ca]\ndefault_ca=test\n[test]\ndatabase={path('index.txt')}\nnew_certs_dir={directory}\nserial={path('serial')}\n"
                       "default_md=sha256\npolicy=anything\nunique_subject=no\n[anything]\ncommonName=supplied\n"
                       "[root]\nbasicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n"
                       f"[intermediate]\nbasicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n{INTERMEDIATE_OID}=ASN1:NULL\n"
                       f"[leaf]\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n{LEAF_OID}=ASN1:NULL\n")
        day = lambda offset: time.strftime("%Y%m%d%H%M%SZ", time.gmtime(time.time() + offset * 86_400))
        for name, issuer in [("root", None), ("intermediate", "root"), ("leaf", "intermediate")]:
            openssl("req", "-new", "-key", path(f"{name}.key"), "-subj", f"/CN=Browser Test {name}", "-out", path(f"{name}.csr"))
            signer = ["-selfsign", "-keyfile", path("root.key")] if issuer is None else ["-cert", path(f"{issuer}.pem"), "-keyfile", path(f"{issuer}.key")]
            openssl("ca", "-batch", "-notext", "-config", path("ca.cnf"), *signer, "-in", path(f"{name}.csr"), "-startdate", day(-30),
                    "-enddate", day(365), "-extensions", name, "-out", path(f"{name}.pem"))
        self.chain = [base64.b64encode(openssl("x509", "-in", path(f"{name}.pem"), "-outform", "DER")).decode()
                      for name in ["leaf", "intermediate", "root"]]
        self.root = path("root.pem")

    def sign(self, payload):
        header = b64url(json.dumps({"alg": "ES256", "x5c": self.chain}).encode())
        body = b64url(json.dumps(payload).encode())
        der = openssl("dgst", "-sha256", "-sign", os.path.join(self.directory, "leaf.key"), data=f"{header}.{body}".encode())
        return f"{header}.{body}.{b64url(raw_signature(der))}"

    def notification(self, kind, bundle_id, app_apple_id, transaction, minutes_ago):
        """A production notification about `transaction` (a dict of its fields), sent `minutes_ago`."""
        sent = int(time.time() * 1000) - minutes_ago * 60_000
        signed = self.sign({"environment": "Production", "bundleId": bundle_id, "signedDate": sent, **transaction})
        return self.sign({"notificationType": kind, "notificationUUID": str(uuid.uuid4()), "signedDate": sent, "version": "2.0",
                          "data": {"appAppleId": app_apple_id, "bundleId": bundle_id, "environment": "Production", "signedTransactionInfo": signed}})


def in_app_purchase_key(directory, key_id):
    """An In-App Purchase key as App Store Connect gives it: AuthKey_<key id>.p8, a P-256 key in PKCS#8 PEM."""
    path = os.path.join(directory, f"AuthKey_{key_id}.p8")
    openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path)
    return path
