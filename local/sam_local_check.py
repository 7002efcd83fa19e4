#!/usr/bin/env python3
"""`make sam-local`: every function of template.yaml run by SAM CLI on real containers.

`sam local invoke` runs each function's `sam build` artifact on its sample event from events/
and the answer is checked (status code and body); `sam local start-api` then serves
template.yaml's routes and each gets one request; the stream consumer gets its stream event.
The functions talk to a fresh `make dev` engine (store-local) on 127.0.0.1:8000, which the
containers reach as host.docker.internal:8000 (local/sam-env.json).

No container engine: a failure with the reason under CI (CI=true), a skip elsewhere.
"""

import hashlib
import hmac
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STORE_LOCAL = os.path.join(ROOT, "target", "debug", "store-local")
API_PORT = 3055  # start-api's; make dev's own API moves off 3000 too, out of the way

# Any value, as long as there is one.
ANY = object()

# Function, event, expected status, and what the body must hold (dotted path -> value).
INVOKES = [
    ("GetCustomerFunction", "get-customer", 200, {"customerId": "c1", "name": "Ana Torres"}),
    ("ListCustomerOrdersFunction", "list-customer-orders", 200, {"items.0.orderId": ANY}),
    ("GetOrderItemsFunction", "get-order-items", 200, {"items.0.sku": "sku-1", "items.0.price": "19.95"}),
    ("ListOrdersByStatusFunction", "list-orders-by-status", 200, {"items.0.status": "PLACED"}),
    ("GetOrderFunction", "get-order", 200, {"orderId": "o100", "customerId": "c1"}),
    # o100's ledger: placed without payment, so nothing paid and nothing to refund.
    ("GetOrderFunction", "get-order-payments", 200, {"orderId": "o100", "paid": 0, "refundable": 0}),
    ("RefundOrderFunction", "refund-order", 409, {"type": "/problems/refund-refused"}),
    ("PutCustomerFunction", "put-customer", 201, {"customerId": "c7", "name": "Gita Rao"}),
    ("PlaceOrderFunction", "place-order", 201, {"total": "44.40", "status": "PLACED"}),
    # The order just placed holds sku-1: its line is under the product in GSI2.
    ("ListProductOrdersFunction", "list-product-orders", 200, {"items.0.customerId": "c1", "items.0.quantity": 2}),
    # Staff ship one of o100's two mugs with its tracking: PARTIALLY_SHIPPED; then the status
    # change ships the rest (a fulfilment of everything left).
    ("ShipOrderFunction", "ship-order", 201, {"status": "SHIPPED", "lines.0.sku": "sku-1", "lines.0.quantity": 1, "carrier": "DHL"}),
    ("UpdateOrderStatusFunction", "update-order-status", 200, {"orderId": "o100", "status": "SHIPPED"}),
    # o101's shipment (sample data: SHIPPED) delivered; one of o104's three coffees cancelled
    # before it shipped (unpaid: nothing to refund), the order still PLACED.
    ("UpdateFulfilmentFunction", "update-fulfilment", 200, {"fulfilmentId": "ff_o101", "status": "DELIVERED", "deliveredAt": ANY}),
    ("CancelLinesFunction", "cancel-lines", 201, {"lines.0.sku": "sku-7", "lines.0.quantity": 1, "orderStatus": "PLACED"}),
    # Returns: staff record one of o102's coffee (delivered in October, past the customer's
    # window); staff's work list shows the sample data's rt_o106 first; they approve it, and
    # receive the sample rt_o110 damaged: nothing back into stock, no refund (never paid).
    ("RequestReturnFunction", "request-return", 201, {"status": "REQUESTED", "lines.0.sku": "sku-7"}),
    ("ListReturnsFunction", "list-returns", 200, {"items.0.returnId": "rt_o106", "items.1.orderId": "o102"}),
    ("UpdateReturnFunction", "update-return", 200, {"returnId": "rt_o106", "status": "APPROVED"}),
    ("ReceiveReturnFunction", "receive-return", 201, {"returnId": "rt_o110", "status": "RECEIVED", "received.0.damaged": 1}),
    ("GetProductFunction", "get-product", 200, {"productId": "sku-1", "variants.0.price": "19.95"}),
    ("GetVariantFunction", "get-variant", 200, {"sku": "sku-1", "price": "19.95", "inStock": True}),
    ("ListProductsFunction", "list-products", 200, {"items.0.productId": ANY}),
    # The sample tree: home > kitchen; tea put under the kitchen; the kitchen's products by price.
    ("PutCategoryFunction", "put-category", 201, {"categoryId": "tea", "parentId": "kitchen"}),
    ("ListCategoriesFunction", "list-categories", 200, {"categories.0.categoryId": "home"}),
    ("ListCategoryProductsFunction", "list-category-products", 200, {"items.0.productId": "sku-1", "items.0.price": "19.95"}),
    # A tee in Size x Colour: four variants, each new SKU at stock 0.
    ("PutProductFunction", "put-product", 201, {"productId": "plain-tee", "variants.3.sku": "tee-m-blue", "variants.3.stock": 0}),
    ("AdjustStockFunction", "adjust-stock", 200, {"sku": "sku-1", "stock": 123}),
    # A picture of the mug: a form signed for make dev's bucket (moto's S3); removing a picture
    # the mug does not have is a 404.
    ("AddProductMediaFunction", "add-product-media", 201, {"mediaId": ANY, "upload.url": "http://host.docker.internal:8430/store-mediabucket", "upload.fields.Content-Type": "image/png"}),
    ("RemoveProductMediaFunction", "remove-product-media", 404, {"type": "/problems/not-found"}),
    # The sample ways to ship: standard replaced with its countries, regions and bands, then those serving
    # California, by name.
    ("PutShippingOptionFunction", "put-shipping-option", 200, {"optionId": "standard", "rate.byWeight.1.amount": "9.50"}),
    ("ListShippingOptionsFunction", "list-shipping-options", 200, {"items.0.optionId": "express", "items.1.optionId": "standard"}),
    # France's tax set (new), and the United States' as the sample data has it.
    ("PutTaxRateFunction", "put-tax-rate", 201, {"country": "FR", "rate": "0.2", "shippingTaxed": True}),
    ("GetTaxRateFunction", "get-tax-rate", 200, {"country": "US", "regions.US-CA": "0.0725"}),
    # A spring promotion for the kitchen (code SPRING15); c2's cart quoted with the sample
    # SAVE10, express to New York and its tax: 43.95 - 4.40 + 15.00 + 3.51.
    ("PutPromotionFunction", "put-promotion", 201, {"promotionId": "spring-sale", "code": "SPRING15"}),
    ("QuoteCartFunction", "quote-cart", 200, {"discount": "4.40", "shipping": "15.00", "tax": "3.51", "total": "58.06"}),
    # c1's cart: a line of sku-2 held, read back, removed, then the cart emptied.
    ("EditCartFunction", "edit-cart", 200, {"items.0.sku": "sku-2", "items.0.quantity": 2}),
    ("GetCartFunction", "get-cart", 200, {"items.0.sku": "sku-2"}),
    ("EditCartFunction", "edit-cart-remove-line", 204, {}),
    ("EditCartFunction", "edit-cart-clear", 204, {}),
    # c2's sample cart (sku-1, 2 x sku-3) checked out: a hold, and the PaymentIntent the
    # function in its container asked make dev's provider for (host.docker.internal:8420).
    ("CheckoutFunction", "checkout", 201, {"status": "PENDING_PAYMENT", "total": "43.95", "payment.amount": 4395, "payment.currency": "usd", "payment.paymentIntentId": ANY, "payment.clientSecret": ANY, "paymentIntentId": ANY, "holdUntil": ANY}),
]

