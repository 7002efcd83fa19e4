"""The peer a team would write instead: the source design's boto3 code for each read access pattern,
as Python 3 Lambda handlers behind API Gateway (HTTP API, payload 2.0)."""

import json
import os
from decimal import Decimal

import boto3
from boto3.dynamodb.conditions import Key

# As the source design does it: one resource and table per cold start.
dynamodb = boto3.resource("dynamodb")
table = dynamodb.Table(os.environ["TABLE_NAME"])

# The variant that does the first request's one-time work in init, where on-demand Lambda runs
# it at full CPU (store-bench sets BENCH_FIRST_REQUEST_IN_INIT=1): one read of a key no item has,
# which loads the operation's model and serialisers, resolves the credentials and the endpoint,
# and opens the connection, TLS handshake included.
if os.environ.get("BENCH_FIRST_REQUEST_IN_INIT") == "1":
    table.get_item(Key={"PK": "WARMUP", "SK": "WARMUP"})


def _json(body, status=200):
    def default(value):
        if isinstance(value, Decimal):
            return str(value)
        raise TypeError(type(value))

    return {
        "statusCode": status,
        "headers": {"content-type": "application/json"},
        "body": json.dumps(body, default=default),
    }


def get_customer(event, context):
    customer_id = event["pathParameters"]["customerId"]
    profile = table.get_item(Key={"PK": f"CUSTOMER#{customer_id}", "SK": "PROFILE"}).get("Item")
    if profile is None:
        return _json({"message": "not found"}, 404)
    return _json(profile)


def list_customer_orders(event, context):
    customer_id = event["pathParameters"]["customerId"]
    orders = table.query(
        KeyConditionExpression=Key("PK").eq(f"CUSTOMER#{customer_id}") & Key("SK").begins_with("ORDER#"),
        ScanIndexForward=False,
    )["Items"]
    return _json({"items": orders})


def get_order_items(event, context):
    order_id = event["pathParameters"]["orderId"]
    items = table.query(
        KeyConditionExpression=Key("PK").eq(f"ORDER#{order_id}") & Key("SK").begins_with("ITEM#"),
    )["Items"]
    return _json({"items": items})


def list_orders_by_status(event, context):
    status = event["queryStringParameters"]["status"]
    placed = table.query(
        IndexName="GSI1",
        KeyConditionExpression=Key("GSI1PK").eq(f"STATUS#{status}"),
    )["Items"]
    return _json({"items": placed})
