// A hello world for calibration: the runtime and nothing else, as lambda-perf measures it.
export const handler = async () => ({ statusCode: 200, body: "hello" });
