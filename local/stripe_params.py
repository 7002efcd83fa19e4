"""Extracts, from stripe-node's type declarations, the request parameters of the provider
operations the store's client sends: their names, types and (for enums) values. stripe-node is
generated from the provider's published OpenAPI description (stripe/openapi; the package's
OPENAPI_VERSION names the spec version), so this is that description's view of each request.

    python3 local/stripe_params.py PACKAGE_DIR > provider/tests/stripe-params.json

PACKAGE_DIR is an unpacked `npm pack stripe@<version>` (its `package/`); `make stripe-params`
does both. provider/tests/openapi.rs holds the client's requests to the file.
"""

import json
import re
import sys
from pathlib import Path

# The operations the client sends, and the interface that describes each one's parameters.
OPERATIONS = {
    "POST /v1/payment_intents": ("PaymentIntents", "PaymentIntentCreateParams"),
    "GET /v1/payment_intents/{intent}": ("PaymentIntents", "PaymentIntentRetrieveParams"),
    "POST /v1/payment_intents/{intent}/cancel": ("PaymentIntents", "PaymentIntentCancelParams"),
    "POST /v1/refunds": ("Refunds", "RefundCreateParams"),
    "GET /v1/refunds": ("Refunds", "RefundListParams"),
    "GET /v1/refunds/{refund}": ("Refunds", "RefundRetrieveParams"),
}

# What `extends PaginationParams` adds (stripe-node's shared declaration).
PAGINATION = {
    "limit": {"type": "integer"},
    "starting_after": {"type": "string"},
    "ending_before": {"type": "string"},
}


def block(text, opener):
    """The body of the `{ ... }` that follows `opener`, braces balanced."""
    at = text.index(opener)
    start = text.index("{", at)
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[start + 1 : i]
    raise ValueError(f"unbalanced block after {opener}")


def enum_values(text, namespace, alias):
    body = block(text, f"export declare namespace {namespace} {{")
    match = re.search(rf"\btype {alias} =([^;]+);", body)
    if not match:
        return None
    values = re.findall(r"'([^']*)'", match.group(1))
    return values or None


def kind(text, interface, raw):
    raw = raw.strip()
    raw = re.sub(r"^Emptyable<(.+)>$", r"\1", raw)
    if raw == "number":
        return {"type": "integer"}
    if raw == "string":
        return {"type": "string"}
    if raw == "boolean":
        return {"type": "boolean"}
    if raw in ("MetadataParam", "Metadata"):
        return {"type": "metadata"}
    array = re.match(r"^Array<(.+)>$", raw)
    if array:
        return {"type": "array", "items": kind(text, interface, array.group(1))}
    alias = re.match(rf"^{interface}\.(\w+)$", raw)
    if alias:
        values = enum_values(text, interface, alias.group(1))
        if values:
            return {"type": "string", "enum": values}
        return {"type": "object"}
    return {"type": "other", "declared": raw}


def parameters(text, interface):
    opener = f"export interface {interface} "
    header = text[text.index(opener) : text.index("{", text.index(opener))]
    fields = {}
    for line in block(text, opener).split("\n"):
        field = re.match(r"^    (\w+)(\??): (.+);$", line)
        if field:
            name, optional, raw = field.groups()
            fields[name] = {**kind(text, interface, raw), "required": optional != "?"}
    if "extends PaginationParams" in header:
        fields.update({k: {**v, "required": False} for k, v in PAGINATION.items()})
    return fields


def main():
    package = Path(sys.argv[1])
    resources = package / "esm" / "resources"
    out = {
        "source": "stripe-node "
        + json.loads((package / "package.json").read_text())["version"]
        + ", generated from stripe/openapi "
        + (package / "OPENAPI_VERSION").read_text().strip(),
        "apiVersion": re.search(
            r"ApiVersion = '([^']+)'", (package / "esm" / "apiVersion.js").read_text()
        ).group(1),
        "operations": {},
    }
    for operation, (resource, interface) in OPERATIONS.items():
        text = (resources / f"{resource}.d.ts").read_text()
        out["operations"][operation] = parameters(text, interface)
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
