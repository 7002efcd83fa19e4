// The peer a team would write in Node.js: the source design's four read access patterns as
// Node.js 22 Lambda handlers behind API Gateway (HTTP API, payload 2.0), with AWS SDK v3 the way
// AWS's own examples write it: one client at module scope, the document client over it.
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";

const client = new DynamoDBClient({});
const ddb = DynamoDBDocumentClient.from(client);
const TableName = process.env.TABLE_NAME;

// The variant that does the first request's one-time work in init, where on-demand Lambda runs
// it at full CPU (store-bench sets BENCH_FIRST_REQUEST_IN_INIT=1): one read of a key no item has,
// which loads the command's middleware, resolves the credentials and the endpoint, and opens the
// connection, TLS handshake included.
if (process.env.BENCH_FIRST_REQUEST_IN_INIT === "1") {
  await ddb.send(new GetCommand({ TableName, Key: { PK: "WARMUP", SK: "WARMUP" } }));
}

const json = (body, statusCode = 200) => ({
  statusCode,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

export const getCustomer = async (event) => {
  const { customerId } = event.pathParameters;
  const { Item } = await ddb.send(new GetCommand({ TableName, Key: { PK: `CUSTOMER#${customerId}`, SK: "PROFILE" } }));
  return Item ? json(Item) : json({ message: "not found" }, 404);
};

export const listCustomerOrders = async (event) => {
  const { customerId } = event.pathParameters;
  const { Items } = await ddb.send(new QueryCommand({
    TableName,
    KeyConditionExpression: "PK = :pk AND begins_with(SK, :sk)",
    ExpressionAttributeValues: { ":pk": `CUSTOMER#${customerId}`, ":sk": "ORDER#" },
    ScanIndexForward: false,
  }));
  return json({ items: Items });
};

export const getOrderItems = async (event) => {
  const { orderId } = event.pathParameters;
  const { Items } = await ddb.send(new QueryCommand({
    TableName,
    KeyConditionExpression: "PK = :pk AND begins_with(SK, :sk)",
    ExpressionAttributeValues: { ":pk": `ORDER#${orderId}`, ":sk": "ITEM#" },
  }));
  return json({ items: Items });
};

export const listOrdersByStatus = async (event) => {
  const { status } = event.queryStringParameters;
  const { Items } = await ddb.send(new QueryCommand({
    TableName,
    IndexName: "GSI1",
    KeyConditionExpression: "GSI1PK = :pk",
    ExpressionAttributeValues: { ":pk": `STATUS#${status}` },
  }));
  return json({ items: Items });
};
