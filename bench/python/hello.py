"""A hello world for calibration: the runtime and nothing else, as lambda-perf measures it."""


def handler(event, context):
    return {"statusCode": 200, "body": "hello"}