# local/sam-env.json's PAYMENT_WEBHOOK_SECRET: the sample webhook event is signed again with it
# at the time of the invoke, as the provider signs each delivery (a signature is good for 300 s).
WEBHOOK_SECRET = "whsec_test_local_only"


def signed_webhook_event():
    """events/payment-webhook.json, its Stripe-Signature made now; the path of the copy."""
    with open(os.path.join(ROOT, "events", "payment-webhook.json")) as f:
        event = json.load(f)
    t = int(time.time())
    mac = hmac.new(WEBHOOK_SECRET.encode(), f"{t}.{event['body']}".encode(), hashlib.sha256).hexdigest()
    event["headers"]["stripe-signature"] = f"t={t},v1={mac}"
    path = os.path.join(tempfile.mkdtemp(prefix="sam-local-event-"), "payment-webhook.json")
    with open(path, "w") as f:
        json.dump(event, f)
    return path


def fail(message):
    print(f"sam-local: FAILED: {message}", flush=True)
    sys.exit(1)


def container_engine():
    """The Docker-compatible socket SAM will use, if one answers."""
    host = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    path = host.removeprefix("unix://")
    if not host.startswith("unix://") or not os.path.exists(path):
        return None
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(5)
        sock.connect(path)
        sock.sendall(b"GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n")
        answer = sock.recv(64)
        sock.close()
        return path if b" 200 " in answer else None
    except OSError:
        return None


