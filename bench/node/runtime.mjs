// A minimal Lambda runtime loop for the Node.js peer, speaking the Runtime API as AWS's runtime
// interface client does: load the handler (`_HANDLER`, file.export) once, then ask for the next
// event, run the handler, post its result or its error, forever. Used instead of npm's
// aws-lambda-ric, whose native build (aws-lambda-cpp and curl from source) stops here for want
// of cmake (bench/node/README.md).
import http from "node:http";

const api = process.env.AWS_LAMBDA_RUNTIME_API;
const [file, name] = process.env._HANDLER.split(".");
const handler = (await import(`./${file}.mjs`))[name];
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function call(method, path, body) {
  return new Promise((resolve, reject) => {
    const [host, port] = api.split(":");
    const request = http.request({ host, port, path: `/2018-06-01/runtime${path}`, method, agent }, (response) => {
      const chunks = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks).toString() }),
      );
    });
    request.on("error", reject);
    if (body !== undefined) request.write(body);
    request.end();
  });
}

for (;;) {
  let next;
  try {
    next = await call("GET", "/invocation/next");
  } catch {
    process.exit(0); // the Runtime API went away: the sandbox is shutting down
  }
  if (next.status !== 200) process.exit(0); // no more events (410): as the runtime interface client ends
  const id = next.headers["lambda-runtime-aws-request-id"];
  try {
    const result = await handler(JSON.parse(next.body), { awsRequestId: id });
    await call("POST", `/invocation/${id}/response`, JSON.stringify(result));
  } catch (error) {
    await call("POST", `/invocation/${id}/error`, JSON.stringify({ errorMessage: String(error), errorType: error?.name ?? "Error" }));
  }
}
