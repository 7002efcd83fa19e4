"""Orders as they were written before GSI2, for rehearsing `make migrate` on make dev's engine:
half with the source design's own boto3 calls (the listing item and the line items, `put_item`
one by one as its code does, no header), half the way this store's API wrote them before GSI2
(the same, plus the order's header). None carries GSI2 keys.

    .venv-bench/bin/python bench/python/legacy_orders.py --orders 10000 [--endpoint URL]
"""

import argparse
import random
from decimal import Decimal

import boto3

SKUS = [("sku-1", "19.95"), ("sku-2", "4.50"), ("sku-3", "12.00"), ("sku-4", "7.25"),
        ("sku-5", "0.99"), ("sku-6", "149.00"), ("sku-7", "3.10"), ("sku-8", "64.00")]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--orders", type=int, default=10000)
    parser.add_argument("--endpoint", default="http://127.0.0.1:8000")
    parser.add_argument("--table", default="AppTable")
    args = parser.parse_args()
    table = boto3.resource(
        "dynamodb", endpoint_url=args.endpoint, region_name="us-east-1",
        aws_access_key_id="local", aws_secret_access_key="local",
    ).Table(args.table)
    rng = random.Random(7)
    with table.batch_writer() as batch:
        for n in range(args.orders):
            order_id = f"lg{n:06d}"
            customer = f"c{rng.randint(1, 6)}"
            placed_at = f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z"
            lines = rng.sample(SKUS, rng.randint(1, 3))
            total = sum(Decimal(price) for _, price in lines)
            # The source design's three kinds of put_item: listing, then line items.
            batch.put_item(Item={
                "PK": f"CUSTOMER#{customer}", "SK": f"ORDER#{placed_at}#{order_id}",
                "orderId": order_id, "status": "PLACED", "total": total,
                "GSI1PK": "STATUS#PLACED", "GSI1SK": placed_at,
            })
            for sku, price in lines:
                batch.put_item(Item={"PK": f"ORDER#{order_id}", "SK": f"ITEM#{sku}",
                                     "quantity": 1, "price": Decimal(price)})
            if n % 2 == 1:
                # This store's API before GSI2 also wrote the header.
                batch.put_item(Item={"PK": f"ORDER#{order_id}", "SK": "HEADER", "customerId": customer,
                                     "placedAt": placed_at, "status": "PLACED", "total": total})
    print(f"{args.orders} orders written without GSI2 keys ({args.orders // 2} with a header)")


if __name__ == "__main__":
    main()
