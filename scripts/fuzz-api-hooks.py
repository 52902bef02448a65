"""Schemathesis hooks for scripts/fuzz-api.sh (loaded through SCHEMATHESIS_HOOKS).

The OpenAPI document names the `mtc-address` format for address parameters: the pattern gives the
form, the format adds what JSON Schema cannot say, the CRC-32 of the 30 characters after "MT". Without
this strategy every schema-valid address the fuzzer made would carry a wrong checksum, which the API
rightly refuses with a 400.
"""

import string
import zlib

import schemathesis
from hypothesis import strategies as st

ADDRESS_BODY = st.text(alphabet=string.ascii_letters + string.digits, min_size=30, max_size=30)

schemathesis.openapi.format(
    "mtc-address",
    ADDRESS_BODY.map(lambda body: f"MT{body}{zlib.crc32(body.encode()):08x}"),
)
