//! A function's base: the DynamoDB SDK client on the store's HTTP stack, no provider client.
#[tokio::main(flavor = "current_thread")]
async fn main() {
    function_base().await;
}

// The base every probe shares: the DynamoDB SDK client, as each function has it.
include!("../../function_base.rs");