def pick(body, path):
    for part in path.split("."):
        if isinstance(body, list):
            body = body[int(part)] if int(part) < len(body) else None
        elif isinstance(body, dict):
            body = body.get(part)
        else:
            return None
    return body


def sam(args, **kwargs):
    return subprocess.run(["sam", *args, "--skip-pull-image"], cwd=ROOT, capture_output=True, text=True, **kwargs)


def invoke(function, event):
    path = event if os.path.isabs(event) else f"events/{event}.json"
    out = sam(["local", "invoke", function, "-e", path], timeout=300)
    lines = [line for line in out.stdout.splitlines() if line.strip().startswith("{")]
    if out.returncode != 0 or not lines:
        fail(f"sam local invoke {function}: exit {out.returncode}\n{out.stdout}\n{out.stderr[-3000:]}")
    return json.loads(lines[-1])


def wait_for(port, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.5)
    return False


def main():
    engine = container_engine()
    if engine is None:
        why = "no container engine answers (DOCKER_HOST or /var/run/docker.sock): install Docker, or run ../shared/tools/lambda-containers.sh"
        if os.environ.get("CI") == "true":
            fail(why)
        print(f"sam-local: skipped: {why}")
        return
    if not os.path.isdir(os.path.join(ROOT, ".aws-sam", "build")):
        fail("no sam build artifacts: run `make build` first")
    for port in (8000, 8420, 8430):
        if wait_for(port, 0.01):
            fail(f"127.0.0.1:{port} is taken (make dev?): the check runs its own fresh engine, provider and events' server there")

    data = tempfile.mkdtemp(prefix="sam-local-")
    env = dict(os.environ, STORE_DATA_FILE=os.path.join(data, "store.db"), API_PORT="3056", DYNAMODB_PORT="8000",
               # make dev's provider, which checkout in its container asks as
               # host.docker.internal:8420 (local/sam-env.json).
               PAYMENT_PORT="8420",
               # make dev's events' server (moto), which the publisher and the emails in their
               # containers reach as host.docker.internal:8430 (samconfig's LocalEventsEndpoint).
               EVENTS_PORT="8430",
               # Its own refunds payer waits an hour: the refund the webhook records is the one
               # the payer's function, in its container, is checked sending.
               REFUNDS_EVERY_SECONDS="3600")
    store = subprocess.Popen([STORE_LOCAL], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    api = None
    try:
        if not wait_for(8000, 60):
            fail("store-local did not start")
        started = time.time()
        for function, event, status, expected in INVOKES:
            answer = invoke(function, event)
            body = json.loads(answer.get("body") or "null")
            if answer.get("statusCode") != status:
                fail(f"{function}: status {answer.get('statusCode')}, expected {status}: {body}")
            for path, value in expected.items():
                found = pick(body, path)
                if (found is None) if value is ANY else (found != value):
                    fail(f"{function}: {path} is {pick(body, path)!r}, expected {value!r}: {body}")
            print(f"sam-local: invoke {function:28} {status} ok", flush=True)
        answer = invoke("OrderStatsFunction", "order-stats")
        if answer != {"batchItemFailures": []}:
            fail(f"OrderStatsFunction: {answer}")
        print("sam-local: invoke OrderStatsFunction           batch applied, no failures", flush=True)
        # The schedule's run: the hold just made lasts 15 minutes, so nothing ends yet.
        answer = invoke("ExpireHoldsFunction", "expire-holds")
        if answer.get("expired") != 0 or answer.get("unfinished") is not False:
            fail(f"ExpireHoldsFunction: {answer}")
        print("sam-local: invoke ExpireHoldsFunction          run reported, nothing due", flush=True)
        # A signed payment naming no order of the sample data: recorded to be given back.
        answer = invoke("PaymentWebhookFunction", signed_webhook_event())
        body = json.loads(answer.get("body") or "null")
        if answer.get("statusCode") != 200 or body.get("outcome") != "refund-due" or body.get("reason") != "unknown-order":
            fail(f"PaymentWebhookFunction: {answer}")
        print("sam-local: invoke PaymentWebhookFunction       200 refund-due ok", flush=True)
        answer = invoke("ListRefundsFunction", "list-refunds")
        body = json.loads(answer.get("body") or "null")
        if answer.get("statusCode") != 200 or pick(body, "items.0.paymentId") != "pi_sample_1":
            fail(f"ListRefundsFunction: {answer}")
        print("sam-local: invoke ListRefundsFunction          200 ok", flush=True)
        # The payer sends that refund to make dev's provider, which has no such payment: the
        # provider's refusal is recorded, FAILED with its reason.
        answer = invoke("PayRefundsFunction", "pay-refunds")
        if answer.get("failed") != 1 or answer.get("unsettled") != []:
            fail(f"PayRefundsFunction: {answer}")
        print("sam-local: invoke PayRefundsFunction           run reported, the provider's refusal FAILED", flush=True)
        # The publisher: the sample stream batch (o100 paid, a refund, sku-1 below its
        # threshold) published to make dev's bus, nothing reported failed.
        answer = invoke("PublishEventsFunction", "publish-events")
        if answer != {"batchItemFailures": []}:
            fail(f"PublishEventsFunction: {answer}")
        print("sam-local: invoke PublishEventsFunction        batch published, no failures", flush=True)
        # The emails: the sample message (o100 placed, c1's) emailed through make dev's SES.
        answer = invoke("EmailCustomersFunction", "email-customers")
        if answer != {"batchItemFailures": []}:
            fail(f"EmailCustomersFunction: {answer}")
        sent = json.load(urllib.request.urlopen("http://127.0.0.1:8430/moto-api/data.json"))["ses"]["Message"]
        if not any(m["subject"] == "Your order o100 is placed" and m["destinations"]["ToAddresses"] == ["ana@example.com"] for m in sent):
            fail(f"EmailCustomersFunction: no email to ana@example.com among {sent}")
        print("sam-local: invoke EmailCustomersFunction       emailed, no failures", flush=True)
        # A picture's arrival whose object is not in the bucket (removed since): nothing to
        # show, nothing reported failed.
        answer = invoke("CheckMediaFunction", "check-media")
        if answer != {"batchItemFailures": []}:
            fail(f"CheckMediaFunction: {answer}")
        print("sam-local: invoke CheckMediaFunction           checked, no failures", flush=True)
        extra_invokes = 8

        # start-api serves template.yaml's routes; it does not run JWT authorizers, so each
        # function sees no claims and answers 401 itself (defence in depth) - which is what a
        # request per route proves: routed, run in a container, answered by the function.
        api = subprocess.Popen(
            ["sam", "local", "start-api", "--skip-pull-image", "--port", str(API_PORT)],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        if not wait_for(API_PORT, 120):
            fail("sam local start-api did not start")
        routes = [
            ("GET", "/customers/c1"), ("PUT", "/customers/c1"), ("GET", "/customers/c1/orders"),
            ("POST", "/customers/c1/orders"), ("GET", "/orders?status=PLACED"), ("GET", "/orders/o100"),
            ("GET", "/orders/o100/items"), ("PATCH", "/orders/o100"), ("GET", "/products"),
            ("GET", "/products/sku-1"), ("PUT", "/products/sku-1"), ("GET", "/variants/sku-1"),
            ("POST", "/products/sku-1/media"), ("DELETE", "/products/sku-1/media/md_1"),
            ("POST", "/variants/sku-1/stock"), ("GET", "/variants/sku-1/orders"), ("GET", "/customers/c1/cart"),
            ("GET", "/categories"), ("PUT", "/categories/tea"), ("GET", "/categories/kitchen/products"),
            ("PUT", "/customers/c1/cart/items/sku-1"), ("DELETE", "/customers/c1/cart/items/sku-1"),
            ("DELETE", "/customers/c1/cart"), ("POST", "/customers/c1/checkout"),
            ("GET", "/payments/refunds"), ("GET", "/orders/o100/payments"),
            ("POST", "/orders/o100/refunds"), ("POST", "/orders/o100/fulfilments"),
            ("PATCH", "/orders/o100/fulfilments/ff_o100"), ("POST", "/orders/o104/cancellations"),
            ("POST", "/orders/o102/returns"), ("PATCH", "/orders/o102/returns/rt_1"),
            ("POST", "/orders/o102/returns/rt_1/receipt"), ("GET", "/returns"),
            ("PUT", "/shipping-options/standard"), ("GET", "/shipping-options?country=US"),
            ("PUT", "/tax-rates/FR"), ("GET", "/tax-rates/US"),
            ("PUT", "/promotions/spring-sale"), ("GET", "/customers/c2/cart/quote"),
        ]
        for method, path in routes:
            connection = http.client.HTTPConnection("127.0.0.1", API_PORT, timeout=120)
            connection.request(method, path, body="{}" if method in ("PUT", "POST", "PATCH") else None,
                               headers={"content-type": "application/json"})
            response = connection.getresponse()
            body = json.loads(response.read() or b"null")
            if response.status != 401 or body.get("type") != "/problems/unauthorized":
                fail(f"start-api {method} {path}: {response.status} {body}")
            print(f"sam-local: start-api {method:5} {path:28} 401 from the function ok", flush=True)
        # The storefront's routes have no authorizer either: without a token, each function
        # answers what customers see.
        storefront = [("/storefront/products/sku-1", "productId"), ("/storefront/variants/sku-1", "sku"),
                      ("/storefront/categories", "categories"), ("/storefront/products", "items"),
                      ("/storefront/categories/kitchen/products", "items"),
                      ("/storefront/shipping-options?country=DE", "items")]
        for path, field in storefront:
            connection = http.client.HTTPConnection("127.0.0.1", API_PORT, timeout=120)
            connection.request("GET", path)
            response = connection.getresponse()
            body = json.loads(response.read() or b"null")
            if response.status != 200 or field not in body or '"stock"' in json.dumps(body):
                fail(f"start-api GET {path}: {response.status} {body}")
            print(f"sam-local: start-api GET   {path:40} 200 without a token ok", flush=True)
        # The webhook has no authorizer: unsigned, the function refuses it with a 400.
        connection = http.client.HTTPConnection("127.0.0.1", API_PORT, timeout=120)
        connection.request("POST", "/payments/webhook", body="{}", headers={"content-type": "application/json"})
        response = connection.getresponse()
        body = json.loads(response.read() or b"null")
        if response.status != 400 or body.get("type") != "/problems/invalid-request":
            fail(f"start-api POST /payments/webhook: {response.status} {body}")
        print("sam-local: start-api POST  /payments/webhook           400 unsigned, from the function ok", flush=True)
        print(f"sam-local: {len(INVOKES) + 1 + extra_invokes} invokes and {len(routes) + len(storefront) + 1} routes passed in {time.time() - started:.0f} s")
    finally:
        if api is not None:
            api.terminate()  # SIGTERM: start-api ignores SIGINT when backgrounded
            api.wait(timeout=30)
        store.terminate()
        store.wait(timeout=30)


if __name__ == "__main__":
    main()
