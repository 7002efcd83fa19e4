/// What every function has before any provider client: the DynamoDB SDK client on the store's
/// HTTP stack, its request path linked (sent only if `PROBE_SEND` is set, never here).
async fn function_base() {
    let vars = |name: &str| match name {
        "AWS_REGION" => Some("us-east-1".to_owned()),
        "AWS_ACCESS_KEY_ID" | "AWS_SECRET_ACCESS_KEY" => Some("x".to_owned()),
        _ => None,
    };
    let env = shared::dynamo::client::Environment::read(vars).expect("env");
    let client = shared::dynamo::client::sdk_client(env);
    if std::env::var_os("PROBE_SEND").is_some() {
        let _ = client.get_item().table_name("t").send().await;
    }
    std::hint::black_box(&client);
}
